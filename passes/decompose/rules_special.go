package decompose

import (
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Special and loss-gradient pointwise ops after torch/_refs and
// decompositions.py, computed in the computation dtype (float32 for
// f16/bf16) and cast back to the result dtype.

// scalarOf is a 0-d tensor holding k with x's dtype and device.
func (e *emitter) scalarOf(x *ir.Value, k float64) *ir.Value {
	t := tensor(x)
	if t == nil {
		return nil
	}
	return e.scalarTensor(f64(k), t.DType, t.Device)
}

// mseLossBackward is decompositions.py mse_loss_backward:
// norm * (input - target) * grad, norm 2/numel for reduction=mean, else 2.
func mseLossBackward(e *emitter, c *ops.Call) []*ir.Value {
	g := e.floatInput(c, "grad_output")
	x, y := e.opmath(e.tensorArg(c, "self")), e.opmath(e.tensorArg(c, "target"))
	norm := 2.0
	if c.Arg("reduction").Int == 1 { // Reduction.MEAN
		n, ok := tensor(x).Numel().Const()
		if !ok || n == 0 {
			e.whole("reduction=mean over a symbolic or empty input")
			return nil
		}
		norm = 2.0 / float64(n)
	}
	return []*ir.Value{e.castOut(e.mul(e.mul(e.sub(val(x), val(y)), f64(norm)), val(g)))}
}

// logit follows ATen's logit kernel: with eps, x clamped to [eps, 1-eps]
// by where (NaN passes through, as in refs logit); then log(x / (1 - x)).
// eps=None does not clamp (refs' eps=-1 bounds [-1, 2] give the same NaN
// outside [0, 1]).
func logit(e *emitter, c *ops.Call) []*ir.Value {
	x := e.floatInput(c, "self")
	if a := c.Arg("eps"); a.Kind != ir.ArgNone {
		eps, _ := e.number(c, "eps")
		hi := e.where(e.cmp("gt", x, f64(1-eps)), e.scalarOf(x, 1-eps), x)
		x = e.where(e.cmp("lt", x, f64(eps)), e.scalarOf(x, eps), hi)
	}
	return []*ir.Value{e.castOut(e.unary("log", e.div(x, val(e.sub(i64(1), val(x))))))}
}

// xlog1py is refs special.xlog1py: where(isnan(b), nan, where(a == 0, 0,
// a * log1p(b))); the NaN is b itself, which is NaN exactly there.
func xlog1py(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	b := e.opmath(e.tensorArg(c, "other"))
	rhs := e.where(e.cmp("eq", a, i64(0)), e.scalarOf(a, 0), e.both("mul", a, e.unary("log1p", b)))
	return []*ir.Value{e.castOut(e.where(e.unary("isnan", b), b, rhs))}
}

// entr is refs special.entr: where(isnan(a), a, where(a > 0, -a*log(a),
// where(a == 0, 0, -inf))).
func entr(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	edge := e.where(e.cmp("eq", a, i64(0)), e.scalarOf(a, 0), e.scalarOf(a, math.Inf(-1)))
	pos := e.both("mul", e.unary("neg", a), e.unary("log", a))
	inner := e.where(e.cmp("gt", a, i64(0)), pos, edge)
	return []*ir.Value{e.castOut(e.where(e.unary("isnan", a), a, inner))}
}

// heaviside is refs heaviside: where(x == 0, values, where((x < 0) |
// isnan(x), 0, 1)), operands in the promoted dtype.
func heaviside(e *emitter, c *ops.Call) []*ir.Value {
	x, v := e.opmath(e.tensorArg(c, "self")), e.opmath(e.tensorArg(c, "values"))
	if t := e.outType(0); e.err == nil && t != nil && t.DType == ir.Bool {
		e.whole("bool operands")
	}
	neg := e.call("aten::logical_or.default", []ir.Arg{val(e.cmp("lt", x, i64(0))), val(e.unary("isnan", x))})
	zo := e.where(neg, e.scalarOf(x, 0), e.scalarOf(x, 1))
	return []*ir.Value{e.castOut(e.where(e.cmp("eq", x, i64(0)), v, zo))}
}

// roundDecimals follows ATen's round_decimals kernel, not decompositions.py
// (whose round(a*10^d)*10^-d differs from eager in the last bit): in the
// computation dtype, nearbyint(x*10^d)/10^d, or for d < 0
// nearbyint(x/10^-d)*10^-d. Integers stay whole.
func roundDecimals(e *emitter, c *ops.Call) []*ir.Value {
	x := e.floatInput(c, "self")
	d := c.Arg("decimals").Int
	if d == 0 {
		return []*ir.Value{e.castOut(e.unary("round", x))}
	}
	p := math.Pow(10, math.Abs(float64(d)))
	if d > 0 {
		return []*ir.Value{e.castOut(e.div(e.unary("round", e.mul(x, f64(p))), f64(p)))}
	}
	return []*ir.Value{e.castOut(e.mul(e.unary("round", e.div(x, f64(p))), f64(p)))}
}

// ldexp is decompositions.py ldexp: self * pow(two, other), two a 0-d 2.0
// of self's dtype (float32 for integer or bool self).
func ldexp(e *emitter, c *ops.Call) []*ir.Value {
	x, y := e.tensorArg(c, "self"), e.tensorArg(c, "other")
	t := tensor(x)
	if e.err != nil || t == nil {
		return nil
	}
	dt := t.DType
	if dt.IsComplex() {
		e.whole("complex self")
		return nil
	}
	if !dt.IsFloat() {
		dt = ir.F32
	}
	two := e.scalarTensor(f64(2), dt, t.Device)
	p := e.call("aten::pow.Tensor_Tensor", []ir.Arg{val(two), val(y)})
	return []*ir.Value{e.both("mul", x, p)}
}

// conjPhysical is decompositions.py conj_physical for real dtypes: the
// input itself, here a clone so the result stays a fresh tensor. Complex
// inputs stay whole.
func conjPhysical(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	if t := tensor(x); e.err == nil && t != nil && t.DType.IsComplex() {
		e.whole("complex input")
		return nil
	}
	return []*ir.Value{e.call("aten::clone.default", []ir.Arg{val(x)})}
}

// mseLoss is decompositions.py mse_loss: (self - target) ** 2 in opmath,
// then apply_loss_reduction (0 none, 1 mean, 2 sum), cast back.
func mseLoss(e *emitter, c *ops.Call) []*ir.Value {
	x, y := e.opmath(e.tensorArg(c, "self")), e.opmath(e.tensorArg(c, "target"))
	return e.reducedLoss(c, e.call("aten::pow.Tensor_Scalar", []ir.Arg{val(e.sub(val(x), val(y))), i64(2)}))
}

// logSigmoidForward is decompositions.py log_sigmoid_forward, in opmath:
// output minimum(0, x) - log1p(z) with z = exp(-abs(x)); buffer z on the
// CPU, an empty tensor on CUDA and XPU.
// logSigmoid is log_sigmoid_forward's value, minimum(0, x) -
// log1p(exp(-|x|)), and its buffer exp(-|x|).
func (e *emitter) logSigmoid(x *ir.Value) (ls, z *ir.Value) {
	t := tensor(x)
	lo := e.call("aten::minimum.default", []ir.Arg{val(e.scalarTensor(i64(0), t.DType, t.Device)), val(x)})
	z = e.unary("exp", e.unary("neg", e.unary("abs", x)))
	return e.sub(val(lo), val(e.unary("log1p", z))), z
}

func logSigmoidForward(e *emitter, c *ops.Call) []*ir.Value {
	x := e.floatInput(c, "self")
	t := tensor(x)
	if e.err != nil || t == nil {
		return nil
	}
	ls, z := e.logSigmoid(x)
	out := e.castOut(ls)
	if t.Device.Type == "cuda" || t.Device.Type == "xpu" { // the decomposition's self.is_cuda or self.is_xpu
		return []*ir.Value{out, e.call("aten::new_zeros.default", []ir.Arg{val(out), ir.ListArg(i64(0))})}
	}
	return []*ir.Value{out, e.castOut(z, 1)}
}
