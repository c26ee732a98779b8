package decompose

import (
	"cmp"
	"math"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// safeSoftmax is decompositions.py safe_softmax: softmax, except that a
// row whose inputs are all -inf is zeros instead of NaN (a fully masked
// attention row).
func safeSoftmax(e *emitter, c *ops.Call) []*ir.Value {
	out := softmax(e, c)
	x := e.tensorArg(c, "self")
	dim, err := c.Int("dim")
	if e.err != nil || len(out) != 1 || x == nil {
		return nil
	}
	if err != nil {
		e.whole("%v", err)
		return nil
	}
	return []*ir.Value{e.maskRows(x, dim, out[0])}
}

// maskRows is where(all(x == -inf, dim, keepdim), 0, out).
func (e *emitter) maskRows(x *ir.Value, dim int64, out *ir.Value) *ir.Value {
	zeros := e.call("aten::zeros_like.default", []ir.Arg{val(out)})
	return e.where(e.maskedRows(x, dim), zeros, out)
}

// maskedRows is all(x == -inf, dim, keepdim): the rows nothing attends to.
func (e *emitter) maskedRows(x *ir.Value, dim int64) *ir.Value {
	masked := e.cmp("eq", x, f64(math.Inf(-1)))
	return e.call("aten::all.dim", []ir.Arg{val(masked), i64(dim), ir.BoolArg(true)})
}

// sdpaFlashCPU is decompositions.py scaled_dot_product_flash_attention_for_cpu,
// which runs ATen's _scaled_dot_product_attention_math (as make_fx traces
// it, torch 2.15): q and k^T each scaled by sqrt(scale) (scale defaults
// to 1/sqrt(E)), bmm over [N*H, L, E] x [N*H, E, S], plus the causal mask
// where(tril(ones(L, S)), 0, -inf) or attn_mask, _safe_softmax over the
// last dim, bmm with v. Each result takes the stride order of its fake
// type (the flash kernel allocates the output with empty_like(query); the
// decomposition's own permute-contiguous-permute gives another layout,
// which kiln's type check would refuse). When the graph reads the second
// result (a training forward keeps it for the backward), it is the flash
// kernel's logsumexp, amax + log(sum(exp(s - amax))) per row, 0 for a
// fully masked row, not the math path's weights. Grouped-query heads
// (fewer key/value heads) are repeated as the math path does
// (repeatHeads). Dropout, reduced floats and symbolic sizes keep the op
// whole.
//
// Only with decompose{sdpa=math}: by default the op stays whole, as
// Inductor's CPU backend keeps it (torch/_inductor/decomposition.py lists
// it in decomps_to_exclude; lowering.py registers make_fallback for it and
// its backward), and lowering calls the extern kernel
// (lowering/rules_extern_attention.go, rt/attention.go).
func sdpaFlashCPU(e *emitter, c *ops.Call) []*ir.Value {
	if !e.d.sdpaMath {
		e.whole("Inductor's CPU backend calls it as a fallback (torch/_inductor/lowering.py make_fallback); decompose{sdpa=math} takes the math path")
		return nil
	}
	a, ok := e.attention(c)
	if !ok {
		return nil
	}
	amax := e.call("aten::amax.default", []ir.Arg{val(a.scores), ints(-1), ir.BoolArg(true)})
	ex := e.unary("exp", e.sub(val(a.scores), val(amax)))
	sum := e.call("aten::sum.dim_IntList", []ir.Arg{val(ex), ints(-1), ir.BoolArg(true)})
	rows := e.maskedRows(a.scores, -1)
	weights := e.where(rows, e.call("aten::zeros_like.default", []ir.Arg{val(ex)}), e.div(ex, val(sum)))
	out := e.call("aten::bmm.default", []ir.Arg{val(a.flat(weights, a.l, a.s)), val(a.flat(a.v, a.s, a.ev))})
	out = e.call("aten::_unsafe_view.default", []ir.Arg{val(out), e.sizeList(a.n, a.h, a.l, a.ev)})
	results := []*ir.Value{e.likeStrides(out, e.outType(0)), nil}
	if len(e.orig.Results) > 1 && e.orig.Results[1].NumUses() > 0 {
		lse := e.add(amax, val(e.unary("log", sum)))
		lse = e.where(rows, e.call("aten::zeros_like.default", []ir.Arg{val(lse)}), lse)
		lse = e.call("aten::squeeze.dim", []ir.Arg{val(lse), i64(-1)})
		results[1] = e.likeStrides(lse, e.outType(1))
	}
	return results
}

// attention holds what a decomposition of the flash op needs: the operands,
// their sizes, the scale, and the masked scores scale q k^T + bias over
// [N, H, L, S].
type attention struct {
	q, k, v           *ir.Value
	n, h, l, s, e, ev sym.Expr
	scale             float64
	scores            *ir.Value
	flat              func(x *ir.Value, rows, cols sym.Expr) *ir.Value
}

// attention checks the call (4-d float32/float64 operands, query heads a
// multiple of the key/value heads, no dropout, a constant head size) and builds the scores as the
// math path does: q * sqrt(scale) times (k^T * sqrt(scale)), plus the
// causal bias or attn_mask.
func (e *emitter) attention(c *ops.Call) (attention, bool) {
	var a attention
	a.q, a.k, a.v = e.tensorArg(c, "query"), e.tensorArg(c, "key"), e.tensorArg(c, "value")
	if e.err != nil || a.q == nil || a.k == nil || a.v == nil {
		return a, false
	}
	qt, kt, vt := tensor(a.q), tensor(a.k), tensor(a.v)
	causal, err := c.Bool("is_causal")
	dropout, _ := e.number(c, "dropout_p") // not a constant: the op stays whole
	switch {
	case e.err != nil:
	case err != nil:
		e.whole("%v", err)
	case qt.Rank() != 4 || kt.Rank() != 4 || vt.Rank() != 4:
		e.whole("query, key and value are not 4-d")
	case dropout != 0:
		e.whole("dropout_p is not 0")
	case qt.DType != ir.F32 && qt.DType != ir.F64:
		e.whole("%s attention: the math path's softmax would upcast", qt.DType.Name())
	}
	if e.err != nil {
		return a, false
	}
	if !sym.Equal(kt.Shape[1], vt.Shape[1]) {
		// The flash kernel reads past the value's heads (eager returns garbage).
		e.whole("key heads %s and value heads %s differ", kt.Shape[1], vt.Shape[1])
		return a, false
	}
	a.k, a.v = e.repeatHeads(a.k, qt.Shape[1]), e.repeatHeads(a.v, qt.Shape[1])
	if e.err != nil {
		return a, false
	}
	head, ok := qt.Shape[3].Const()
	if !ok {
		e.whole("head size %s is symbolic", qt.Shape[3])
		return a, false
	}
	a.scale = 1 / math.Sqrt(float64(head))
	if s := c.Arg("scale"); s.Kind == ir.ArgFloat {
		a.scale = s.Float
	}
	a.n, a.h, a.l, a.s, a.e, a.ev = qt.Shape[0], qt.Shape[1], qt.Shape[2], kt.Shape[2], qt.Shape[3], vt.Shape[3]
	bh := sym.Mul(a.n, a.h)
	a.flat = func(x *ir.Value, rows, cols sym.Expr) *ir.Value {
		return e.call("aten::reshape.default", []ir.Arg{val(x), e.sizeList(bh, rows, cols)})
	}
	sf := f64(math.Sqrt(a.scale))
	qs := e.call("aten::mul.Scalar", []ir.Arg{val(a.q), sf})
	ks := e.call("aten::mul.Scalar", []ir.Arg{val(e.call("aten::transpose.int", []ir.Arg{val(a.k), i64(-2), i64(-1)})), sf})
	scores := e.call("aten::bmm.default", []ir.Arg{val(a.flat(qs, a.l, a.e)), val(a.flat(ks, a.e, a.s))})
	scores = e.call("aten::_unsafe_view.default", []ir.Arg{val(scores), e.sizeList(a.n, a.h, a.l, a.s)})
	if causal {
		kws := []ir.Kwarg{kw("dtype", ir.DTypeArg(ir.Bool))}
		if qt.Device.Known() { // an unknown device would print as device(type='')
			kws = append(kws, kw("device", ir.DeviceArg(qt.Device)))
		}
		ones := e.call("aten::ones.default", []ir.Arg{e.sizeList(a.l, a.s)}, kws...)
		lower := e.call("aten::tril.default", []ir.Arg{val(ones)})
		bias := e.where(lower, e.scalarTensor(f64(0), ir.F32, qt.Device), e.scalarTensor(f64(math.Inf(-1)), ir.F32, qt.Device))
		scores = e.add(scores, val(bias))
	}
	if m := e.tensorArg(c, "attn_mask"); m != nil {
		scores = e.add(scores, val(m))
	}
	a.scores = scores
	return a, e.err == nil
}

// repeatHeads is the math path's grouped-query step
// (_scaled_dot_product_attention_math with enable_gqa, as the flash op's
// decomposition passes it when query.size(1) != key.size(1)):
// repeat_interleave of x's h_kv heads to h, traced as
// x.unsqueeze(2).expand(N, h_kv, h/h_kv, S, E), a contiguous clone, and a
// view to [N, h, S, E], so query head i reads head i / (h/h_kv). Heads
// that do not divide, or symbolic ones, keep the op whole (PyTorch
// rejects the first).
func (e *emitter) repeatHeads(x *ir.Value, h sym.Expr) *ir.Value {
	t := tensor(x)
	if e.err != nil || t == nil || sym.Equal(t.Shape[1], h) {
		return x
	}
	hq, ok1 := h.Const()
	hkv, ok2 := t.Shape[1].Const()
	if !ok1 || !ok2 || hkv == 0 || hq%hkv != 0 {
		e.whole("grouped-query attention with %s query heads and %s key/value heads", h, t.Shape[1])
		return nil
	}
	n, s, d := t.Shape[0], t.Shape[2], t.Shape[3]
	x = e.call("aten::unsqueeze.default", []ir.Arg{val(x), i64(2)})
	x = e.call("aten::expand.default", []ir.Arg{val(x), e.sizeList(n, t.Shape[1], sym.Const(hq/hkv), s, d)})
	x = e.call("aten::clone.default", []ir.Arg{val(x)}, kw("memory_format", ir.EnumArg("contiguous_format")))
	return e.call("aten::view.default", []ir.Arg{val(x), e.sizeList(n, h, s, d)})
}

// likeStrides lays out (contiguous) out in the stride order of like, as
// the flash kernel's empty_like(query) does: permuted into that order,
// made contiguous, permuted back. A contiguous like needs nothing.
func (e *emitter) likeStrides(out *ir.Value, like *ir.TensorType) *ir.Value {
	order := make([]int, like.Rank())
	for i := range order {
		order[i] = i
	}
	strides := make([]int64, like.Rank())
	for i, st := range like.Strides {
		n, ok := st.Const()
		if !ok {
			e.whole("query stride %s is symbolic", st)
			return nil
		}
		strides[i] = n
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(strides[b], strides[a]) })
	if slices.IsSorted(order) {
		return out
	}
	inverse := make([]int, len(order))
	for i, d := range order {
		inverse[d] = i
	}
	out = e.call("aten::permute.default", []ir.Arg{val(out), ints(order...)})
	out = e.call("aten::clone.default", []ir.Arg{val(out)}, kw("memory_format", ir.EnumArg("contiguous_format")))
	return e.call("aten::permute.default", []ir.Arg{val(out), ints(inverse...)})
}

// sizeList is an int[] argument of constant sizes; a symbolic one keeps
// the op whole.
func (e *emitter) sizeList(xs ...sym.Expr) ir.Arg {
	out := make([]ir.Arg, len(xs))
	for i, x := range xs {
		n, ok := x.Const()
		if !ok {
			e.whole("size %s is symbolic", x)
			return ir.NoneArg()
		}
		out[i] = i64(n)
	}
	return ir.ListArg(out...)
}
