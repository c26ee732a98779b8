package lowering

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Views, casts and copies, factories, and the ops that assemble a tensor
// from pieces (cat, stack, constant_pad_nd).

// lowerView emits nothing: each result is its base's buffer seen through
// the result's own layout (fakeprop computed shape, strides and offset in
// the storage's terms, in units of the result dtype after view.dtype). A
// "view" whose result got fresh storage is a copy instead: of the input's
// elements in row-major order for the row-major views (reshape of a
// non-viewable layout), else of the view's own layout over the input (a
// transpose copied as a reshape would reorder nothing).
func lowerView(l *lowerer, c *ops.Call) error {
	self := c.Args[0]
	if self.Kind != ir.ArgValue {
		return fmt.Errorf("view of %s: not a tensor", self.String())
	}
	base, err := l.ref(self)
	if err != nil {
		return err
	}
	for _, v := range c.Node.Results {
		t, err := tensorType(v)
		if err != nil {
			return err
		}
		if !sameStorage(self.Value, v) {
			if len(c.Node.Results) != 1 {
				return noLowering(c.Node, "", "%s: a result of a multi-result view does not share its base's storage", c.Op)
			}
			view := viewOfCopy(c.Op)
			if view == nil && !c.Op.RowMajor {
				view = c.Op
			}
			if view != nil && view.Meta != nil {
				return copyView(l, c, view, base, v)
			}
			return copyReshape(l, base, v)
		}
		l.vals[v] = tensorRef{base.buf, layoutOf(t)}
	}
	if st := self.Value.Type.Tensor; st != nil && !sameLayout(base.layout, layoutOf(st)) {
		return l.viewOfPlaced(c, base) // self was placed elsewhere (rules_slice_fold.go)
	}
	return nil
}

// viewOfPlaced places the results of a view of a tensor that lowering put
// in a layout other than its type's (a folded slice reading its
// scatter's source, a cat that is its one input): the view's meta rule
// over that layout says where each element lives. Where it cannot (a
// reshape the layout does not allow, an as_strided naming storage
// positions, an alias-returning op that is not a view: contiguous() of a
// contiguous type), the tensor is first copied into a buffer laid out as
// its type says, and the view is taken there, as for any tensor.
func (l *lowerer) viewOfPlaced(c *ops.Call, base tensorRef) error {
	if types, ok := placedView(c, base.layout); ok {
		for i, v := range c.Node.Results {
			l.vals[v] = tensorRef{base.buf, types[i]}
		}
		return nil
	}
	self := c.Args[0].Value
	lay := layoutOf(self.Type.Tensor)
	home := tensorRef{l.newBuffer("", lay.DType, extent(lay), BufIntermediate), lay}
	l.copyKernel(home, base)
	l.vals[self] = home
	for _, v := range c.Node.Results {
		l.vals[v] = tensorRef{home.buf, layoutOf(v.Type.Tensor)}
	}
	return nil
}

// placedView: the layouts of c's results, a view of a tensor laid out as
// lay, by the view's meta rule; ok is false where the meta rule cannot
// say (see viewOfPlaced).
func placedView(c *ops.Call, lay Layout) ([]Layout, bool) {
	if c.Op.Kind != ops.KindView || namesStorage(c.Op) {
		return nil, false
	}
	types, err := viewTypes(c, c.Op, tensorRef{layout: lay})
	if err != nil || len(types) != len(c.Node.Results) {
		return nil, false
	}
	out := make([]Layout, len(types))
	for i, t := range types {
		if t.Kind != ir.KindTensor {
			return nil, false
		}
		out[i] = layoutOf(t.Tensor)
	}
	return out, true
}

