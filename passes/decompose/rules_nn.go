package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Normalization decompositions: softmax and log_softmax (decompositions.py
// _softmax/_log_softmax), layer norm (refs native_layer_norm/_normalize),
// batch norm in inference (decompositions.py native_batch_norm_helper with
// training=False).

// softmax covers _softmax(self, dim, half_to_float) and softmax.int(self,
// dim, dtype): upcast reduced floats (elementwise_dtypes DEFAULT), x -
// amax(x, keepdim) for stability, exp, divide by the keepdim sum; cast
// back unless half_to_float.
func softmax(e *emitter, c *ops.Call) []*ir.Value {
	x, dim := e.softmaxInput(c)
	shifted := e.shiftByMax(x, dim)
	ex := e.unary("exp", shifted)
	sum := e.call("aten::sum.dim_IntList", []ir.Arg{val(ex), ints(int(dim)), ir.BoolArg(true)})
	out := e.call("aten::div.Tensor", []ir.Arg{val(ex), val(sum)})
	return []*ir.Value{e.castOut(out)}
}

// logSoftmax is _log_softmax / log_softmax.int: shifted - log(sum(exp(shifted))).
func logSoftmax(e *emitter, c *ops.Call) []*ir.Value {
	x, dim := e.softmaxInput(c)
	shifted := e.shiftByMax(x, dim)
	ex := e.unary("exp", shifted)
	sum := e.call("aten::sum.dim_IntList", []ir.Arg{val(ex), ints(int(dim)), ir.BoolArg(true)})
	lse := e.unary("log", sum)
	out := e.sub(val(shifted), val(lse))
	return []*ir.Value{e.castOut(out)}
}

// softmaxInput applies softmax.int's dtype argument, then upcasts to the
// computation dtype.
func (e *emitter) softmaxInput(c *ops.Call) (*ir.Value, int64) {
	x := e.tensorArg(c, "self")
	dim := e.intArg(c, "dim")
	if c.Has("dtype") {
		if dt, ok, err := c.DType("dtype"); err == nil && ok {
			x = e.cast(x, dt)
		}
	}
	e.requireFloat(x)
	if e.err != nil {
		return nil, 0
	}
	return e.cast(x, computeDType(tensor(x).DType)), dim
}

// shiftByMax is x - amax(x, dim, keepdim); an empty x is returned as is,
// as the decomposition skips amax when numel() == 0.
func (e *emitter) shiftByMax(x *ir.Value, dim int64) *ir.Value {
	if e.err != nil {
		return nil
	}
	if n, ok := tensor(x).Numel().Const(); ok && n == 0 {
		return x
	}
	amax := e.call("aten::amax.default", []ir.Arg{val(x), ints(int(dim)), ir.BoolArg(true)})
	return e.sub(val(x), val(amax))
}

// castOut casts v to the dtype of the original's result i (default 0).
func (e *emitter) castOut(v *ir.Value, i ...int) *ir.Value {
	idx := 0
	if len(i) > 0 {
		idx = i[0]
	}
	if t := e.outType(idx); t != nil && e.err == nil {
		return e.cast(v, t.DType)
	}
	return v
}

// nativeLayerNorm is native_layer_norm(input, normalized_shape, weight,
// bias, eps) -> (out, mean, rstd); layerNorm is layer_norm's out alone.
func nativeLayerNorm(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "input")
	norm := e.intsArgOrSym(c, "normalized_shape")
	w, b := e.tensorArg(c, "weight"), e.tensorArg(c, "bias")
	eps, _ := e.number(c, "eps")
	e.requireFloat(x)
	if e.err != nil {
		return nil
	}
	t := tensor(x)
	dims := make([]int, norm)
	for i := range dims {
		dims[i] = t.Rank() - norm + i
	}
	xa := e.cast(x, computeDType(t.DType))
	vm := e.callN("aten::var_mean.correction", []ir.Arg{val(xa), ints(dims...)},
		[]ir.Kwarg{kw("correction", i64(0)), kw("keepdim", ir.BoolArg(true))}, "var", "mean")
	if vm == nil {
		return nil
	}
	variance, mean := vm.Results[0], vm.Results[1]
	rstd := e.unary("rsqrt", e.add(variance, f64(eps)))
	out := e.mul(e.sub(val(xa), val(mean)), val(rstd))
	if w != nil {
		out = e.mul(out, val(w))
	}
	if b != nil {
		out = e.add(out, val(b))
	}
	// On the CPU mean and rstd come back in the input dtype, elsewhere in
	// the computation dtype (refs native_layer_norm).
	statDT := computeDType(t.DType)
	if t.Device.IsCPU() {
		statDT = t.DType
	}
	if o := e.outType(1); o != nil {
		statDT = o.DType // as fakeprop typed it: on a graph that names no device, from its annotations
	}
	res := []*ir.Value{e.cast(out, t.DType), nil, nil}
	if e.used(1) {
		res[1] = e.cast(mean, statDT)
	}
	if e.used(2) {
		res[2] = e.cast(rstd, statDT)
	}
	return res
}

