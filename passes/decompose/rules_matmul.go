package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Matmul-family decompositions down to the extern kernels mm, bmm, mv, dot
// and addmm (kept whole: it rounds once): t as permute (refs t), matmul as
// ATen's _matmul_impl (decompositions.py matmul), linear as ATen's linear
// (addmm for 2-d input, _flatten_nd_linear for contiguous n-d input, else
// matmul + add).

// t is permute with the dims reversed (a no-op permute for rank < 2).
func t(e *emitter, c *ops.Call) []*ir.Value {
	return []*ir.Value{e.transpose(e.tensorArg(c, "self"))}
}

func (e *emitter) transpose(x *ir.Value) *ir.Value {
	tt := tensor(x)
	if tt == nil {
		return nil
	}
	if tt.Rank() > 2 {
		e.whole("t() expects a tensor with <= 2 dimensions, but self is %dD", tt.Rank())
		return nil
	}
	dims := make([]int, tt.Rank())
	for i := range dims {
		dims[i] = tt.Rank() - 1 - i
	}
	return e.call("aten::permute.default", []ir.Arg{val(x), ints(dims...)})
}

// matmul is matmul(self, other).
func matmul(e *emitter, c *ops.Call) []*ir.Value {
	return []*ir.Value{e.matmul(e.tensorArg(c, "self"), e.tensorArg(c, "other"))}
}

// matmul follows _matmul_impl: dot, mv, mm for ranks <= 2; a batched
// left operand times a matrix or vector folds its batch into the rows of
// one mm/mv when its strides allow (should_fold); everything else expands
// the batch dims, flattens them and calls bmm. (PyTorch also folds a
// vector times a batch by transposing; kiln takes the bmm path there,
// which gives the same values and the row-major result matmul promises.)
func (e *emitter) matmul(x, y *ir.Value) *ir.Value {
	tx, ty := tensor(x), tensor(y)
	if tx == nil || ty == nil {
		return nil
	}
	d1, d2 := tx.Rank(), ty.Rank()
	switch {
	case d1 == 0 || d2 == 0:
		e.whole("both arguments to matmul need to be at least 1D")
		return nil
	case d1 == 1 && d2 == 1:
		return e.call("aten::dot.default", []ir.Arg{val(x), val(y)})
	case d1 == 2 && d2 == 1:
		return e.call("aten::mv.default", []ir.Arg{val(x), val(y)})
	case d1 == 1 && d2 == 2:
		row := e.call("aten::unsqueeze.default", []ir.Arg{val(x), i64(0)})
		mm := e.call("aten::mm.default", []ir.Arg{val(row), val(y)})
		return e.call("aten::squeeze.dim", []ir.Arg{val(mm), i64(0)})
	case d1 == 2 && d2 == 2:
		return e.call("aten::mm.default", []ir.Arg{val(x), val(y)})
	case d1 >= 3 && d2 <= 2 && shouldFold(tx):
		return e.foldedMatmul(x, y)
	}
	return e.batchedMatmul(x, y)
}

// shouldFold is should_fold's stride test for a batched left operand: its
// batch dims and rows merge into one dim by a view.
func shouldFold(t *ir.TensorType) bool {
	if n, ok := t.Numel().Const(); ok && n == 0 {
		return true
	}
	st := t.Strides
	if st == nil {
		return true
	}
	for i := 0; i+2 < t.Rank(); i++ {
		if !sym.Equal(st[i], sym.Mul(st[i+1], t.Shape[i+1])) {
			return false
		}
	}
	return true
}

// foldedMatmul is view(x, [B*n, k]) @ y, viewed back to [..., n(, p)].
func (e *emitter) foldedMatmul(x, y *ir.Value) *ir.Value {
	tx, d2 := tensor(x), tensor(y).Rank()
	rows := tx.Shape[:tx.Rank()-1]
	flat := e.view(x, []ir.Arg{e.flatSize(rows), e.size(x, tx.Rank()-1)})
	var out *ir.Value
	if d2 == 2 {
		out = e.call("aten::mm.default", []ir.Arg{val(flat), val(y)})
	} else {
		out = e.call("aten::mv.default", []ir.Arg{val(flat), val(y)})
	}
	shape := make([]ir.Arg, 0, len(rows)+1)
	for i := range rows {
		shape = append(shape, e.size(x, i))
	}
	if d2 == 2 {
		shape = append(shape, e.size(y, 1))
	}
	return e.view(out, shape)
}

// flatSize is the product of sizes: the constant, or -1 (view infers it).
func (e *emitter) flatSize(sizes []sym.Expr) ir.Arg {
	p := sym.Const(1)
	for _, s := range sizes {
		p = sym.Mul(p, s)
	}
	if c, ok := p.Const(); ok {
		return i64(c)
	}
	return i64(-1)
}

