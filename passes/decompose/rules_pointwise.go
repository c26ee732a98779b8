package decompose

import (
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Pointwise decompositions: activations (refs nn.functional and
// decompositions.py), clamp and where with scalars, rsub, addcmul,
// addcdiv, lerp. Float math runs in the computation dtype (float32 for
// f16/bf16), as pw_cast_for_opmath and elementwise_type_promotion_wrapper
// arrange, and is cast back to the op's result dtype.

// opmath casts x to the computation dtype of the original's result.
func (e *emitter) opmath(x *ir.Value) *ir.Value {
	if t := e.outType(0); t != nil && e.err == nil {
		return e.cast(x, computeDType(t.DType))
	}
	return x
}

// floatInput reads self (or name), requires a float result, and upcasts.
func (e *emitter) floatInput(c *ops.Call, name string) *ir.Value {
	x := e.tensorArg(c, name)
	if t := e.outType(0); e.err == nil && t != nil && !t.DType.IsFloat() {
		e.whole("the result is %s, not a floating dtype", t.DType.Name())
	}
	return e.opmath(x)
}

// mulBy multiplies by a constant, skipping the exact identity x*1.
func (e *emitter) mulBy(x *ir.Value, k float64, isInt bool) *ir.Value {
	if k == 1 {
		return x
	}
	return e.mul(x, numArg(k, isInt))
}

const (
	sqrt1_2   = 0.7071067811865476 // M_SQRT1_2
	sqrt2     = 1.4142135623730951 // M_SQRT2
	twoSqrtPi = 1.1283791670955126 // M_2_SQRTPI
	geluKappa = 0.044715
)

// gelu is refs gelu: 'none' is a*0.5*(1+erf(a*M_SQRT1_2)); 'tanh' is
// 0.5*a*(1+tanh(kBeta*(a+kKappa*a^3))).
func gelu(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	var out *ir.Value
	switch approx := c.Arg("approximate").Str; approx {
	case "none":
		half := e.mul(a, f64(0.5))
		erf := e.unary("erf", e.mul(a, f64(sqrt1_2)))
		out = e.mul(half, val(e.add(erf, i64(1))))
	case "tanh":
		cube := e.mul(e.mul(a, val(a)), val(a))
		inner := e.add(a, val(e.mul(cube, f64(geluKappa))))
		th := e.unary("tanh", e.mul(inner, f64(sqrt2*twoSqrtPi*0.5)))
		out = e.mul(e.mul(a, f64(0.5)), val(e.add(th, i64(1))))
	default:
		e.whole("approximate=%q", approx)
	}
	return []*ir.Value{e.castOut(out)}
}

// silu is decompositions.py silu: self * sigmoid(self).
func silu(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	return []*ir.Value{e.castOut(e.mul(a, val(e.unary("sigmoid", a))))}
}

// clampBy is clamp(x, lo, hi) for constant (or SymInt) bounds: maximum
// and minimum against 0-d tensors of dtype dt. Both propagate NaN, as
// clamp does (refs clamp: a NaN input stays NaN; a NaN bound wins).
func (e *emitter) clampBy(x *ir.Value, lo, hi ir.Arg, dt ir.DType) *ir.Value {
	if lo.Kind == ir.ArgNone && hi.Kind == ir.ArgNone {
		e.whole("clamp called but both min and max are none")
		return nil
	}
	t := tensor(x)
	if t == nil {
		return nil
	}
	if lo.Kind != ir.ArgNone {
		x = e.call("aten::maximum.default", []ir.Arg{val(x), val(e.scalarTensor(lo, dt, t.Device))})
	}
	if hi.Kind != ir.ArgNone {
		x = e.call("aten::minimum.default", []ir.Arg{val(x), val(e.scalarTensor(hi, dt, t.Device))})
	}
	return x
}

// clampScalar covers clamp(self, min?, max?), clamp_min(self, min),
// clamp_max(self, max), and hardtanh(self, min_val, max_val). No upcast:
// selecting a bound is exact, and the bound is held in the result dtype as
// clamp's kernel converts it.
func clampScalar(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	lo, hi := ir.NoneArg(), ir.NoneArg()
	for _, p := range []struct {
		name string
		dst  *ir.Arg
	}{{"min", &lo}, {"min_val", &lo}, {"max", &hi}, {"max_val", &hi}} {
		if c.Has(p.name) {
			*p.dst = c.Arg(p.name)
		}
	}
	if t := e.outType(0); t != nil && e.err == nil {
		return []*ir.Value{e.clampBy(x, lo, hi, t.DType)}
	}
	return nil
}

// clampTensor covers clamp.Tensor, clamp_min.Tensor and clamp_max.Tensor:
// maximum/minimum with the bound tensors, which promote as clamp does.
func clampTensor(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	lo, hi := e.optTensor(c, "min"), e.optTensor(c, "max")
	if lo == nil && hi == nil && e.err == nil {
		e.whole("clamp called but both min and max are none")
	}
	if lo != nil {
		x = e.call("aten::maximum.default", []ir.Arg{val(x), val(lo)})
	}
	if hi != nil {
		x = e.call("aten::minimum.default", []ir.Arg{val(x), val(hi)})
	}
	return []*ir.Value{x}
}

func (e *emitter) optTensor(c *ops.Call, name string) *ir.Value {
	if !c.Has(name) {
		return nil
	}
	return e.tensorArg(c, name)
}

// hardsigmoid is clamp(clamp(self + 3, min=0), max=6) / 6.
func hardsigmoid(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	return []*ir.Value{e.castOut(e.div(e.relu6(a, 3), i64(6)))}
}

// hardswish is self * clamp(clamp(self + 3, min=0), max=6) / 6.
func hardswish(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	return []*ir.Value{e.castOut(e.div(e.mul(a, val(e.relu6(a, 3))), i64(6)))}
}

// relu6 is clamp(a + shift, 0, 6) in a's dtype.
func (e *emitter) relu6(a *ir.Value, shift int64) *ir.Value {
	s := e.add(a, i64(shift))
	if t := tensor(s); t != nil {
		return e.clampBy(s, i64(0), i64(6), t.DType)
	}
	return nil
}

// leakyRelu is refs leaky_relu: where(a > 0, a, a * negative_slope).
func leakyRelu(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	slope, isInt := e.number(c, "negative_slope")
	gt := e.call("aten::gt.Scalar", []ir.Arg{val(a), i64(0)})
	return []*ir.Value{e.castOut(e.where(gt, a, e.mul(a, numArg(slope, isInt))))}
}

// elu is refs elu: where(a > 0, a * scale, expm1(a * input_scale) * alpha * scale).
func elu(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	alpha, ai := e.number(c, "alpha")
	scale, si := e.number(c, "scale")
	inScale, ii := e.number(c, "input_scale")
	gt := e.call("aten::gt.Scalar", []ir.Arg{val(a), i64(0)})
	pos := e.mulBy(a, scale, si)
	neg := e.mulBy(e.unary("expm1", e.mulBy(a, inScale, ii)), alpha*scale, ai && si)
	return []*ir.Value{e.castOut(e.where(gt, pos, neg))}
}

// softplus is refs softplus: where(a*beta > threshold, a, log1p(exp(a*beta)) / beta).
func softplus(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	beta, bi := e.number(c, "beta")
	thr, ti := e.number(c, "threshold")
	return []*ir.Value{e.castOut(e.softplusOf(a, beta, bi, numArg(thr, ti)))}
}

func (e *emitter) softplusOf(a *ir.Value, beta float64, betaInt bool, thr ir.Arg) *ir.Value {
	scaled := e.mulBy(a, beta, betaInt)
	rhs := e.unary("log1p", e.unary("exp", scaled))
	if beta != 1 {
		rhs = e.div(rhs, numArg(beta, betaInt))
	}
	gt := e.call("aten::gt.Scalar", []ir.Arg{val(scaled), thr})
	return e.where(gt, a, rhs)
}

// mish is decompositions.py mish: x * tanh(softplus(x)).
func mish(e *emitter, c *ops.Call) []*ir.Value {
	a := e.floatInput(c, "self")
	sp := e.softplusOf(a, 1, true, i64(20))
	return []*ir.Value{e.castOut(e.mul(a, val(e.unary("tanh", sp))))}
}

// whereScalar covers where.ScalarSelf/ScalarOther/Scalar: each scalar
// becomes a 0-d tensor of the result dtype on the result device (ATen
// wraps it with wrapped_scalar_tensor), then where.self.
func whereScalar(e *emitter, c *ops.Call) []*ir.Value {
	cond := e.tensorArg(c, "condition")
	t := e.outType(0)
	if e.err != nil || t == nil {
		return nil
	}
	operand := func(name string) *ir.Value {
		if a := c.Arg(name); a.Kind != ir.ArgValue || tensor(a.Value) == nil {
			return e.scalarTensor(a, t.DType, t.Device)
		}
		return e.tensorArg(c, name)
	}
	self, other := operand("self"), operand("other")
	return []*ir.Value{e.where(cond, self, other)}
}

// rsub is refs rsub: sub(other, self, alpha=alpha); a scalar other is
// passed as it is, as PyTorch's graphs print sub.Tensor(1.0, x).
func rsub(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	var kws []ir.Kwarg
	if alpha := c.Arg("alpha"); !(alpha.Kind == ir.ArgInt && alpha.Int == 1) {
		kws = append(kws, kw("alpha", alpha))
	}
	return []*ir.Value{e.call("aten::sub.Tensor", []ir.Arg{c.Arg("other"), val(x)}, kws...)}
}

// addcmul is refs addcmul: self + value * tensor1 * tensor2.
func addcmul(e *emitter, c *ops.Call) []*ir.Value {
	self, t1, t2 := e.promoted(c, "self", "tensor1", "tensor2")
	value, isInt := e.number(c, "value")
	prod := e.mul(e.mulBy(t1, value, isInt), val(t2))
	return []*ir.Value{e.castOut(e.add(self, val(prod)))}
}

// addcdiv is refs addcdiv: self + value * (tensor1 / tensor2).
func addcdiv(e *emitter, c *ops.Call) []*ir.Value {
	self, t1, t2 := e.promoted(c, "self", "tensor1", "tensor2")
	if t := e.outType(0); e.err == nil && t != nil && !t.DType.IsFloat() {
		e.whole("integer division with addcdiv is not supported")
	}
	value, isInt := e.number(c, "value")
	q := e.mulBy(e.div(t1, val(t2)), value, isInt)
	return []*ir.Value{e.castOut(e.add(self, val(q)))}
}

// promoted reads three tensor parameters and casts them to the
// computation dtype (elementwise_type_promotion_wrapper, DEFAULT).
func (e *emitter) promoted(c *ops.Call, a, b, d string) (*ir.Value, *ir.Value, *ir.Value) {
	x, y, z := e.tensorArg(c, a), e.tensorArg(c, b), e.tensorArg(c, d)
	return e.opmath(x), e.opmath(y), e.opmath(z)
}

// lerp is refs lerp: for |weight| >= 0.5 it computes from end, for
// stability: coeff * (end - start) + base with coeff = weight - 1 and
// base = end, else coeff = weight and base = start. A constant weight
// picks the branch here; a weight tensor selects per element.
func lerp(e *emitter, c *ops.Call) []*ir.Value {
	start, end := e.opmath(e.tensorArg(c, "self")), e.opmath(e.tensorArg(c, "end"))
	if t := e.outType(0); e.err == nil && t != nil && !t.DType.IsFloat() {
		e.whole("lerp needs floating operands")
	}
	diff := e.sub(val(end), val(start))
	if a := c.Arg("weight"); a.Kind != ir.ArgValue {
		w, _ := e.number(c, "weight")
		coeff, base := w, start
		if math.Abs(w) >= 0.5 {
			coeff, base = w-1, end
		}
		return []*ir.Value{e.castOut(e.add(e.mul(diff, f64(coeff)), val(base)))}
	}
	w := e.opmath(e.tensorArg(c, "weight"))
	mask := e.call("aten::ge.Scalar", []ir.Arg{val(e.unary("abs", w)), f64(0.5)})
	coeff := e.where(mask, e.sub(val(w), i64(1)), w)
	base := e.where(mask, end, start)
	out := e.call("aten::mul.Tensor", []ir.Arg{val(coeff), val(diff)})
	return []*ir.Value{e.castOut(e.add(out, val(base)))}
}

// glu is torch/_refs glu, a * sigmoid(b) with a, b the two halves of self
// along dim, computed in opmath and cast back once as ATen's CPU kernel
// does (refs would round sigmoid(b) to a reduced float first).
func glu(e *emitter, c *ops.Call) []*ir.Value {
	x := e.floatInput(c, "self")
	t := tensor(x)
	if e.err != nil || t == nil {
		return nil
	}
	dim, err := c.Dim("dim", t.Rank())
	if err != nil {
		e.whole("%v", err)
		return nil
	}
	n, ok := t.Shape[dim].Const()
	if !ok || n%2 != 0 {
		e.whole("the halved dim %d has size %s, not a constant even size", dim, t.Shape[dim])
		return nil
	}
	half := func(lo int64) *ir.Value {
		return e.call("aten::slice.Tensor", []ir.Arg{val(x), i64(int64(dim)), i64(lo), i64(lo + n/2)})
	}
	return []*ir.Value{e.castOut(e.mul(half(0), val(e.unary("sigmoid", half(n/2)))))}
}
