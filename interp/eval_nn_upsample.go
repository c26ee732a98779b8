package interp

import (
	"fmt"
	"math"
	"strings"
)

// upsample_nearest{1,3}d, _upsample_nearest_exact{1,2,3}d and
// upsample_linear1d, their .vec forms and backward. Source positions are
// computed in float32 as ATen's CPU kernels do (compute_scales_value,
// nearest_idx, area_pixel_compute_source_index), so ties round alike.

func init() {
	register(kUpsampleNearest, "upsample_nearest1d", "upsample_nearest1d.vec", "upsample_nearest3d", "upsample_nearest3d.vec",
		"_upsample_nearest_exact1d", "_upsample_nearest_exact1d.vec", "_upsample_nearest_exact2d", "_upsample_nearest_exact2d.vec",
		"_upsample_nearest_exact3d", "_upsample_nearest_exact3d.vec")
	register(kUpsampleNearestBackward, "upsample_nearest1d_backward", "upsample_nearest2d_backward", "upsample_nearest3d_backward",
		"_upsample_nearest_exact1d_backward", "_upsample_nearest_exact2d_backward", "_upsample_nearest_exact3d_backward")
	register(kUpsampleLinear1d, "upsample_linear1d", "upsample_linear1d.vec")
	register(kUpsampleLinear1dBackward, "upsample_linear1d_backward")
}

