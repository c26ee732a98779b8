package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// The backward ops of a training step (softmax, log_softmax, layer norm,
// nll_loss, embedding) after torch/_decomp/decompositions.py, torch 2.15.

// softmaxGrads reads grad_output and output of a softmax backward, upcast
// (@compute_only_pw_cast_for_opmath), and the dim.
func (e *emitter) softmaxGrads(c *ops.Call) (g, out *ir.Value, dim int) {
	g, out = e.floatInput(c, "grad_output"), e.tensorArg(c, "output")
	e.requireFloat(out)
	dim = int(e.intArg(c, "dim"))
	if e.err != nil {
		return nil, nil, 0
	}
	return g, e.opmath(out), dim
}

func (e *emitter) sumKeep(x *ir.Value, dims ...int) *ir.Value {
	return e.call("aten::sum.dim_IntList", []ir.Arg{val(x), ints(dims...), ir.BoolArg(true)})
}

// softmaxBackward: g*y - y*sum(g*y, dim, keepdim), cast to input_dtype
// (_cast_grad_to_input_dtype), contiguous (finish adds the clone).
func softmaxBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, y, dim := e.softmaxGrads(c)
	gy := e.mul(g, val(y))
	return []*ir.Value{e.castOut(e.sub(val(gy), val(e.mul(y, val(e.sumKeep(gy, dim))))))}
}

// logSoftmaxBackward: g - exp(y)*sum(g, dim, keepdim), cast to input_dtype.
func logSoftmaxBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, y, dim := e.softmaxGrads(c)
	return []*ir.Value{e.castOut(e.sub(val(g), val(e.mul(e.unary("exp", y), val(e.sumKeep(g, dim))))))}
}

// layerNormBackward is native_layer_norm_backward: with x_hat =
// (x-mean)*rstd and gx = grad*weight, d_input = rstd/N * (gx*N -
// sum(gx) - x_hat*sum(gx*x_hat)) over the normalized dims, d_weight =
// sum(grad*x_hat) and d_bias = sum(grad) over the outer dims; all in the
// computation dtype, mean and rstd as they come (bf16 on the CPU).
func layerNormBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.floatInput(c, "grad_out"), e.tensorArg(c, "input")
	e.requireFloat(x)
	norm := e.intsArgOrSym(c, "normalized_shape")
	mean, rstd := e.tensorArg(c, "mean"), e.tensorArg(c, "rstd")
	w, b := e.tensorArg(c, "weight"), e.tensorArg(c, "bias")
	if e.err != nil {
		return nil
	}
	t := tensor(x)
	axis := t.Rank() - norm
	n := int64(1)
	for _, s := range t.Shape[axis:] {
		k, ok := s.Const()
		if !ok {
			e.whole("the normalized size %s is symbolic", s)
			return nil
		}
		n *= k
	}
	if m, ok := t.Numel().Const(); n == 0 || ok && m == 0 {
		e.whole("an empty input: PyTorch returns new_zeros")
		return nil
	}
	inner, outer := dimRange(axis, t.Rank()), dimRange(0, axis)
	xa := e.opmath(x)
	mean, rstd = e.unsqueezeTo(mean, t.Rank()), e.unsqueezeTo(rstd, t.Rank())
	xHat := e.mul(e.sub(val(xa), val(mean)), val(rstd))
	gx := g
	if w != nil {
		gx = e.mul(g, val(e.opmath(w)))
	}
	c3 := e.mul(xHat, val(e.sumKeep(e.mul(gx, val(xHat)), inner...)))
	in := e.sub(val(e.sub(val(e.mul(gx, i64(n))), val(e.sumKeep(gx, inner...)))), val(c3))
	res := []*ir.Value{nil, nil, nil}
	if e.used(0) {
		res[0] = e.castOut(e.mul(e.div(rstd, i64(n)), val(in)), 0)
	}
	if e.used(1) && w != nil {
		res[1] = e.castOut(e.sumOuter(e.mul(g, val(xHat)), outer), 1)
	}
	if e.used(2) && b != nil {
		res[2] = e.castOut(e.sumOuter(g, outer), 2)
	}
	return res
}

