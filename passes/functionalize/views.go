package functionalize

import (
	"fmt"
	"sort"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes/build"
)

// viewMeta is one view in an alias's chain: PyTorch's ViewMeta, a forward
// function (replay the view on a new base) and a reverse one (write a
// mutated view back into the base).
type viewMeta struct {
	op     *ops.Op
	kind   ops.InverseKind
	node   *ir.Node  // the view (its arguments as written)
	call   *ops.Call // node's bound arguments, bound on first use
	args   []ir.Arg
	kwargs []ir.Kwarg
	out    int            // which result of a multi-result view
	nres   int            // how many results the view has
	in     *ir.TensorType // the view's input type when it was taken
	outT   ir.Type        // the view's result type, the fallback for replays
	// identity marks an alias-returning op that kept the input's geometry
	// (to.dtype or contiguous returning self): replayed as the same call,
	// inverted by the mutated value itself.
	identity bool
	// piece range for InversePiece views, computed on first use
	pieced        bool
	pdim          int64
	pstart, pend  sym.Expr
	pieceErr      error
	selfIdx, kwIx int // where self sits: positional index, or keyword index when selfIdx < 0
}

// newMeta describes result out of view node n (op already resolved) whose
// input had type in. Arguments are bound lazily: most views are never
// written through.
func newMeta(n *ir.Node, op *ops.Op, out int, in *ir.TensorType) *viewMeta {
	m := &viewMeta{op: op, kind: op.Inverse(), node: n, args: n.Args, kwargs: n.Kwargs, out: out,
		nres: len(n.Results), in: in, outT: n.Results[out].Type, selfIdx: 0}
	if len(n.Args) == 0 {
		m.selfIdx, m.kwIx = -1, kwIndex(n.Kwargs, op.Schema.Params[0].Name)
	}
	if op.Functional != "" { // an in-place view op: replay its functional form
		if f := ops.Lookup(op.Functional); f != nil {
			m.op = f
		}
	}
	if m.kind == ops.InverseUnknown && in != nil && sameGeometry(in, m.outT) {
		m.identity = true
	}
	return m
}

// bound returns the view's bound arguments.
func (m *viewMeta) bound() (*ops.Call, error) {
	if m.call == nil {
		c, err := ops.Bind(m.node)
		if err != nil {
			return nil, err
		}
		m.call = c
	}
	return m.call, nil
}

// piece computes the range a piece view covers, once.
func (m *viewMeta) piece() error {
	if m.pieced {
		return m.pieceErr
	}
	m.pieced = true
	c, err := m.bound()
	switch {
	case err != nil:
		m.pieceErr = err
	case m.in == nil:
		m.pieceErr = fmt.Errorf("the type of its input is unknown")
	default:
		dim, start, end, err := ops.PieceRange(c, m.in, m.out, m.nres)
		m.pdim, m.pstart, m.pend, m.pieceErr = int64(dim), start, end, err
		if err == nil && (!start.IsConst() || !end.IsConst()) {
			m.pieceErr = fmt.Errorf("its range [%s, %s) is symbolic", start, end)
		}
	}
	return m.pieceErr
}

// intArg reads an int argument of the view.
func (m *viewMeta) intArg(name string) (int64, error) {
	c, err := m.bound()
	if err != nil {
		return 0, err
	}
	return c.Int(name)
}

func kwIndex(kw []ir.Kwarg, name string) int {
	for i, k := range kw {
		if k.Name == name {
			return i
		}
	}
	return -1
}

func sameGeometry(in *ir.TensorType, out ir.Type) bool {
	if out.Kind != ir.KindTensor || out.Tensor == nil {
		return false
	}
	o := out.Tensor
	return ir.SameTensorType(in, o) && in.Strides != nil && o.Strides != nil &&
		(in.Offset.IsConst() == o.Offset.IsConst()) && sym.Equal(in.Offset, o.Offset)
}

// withSelf returns the view's arguments with self replaced by v.
func (m *viewMeta) withSelf(v *ir.Value) ([]ir.Arg, []ir.Kwarg) {
	args := append([]ir.Arg(nil), m.args...)
	kwargs := append([]ir.Kwarg(nil), m.kwargs...)
	if m.selfIdx >= 0 {
		args[m.selfIdx] = ir.ValueArg(v)
	} else if m.kwIx >= 0 {
		kwargs[m.kwIx].Arg = ir.ValueArg(v)
	}
	return args, kwargs
}