// viewsStayViews: every view of v, transitively, is a view of v placed as
// lay (placedView), so placing v there adds no copy.
func viewsStayViews(v *ir.Value, lay Layout) bool {
	for _, u := range v.Users() {
		if !slices.ContainsFunc(u.Results, func(r *ir.Value) bool { return sameStorage(v, r) }) {
			continue // reads v: any layout will do
		}
		c, err := ops.Bind(u)
		if err != nil || c.Args[0].Kind != ir.ArgValue || c.Args[0].Value != v {
			return false
		}
		lays, ok := placedView(c, lay)
		if !ok {
			return false
		}
		for i, r := range u.Results {
			if !viewsStayViews(r, lays[i]) {
				return false
			}
		}
	}
	return true
}

// sameLayout: same shape, strides and offset.
func sameLayout(a, b Layout) bool {
	return a.DType == b.DType && sym.EqualLists(a.Shape, b.Shape) && sym.EqualLists(a.Strides, b.Strides) &&
		sym.Equal(a.Offset, b.Offset)
}

// sameStorage reports whether fakeprop put b in a's storage.
func sameStorage(a, b *ir.Value) bool {
	ta, tb := a.Type.Tensor, b.Type.Tensor
	return ta != nil && tb != nil && ta.Storage != 0 && ta.Storage == tb.Storage
}

// copyReshape materializes a reshape: output element i (row-major) is
// input element i (row-major), both unravelled through their layouts.
func copyReshape(l *lowerer, in tensorRef, v *ir.Value) error {
	out, err := l.fresh(v)
	if err != nil {
		return err
	}
	b := l.newKernel(out.layout.Shape)
	lin := linearIndex(out.layout.Shape, outerVars(len(out.layout.Shape)))
	x := b.load(in, unravel(lin, in.layout.Shape))
	b.store(out, outerVars(len(out.layout.Shape)), b.cast(x, out.layout.DType))
	return nil
}

// linearIndex is the row-major position of idx in shape.
func linearIndex(shape, idx []sym.Expr) sym.Expr {
	e := sym.Const(0)
	for i, st := range ir.ContiguousStrides(shape) {
		e = sym.Add(e, sym.Mul(st, idx[i]))
	}
	return e
}

// unravel is the multi-index of row-major position lin in shape.
func unravel(lin sym.Expr, shape []sym.Expr) []sym.Expr {
	strides := ir.ContiguousStrides(shape)
	out := make([]sym.Expr, len(shape))
	for i := range shape {
		q := sym.FloorDiv(lin, strides[i])
		if i > 0 && !isZero(shape[i]) { // a size-0 dim: nothing is read
			q = sym.Mod(q, shape[i])
		}
		out[i] = q
	}
	return out
}

// castRules are the copies: each converts self to the result's dtype and
// layout; the aliasing forms (to, contiguous) are views when fakeprop says
// the result kept self's storage.
func castRules() map[string]rule {
	copyOf := func(operand string) rule {
		r := identityRule(operand)
		return func(l *lowerer, c *ops.Call) error {
			if in := c.Arg(operand); in.Kind == ir.ArgValue && sameStorage(in.Value, c.Node.Out()) {
				return lowerView(l, c)
			}
			return r.lower(l, c)
		}
	}
	t := map[string]rule{
		"prims::convert_element_type": copyOf("a"),
		"prims::device_put":           copyOf("a"),
		"copy":                        identityRule("src").lower,
		"fill.Scalar":                 identityRule("value").lower,
		"fill.Tensor":                 identityRule("value").lower,
		"zero":                        constRule(0).lower,
		"copy_":                       copyInto,
	}
	for _, n := range []string{"_to_copy", "to.dtype", "to.device", "to.dtype_layout", "to.other", "clone", "contiguous"} {
		t[n] = copyOf("self")
	}
	return t
}

// copyInto is the functionalization epilogue copy_(input, value): a kernel
// that stores value into the input's own buffer.
func copyInto(l *lowerer, c *ops.Call) error {
	in, err := l.refs(c, "self", "src")
	if err != nil {
		return err
	}
	dst := in[0]
	l.copyKernel(dst, in[1])
	if v := c.Node.Out(); v != nil {
		l.vals[v] = dst
	}
	for _, p := range l.p.Inputs {
		if p.Buffer == dst.buf {
			p.Mutated = true
		}
	}
	return nil
}

