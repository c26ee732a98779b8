package lowering

import (
	"fmt"
	"strconv"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Indirect indexing: a kernel loads an index tensor into an int64
// instruction, and the gathered load's index names it as the symbol
// "tmp<ID>" (Access.Indirect lists it). Negative indices wrap where
// PyTorch allows them (index.Tensor), as Python indexing does.

func indirectRules() map[string]rule {
	return map[string]rule{
		"embedding":            lowerEmbedding,
		"index_select":         lowerIndexSelect,
		"gather":               lowerGather,
		"index.Tensor":         lowerIndex,
		"_unsafe_index.Tensor": lowerIndex,
	}
}

// tmpSym is the index-expression symbol naming an instruction.
func tmpSym(in *Instr) sym.Expr { return sym.Symbol("tmp" + strconv.Itoa(in.ID)) }

// loadIndex reads an index tensor at idx as int64; wrap adds size to a
// negative index.
func (b *kbuilder) loadIndex(r tensorRef, idx []sym.Expr, size sym.Expr, wrap bool) *Instr {
	t := b.cast(b.load(r, idx), ir.I64)
	if !wrap {
		return t
	}
	neg := b.call("lt", ir.Bool, t, b.constInt(0, ir.I64))
	return b.call("where", ir.I64, neg, b.call("add", ir.I64, t, b.index(size, ir.I64)), t)
}

// gatherLoad loads r at idx, whose entries may name the tmps in ind.
func (b *kbuilder) gatherLoad(r tensorRef, idx []sym.Expr, ind []*Instr) *Instr {
	in := b.load(r, idx)
	in.Access.Indirect = ind
	return in
}

func lowerEmbedding(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	w, err := l.ref(c.Arg("weight"))
	if err != nil {
		return err
	}
	ix, err := l.ref(c.Arg("indices"))
	if err != nil {
		return err
	}
	if len(w.layout.Shape) != 2 {
		return noLowering(c.Node, "", "embedding with a weight of rank %d", len(w.layout.Shape))
	}
	shape := out.layout.Shape
	x := outerVars(len(shape))
	b := l.newKernel(shape)
	t := b.loadIndex(ix, x[:len(shape)-1], w.layout.Shape[0], false)
	b.store(out, x, b.gatherLoad(w, []sym.Expr{tmpSym(t), x[len(shape)-1]}, []*Instr{t}))
	return nil
}

func lowerIndexSelect(l *lowerer, c *ops.Call) error {
	return selectAlong(l, c, func(x []sym.Expr, d int) []sym.Expr { return x[d : d+1] })
}

func lowerGather(l *lowerer, c *ops.Call) error {
	return selectAlong(l, c, func(x []sym.Expr, _ int) []sym.Expr { return x })
}

// selectAlong is index_select / gather: the result at x reads self at x
// with dim replaced by index[at(x)].
func selectAlong(l *lowerer, c *ops.Call, at func(x []sym.Expr, d int) []sym.Expr) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	self, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	ix, err := l.ref(c.Arg("index"))
	if err != nil {
		return err
	}
	dim, err := c.Int("dim")
	if err != nil {
		return err
	}
	rank := len(self.layout.Shape)
	if rank == 0 || len(out.layout.Shape) != rank {
		return noLowering(c.Node, "", "%s on a 0-d tensor", c.Op)
	}
	d, err := wrapDim(dim, rank)
	if err != nil {
		return err
	}
	shape := out.layout.Shape
	x := outerVars(len(shape))
	b := l.newKernel(shape)
	ixAt := at(x, d)
	if len(ix.layout.Shape) == 0 {
		ixAt = nil
	}
	t := b.loadIndex(ix, ixAt, self.layout.Shape[d], false)
	src := append([]sym.Expr{}, x...)
	src[d] = tmpSym(t)
	b.store(out, x, b.gatherLoad(self, src, []*Instr{t}))
	return nil
}

// lowerIndex is advanced indexing self[i0, i1, ...] with index tensors
// (None entries keep a dim): the index tensors broadcast together; their
// dims replace the indexed dims in place when those are adjacent, and go
// first otherwise, as NumPy and PyTorch place them.
func lowerIndex(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	self, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	list := c.Arg("indices")
	rank := len(self.layout.Shape)
	if len(list.Elems) > rank {
		return fmt.Errorf("index: %d indices for rank %d", len(list.Elems), rank)
	}
	var idxRefs []tensorRef
	var dims []int
	for i, a := range list.Elems {
		if a.Kind == ir.ArgNone {
			continue
		}
		r, err := l.ref(a)
		if err != nil {
			return err
		}
		if dt := r.layout.DType; dt == ir.Bool || dt == ir.U8 {
			return noLowering(c.Node, "boolean masks make the shape data-dependent", "index with a boolean mask")
		}
		idxRefs, dims = append(idxRefs, r), append(dims, i)
	}
	nb := len(out.layout.Shape) - (rank - len(dims))
	if len(dims) == 0 || nb < 0 {
		return noLowering(c.Node, "", "index without index tensors")
	}
	first := dims[0]
	if dims[len(dims)-1]-first+1 != len(dims) {
		first = 0 // non-adjacent: the broadcast dims lead
	}
	shape := out.layout.Shape
	x := outerVars(len(shape))
	bx := x[first : first+nb]
	b := l.newKernel(shape)
	src := make([]sym.Expr, rank)
	var ind []*Instr
	for k, d := range dims {
		r := idxRefs[k]
		t := b.loadIndex(r, broadcastIndex(r.layout.Shape, shape[first:first+nb], bx), self.layout.Shape[d], true)
		src[d], ind = tmpSym(t), append(ind, t)
	}
	rest := append(append([]sym.Expr{}, x[:first]...), x[first+nb:]...)
	for d := range src {
		if !isIndexed(d, dims) {
			src[d], rest = rest[0], rest[1:]
		}
	}
	b.store(out, x, b.gatherLoad(self, src, ind))
	return nil
}

func isIndexed(d int, dims []int) bool {
	for _, e := range dims {
		if e == d {
			return true
		}
	}
	return false
}
