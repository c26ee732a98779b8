package interp

import (
	"fmt"
	"math"
)

// upsample_bicubic2d (+.vec, +backward): ATen's cubic convolution with
// A = -0.75 over the 4×4 neighbourhood, source positions unclamped
// (area_pixel_compute_source_index with cubic=true) and reads clamped to
// the plane (upsample_get_value_bounded).

func init() {
	register(kUpsampleBicubic2d, "upsample_bicubic2d", "upsample_bicubic2d.vec")
	register(kUpsampleBicubic2dBackward, "upsample_bicubic2d_backward")
}

// cubicTaps is, per output position, the floor of its source position and
// the four weights of rows floor-1 .. floor+2.
func cubicTaps(alignCorners bool, in, out int64, scale float64) ([]int64, [][4]float64) {
	var s float32
	switch {
	case alignCorners && out > 1:
		s = float32(in-1) / float32(out-1)
	case alignCorners:
		s = 0
	default:
		s = scaleValue(scale, in, out)
	}
	const a = -0.75
	cc1 := func(x float64) float64 { return ((a+2)*x-(a+3))*x*x + 1 }
	cc2 := func(x float64) float64 { return ((a*x-5*a)*x+8*a)*x - 4*a }
	base, w := make([]int64, out), make([][4]float64, out)
	for o := int64(0); o < out; o++ {
		src := s * float32(o)
		if !alignCorners {
			src = s*(float32(o)+0.5) - 0.5
		}
		f := math.Floor(float64(src))
		t := float64(src) - f
		base[o] = int64(f)
		w[o] = [4]float64{cc2(t + 1), cc1(t), cc1(1 - t), cc2(2 - t)}
	}
	return base, w
}

// bicubicGeom reads the input's spatial sizes, the output's and the taps.
func bicubicGeom(c *call, inSize []int64) (h, w, oh, ow int64, by, bx []int64, wy, wx [][4]float64, err error) {
	ac, err := c.bool("align_corners")
	if err != nil {
		return
	}
	size, scales, err := upsampleGeom(c, inSize, 2)
	if err != nil {
		return
	}
	h, w, oh, ow = inSize[2], inSize[3], size[0], size[1]
	by, wy = cubicTaps(ac, h, oh, scales[0])
	bx, wx = cubicTaps(ac, w, ow, scales[1])
	return
}

func clampIdx(i, n int64) int64 { return max(0, min(i, n-1)) }

func kUpsampleBicubic2d(c *call) ([]any, error) {
	t, err := c.tensor(c.op.Schema.Params[0].Name)
	if err != nil {
		return nil, err
	}
	if t.Dim() != 4 {
		return nil, fmt.Errorf("upsample_bicubic2d: expected a 4D input, got %dD", t.Dim())
	}
	h, w, oh, ow, by, bx, wy, wx, err := bicubicGeom(c, t.Shape)
	if err != nil {
		return nil, err
	}
	xs := contiguous(t).Floats()
	planes := t.Shape[0] * t.Shape[1]
	out := make([]float64, planes*oh*ow)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			for j := int64(0); j < ow; j++ {
				v := 0.0
				for a := int64(0); a < 4; a++ {
					y := clampIdx(by[i]-1+a, h)
					for b := int64(0); b < 4; b++ {
						v += wy[i][a] * wx[j][b] * xs[(p*h+y)*w+clampIdx(bx[j]-1+b, w)]
					}
				}
				out[(p*oh+i)*ow+j] = v
			}
		}
	}
	return one(FromFloatsOn(t.DType, []int64{t.Shape[0], t.Shape[1], oh, ow}, out, t.Device()))
}

func kUpsampleBicubic2dBackward(c *call) ([]any, error) {
	g, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	inSize, err := c.intList("input_size")
	if err != nil {
		return nil, err
	}
	if len(inSize) != 4 || g.Dim() != 4 {
		return nil, fmt.Errorf("upsample_bicubic2d_backward: expected 4D sizes, got %v", inSize)
	}
	h, w, oh, ow, by, bx, wy, wx, err := bicubicGeom(c, inSize)
	if err != nil {
		return nil, err
	}
	gs := contiguous(g).Floats()
	planes := inSize[0] * inSize[1]
	out := make([]float64, planes*h*w)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			for j := int64(0); j < ow; j++ {
				v := gs[(p*oh+i)*ow+j]
				for a := int64(0); a < 4; a++ {
					y := clampIdx(by[i]-1+a, h)
					for b := int64(0); b < 4; b++ {
						out[(p*h+y)*w+clampIdx(bx[j]-1+b, w)] += wy[i][a] * wx[j][b] * v
					}
				}
			}
		}
	}
	return one(FromFloatsOn(g.DType, inSize, out, g.Device()))
}