// batchedMatmul expands both operands to the broadcast batch, flattens it
// and multiplies with bmm; a vector right operand becomes a column.
func (e *emitter) batchedMatmul(x, y *ir.Value) *ir.Value {
	tx, ty := tensor(x), tensor(y)
	d1, d2 := tx.Rank(), ty.Rank()
	n, m1 := sym.Const(1), tx.Shape[d1-1]
	var batch1, batch2 []sym.Expr
	if d1 > 1 {
		n, batch1 = tx.Shape[d1-2], tx.Shape[:d1-2]
	}
	m2, p := ty.Shape[d2-1], sym.Const(1)
	if d2 > 1 {
		m2, p, batch2 = ty.Shape[d2-2], ty.Shape[d2-1], ty.Shape[:d2-2]
	}
	batch, err := e.d.env.BroadcastShapes(batch1, batch2)
	if err != nil {
		e.fail(err)
		return nil
	}
	refs := func(i int) []sizeRef { // operand dims that may hold batch dim i
		return []sizeRef{{x, i - len(batch) + len(batch1)}, {y, i - len(batch) + len(batch2)}}
	}
	batchArgs := make([]ir.Arg, len(batch))
	for i, s := range batch {
		batchArgs[i] = e.sizeOf(s, refs(i)...)
	}
	flat := e.flatSize(batch)
	if len(batch) == 1 {
		flat = batchArgs[0]
	}
	nArg := e.sizeOf(n, sizeRef{x, d1 - 2})
	lhs := e.expand(x, append(append([]sym.Expr{}, batch...), n, m1), append(append([]ir.Arg{}, batchArgs...), nArg, e.size(x, d1-1)))
	lhs = e.reshape(lhs, []ir.Arg{flat, nArg, e.size(x, d1-1)})
	var rhs *ir.Value
	if d2 == 1 {
		rhs = e.expand(y, append(append([]sym.Expr{}, batch...), m2), append(append([]ir.Arg{}, batchArgs...), e.size(y, 0)))
		rhs = e.reshape(rhs, []ir.Arg{flat, e.size(y, 0)})
		rhs = e.call("aten::unsqueeze.default", []ir.Arg{val(rhs), i64(2)})
	} else {
		rhs = e.expand(y, append(append([]sym.Expr{}, batch...), m2, p), append(append([]ir.Arg{}, batchArgs...), e.size(y, d2-2), e.size(y, d2-1)))
		rhs = e.reshape(rhs, []ir.Arg{flat, e.size(y, d2-2), e.size(y, d2-1)})
	}
	out := e.call("aten::bmm.default", []ir.Arg{val(lhs), val(rhs)})
	if d2 == 1 {
		out = e.call("aten::squeeze.dim", []ir.Arg{val(out), i64(-1)})
	}
	shape := batchArgs
	if d1 > 1 {
		shape = append(shape, nArg)
	}
	if d2 > 1 {
		shape = append(shape, e.size(y, d2-1))
	}
	return e.view(out, shape)
}

// expand is x.expand(shape), skipped when x already has that shape.
func (e *emitter) expand(x *ir.Value, shape []sym.Expr, args []ir.Arg) *ir.Value {
	if t := tensor(x); t == nil || sym.EqualLists(t.Shape, shape) {
		return x
	}
	return e.call("aten::expand.default", []ir.Arg{val(x), ir.ListArg(args...)})
}

// view is x.view(shape), skipped when the shape would not change.
func (e *emitter) view(x *ir.Value, shape []ir.Arg) *ir.Value {
	if e.err != nil || sameShapeArgs(tensor(x), shape) {
		return x
	}
	return e.call("aten::view.default", []ir.Arg{val(x), ir.ListArg(shape...)})
}

// reshape is a view where the strides allow one, else a contiguous clone
// and a view (what reshape does, spelled in ops lowering knows).
func (e *emitter) reshape(x *ir.Value, shape []ir.Arg) *ir.Value {
	if v, ok := e.try(func() *ir.Value { return e.view(x, shape) }); ok {
		return v
	}
	cl := e.call("aten::clone.default", []ir.Arg{val(x)}, kw("memory_format", ir.EnumArg("contiguous_format")))
	return e.view(cl, shape)
}

// sameShapeArgs reports whether size arguments (constants, SymInt values,
// -1) spell t's shape exactly; -1 never matches.
func sameShapeArgs(t *ir.TensorType, shape []ir.Arg) bool {
	if t == nil || len(shape) != t.Rank() {
		return false
	}
	for i, a := range shape {
		s, err := ops.ArgSymInt(a)
		if err != nil || !sym.Equal(s, t.Shape[i]) {
			return false
		}
	}
	return true
}

// linear follows ATen's linear: 2-d input with bias is addmm; contiguous
// n-d input with bias flattens to 2-d (_flatten_nd_linear); otherwise
// matmul with the transposed weight, plus bias.
func linear(e *emitter, c *ops.Call) []*ir.Value {
	x, w, b := e.tensorArg(c, "input"), e.tensorArg(c, "weight"), e.tensorArg(c, "bias")
	tx, tw := tensor(x), tensor(w)
	if e.err != nil || tx == nil || tw == nil {
		return nil
	}
	wt := w
	if tw.Rank() == 2 {
		wt = e.transpose(w)
	}
	switch {
	case b == nil:
		return []*ir.Value{e.matmul(x, wt)}
	case tw.Rank() == 2 && tx.Rank() == 2:
		return []*ir.Value{e.addmm(b, x, wt)}
	case tw.Rank() == 2 && tx.Rank() > 2 && ops.IsContiguous(tx) && (tx.Rank() == 3 || tensor(b).Rank() == 1):
		rows := tx.Shape[:tx.Rank()-1]
		flat := e.view(x, []ir.Arg{e.flatSize(rows), e.size(x, tx.Rank()-1)})
		out := e.addmm(b, flat, wt)
		shape := make([]ir.Arg, 0, len(rows)+1)
		for i := range rows {
			shape = append(shape, e.size(x, i))
		}
		return []*ir.Value{e.view(out, append(shape, e.size(w, 0)))}
	}
	return []*ir.Value{e.add(e.matmul(x, wt), val(b))}
}

// addmm is bias + x·w as one addmm, which PyTorch's linear calls for these
// shapes: the bias joins the product before it is rounded.
func (e *emitter) addmm(bias, x, w *ir.Value) *ir.Value {
	return e.call("aten::addmm.default", []ir.Arg{val(bias), val(x), val(w)})
}