// factoryRules fill the result with a constant (empty is zeros, so that a
// program's output never depends on stale memory) or an arange.
func factoryRules() map[string]rule {
	t := map[string]rule{}
	for _, n := range []string{"empty.memory_format", "empty_strided", "zeros", "empty_like", "zeros_like",
		"new_empty", "new_zeros", "new_empty_strided"} {
		t[n] = constRule(0).lower
	}
	for _, n := range []string{"ones", "ones_like", "new_ones"} {
		t[n] = constRule(1).lower
	}
	for _, n := range []string{"full", "full_like", "new_full"} {
		t[n] = identityRule("fill_value").lower
	}
	t["scalar_tensor"] = identityRule("s").lower
	for _, n := range []string{"arange", "arange.start", "arange.start_step"} {
		t[n] = lowerArange
	}
	return t
}

// lowerArange stores start + step*x0, in int64 for integer results and in
// float64 for float ones (ATen's accumulate type on CPU), rounded once.
func lowerArange(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	if len(out.layout.Shape) != 1 {
		return fmt.Errorf("arange result has rank %d", len(out.layout.Shape))
	}
	b := l.newKernel(out.layout.Shape)
	dt := ir.F64
	if !out.layout.DType.IsFloat() {
		dt = ir.I64
	}
	e := &pwEnv{kbuilder: b, c: c, dt: dt, outDT: out.layout.DType}
	start, step := ir.IntArg(0), ir.IntArg(1)
	if c.Has("start") {
		start = c.Arg("start")
	}
	if c.Has("step") {
		step = c.Arg("step")
	}
	x0 := sym.Symbol(OuterVar(0))
	var y *Instr
	if s0, ok1 := symArg(start); ok1 && dt == ir.I64 {
		if st, ok2 := symArg(step); ok2 {
			y = b.index(sym.Add(s0, sym.Mul(st, x0)), ir.I64)
		}
	}
	if y == nil {
		s, err := e.scalarArg(start, dt)
		if err != nil {
			return err
		}
		st, err := e.scalarArg(step, dt)
		if err != nil {
			return err
		}
		y = e.fn("add", s, e.fn("mul", st, b.index(x0, dt)))
	}
	b.store(out, outerVars(1), y)
	return nil
}

// symArg reads an int or SymInt argument as an expression.
func symArg(a ir.Arg) (sym.Expr, bool) {
	e, err := ops.ArgSymInt(a)
	return e, err == nil && a.Kind != ir.ArgBool
}

// shapeRules build a tensor from pieces.
func shapeRules() map[string]rule {
	return map[string]rule{
		"cat":             lowerCat,
		"stack":           lowerCat,
		"constant_pad_nd": lowerPad,
	}
}

// maxPointwiseCatInputs is the most inputs a cat is lowered as one
// pointwise kernel for (Inductor's config.max_pointwise_cat_inputs): each
// element then evaluates a where over every input.
const maxPointwiseCatInputs = 8

// catPiece is one input of a cat: its tensor, and where its slice starts
// and ends along dim of the result (stack: index k, k+1 of the new dim).
type catPiece struct {
	src        *ir.Value
	in         tensorRef
	start, end sym.Expr
}