// sumOuter is sum(x, dims, keepdim=False), or x.clone() with no dims.
// Several leading dims of a contiguous x are summed as one, through a
// view to [M, inner...]: the same sum in the same order, as one
// reduction dim (Go codegen's SIMD column reduction over two nested
// reduction loops names its accumulator like the inner loop's index).
func (e *emitter) sumOuter(x *ir.Value, dims []int) *ir.Value {
	if len(dims) == 0 {
		return e.unary("clone", x)
	}
	if t := tensor(x); len(dims) > 1 && t != nil && ops.IsContiguous(t) {
		m := int64(1)
		shape := []ir.Arg{ir.NoneArg()}
		for d, s := range t.Shape {
			k, ok := s.Const()
			if !ok {
				return e.call("aten::sum.dim_IntList", []ir.Arg{val(x), ints(dims...), ir.BoolArg(false)})
			}
			if d < len(dims) {
				m *= k
			} else {
				shape = append(shape, i64(k))
			}
		}
		shape[0] = i64(m)
		x, dims = e.call("aten::view.default", []ir.Arg{val(x), ir.ListArg(shape...)}), []int{0}
	}
	return e.call("aten::sum.dim_IntList", []ir.Arg{val(x), ints(dims...), ir.BoolArg(false)})
}

func dimRange(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for d := lo; d < hi; d++ {
		out = append(out, d)
	}
	return out
}

// reduction values of at::Reduction.
const (
	reductionNone = 0
	reductionMean = 1
	reductionSum  = 2
)

// nllArgs reads what nll_loss_forward/backward share; a 1-d input with a
// batched target keeps the node whole.
func (e *emitter) nllArgs(c *ops.Call) (self, target, weight *ir.Value, reduction, ignore int64) {
	self, target, weight = e.tensorArg(c, "self"), e.tensorArg(c, "target"), e.tensorArg(c, "weight")
	reduction, ignore = e.intArg(c, "reduction"), e.intArg(c, "ignore_index")
	if e.err == nil && tensor(self).Rank() < 2 && tensor(target).Rank() > 0 {
		e.whole("a 1-d input with a batched target")
	}
	return self, target, weight, reduction, ignore
}

// classWeight is weight viewed to broadcast along the class dim of a
// rank-rank input: [1, C] for 2-d, weight itself for 1-d.
func (e *emitter) classWeight(w *ir.Value, rank int) *ir.Value {
	if w == nil || rank < 2 {
		return w
	}
	return e.call("aten::view.default", []ir.Arg{val(w), ir.ListArg(i64(1), e.size(w, 0))})
}

// shapeOf is x's shape as a size-list argument.
func (e *emitter) shapeOf(x *ir.Value) ir.Arg {
	t := tensor(x)
	if t == nil {
		return ir.NoneArg()
	}
	dims := make([]ir.Arg, t.Rank())
	for d := range dims {
		dims[d] = e.size(x, d)
	}
	return ir.ListArg(dims...)
}

// kept is where(target != ignore_index, x, 0), the mask of every nll_loss.
func (e *emitter) kept(target *ir.Value, ignore int64, x *ir.Value) *ir.Value {
	t := tensor(x)
	if t == nil {
		return nil
	}
	return e.where(e.cmp("ne", target, i64(ignore)), x, e.scalarTensor(i64(0), t.DType, t.Device))
}

// nllLossForward: -gather(self*w, C, safe_target) masked by ignore_index,
// then summed (and divided by total_weight for mean); total_weight sums
// the kept targets' class weights, or counts them in self's dtype without
// weights (0 for reduction none).
func nllLossForward(e *emitter, c *ops.Call) []*ir.Value {
	self, target, weight, reduction, ignore := e.nllArgs(c)
	if e.err != nil {
		return nil
	}
	st := tensor(self)
	cdim := min(1, st.Rank()-1)
	w := e.classWeight(weight, st.Rank())
	if w != nil {
		self = e.mul(self, val(w))
	}
	safe := e.unsqueeze(e.kept(target, ignore, target), cdim)
	picked := e.call("aten::gather.default", []ir.Arg{val(self), i64(int64(cdim)), val(safe)})
	loss := e.kept(target, ignore, e.unary("neg", e.call("aten::squeeze.dim", []ir.Arg{val(picked), i64(int64(cdim))})))
	if reduction == reductionNone && st.Rank() > 1 {
		return []*ir.Value{loss, e.scalarTensor(f64(0), st.DType, st.Device)}
	}
	var total *ir.Value
	if w != nil {
		wx := e.call("aten::expand.default", []ir.Arg{val(w), e.shapeOf(self)})
		ws := e.call("aten::gather.default", []ir.Arg{val(wx), i64(int64(cdim)), val(safe)})
		ws = e.kept(target, ignore, e.call("aten::squeeze.dim", []ir.Arg{val(ws), i64(int64(cdim))}))
		total = e.call("aten::sum.default", []ir.Arg{val(ws)})
	} else {
		count := e.call("aten::sum.default", []ir.Arg{val(e.cmp("ne", target, i64(ignore)))})
		total = e.cast(count, st.DType)
	}
	switch reduction {
	case reductionSum:
		loss = e.call("aten::sum.default", []ir.Arg{val(loss)})
	case reductionMean:
		loss = e.div(e.call("aten::sum.default", []ir.Arg{val(loss)}), val(total))
	}
	return []*ir.Value{loss, total}
}

