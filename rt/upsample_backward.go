package rt

import (
	"fmt"
	"math"
)

// upsampleBilinear2dBackward is aten::upsample_bilinear2d_backward
// (grad_output; output_size, input_size, align_corners; scales None) as
// ATen's cpu_upsample_linear_backward (aten/src/ATen/native/cpu/
// UpSampleKernel.cpp) computes it: per plane, for each output element in
// row-major order, its gradient times each corner's weights added to the
// four input elements (i00, i01, i10, i11), in T (opmath: float32 for
// f32 and the reduced floats). The source index and weights are
// compute_source_index_and_lambda's, in T. ATen's AVX2 and AVX-512 builds
// of the kernel (the ones x86 dispatches to) contract scale * (o + 0.5) -
// 0.5 and each acc += w * g into fused multiply-adds, so rt rounds them
// once too (bit-exact with PyTorch 2.15 on tools/externs/gen.py's cases;
// PyTorch's own scalar build would round twice).
func upsampleBilinear2dBackward[T float32 | float64](out *Tensor, args []*Tensor, params map[string][]int64) error {
	const op = "aten::upsample_bilinear2d_backward"
	if len(args) != 1 || args[0] == nil {
		return fmt.Errorf("%s: want grad_output, got %d operands", op, len(args))
	}
	g := args[0]
	osz, isz, al := params["output_size"], params["input_size"], params["align_corners"]
	if len(osz) != 2 || len(isz) != 4 || len(g.Shape) != 4 || len(out.Shape) != 4 ||
		g.Shape[2] != osz[0] || g.Shape[3] != osz[1] || out.Shape[2] != isz[2] || out.Shape[3] != isz[3] ||
		g.Shape[0]*g.Shape[1] != out.Shape[0]*out.Shape[1] {
		return fmt.Errorf("%s: grad_output %v, output %v do not fit output_size %v and input_size %v", op, g.Shape, out.Shape, osz, isz)
	}
	align := len(al) > 0 && al[0] != 0
	gv, err := loadAs[T](g)
	if err != nil {
		return fmt.Errorf("%s: grad_output: %w", op, err)
	}
	oh, ow, ih, iw := osz[0], osz[1], isz[2], isz[3]
	hs, ws := linearTaps[T](ih, oh, align), linearTaps[T](iw, ow, align)
	planes := out.Shape[0] * out.Shape[1]
	gx := make([]T, planes*ih*iw)
	_ = ParallelFor(planes, oh*ow*4, func(lo, hi int64) error {
		for p := lo; p < hi; p++ {
			src, dst := gv[p*oh*ow:(p+1)*oh*ow], gx[p*ih*iw:(p+1)*ih*iw]
			for y := range oh {
				h := hs[y]
				for x := range ow {
					w := ws[x]
					v := src[y*ow+x]
					for _, k := range [4]struct {
						at int64
						w  T
					}{{h.i0*iw + w.i0, h.l0 * w.l0}, {h.i0*iw + w.i1, h.l0 * w.l1}, {h.i1*iw + w.i0, h.l1 * w.l0}, {h.i1*iw + w.i1, h.l1 * w.l1}} {
						dst[k.at] = fmaT(k.w, v, dst[k.at])
					}
				}
			}
		}
		return nil
	})
	return storeAs(out, gx)
}

// linearTap is one output index's two source indices and their weights.
type linearTap[T float32 | float64] struct {
	i0, i1 int64
	l0, l1 T
}

// linearTaps is compute_source_index_and_lambda for every output index,
// with area_pixel_compute_scale's ratio (scales None), all in T.
func linearTaps[T float32 | float64](in, out int64, align bool) []linearTap[T] {
	taps := make([]linearTap[T], out)
	var ratio T
	switch {
	case align && out > 1:
		ratio = T(in-1) / T(out-1)
	case !align:
		ratio = T(in) / T(out)
	}
	for o := range out {
		if out == in {
			taps[o] = linearTap[T]{i0: o, i1: o, l0: 1}
			continue
		}
		var real T
		if align {
			real = ratio * T(o)
		} else {
			real = max(fmaT(ratio, T(o)+0.5, -0.5), 0)
		}
		i0 := min(int64(math.Floor(float64(real))), in-1)
		l1 := min(max(real-T(i0), 0), 1)
		i1 := i0
		if i0 < in-1 {
			i1++
		}
		taps[o] = linearTap[T]{i0: i0, i1: i1, l0: 1 - l1, l1: l1}
	}
	return taps
}

// fmaT is x·y + z rounded once in T.
func fmaT[T float32 | float64](x, y, z T) T {
	if f, ok := any(x).(float32); ok {
		return T(FMA32(f, float32(y), float32(z)))
	}
	return T(math.FMA(float64(x), float64(y), float64(z)))
}
