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
// "tmp<ID>" (Access.Indirect lists it). Every loaded index is checked
// first (rules_index_check.go); negative indices wrap where PyTorch allows
// them (index.Tensor), as Python indexing does.

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

// loadIndex reads an index tensor at idx as int64, checks it against
// size (the extent of self's dim) as the op does, and wraps a negative
// index where the op accepts one.
func (b *kbuilder) loadIndex(r tensorRef, idx []sym.Expr, size sym.Expr, dim int, chk ops.IndexBounds) *Instr {
	t := b.cast(b.load(r, idx), ir.I64)
	b.check(t, size, dim, chk)
	if !chk.Neg {
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
	out, in, err := l.operands(c, "weight", "indices")
	if err != nil {
		return err
	}
	w, ix := in[0], in[1]
	if len(w.layout.Shape) != 2 {
		return noLowering(c.Node, "", "embedding with a weight of rank %d", len(w.layout.Shape))
	}
	chk, err := boundsOf(c)
	if err != nil {
		return err
	}
	shape := out.layout.Shape
	x := outerVars(len(shape))
	b := l.newKernel(shape)
	t := b.loadIndex(ix, x[:len(shape)-1], w.layout.Shape[0], 0, chk)
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
	out, in, err := l.operands(c, "self", "index")
	if err != nil {
		return err
	}
	self, ix := in[0], in[1]
	rank := len(self.layout.Shape)
	if rank == 0 || len(out.layout.Shape) != rank {
		return noLowering(c.Node, "", "%s on a 0-d tensor", c.Op)
	}
	d, err := dimArg(c, "dim", rank)
	if err != nil {
		return err
	}
	chk, err := boundsOf(c)
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
	src, ind := b.indexAlong(ix, ixAt, x, d, self.layout.Shape[d], chk)
	b.store(out, x, b.gatherLoad(self, src, ind))
	return nil
}

// lowerIndex is advanced indexing self[i0, i1, ...]: the result at x
// reads self where advIndex places x.
func lowerIndex(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "self")
	if err != nil {
		return err
	}
	self := in[0]
	a, err := l.planAdvIndex(c, self.layout.Shape)
	if err != nil {
		return err
	}
	shape := out.layout.Shape
	if len(shape) != len(a.shape) {
		return fmt.Errorf("index: result rank %d, indexing gives rank %d", len(shape), len(a.shape))
	}
	x := outerVars(len(shape))
	b := l.newKernel(shape)
	src, ind := a.at(b, x)
	b.store(out, x, b.gatherLoad(self, src, ind))
	return nil
}

// advIndex is the geometry of self[i0, i1, ...] with index tensors (None
// entries keep a dim): the index tensors broadcast together; their dims
// replace the indexed dims in place when those are adjacent, and go first
// otherwise, as NumPy and PyTorch place them.
type advIndex struct {
	refs   []tensorRef     // the index tensors
	dims   []int           // the self dim each indexes
	self   []sym.Expr      // self's shape
	first  int             // where the broadcast dims sit in the result
	check  ops.IndexBounds // the op's check of each index
	bshape []sym.Expr      // the index tensors' broadcast shape
	shape  []sym.Expr      // the result's shape
}

// planAdvIndex reads the call's indices list against self's shape.
// Boolean masks make the result's shape data-dependent: no lowering.
func (l *lowerer) planAdvIndex(c *ops.Call, self []sym.Expr) (*advIndex, error) {
	list := c.Arg("indices")
	rank := len(self)
	if len(list.Elems) > rank {
		return nil, fmt.Errorf("%s: %d indices for rank %d", c.Op, len(list.Elems), rank)
	}
	chk, err := boundsOf(c)
	if err != nil {
		return nil, err
	}
	a := &advIndex{self: self, check: chk}
	for i, e := range list.Elems {
		if e.Kind == ir.ArgNone {
			continue
		}
		r, err := l.ref(e)
		if err != nil {
			return nil, err
		}
		if dt := r.layout.DType; dt == ir.Bool || dt == ir.U8 {
			return nil, noLowering(c.Node, "a boolean mask makes the indexed positions data-dependent; "+
				"use torch.where(mask, values, self) for a masked write, or index with mask.nonzero() outside the graph",
				"%s with a boolean mask", c.Op)
		}
		a.refs, a.dims = append(a.refs, r), append(a.dims, i)
		a.bshape = broadcastShape(a.bshape, r.layout.Shape)
	}
	if len(a.dims) == 0 {
		return nil, noLowering(c.Node, "", "%s without index tensors", c.Op)
	}
	if a.dims[len(a.dims)-1]-a.dims[0]+1 == len(a.dims) {
		a.first = a.dims[0] // adjacent: in place
	}
	var rest []sym.Expr
	for d, s := range self {
		if !isIndexed(d, a.dims) {
			rest = append(rest, s)
		}
	}
	a.shape = append(append(append([]sym.Expr{}, rest[:a.first]...), a.bshape...), rest[a.first:]...)
	return a, nil
}

// at loads the index tensors at the result index x (checking them and
// wrapping negative indices) and returns self's index for x and the
// indirect tmps it names.
func (a *advIndex) at(b *kbuilder, x []sym.Expr) ([]sym.Expr, []*Instr) {
	nb := len(a.bshape)
	bx := x[a.first : a.first+nb]
	src := make([]sym.Expr, len(a.self))
	ind := make([]*Instr, 0, len(a.dims))
	for k, d := range a.dims {
		r := a.refs[k]
		t := b.loadIndex(r, broadcastIndex(r.layout.Shape, a.bshape, bx), a.self[d], d, a.check)
		src[d], ind = tmpSym(t), append(ind, t)
	}
	rest := append(append([]sym.Expr{}, x[:a.first]...), x[a.first+nb:]...)
	for d := range src {
		if !isIndexed(d, a.dims) {
			src[d], rest = rest[0], rest[1:]
		}
	}
	return src, ind
}

// broadcastShape is the broadcast of two shapes (already checked by the
// meta rule): dims align from the right and a 1 takes the other size.
func broadcastShape(a, b []sym.Expr) []sym.Expr {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]sym.Expr{}, a...)
	off := len(a) - len(b)
	for i, s := range b {
		if isOne(out[off+i]) {
			out[off+i] = s
		}
	}
	return out
}

func isIndexed(d int, dims []int) bool {
	for _, e := range dims {
		if e == d {
			return true
		}
	}
	return false
}
