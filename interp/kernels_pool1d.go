package interp

import "fmt"

// The 1-d average pools over the last dim, as Pooling.cpp runs them through
// the 2-d kernels: a window's sum over its in-bounds elements, divided by
// the window's size clipped to the padded input (count_include_pad) or to
// the input.

func init() {
	register(kAvgPool1d, "avg_pool1d")
	register(kAdaptiveAvgPool1d, "adaptive_avg_pool1d")
}

// rows1d splits t into planes of its last dim.
func rows1d(t *Tensor, op string) (planes, l int64, err error) {
	if t.Dim() != 2 && t.Dim() != 3 {
		return 0, 0, fmt.Errorf("%s() Expected 2D or 3D input tensor, but got %v", op, t.Shape)
	}
	l = t.Shape[t.Dim()-1]
	return numel(t.Shape) / max(l, 1), l, nil
}

func kAvgPool1d(c *call) ([]any, error) {
	x, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	planes, l, err := rows1d(x, "avg_pool1d")
	if err != nil {
		return nil, err
	}
	k, err := c.intList("kernel_size")
	if err != nil {
		return nil, err
	}
	st, err := c.intList("stride")
	if err != nil {
		return nil, err
	}
	if len(st) == 0 {
		st = k
	}
	pad, err := c.intList("padding")
	if err != nil {
		return nil, err
	}
	ceil, err := c.bool("ceil_mode")
	if err != nil {
		return nil, err
	}
	includePad, err := c.bool("count_include_pad")
	if err != nil {
		return nil, err
	}
	out := poolOut(l, k[0], pad[0], st[0], 1, ceil)
	xs := x.Floats()
	vals := make([]float64, planes*out)
	for p := int64(0); p < planes; p++ {
		row := xs[p*l : (p+1)*l]
		for i := int64(0); i < out; i++ {
			start := i*st[0] - pad[0]
			end := min(start+k[0], l+pad[0])
			size := end - start
			start, end = max(start, 0), min(end, l)
			if !includePad {
				size = end - start
			}
			s := 0.0
			for j := start; j < end; j++ {
				s += row[j]
			}
			vals[p*out+i] = s / float64(size)
		}
	}
	shape := append(clone64(x.Shape[:x.Dim()-1]), out)
	return one(FromFloatsOn(x.DType, shape, vals, x.Device()))
}

func kAdaptiveAvgPool1d(c *call) ([]any, error) {
	x, size, err := c.selfIntList("output_size")
	if err != nil {
		return nil, err
	}
	planes, l, err := rows1d(x, "adaptive_avg_pool1d")
	if err != nil {
		return nil, err
	}
	if len(size) != 1 {
		return nil, fmt.Errorf("adaptive_avg_pool1d: output_size must be 1")
	}
	out := size[0]
	xs := x.Floats()
	vals := make([]float64, planes*out)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < out; i++ {
			l0, l1 := adaptiveRange(i, l, out)
			s := 0.0
			for j := l0; j < l1; j++ {
				s += xs[p*l+j]
			}
			vals[p*out+i] = s / float64(l1-l0)
		}
	}
	shape := append(clone64(x.Shape[:x.Dim()-1]), out)
	return one(FromFloatsOn(x.DType, shape, vals, x.Device()))
}
