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
// (_unsafe_masked_index, decomposed by its own rule), keep self
// elsewhere, view back to self's shape.
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
	got := e.call("aten::_unsafe_masked_index.default", []ir.Arg{val(flat(src)), val(maskFlat), ir.ListArg(val(idx)), i64(0)})
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

// unsafeMaskedIndex is decompositions.py _unsafe_masked_index(x, mask,
// indices, fill): each index clamped to [0, x.size(i) - 1], then
// _unsafe_index(x, indices).masked_fill(~mask, fill). (Inductor's table
// leaves the op to its lowering; kiln lowers the pieces.) An empty x is
// new_full of the indexed shape, as PyTorch's; symbolic sizes stay whole.
func unsafeMaskedIndex(e *emitter, c *ops.Call) []*ir.Value {
	x, mask := e.tensorArg(c, "self"), e.tensorArg(c, "mask")
	idx := c.Arg("indices")
	if e.err != nil || x == nil || mask == nil {
		return nil
	}
	xt := tensor(x)
	n, ok := xt.Numel().Const()
	switch {
	case tensor(mask).DType != ir.Bool:
		e.whole("mask is %s: tensors used as masks must be bool tensors", tensor(mask).DType.Name())
	case !idx.IsSequence() || len(idx.Elems) > xt.Rank():
		e.whole("indices is %s", idx)
	case !ok:
		e.whole("self's size is symbolic")
	}
	if e.err != nil {
		return nil
	}
	if n == 0 { // nothing to read: the fill over the indexed shape
		out := e.outType(0)
		return []*ir.Value{e.call("aten::new_full.default", []ir.Arg{val(x), e.sizeList(out.Shape...), c.Arg("fill")})}
	}
	clamped := make([]ir.Arg, len(idx.Elems))
	for i, a := range idx.Elems {
		clamped[i] = a
		if a.Kind == ir.ArgNone {
			continue
		}
		it := tensor(a.Value)
		size, ok := xt.Shape[i].Const()
		switch {
		case a.Kind != ir.ArgValue || it == nil:
			e.whole("index %d is %s, not a tensor", i, a)
		case it.DType != ir.I64 && it.DType != ir.I32:
			e.whole("index %d is %s: tensors used as indices must be long or int tensors", i, it.DType.Name())
		case !ok:
			e.whole("dim %d's size is symbolic", i)
		}
		if e.err != nil {
			return nil
		}
		clamped[i] = val(e.call("aten::clamp.default", []ir.Arg{a, i64(0), i64(size - 1)}))
	}
	got := e.call("aten::_unsafe_index.Tensor", []ir.Arg{val(x), ir.ListArg(clamped...)})
	off := e.unary("bitwise_not", mask)
	return []*ir.Value{e.call("aten::masked_fill.Scalar", []ir.Arg{val(got), val(off), c.Arg("fill")})}
}
