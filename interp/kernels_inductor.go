package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Inductor's prims (torch/_inductor/inductor_prims.py) that post-grad
// graphs keep: the online-softmax statistics and the low-memory max pool's
// offsets turned back into flat indices.

// kPrepareSoftmaxOnline returns (max, Σ exp(a - max)) over dim, kept as 1.
func kPrepareSoftmaxOnline(c *call) ([]any, error) {
	a, err := c.tensor("a")
	if err != nil {
		return nil, err
	}
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	var sums []float64
	maxes, err := alongDim(a, dim, a.DType, func(xs []float64) []float64 {
		m := math.Inf(-1)
		for _, x := range xs {
			if x != x {
				m = x
				break
			}
			m = math.Max(m, x)
		}
		s := 0.0
		for _, x := range xs {
			s += math.Exp(x - m)
		}
		sums = append(sums, s)
		out := make([]float64, len(xs))
		for i := range out {
			out[i] = m
		}
		return out
	})
	if err != nil {
		return nil, err
	}
	d, _ := wrapDim(dim, a.Dim())
	if a.Dim() == 0 {
		return []any{maxes, FromFloatsOn(a.DType, []int64{}, sums, a.Device())}, nil
	}
	first, err := sliceView(maxes, int64(d), ptr(0), ptr(1), 1)
	if err != nil {
		return nil, err
	}
	m := contiguous(first)
	// alongDim visits lanes in the order of the lanes' offsets with dim
	// moved last: the same row-major order as the kept-dim result.
	return []any{m, FromFloatsOn(a.DType, m.Shape, sums, a.Device())}, nil
}

// kOffsetsToIndices maps each output position's window offset (kh·kW + kw)
// to the flat index h·W + w of the input element it names.
func kOffsetsToIndices(c *call) ([]any, error) {
	offs, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	var p [5][]int64
	for i, name := range []string{"kernel_size", "input_size", "stride", "padding", "dilation"} {
		if p[i], err = c.intList(name); err != nil {
			return nil, err
		}
		if len(p[i]) != 2 {
			return nil, fmt.Errorf("_low_memory_max_pool_offsets_to_indices: %s must have 2 elements", name)
		}
	}
	k, in, st, pad, dil := p[0], p[1], p[2], p[3], p[4]
	if offs.Dim() < 2 {
		return nil, fmt.Errorf("_low_memory_max_pool_offsets_to_indices: expected at least 2 dims")
	}
	oh, ow := offs.Shape[offs.Dim()-2], offs.Shape[offs.Dim()-1]
	vals := offs.Ints()
	out := make([]int64, len(vals))
	for i, o := range vals {
		r, col := int64(i)/ow%oh, int64(i)%ow
		h := r*st[0] - pad[0] + o/k[1]*dil[0]
		w := col*st[1] - pad[1] + o%k[1]*dil[1]
		out[i] = h*in[1] + w
	}
	return one(FromInts(ir.I64, offs.Shape, out))
}

func init() {
	register(kPrepareSoftmaxOnline, "prims::prepare_softmax_online")
	register(kOffsetsToIndices, "prims::_low_memory_max_pool_offsets_to_indices")
}