// intsArgOrSym reads normalized_shape's length (its sizes may be symbolic;
// only the count matters).
func (e *emitter) intsArgOrSym(c *ops.Call, name string) int {
	v, err := c.SymInts(name)
	e.fail(err)
	return len(v)
}

// batchNormEval is the inference branch of native_batch_norm_helper:
// running stats in the computation dtype, invstd = 1/sqrt(var + eps),
// stats and affine parameters unsqueezed to [C, 1, ...] to broadcast over
// [N, C, ...]. The training branch stays whole (see the table), and so
// does a call whose save_mean/save_rstd results are read.
func batchNormEval(e *emitter, c *ops.Call) []*ir.Value {
	training := c.Has("training") && e.boolArg(c, "training")
	if training {
		e.whole("training mode: batch statistics and the running-stat update stay one op")
		return nil
	}
	x := e.tensorArg(c, "input")
	w, b := e.tensorArg(c, "weight"), e.tensorArg(c, "bias")
	rm, rv := e.tensorArg(c, "running_mean"), e.tensorArg(c, "running_var")
	eps, _ := e.number(c, "eps")
	e.requireFloat(x)
	switch {
	case e.err != nil:
	case rm == nil || rv == nil:
		e.whole("inference without running statistics")
	case e.used(1) || e.used(2):
		// The decomposition returns the running mean and invstd off the CPU
		// and empty tensors on it; eager CUDA kernels return uninitialized
		// buffers. Nothing to reproduce faithfully.
		e.whole("save_mean/save_rstd are used; in inference PyTorch leaves them empty or unspecified")
	}
	if e.err != nil {
		return nil
	}
	t := tensor(x)
	cdt := computeDType(t.DType)
	mean, variance := e.cast(rm, cdt), e.cast(rv, cdt)
	invstd := e.unary("reciprocal", e.unary("sqrt", e.add(variance, f64(eps))))
	out := e.sub(val(x), val(e.unsqueezeTo(mean, t.Rank()-1)))
	out = e.mul(out, val(e.unsqueezeTo(invstd, t.Rank()-1)))
	if w != nil {
		out = e.mul(out, val(e.unsqueezeTo(w, t.Rank()-1)))
	}
	if b != nil {
		out = e.add(out, val(e.unsqueezeTo(b, t.Rank()-1)))
	}
	return []*ir.Value{e.cast(out, t.DType)}
}

// unsqueezeTo is _unsqueeze_to_dim: unsqueeze(-1) until x has dim dims.
func (e *emitter) unsqueezeTo(x *ir.Value, dim int) *ir.Value {
	t := tensor(x)
	if t == nil {
		return x
	}
	for r := t.Rank(); r < dim; r++ {
		x = e.call("aten::unsqueeze.default", []ir.Arg{val(x), i64(-1)})
	}
	return x
}

// adaptiveAvgPool2d is decompositions.py adaptive_avg_pool2d where each
// output size divides its input size (ResNet's pool to 1x1 included):
// avg_pool2d with stride in/out and kernel in - (out-1)*stride. Other
// sizes (pooling windows of different lengths) stay whole.
func adaptiveAvgPool2d(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	t := tensor(x)
	out, err := c.Ints("output_size")
	switch {
	case e.err != nil || t == nil:
		return nil
	case err != nil || len(out) != 2:
		e.whole("output_size is not two constant sizes")
		return nil
	case t.Rank() != 3 && t.Rank() != 4:
		e.whole("input rank %d, not 3 or 4", t.Rank())
		return nil
	}
	var kernel, stride []ir.Arg
	for i, o := range out {
		in, ok := t.Shape[t.Rank()-2+i].Const()
		if !ok || o <= 0 || in%o != 0 {
			e.whole("input size %s is not a constant multiple of output size %d", t.Shape[t.Rank()-2+i], o)
			return nil
		}
		s := in / o
		kernel, stride = append(kernel, i64(in-(o-1)*s)), append(stride, i64(s))
	}
	return []*ir.Value{e.call("aten::avg_pool2d.default", []ir.Arg{val(x), ir.ListArg(kernel...), ir.ListArg(stride...)})}
}
