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
	masked := e.cmp("eq", x, f64(math.Inf(-1)))
	rows := e.call("aten::all.dim", []ir.Arg{val(masked), i64(dim), ir.BoolArg(true)})
	zeros := e.call("aten::zeros_like.default", []ir.Arg{val(out)})
	return e.where(rows, zeros, out)
}

// sdpaFlashCPU is decompositions.py scaled_dot_product_flash_attention_for_cpu,
// which runs ATen's _scaled_dot_product_attention_math (as make_fx traces
// it, torch 2.15): q and k^T each scaled by sqrt(scale) (scale defaults
// to 1/sqrt(E)), bmm over [N*H, L, E] x [N*H, E, S], plus the causal mask
// where(tril(ones(L, S)), 0, -inf) or attn_mask, _safe_softmax over the
// last dim, bmm with v. The output takes
// query's stride order (the flash kernel allocates it with
// empty_like(query); the decomposition's own permute-contiguous-permute
// gives another layout, which kiln's type check would refuse). The second
// result differs (the math path returns the weights, flash its
// logsumexp), so a graph that reads it keeps the op whole, as do dropout
// and grouped-query attention.
func sdpaFlashCPU(e *emitter, c *ops.Call) []*ir.Value {
	q, k, v := e.tensorArg(c, "query"), e.tensorArg(c, "key"), e.tensorArg(c, "value")
	if e.err != nil || q == nil || k == nil || v == nil {
		return nil
	}
	qt, kt, vt := tensor(q), tensor(k), tensor(v)
	causal, err := c.Bool("is_causal")
	switch {
	case err != nil:
		e.whole("%v", err)
	case qt.Rank() != 4 || kt.Rank() != 4 || vt.Rank() != 4:
		e.whole("query, key and value are not 4-d")
	case dropout(c) != 0:
		e.whole("dropout_p is not 0")
	case qt.DType != ir.F32 && qt.DType != ir.F64:
		e.whole("%s attention: the math path's softmax would upcast", qt.DType.Name())
	case !sym.Equal(qt.Shape[1], kt.Shape[1]) || !sym.Equal(kt.Shape[1], vt.Shape[1]):
		e.whole("grouped-query attention (heads differ)")
	case len(e.orig.Results) > 1 && e.orig.Results[1].NumUses() > 0:
		e.whole("the logsumexp result is read: the math path does not compute it")
	}
	if e.err != nil {
		return nil
	}
	head, ok := qt.Shape[3].Const()
	if !ok {
		e.whole("head size %s is symbolic", qt.Shape[3])
		return nil
	}
	scale := 1 / math.Sqrt(float64(head))
	if s := c.Arg("scale"); s.Kind == ir.ArgFloat {
		scale = s.Float
	}
	sf := f64(math.Sqrt(scale))
	n, h, l, s := qt.Shape[0], qt.Shape[1], qt.Shape[2], kt.Shape[2]
	bh := sym.Mul(n, h)
	flat := func(x *ir.Value, rows, cols sym.Expr) *ir.Value {
		return e.call("aten::reshape.default", []ir.Arg{val(x), e.sizeList(bh, rows, cols)})
	}
	qs := e.call("aten::mul.Scalar", []ir.Arg{val(q), sf})
	ks := e.call("aten::mul.Scalar", []ir.Arg{val(e.call("aten::transpose.int", []ir.Arg{val(k), i64(-2), i64(-1)})), sf})
	attn := e.call("aten::bmm.default", []ir.Arg{val(flat(qs, l, qt.Shape[3])), val(flat(ks, kt.Shape[3], s))})
	attn = e.call("aten::_unsafe_view.default", []ir.Arg{val(attn), e.sizeList(n, h, l, s)})
	if causal {
		ones := e.call("aten::ones.default", []ir.Arg{e.sizeList(l, s)}, kw("dtype", ir.DTypeArg(ir.Bool)), kw("device", ir.DeviceArg(qt.Device)))
		lower := e.call("aten::tril.default", []ir.Arg{val(ones)})
		bias := e.where(lower, e.scalarTensor(f64(0), ir.F32, qt.Device), e.scalarTensor(f64(math.Inf(-1)), ir.F32, qt.Device))
		attn = e.add(attn, val(bias))
	}
	if m := e.tensorArg(c, "attn_mask"); m != nil {
		attn = e.add(attn, val(m))
	}
	ex := e.unary("exp", e.shiftByMax(attn, -1))
	weights := e.div(ex, val(e.call("aten::sum.dim_IntList", []ir.Arg{val(ex), ints(-1), ir.BoolArg(true)})))
	weights = e.maskRows(attn, -1, weights)
	out := e.call("aten::bmm.default", []ir.Arg{val(flat(weights, l, s)), val(flat(v, s, vt.Shape[3]))})
	out = e.call("aten::_unsafe_view.default", []ir.Arg{val(out), e.sizeList(n, h, l, vt.Shape[3])})
	return []*ir.Value{e.likeStrides(out, qt), nil}
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

// dropout is the call's dropout_p (NaN when it is not a number).
func dropout(c *ops.Call) float64 {
	switch a := c.Arg("dropout_p"); a.Kind {
	case ir.ArgFloat:
		return a.Float
	case ir.ArgInt:
		return float64(a.Int)
	}
	return math.NaN()
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