// upsampleGeom reads the output's spatial sizes and the per-dim scales
// (0 when none was given) for an input whose last k dims are spatial.
func upsampleGeom(c *call, in []int64, k int) (out []int64, scales []float64, err error) {
	scales = make([]float64, k)
	if c.has("scale_factors") && !c.isNone("scale_factors") {
		x, _ := c.val("scale_factors")
		list, _ := x.([]any)
		if len(list) != k {
			return nil, nil, fmt.Errorf("%s: expected %d scale factors, got %d", c.op.Schema.Name, k, len(list))
		}
		for i, e := range list {
			scales[i], _ = num(e)
			out = append(out, int64(math.Floor(float64(in[len(in)-k+i])*scales[i])))
		}
		return out, scales, nil
	}
	if out, err = c.intList("output_size"); err != nil {
		return nil, nil, err
	}
	if len(out) != k {
		return nil, nil, fmt.Errorf("It is expected output_size equals to %d, but got size %d", k, len(out))
	}
	names := map[int][]string{1: {"scales"}, 2: {"scales_h", "scales_w"}, 3: {"scales_d", "scales_h", "scales_w"}}[k]
	for i, name := range names {
		if c.has(name) && !c.isNone(name) {
			if scales[i], err = c.float(name); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, scales, nil
}

// spatialRank is k of an op named "..._{k}d...".
func spatialRank(name string) int {
	for k := 1; k <= 3; k++ {
		if strings.Contains(name, fmt.Sprintf("%dd", k)) {
			return k
		}
	}
	return 0
}

// scaleValue is ATen's compute_scales_value: 1/scale when given, else
// in/out, in float32.
func scaleValue(scale float64, in, out int64) float32 {
	if scale > 0 {
		return float32(1 / scale)
	}
	return float32(in) / float32(out)
}

// nearestMap maps each output position to its source, per spatial dim.
func nearestMap(exact bool, in, out []int64, scales []float64) [][]int64 {
	m := make([][]int64, len(in))
	for d := range in {
		s := scaleValue(scales[d], in[d], out[d])
		m[d] = make([]int64, out[d])
		for o := range m[d] {
			var src int64
			switch {
			case exact:
				src = int64(math.Floor(float64((float32(o) + 0.5) * s)))
			case out[d] == in[d]:
				src = int64(o)
			case out[d] == 2*in[d]:
				src = int64(o) >> 1
			default:
				src = int64(math.Floor(float64(float32(o) * s)))
			}
			m[d][o] = min(src, in[d]-1)
		}
	}
	return m
}

func kUpsampleNearest(c *call) ([]any, error) {
	t, err := c.tensor(c.op.Schema.Params[0].Name)
	if err != nil {
		return nil, err
	}
	k := spatialRank(c.op.Schema.Name)
	if t.Dim() != k+2 {
		return nil, fmt.Errorf("%s: expected a %dD input, got %dD", c.op.Schema.Name, k+2, t.Dim())
	}
	size, scales, err := upsampleGeom(c, t.Shape, k)
	if err != nil {
		return nil, err
	}
	m := nearestMap(strings.Contains(c.op.Schema.Name, "exact"), t.Shape[2:], size, scales)
	shape := append(clone64(t.Shape[:2]), size...)
	return oneT(gatherBy(t, shape, func(out, in []int64) bool {
		in[0], in[1] = out[0], out[1]
		for d := 0; d < k; d++ {
			in[2+d] = m[d][out[2+d]]
		}
		return true
	}))
}

func kUpsampleNearestBackward(c *call) ([]any, error) {
	g, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	inSize, err := c.intList("input_size")
	if err != nil {
		return nil, err
	}
	k := spatialRank(c.op.Schema.Name)
	if len(inSize) != k+2 || g.Dim() != k+2 {
		return nil, fmt.Errorf("%s: expected input_size of %d dims, got %v", c.op.Schema.Name, k+2, inSize)
	}
	size, scales, err := upsampleGeom(c, inSize, k)
	if err != nil {
		return nil, err
	}
	m := nearestMap(strings.Contains(c.op.Schema.Name, "exact"), inSize[2:], size, scales)
	return oneT(scatterAddBy(g, g.DType, inSize, func(gi, out []int64) bool {
		out[0], out[1] = gi[0], gi[1]
		for d := 0; d < k; d++ {
			out[2+d] = m[d][gi[2+d]]
		}
		return true
	}))
}

// linearTaps is, per output position, the two source positions and the
// weight of the second (area_pixel_compute_source_index, non-cubic).
func linearTaps(alignCorners bool, in, out int64, scale float64) (i0, i1 []int64, l1 []float64) {
	var s float32
	switch {
	case alignCorners && out > 1:
		s = float32(in-1) / float32(out-1)
	case alignCorners:
		s = 0
	default:
		s = scaleValue(scale, in, out)
	}
	i0, i1, l1 = make([]int64, out), make([]int64, out), make([]float64, out)
	for o := int64(0); o < out; o++ {
		src := s * float32(o)
		if !alignCorners {
			src = max(s*(float32(o)+0.5)-0.5, 0)
		}
		i0[o] = int64(src)
		if i0[o] < in-1 {
			i1[o] = i0[o] + 1
		} else {
			i1[o] = i0[o]
		}
		l1[o] = float64(src - float32(i0[o]))
	}
	return i0, i1, l1
}

func kUpsampleLinear1d(c *call) ([]any, error) {
	t, err := c.tensor(c.op.Schema.Params[0].Name)
	if err != nil {
		return nil, err
	}
	if t.Dim() != 3 {
		return nil, fmt.Errorf("upsample_linear1d: expected a 3D input, got %dD", t.Dim())
	}
	ac, err := c.bool("align_corners")
	if err != nil {
		return nil, err
	}
	size, scales, err := upsampleGeom(c, t.Shape, 1)
	if err != nil {
		return nil, err
	}
	in, out := t.Shape[2], size[0]
	i0, i1, l1 := linearTaps(ac, in, out, scales[0])
	xs := contiguous(t).Floats()
	planes := t.Shape[0] * t.Shape[1]
	res := make([]float64, planes*out)
	for p := int64(0); p < planes; p++ {
		for o := int64(0); o < out; o++ {
			res[p*out+o] = (1-l1[o])*xs[p*in+i0[o]] + l1[o]*xs[p*in+i1[o]]
		}
	}
	return one(FromFloatsOn(t.DType, []int64{t.Shape[0], t.Shape[1], out}, res, t.Device()))
}

func kUpsampleLinear1dBackward(c *call) ([]any, error) {
	g, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	inSize, err := c.intList("input_size")
	if err != nil {
		return nil, err
	}
	ac, err := c.bool("align_corners")
	if err != nil {
		return nil, err
	}
	if len(inSize) != 3 || g.Dim() != 3 {
		return nil, fmt.Errorf("upsample_linear1d_backward: expected 3D sizes, got %v", inSize)
	}
	size, scales, err := upsampleGeom(c, inSize, 1)
	if err != nil {
		return nil, err
	}
	in, out := inSize[2], size[0]
	i0, i1, l1 := linearTaps(ac, in, out, scales[0])
	gs := contiguous(g).Floats()
	planes := inSize[0] * inSize[1]
	res := make([]float64, planes*in)
	for p := int64(0); p < planes; p++ {
		for o := int64(0); o < out; o++ {
			res[p*in+i0[o]] += (1 - l1[o]) * gs[p*out+o]
			res[p*in+i1[o]] += l1[o] * gs[p*out+o]
		}
	}
	return one(FromFloatsOn(g.DType, inSize, res, g.Device()))
}
