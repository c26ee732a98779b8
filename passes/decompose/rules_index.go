package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// maskedScatter is torch/_inductor/decomposition.py masked_scatter (torch
// 2.15), the two-step algorithm of eager CUDA: broadcast self and mask,
// number the true elements of the flat mask by cumsum(0) - 1, read the
// flat source at those numbers where the mask is true
// (_unsafe_masked_index), keep self elsewhere, view back to self's shape.
// Inductor takes it where the backend can scan (Triton); kiln lowers
// cumsum as one loop kernel, so it takes it on every device. As Inductor's
// does, a source shorter than the mask's true count is not checked
// (eager raises; the index is clamped): the decomposition runs only on
// graphs eager ran. A non-bool mask, a source of another dtype or an empty
// source keep the op whole (eager rejects the first two).
func maskedScatter(e *emitter, c *ops.Call) []*ir.Value {
	self, mask, src := e.tensorArg(c, "self"), e.tensorArg(c, "mask"), e.tensorArg(c, "source")
	out := e.outType(0)
	if e.err != nil || self == nil || mask == nil || src == nil || out == nil {
		return nil
	}
	st, mt, srct := tensor(self), tensor(mask), tensor(src)
	numel := sym.Const(1)
	for _, d := range srct.Shape {
		numel = sym.Mul(numel, d)
	}
	n, ok := numel.Const()
	switch {
	case mt.DType != ir.Bool:
		e.whole("mask is %s, not bool", mt.DType.Name())
	case srct.DType != st.DType:
		e.whole("source is %s, self %s", srct.DType.Name(), st.DType.Name())
	case !ok:
		e.whole("source size %s is symbolic", numel)
	case n == 0:
		e.whole("source is empty")
	}
	if e.err != nil {
		return nil
	}
	shape := e.sizeList(out.Shape...)
	self = e.broadcastTo(self, out.Shape, shape)
	mask = e.broadcastTo(mask, out.Shape, shape)
	flat := func(x *ir.Value) *ir.Value {
		return e.call("aten::reshape.default", []ir.Arg{val(x), ints(-1)})
	}
	maskFlat := flat(mask)
	idx := e.call("aten::cumsum.default", []ir.Arg{val(maskFlat), i64(0)})
	idx = e.sub(val(idx), i64(1))
	got := e.unsafeMaskedIndex(flat(src), maskFlat, idx, n)
	res := e.where(maskFlat, got, flat(self))
	return []*ir.Value{e.call("aten::view.default", []ir.Arg{val(res), shape})}
}

// broadcastTo expands x to shape (broadcast_tensors), or returns x when it
// has that shape already.
func (e *emitter) broadcastTo(x *ir.Value, shape []sym.Expr, sizes ir.Arg) *ir.Value {
	if t := tensor(x); t == nil || sym.EqualLists(t.Shape, shape) {
		return x
	}
	return e.call("aten::expand.default", []ir.Arg{val(x), sizes})
}

// unsafeMaskedIndex is decompositions.py _unsafe_masked_index for one
// 1-d index into a 1-d x of n elements with fill 0: the index clamped to
// [0, n-1], _unsafe_index, masked_fill(~mask, 0).
func (e *emitter) unsafeMaskedIndex(x, mask, idx *ir.Value, n int64) *ir.Value {
	idx = e.call("aten::clamp.default", []ir.Arg{val(idx), i64(0), i64(n - 1)})
	got := e.call("aten::_unsafe_index.Tensor", []ir.Arg{val(x), ir.ListArg(val(idx))})
	off := e.unary("bitwise_not", mask)
	return e.call("aten::masked_fill.Scalar", []ir.Arg{val(got), val(off), i64(0)})
}
