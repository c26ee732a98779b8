package rt

import (
	"fmt"
	"slices"
)

// adaptiveAvgPool2dBackward is aten::_adaptive_avg_pool2d_backward
// (grad_output, self) on CPU, as ATen's cpu_adaptive_avg_pool_backward
// (aten/src/ATen/native/cpu/AdaptiveAvgPoolKernel.cpp) computes it: per
// plane, each output element's gradient divided by its window's height
// and then its width, in T, added to every input element of the window,
// output elements in row-major order. self gives only the shape.
func adaptiveAvgPool2dBackward[T float32 | float64](out *Tensor, args []*Tensor) error {
	const op = "aten::_adaptive_avg_pool2d_backward"
	if len(args) != 2 || args[0] == nil || args[1] == nil {
		return fmt.Errorf("%s: want grad_output and self, got %d operands", op, len(args))
	}
	g, x := args[0], args[1]
	r := len(x.Shape)
	if (r != 3 && r != 4) || len(g.Shape) != r || !slices.Equal(g.Shape[:r-2], x.Shape[:r-2]) {
		return fmt.Errorf("%s: grad_output %v and self %v are not 3-d or 4-d with the same leading sizes", op, g.Shape, x.Shape)
	}
	if !slices.Equal(out.Shape, x.Shape) {
		return fmt.Errorf("%s: output has shape %v, want %v", op, out.Shape, x.Shape)
	}
	gv, err := loadAs[T](g)
	if err != nil {
		return fmt.Errorf("%s: grad_output: %w", op, err)
	}
	ih, iw, oh, ow := x.Shape[r-2], x.Shape[r-1], g.Shape[r-2], g.Shape[r-1]
	planes := Numel(x.Shape[:r-2])
	gx := make([]T, Numel(x.Shape))
	_ = ParallelFor(planes, oh*ow*(ih/max(oh, 1)+1)*(iw/max(ow, 1)+1), func(lo, hi int64) error {
		for p := lo; p < hi; p++ {
			src, dst := gv[p*oh*ow:(p+1)*oh*ow], gx[p*ih*iw:(p+1)*ih*iw]
			for i := range oh {
				h0, h1 := i*ih/oh, ((i+1)*ih+oh-1)/oh
				for j := range ow {
					w0, w1 := j*iw/ow, ((j+1)*iw+ow-1)/ow
					d := src[i*ow+j] / T(h1-h0) / T(w1-w0)
					for y := h0; y < h1; y++ {
						for x := w0; x < w1; x++ {
							dst[y*iw+x] += d
						}
					}
				}
			}
		}
		return nil
	})
	return storeAs(out, gx)
}