func (e *emitter) unsqueeze(x *ir.Value, d int) *ir.Value {
	return e.call("aten::unsqueeze.default", []ir.Arg{val(x), i64(int64(d))})
}

// nllLossBackward (_nll_loss_backward): scatter -1 at each kept target
// into zeros_like(self), times grad_output (divided by total_weight for
// mean, times the class weights), zero where the target is ignored.
func nllLossBackward(e *emitter, c *ops.Call) []*ir.Value {
	self, target, weight, reduction, ignore := e.nllArgs(c)
	g, total := e.tensorArg(c, "grad_output"), e.tensorArg(c, "total_weight")
	if e.err != nil {
		return nil
	}
	cdim := min(1, tensor(self).Rank()-1)
	if reduction == reductionMean {
		g = e.div(g, val(total))
	}
	target = e.unsqueeze(target, cdim)
	safe := e.kept(target, ignore, target)
	grad := e.oneHot(self, cdim, safe, -1)
	if gt := tensor(g); gt != nil && tensor(self).Rank() > gt.Rank() && gt.Rank() > 0 {
		g = e.unsqueeze(g, cdim)
	}
	if weight != nil {
		g = e.mul(g, val(e.classWeight(weight, tensor(self).Rank())))
	}
	return []*ir.Value{e.mul(grad, val(e.kept(target, ignore, g)))}
}

// oneHot is scatter.value(zeros_like(self), dim, index, v) for an index of
// size 1 along dim, written as Inductor's joint-graph pass rewrites a
// scatter into a constant tensor (fx_passes/joint_graph.py
// scatter_upon_const_tensor): where(index == arange(size) viewed along dim,
// v, 0), a pointwise value its consumer computes in place, not a fill and a
// scatter kernel.
func (e *emitter) oneHot(self *ir.Value, dim int, index *ir.Value, v float64) *ir.Value {
	t := tensor(self)
	if t == nil || e.err != nil {
		return nil
	}
	iota := e.arange([]ir.Arg{e.size(self, dim)}, ir.I64, t.Device)
	shape := []ir.Arg{e.size(self, dim)}
	for range t.Rank() - dim - 1 {
		shape = append(shape, i64(1))
	}
	iota = e.call("aten::view.default", []ir.Arg{val(iota), ir.ListArg(shape...)})
	hit := e.both("eq", index, iota)
	return e.where(hit, e.scalarTensor(f64(v), t.DType, t.Device), e.scalarTensor(f64(0), t.DType, t.Device))
}

// embeddingDenseBackward composes decompositions.py embedding_dense_backward
// with _unsafe_masked_index_put_accumulate: grad upcast, rows whose index
// is out of range or padding_idx zeroed, indices clamped, then
// _unsafe_index_put(new_zeros([num_weights, ...]), [indices], grad,
// accumulate=True), a scatter-add, cast back.
func embeddingDenseBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, idx := e.floatInput(c, "grad_output"), e.tensorArg(c, "indices")
	nw, pad := e.intArg(c, "num_weights"), e.intArg(c, "padding_idx")
	if e.err == nil && e.boolArg(c, "scale_grad_by_freq") {
		e.whole("scale_grad_by_freq counts indices first")
	}
	if e.err != nil {
		return nil
	}
	idx = e.cast(idx, ir.I64)
	valid := e.both("bitwise_and", e.cmp("ge", idx, i64(0)), e.cmp("lt", idx, i64(nw)))
	mask := e.unsqueezeTo(e.both("bitwise_and", valid, e.cmp("ne", idx, i64(pad))), tensor(g).Rank())
	masked := e.where(mask, g, e.zeroLike(g))
	size := []ir.Arg{i64(nw)}
	for d := tensor(idx).Rank(); d < tensor(g).Rank(); d++ {
		size = append(size, e.size(g, d))
	}
	zeros := e.call("aten::new_zeros.default", []ir.Arg{val(g), ir.ListArg(size...)})
	clamped := e.clampBy(idx, i64(-nw), i64(nw-1), ir.I64)
	out := e.call("aten::_unsafe_index_put.default", []ir.Arg{val(zeros), ir.ListArg(val(clamped)), val(masked), ir.BoolArg(true)})
	return []*ir.Value{e.castOut(out)}
}