// lowerCat lowers cat and stack. Up to maxPointwiseCatInputs inputs it is
// one pointwise kernel over the result, which picks, by the position along
// dim, the input whose slice holds it: a consumer of the cat fuses with
// it, and cheap producers of its inputs are inlined into it (rotary
// embedding's cat([-x2, x1]) * sin + x * cos is one kernel). Past that,
// each input is written into its slice by a kernel of its own.
func lowerCat(l *lowerer, c *ops.Call) error {
	t, err := tensorType(c.Node.Out())
	if err != nil {
		return err
	}
	rank := t.Rank()
	stack := c.Op.Schema.Name == "stack"
	dim, err := c.Int("dim")
	if err != nil {
		return err
	}
	if dim < 0 {
		dim += int64(rank)
	}
	if dim < 0 || dim >= int64(rank) {
		return fmt.Errorf("%s: dim %d out of range", c.Op, dim)
	}
	var pieces []catPiece
	start := sym.Const(0)
	for k, a := range c.Arg("tensors").Elems {
		in, err := l.ref(a)
		if err != nil {
			return err
		}
		shape := in.layout.Shape
		if !stack && len(shape) == 1 && rank != 1 && isZero(shape[0]) {
			continue // legacy empty tensors are skipped by cat
		}
		end := sym.Const(int64(k + 1))
		if !stack {
			end = sym.Add(start, shape[dim])
		}
		pieces = append(pieces, catPiece{a.Value, in, start, end})
		start = end
	}
	if one, ok := onlyNonEmpty(pieces, int(dim), stack); ok && l.aliasCopy(c.Node.Out(), one.src, one.in) {
		return nil
	}
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	if len(pieces) > 0 && len(pieces) <= maxPointwiseCatInputs {
		l.pointwiseCat(out, int(dim), stack, pieces)
		return nil
	}
	for _, pc := range pieces {
		b := l.newKernel(pc.in.layout.Shape)
		idx := outerVars(len(pc.in.layout.Shape))
		var at []sym.Expr
		if stack {
			at = append(append(append([]sym.Expr{}, idx[:dim]...), pc.start), idx[dim:]...)
		} else {
			at = append([]sym.Expr{}, idx...)
			at[dim] = sym.Add(at[dim], pc.start)
		}
		b.store(out, at, b.load(pc.in, idx))
	}
	return nil
}

// onlyNonEmpty is the one piece of a cat with elements along dim, as
// Inductor's cat decomposition (torch/_inductor/decomposition.py) filters
// the inputs: it returns that input's clone, which its post-grad
// remove_noop_ops drops (a clone of the same size, strides and dtype).
func onlyNonEmpty(pieces []catPiece, dim int, stack bool) (catPiece, bool) {
	var one []catPiece
	for _, pc := range pieces {
		if stack || !isZero(pc.in.layout.Shape[dim]) {
			one = append(one, pc)
		}
	}
	if len(one) != 1 {
		return catPiece{}, false
	}
	return one[0], true
}

// aliasCopy makes v, a copy of src's values of the same shape and dtype
// (ref: where src lives), read src where it lives instead of a buffer of
// its own: once the graph is functional nothing tells the copy from its
// source. As remove_noop_ops, it adds no aliasing between inputs and
// outputs: not when src is a graph input (which the epilogue copy_ may
// also overwrite), nor when v is an output and src shares its storage
// with one; nor when a view of v could not be taken over src's layout
// (it would be a copy: hf_gpt2 training's view of the key cache as
// [8, 7, 8]). The buffer for v was not allocated yet.
func (l *lowerer) aliasCopy(v, src *ir.Value, ref tensorRef) bool {
	t, err := tensorType(v)
	if err != nil || src == nil || ref.buf.Kind == BufInput || t.DType != ref.layout.DType ||
		!sym.EqualLists(t.Shape, ref.layout.Shape) || isOutput(v) && l.outputStorage(src) || !viewsStayViews(v, ref.layout) {
		return false
	}
	l.vals[v] = ref
	l.p.Remarks = append(l.p.Remarks, fmt.Sprintf("%s is its only non-empty input %s: no copy", v.Name, src.Name))
	return true
}

func isOutput(v *ir.Value) bool { return v.NumUses() > len(v.Users()) }

// outputStorage: some graph output lives in src's storage.
func (l *lowerer) outputStorage(src *ir.Value) bool {
	found := false
	for _, a := range l.g.Outputs {
		a.Walk(func(o *ir.Value) { found = found || o == src || sameStorage(o, src) })
	}
	return found
}