// replay applies the view to t (PyTorch's forward_fn). Pieces of split
// and unbind replay as slice and select, as PyTorch's view metas do.
func (f *fn) replay(m *viewMeta, t *ir.Value) (*ir.Value, error) {
	fallback := m.outT
	switch {
	case m.kind == ops.InversePiece && m.piece() == nil:
		return f.one("aten::slice.Tensor", fallback, ir.ValueArg(t), ir.IntArg(m.pdim), symArg(m.pstart), symArg(m.pend))
	case m.kind == ops.InverseUnbind:
		dim, err := m.intArg("dim")
		if err != nil {
			return nil, err
		}
		return f.one("aten::select.int", fallback, ir.ValueArg(t), ir.IntArg(dim), ir.IntArg(int64(m.out)))
	}
	args, kwargs := m.withSelf(t)
	n, err := f.b.CallOp(m.op, build.BaseName(m.op), args, kwargs, m.nres, fallback)
	if err != nil {
		return nil, err
	}
	return n.Results[m.out], nil
}

// one appends a single-result call of target.
func (f *fn) one(target string, fallback ir.Type, args ...ir.Arg) (*ir.Value, error) {
	n, err := f.b.Call(target, args, nil, 1, fallback)
	if err != nil {
		return nil, err
	}
	return n.Out(), nil
}

// inverse writes mutated t back into base (PyTorch's reverse_fn) and
// returns the new value of base.
func (f *fn) inverse(m *viewMeta, base, t *ir.Value) (*ir.Value, error) {
	if m.identity {
		return t, nil
	}
	bt := tensorType(base, m.in)
	fallback := ir.Type{}
	if bt != nil {
		fallback = ir.TensorOf(bt)
	} else if needsBaseType(m.kind) {
		return nil, f.unsupported("%s writes through %s, and the type of its input is unknown (annotate the graph's inputs)", f.curName(), m.node.Name)
	}
	switch m.kind {
	case ops.InverseScatter:
		return f.scatter(m, base, t, fallback)
	case ops.InverseReshape:
		return f.one("aten::view.default", fallback, ir.ValueArg(t), f.shapeArg(base, bt))
	case ops.InverseDType:
		return f.one("aten::view.dtype", fallback, ir.ValueArg(t), ir.DTypeArg(bt.DType))
	case ops.InverseAlias:
		return f.one("aten::alias.default", fallback, ir.ValueArg(t))
	case ops.InverseSelf:
		args, kwargs := m.withSelf(t)
		n, err := f.b.CallOp(m.op, build.BaseName(m.op), args, kwargs, 1, fallback)
		if err != nil {
			return nil, err
		}
		return n.Out(), nil
	case ops.InversePermute:
		return f.unpermute(m, t, fallback)
	case ops.InverseSqueezeDim:
		return f.unsqueezeInverse(m, bt, t, fallback)
	case ops.InverseUnsqueezeTo:
		return f.squeezeInverse(m, bt, t, fallback)
	case ops.InversePiece:
		if err := m.piece(); err != nil {
			return nil, f.unsupported("%s writes through piece %d of %s, and %v", f.curName(), m.out, m.node.Name, err)
		}
		return f.one("aten::slice_scatter.default", fallback, ir.ValueArg(base), ir.ValueArg(t),
			ir.IntArg(m.pdim), symArg(m.pstart), symArg(m.pend))
	case ops.InverseUnbind:
		dim, err := m.intArg("dim")
		if err != nil {
			return nil, err
		}
		return f.one("aten::select_scatter.default", fallback, ir.ValueArg(base), ir.ValueArg(t), ir.IntArg(dim), ir.IntArg(int64(m.out)))
	case ops.InverseExpand:
		return nil, f.unsupported("%s writes through expand (%s): PyTorch would sum the update back to the base shape; kiln does not model it", f.curName(), m.node.Name)
	}
	return nil, f.unsupported("%s writes through %s (%s), a view kiln cannot invert", f.curName(), m.node.Name, m.op.QualifiedName())
}

// scatter is Op.ViewInverse(base, t, <the view's explicit arguments>).
func (f *fn) scatter(m *viewMeta, base, t *ir.Value, fallback ir.Type) (*ir.Value, error) {
	inv := ops.Lookup(m.op.ViewInverse)
	if inv == nil {
		return nil, f.unsupported("the registry names %s as the inverse of %s but has no entry for it", m.op.ViewInverse, m.op.QualifiedName())
	}
	c, err := m.bound()
	if err != nil {
		return nil, err
	}
	params := inv.Schema.Params[2:]
	args := make([]ir.Arg, 2, 2+len(params))
	args[0], args[1] = ir.ValueArg(base), ir.ValueArg(t)
	last := -1
	for i, p := range params {
		if c.Has(p.Name) && c.Given[c.Index(p.Name)] {
			last = i
		}
	}
	for _, p := range params[:last+1] {
		if !c.Has(p.Name) {
			return nil, f.unsupported("%s has no argument %s for %s", m.op.QualifiedName(), p.Name, inv.QualifiedName())
		}
		args = append(args, c.Arg(p.Name))
	}
	n, err := f.b.CallOp(inv, build.BaseName(inv), args, nil, 1, fallback)
	if err != nil {
		return nil, err
	}
	return n.Out(), nil
}

