package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// index_put(self, indices, values, accumulate): a copy kernel of self into
// the result, then a kernel over the indexing result's space (advIndex)
// that stores values[x] at result[indices at x] through indirect indices,
// or, with accumulate, loads, adds and stores. Accumulation with repeated
// indices would race if the kernel were split across threads, so such a
// kernel is Serial; a plain put with repeated indices is undefined in
// PyTorch ("the behavior is undefined if indices contain duplicate
// elements") and stays parallel.

func indexPutRules() map[string]rule {
	return map[string]rule{
		"index_put":         lowerIndexPut,
		"_unsafe_index_put": lowerIndexPut,
	}
}

func lowerIndexPut(l *lowerer, c *ops.Call) error {
	if m, ok := maskedPut(c); ok {
		return l.lowerMaskedPut(c, m)
	}
	out, self, err := l.copyOfSelf(c)
	if err != nil {
		return err
	}
	values, err := l.ref(c.Arg("values"))
	if err != nil {
		return err
	}
	acc, err := c.Bool("accumulate")
	if err != nil {
		return err
	}
	a, err := l.planAdvIndex(c, self.layout.Shape)
	if err != nil {
		return err
	}
	x := outerVars(len(a.shape))
	b := l.newKernel(a.shape)
	dst, ind := a.at(b, x)
	v := b.load(values, broadcastIndex(values.layout.Shape, a.shape, x))
	if acc {
		v = b.accumulate(out, dst, ind, "add", v)
	}
	b.scatterStore(out, dst, ind, v)
	return nil
}

// copyOfSelf allocates the node's result and emits the kernel copying self
// into it: the first kernel of every scatter-like op.
func (l *lowerer) copyOfSelf(c *ops.Call) (out, self tensorRef, err error) {
	out, in, err := l.operands(c, "self")
	if err != nil {
		return tensorRef{}, tensorRef{}, err
	}
	l.copyKernel(out, in[0])
	return out, in[0], nil
}

// scatterStore stores x into r at idx, whose entries may name the tmps in
// ind. Where the store lands depends on loaded data, so the kernel is not
// vectorized.
func (b *kbuilder) scatterStore(r tensorRef, idx []sym.Expr, ind []*Instr, x *Instr) {
	b.k.Vec = 1
	b.store(r, idx, x)
	st := b.st.Body[len(b.st.Body)-1]
	st.Access.Indirect = ind
}

// intLimit is the smallest (or largest) value of an integer or bool dtype:
// the identity of amax (amin) there.
func intLimit(dt ir.DType, largest bool) int64 {
	if dt == ir.Bool {
		if largest {
			return 1
		}
		return 0
	}
	bits := uint(dt.ItemSize() * 8)
	switch {
	case dt.IsSigned() && largest:
		return int64(uint64(1)<<(bits-1) - 1)
	case dt.IsSigned():
		return -int64(uint64(1) << (bits - 1))
	case largest && bits == 64:
		return -1 // all ones: uint64's maximum in an int64 register
	case largest:
		return int64(uint64(1)<<bits - 1)
	}
	return 0
}
