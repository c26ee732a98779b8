package interp

import (
	"math/rand/v2"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Random max-pool indices. The indices max_pool2d_with_indices_backward
// reads are the forward pool's: each names an element inside its own
// window. Any other in-plane index is one PyTorch never produces, and on
// it eager (a scatter) and Inductor's lowering (a gather from the windows
// covering each element, lowering/rules_pool_backward.go) disagree; so a
// random input feeding that op gets, per output element, a random element
// of its window that lies inside the input.

// poolIndices fills such an input; ok is false when v feeds no max pool
// backward as its indices (or its layout is not contiguous).
func (m *machine) poolIndices(v *ir.Value, t ir.Type) (*Tensor, bool, error) {
	if t.Kind != ir.KindTensor || t.Tensor.DType != ir.I64 {
		return nil, false, nil
	}
	for _, u := range v.Users() {
		if u.Target != "aten::max_pool2d_with_indices_backward.default" {
			continue
		}
		c, err := ops.Bind(u)
		if err != nil || c.Arg("indices").Kind != ir.ArgValue || c.Arg("indices").Value != v {
			continue
		}
		w, ok := m.poolWindows(c)
		if !ok {
			continue
		}
		tt, err := m.concreteTensor(t.Tensor)
		if err != nil {
			return nil, false, err
		}
		if !tt.IsContiguous() || len(tt.Shape) < 2 {
			return nil, false, nil
		}
		oh, ow := tt.Shape[len(tt.Shape)-2], tt.Shape[len(tt.Shape)-1]
		rng := m.stream(v.Name)
		var i int64
		fillInts(tt, func() int64 {
			ph, pw := i/ow%max(oh, 1), i%max(ow, 1)
			i++
			return w.pick(rng, 0, ph)*w.size[1] + w.pick(rng, 1, pw)
		})
		return tt, true, nil
	}
	return nil, false, nil
}

// poolWindows is one pool call's geometry over the last two dims.
type poolWindows struct{ k, st, pad, dil, size [2]int64 }

func (m *machine) poolWindows(c *ops.Call) (poolWindows, bool) {
	var w poolWindows
	self, err := c.Tensor("self")
	if err != nil || self == nil || len(self.Shape) < 2 {
		return w, false
	}
	r := len(self.Shape)
	for d := range 2 {
		if w.size[d], err = m.evalSym(self.Shape[r-2+d]); err != nil {
			return w, false
		}
	}
	for _, p := range []struct {
		name string
		dst  *[2]int64
		def  [2]int64
	}{{"kernel_size", &w.k, [2]int64{}}, {"stride", &w.st, [2]int64{}}, {"padding", &w.pad, [2]int64{}}, {"dilation", &w.dil, [2]int64{1, 1}}} {
		xs, err := c.Ints(p.name)
		switch {
		case err != nil || len(xs) > 2:
			return w, false
		case len(xs) == 0:
			*p.dst = p.def
		case len(xs) == 1:
			*p.dst = [2]int64{xs[0], xs[0]}
		default:
			*p.dst = [2]int64{xs[0], xs[1]}
		}
	}
	if w.st == [2]int64{} {
		w.st = w.k
	}
	return w, w.k[0] > 0 && w.k[1] > 0 && w.st[0] > 0 && w.st[1] > 0
}

// pick is a random position along dim d inside window o and the input
// (0 when the window holds none).
func (w poolWindows) pick(rng *rand.Rand, d int, o int64) int64 {
	var in []int64
	for r := range w.k[d] {
		if p := o*w.st[d] - w.pad[d] + r*w.dil[d]; p >= 0 && p < w.size[d] {
			in = append(in, p)
		}
	}
	if len(in) == 0 {
		return 0
	}
	return in[rng.IntN(len(in))]
}