func (f *fn) unpermute(m *viewMeta, t *ir.Value, fallback ir.Type) (*ir.Value, error) {
	c, err := m.bound()
	if err != nil {
		return nil, err
	}
	dims, err := c.Ints("dims")
	if err != nil {
		return nil, err
	}
	inv := make([]int64, len(dims))
	for i, d := range dims {
		w, err := ops.WrapDim(d, len(dims))
		if err != nil {
			return nil, err
		}
		inv[w] = int64(i)
	}
	return f.one("aten::permute.default", fallback, ir.ValueArg(t), ir.IntList(inv...))
}

// unsqueezeInverse undoes unsqueeze(dim) with squeeze.dim(dim).
func (f *fn) unsqueezeInverse(m *viewMeta, bt *ir.TensorType, t *ir.Value, fallback ir.Type) (*ir.Value, error) {
	d, err := m.intArg("dim")
	if err != nil {
		return nil, err
	}
	dim, err := ops.WrapDim(d, bt.Rank()+1)
	if err != nil {
		return nil, err
	}
	return f.one("aten::squeeze.dim", fallback, ir.ValueArg(t), ir.IntArg(int64(dim)))
}

// squeezeInverse undoes squeeze by unsqueezing, in increasing order, every
// dimension the squeeze could drop where the base has size 1
// (unsqueeze_copy_to).
func (f *fn) squeezeInverse(m *viewMeta, bt *ir.TensorType, t *ir.Value, fallback ir.Type) (*ir.Value, error) {
	c, err := m.bound()
	if err != nil {
		return nil, err
	}
	var dims []int
	if c.Has("dim") {
		ds, err := c.Ints("dim")
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			w, err := ops.WrapDim(d, bt.Rank())
			if err != nil {
				return nil, err
			}
			dims = append(dims, w)
		}
		sort.Ints(dims)
	} else {
		for i := range bt.Shape {
			dims = append(dims, i)
		}
	}
	cur := t
	for _, d := range dims {
		if v, ok := bt.Shape[d].Const(); !ok || v != 1 {
			continue
		}
		next, err := f.one("aten::unsqueeze.default", ir.Type{}, ir.ValueArg(cur), ir.IntArg(int64(d)))
		if err != nil {
			return nil, err
		}
		cur = next
	}
	if cur == t {
		return t, nil
	}
	if !cur.Type.IsKnown() {
		cur.Type = fallback
	}
	return cur, nil
}

// shapeArg spells bt's shape as a list: constants, and sym_size.int of v
// for symbolic sizes.
func (f *fn) shapeArg(v *ir.Value, bt *ir.TensorType) ir.Arg {
	elems := make([]ir.Arg, len(bt.Shape))
	for i, s := range bt.Shape {
		if c, ok := s.Const(); ok {
			elems[i] = ir.IntArg(c)
			continue
		}
		n, err := f.b.Call("aten::sym_size.int", []ir.Arg{ir.ValueArg(v), ir.IntArg(int64(i))}, nil, 1, ir.SymIntOf(s))
		if err != nil {
			elems[i] = ir.IntArg(-1)
			continue
		}
		elems[i] = ir.ValueArg(n.Out())
	}
	return ir.ListArg(elems...)
}

func symArg(e sym.Expr) ir.Arg {
	c, _ := e.Const()
	return ir.IntArg(c)
}

// tensorType is v's tensor type, or def when v has none.
func tensorType(v *ir.Value, def *ir.TensorType) *ir.TensorType {
	if v.Type.Kind == ir.KindTensor && v.Type.Tensor != nil {
		return v.Type.Tensor
	}
	return def
}

// needsBaseType reports inverses built from the base's shape or dtype.
func needsBaseType(k ops.InverseKind) bool {
	switch k {
	case ops.InverseReshape, ops.InverseDType, ops.InverseSqueezeDim, ops.InverseUnsqueezeTo:
		return true
	}
	return false
}
