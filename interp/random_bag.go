package interp

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// embedding_bag's offsets must start at 0 and never decrease or pass the
// number of indices (eager refuses other offsets): an integer input an
// embedding_bag call takes as offsets gets sorted random offsets in
// [0, n], the first 0.

var bagOps = map[string]bool{"_embedding_bag": true, "_embedding_bag_forward_only": true, "_embedding_bag_backward": true}

// bagOffsets fills such an input; ok is false when v is no bag's offsets.
func (m *machine) bagOffsets(v *ir.Value, t ir.Type) (*Tensor, bool, error) {
	if t.Kind != ir.KindTensor || t.Tensor.DType.IsFloat() || len(t.Tensor.Shape) != 1 {
		return nil, false, nil
	}
	for _, u := range v.Users() {
		op, isOp := u.Op.(*ops.Op)
		if !isOp || op == nil || !bagOps[op.Schema.Name] {
			continue
		}
		c, err := ops.Bind(u)
		if err != nil || c.Arg("offsets").Kind != ir.ArgValue || c.Arg("offsets").Value != v {
			continue
		}
		idx, err := c.Tensor("indices")
		if err != nil || idx == nil || len(idx.Shape) != 1 {
			continue
		}
		n, err := m.evalSym(idx.Shape[0])
		if err != nil {
			return nil, false, err
		}
		tt, err := m.concreteTensor(t.Tensor)
		if err != nil {
			return nil, false, err
		}
		rng := m.stream(v.Name)
		offs := make([]int64, max(tt.Numel(), 0))
		for i := 1; i < len(offs); i++ {
			offs[i] = rng.Int64N(n + 1)
		}
		slices.Sort(offs[1:])
		i := 0
		fillInts(tt, func() int64 { i++; return offs[i-1] })
		return tt, true, nil
	}
	return nil, false, nil
}
