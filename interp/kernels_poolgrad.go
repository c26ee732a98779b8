package interp

import "fmt"

// Adaptive average pooling and the 2-d pooling backward kernels
// (aten/src/ATen/native/cpu/AdaptiveAvgPoolKernel.cpp, AvgPoolKernel.cpp,
// MaxPoolKernel.cpp): the gradient of each output element is spread over
// the input elements its window read.

// adaptiveRange is output index i's input window [start, end) for an
// input of size in pooled to out: floor(i·in/out) to ceil((i+1)·in/out).
func adaptiveRange(i, in, out int64) (int64, int64) {
	return i * in / out, ((i+1)*in + out - 1) / out
}

// planes2d splits t into its leading planes and the last two sizes.
func planes2d(t *Tensor) (planes, h, w int64, err error) {
	if t.Dim() != 3 && t.Dim() != 4 {
		return 0, 0, 0, fmt.Errorf("non-empty 3D or 4D (batch mode) tensor expected for input")
	}
	h, w = t.Shape[t.Dim()-2], t.Shape[t.Dim()-1]
	return numel(t.Shape) / max(h*w, 1), h, w, nil
}

func kAdaptiveAvgPool2d(c *call) ([]any, error) {
	x, size, err := c.selfIntList("output_size")
	if err != nil {
		return nil, err
	}
	planes, h, w, err := planes2d(x)
	if err != nil {
		return nil, err
	}
	if len(size) != 2 {
		return nil, fmt.Errorf("adaptive_avg_pool2d: output_size must be 2")
	}
	oh, ow := size[0], size[1]
	xs := x.Floats()
	out := make([]float64, planes*oh*ow)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			h0, h1 := adaptiveRange(i, h, oh)
			for j := int64(0); j < ow; j++ {
				w0, w1 := adaptiveRange(j, w, ow)
				s := 0.0
				for r := h0; r < h1; r++ {
					for q := w0; q < w1; q++ {
						s += xs[p*h*w+r*w+q]
					}
				}
				out[p*oh*ow+i*ow+j] = s / float64((h1-h0)*(w1-w0))
			}
		}
	}
	return one(FromFloatsOn(x.DType, append(clone64(x.Shape[:x.Dim()-2]), oh, ow), out, x.Device()))
}

func kAdaptiveAvgPool2dBackward(c *call) ([]any, error) {
	g, x, err := c.tensor2("grad_output", "self")
	if err != nil {
		return nil, err
	}
	planes, h, w, err := planes2d(x)
	if err != nil {
		return nil, err
	}
	oh, ow := g.Shape[g.Dim()-2], g.Shape[g.Dim()-1]
	out := spreadOverWindows(g.Floats(), x.Numel(), planes, h, w, oh, ow, func(i, j int64) (h0, h1, w0, w1, div int64) {
		h0, h1 = adaptiveRange(i, h, oh)
		w0, w1 = adaptiveRange(j, w, ow)
		return h0, h1, w0, w1, (h1 - h0) * (w1 - w0)
	})
	return one(FromFloatsOn(x.DType, x.Shape, out, x.Device()))
}

// spreadOverWindows is the backward of a windowed mean: each output (plane p,
// row i, column j) adds its gradient divided by div to every input element of
// its window [h0, h1) × [w0, w1).
func spreadOverWindows(gs []float64, n, planes, h, w, oh, ow int64, window func(i, j int64) (h0, h1, w0, w1, div int64)) []float64 {
	out := make([]float64, n)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			for j := int64(0); j < ow; j++ {
				h0, h1, w0, w1, div := window(i, j)
				v := gs[p*oh*ow+i*ow+j] / float64(div)
				for r := h0; r < h1; r++ {
					for q := w0; q < w1; q++ {
						out[p*h*w+r*w+q] += v
					}
				}
			}
		}
	}
	return out
}

// kAvgPool2dBackward spreads grad/divisor over each window's in-bounds
// elements, with the forward's divisor (padding counted or not, or
// divisor_override).
func kAvgPool2dBackward(c *call) ([]any, error) {
	g, x, err := c.tensor2("grad_output", "self")
	if err != nil {
		return nil, err
	}
	pg, err := poolArgs(c, true)
	if err != nil {
		return nil, err
	}
	planes, h, w, err := planes2d(x)
	if err != nil {
		return nil, err
	}
	oh, ow := g.Shape[g.Dim()-2], g.Shape[g.Dim()-1]
	out := spreadOverWindows(g.Floats(), x.Numel(), planes, h, w, oh, ow, func(i, j int64) (h0, h1, w0, w1, div int64) {
		h0, w0 = i*pg.st[0]-pg.pad[0], j*pg.st[1]-pg.pad[1]
		h1, w1 = min(h0+pg.k[0], h+pg.pad[0]), min(w0+pg.k[1], w+pg.pad[1])
		div = (h1 - h0) * (w1 - w0)
		h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
		switch {
		case pg.divisor != 0:
			div = pg.divisor
		case !pg.countPad:
			div = (h1 - h0) * (w1 - w0)
		}
		return h0, h1, w0, w1, max(div, 1)
	})
	return one(FromFloatsOn(x.DType, x.Shape, out, x.Device()))
}

// kMaxPool2dBackward adds each output's gradient at the input element its
// index names (a flat index within the plane).
func kMaxPool2dBackward(c *call) ([]any, error) {
	g, x, err := c.tensor2("grad_output", "self")
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor("indices")
	if err != nil {
		return nil, err
	}
	planes, h, w, err := planes2d(x)
	if err != nil {
		return nil, err
	}
	per := numel(g.Shape) / max(planes, 1)
	gs, ix := g.Floats(), idx.Ints()
	out := make([]float64, x.Numel())
	for o, v := range gs {
		at := ix[o]
		if at < 0 || at >= h*w {
			return nil, fmt.Errorf("max_pool2d_with_indices_backward: index %d out of range for a %dx%d plane", at, h, w)
		}
		out[int64(o)/per*h*w+at] += v
	}
	return one(FromFloatsOn(x.DType, x.Shape, out, x.Device()))
}

func init() {
	register(kAdaptiveAvgPool2d, "_adaptive_avg_pool2d", "adaptive_avg_pool2d")
	register(kAdaptiveAvgPool2dBackward, "_adaptive_avg_pool2d_backward")
	register(kAvgPool2dBackward, "avg_pool2d_backward")
	register(kMaxPool2dBackward, "max_pool2d_with_indices_backward")
}