// pointwiseCat is cat as one kernel over the result: where(x_dim < end_0,
// piece 0, where(x_dim < end_1, piece 1, ...)). Each piece is read at its
// own position, clamped into its slice so that the read never leaves its
// buffer wherever another piece is chosen.
func (l *lowerer) pointwiseCat(out tensorRef, dim int, stack bool, pieces []catPiece) {
	shape := out.layout.Shape
	b := l.newKernel(shape)
	x := outerVars(len(shape))
	f := loopFacts(shape, nil) // to drop the clamps the loop ranges already keep
	dt := out.layout.DType
	vals := make([]*Instr, len(pieces))
	for k, pc := range pieces {
		at := append([]sym.Expr{}, x...)
		if stack {
			at = append(at[:dim], x[dim+1:]...)
		} else {
			end := sym.Sub(sym.Sub(pc.end, pc.start), sym.Const(1))
			at[dim] = f.Simplify(sym.Max(sym.Const(0), sym.Min(sym.Sub(x[dim], pc.start), end)))
		}
		vals[k] = b.cast(b.load(pc.in, at), dt)
	}
	v := vals[len(vals)-1]
	var pos *Instr
	if len(pieces) > 1 {
		pos = b.index(x[dim], ir.I64)
	}
	for k := len(pieces) - 2; k >= 0; k-- {
		inside := b.call("lt", ir.Bool, pos, b.index(pieces[k].end, ir.I64))
		v = b.call("where", dt, inside, vals[k], v)
	}
	b.store(out, x, v)
}

func isZero(e sym.Expr) bool {
	c, ok := e.Const()
	return ok && c == 0
}

// lowerPad is constant_pad_nd: where(every padded index is inside the
// input, input at index - pad_before, value). The load index is clamped
// into the input so that it never leaves the buffer.
func lowerPad(l *lowerer, c *ops.Call) error {
	out, ins, err := l.operands(c, "self")
	if err != nil {
		return err
	}
	in := ins[0]
	pad, err := c.SymInts("pad")
	if err != nil {
		return err
	}
	rank := len(in.layout.Shape)
	if len(pad)%2 != 0 || len(pad)/2 > rank {
		return fmt.Errorf("constant_pad_nd: bad padding %v for rank %d", pad, rank)
	}
	b := l.newKernel(out.layout.Shape)
	e := &pwEnv{kbuilder: b, c: c, dt: arithType(opmath(out.layout.DType)), outDT: out.layout.DType}
	idx := outerVars(rank)
	at := append([]sym.Expr{}, idx...)
	var inside *Instr
	for i := 0; i < len(pad)/2; i++ {
		d := rank - 1 - i
		at[d], inside = b.clampInside(sym.Sub(idx[d], pad[2*i]), in.layout.Shape[d], inside)
	}
	x := b.cast(b.load(in, at), e.dt)
	if inside != nil {
		v, err := e.param("value")
		if err != nil {
			return err
		}
		x = e.fn("where", inside, x, v)
	}
	b.store(out, idx, x)
	return nil
}

// clampInside is a padded read's position along one dim: pos clamped into
// [0, size) for the load (which then never leaves the buffer), and inside
// (nil for none yet) and-ed with 0 <= pos < size for the where that
// replaces out-of-range reads.
func (b *kbuilder) clampInside(pos, size sym.Expr, inside *Instr) (sym.Expr, *Instr) {
	at := sym.Max(sym.Const(0), sym.Min(pos, sym.Sub(size, sym.Const(1))))
	p := b.index(pos, ir.I64)
	ok := b.call("logical_and", ir.Bool, b.call("ge", ir.Bool, p, b.constInt(0, ir.I64)),
		b.call("lt", ir.Bool, p, b.index(size, ir.I64)))
	if inside != nil {
		ok = b.call("logical_and", ir.Bool, inside, ok)
	}
	return at, ok
}
