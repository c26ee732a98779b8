package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Activation backwards after torch/_decomp/decompositions.py. Every one is
// @pw_cast_for_opmath: operands upcast to the computation dtype, the
// result cast back.

// zeroLike is a 0-d 0.0 in the computation dtype on x's device (the
// Python 0.0 that decompositions.py passes to torch.where).
func (e *emitter) zeroLike(x *ir.Value) *ir.Value {
	t := tensor(x)
	if t == nil {
		return nil
	}
	return e.scalarTensor(f64(0), t.DType, t.Device)
}

// gradSelf reads the grad and the saved input, both upcast.
func (e *emitter) gradSelf(c *ops.Call, grad, self string) (*ir.Value, *ir.Value) {
	g := e.floatInput(c, grad)
	return g, e.opmath(e.tensorArg(c, self))
}

func (e *emitter) cmp(op string, x *ir.Value, k ir.Arg) *ir.Value {
	return e.call("aten::"+op+".Scalar", []ir.Arg{val(x), k})
}

func (e *emitter) both(op string, a, b *ir.Value) *ir.Value {
	return e.call("aten::"+op+".Tensor", []ir.Arg{val(a), val(b)})
}

// hardtanhBackward: where((self <= min_val) | (self >= max_val), 0.0, grad).
func hardtanhBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.gradSelf(c, "grad_output", "self")
	lo, hi := e.cmp("le", x, c.Arg("min_val")), e.cmp("ge", x, c.Arg("max_val"))
	return []*ir.Value{e.castOut(e.where(e.both("bitwise_or", lo, hi), e.zeroLike(g), g))}
}

// leakyReluBackward: where(self > 0, grad, grad * negative_slope).
func leakyReluBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.gradSelf(c, "grad_output", "self")
	slope, isInt := e.number(c, "negative_slope")
	return []*ir.Value{e.castOut(e.where(e.cmp("gt", x, i64(0)), g, e.mul(g, numArg(slope, isInt))))}
}

// eluBackward: where(x <= 0, neg, grad * scale) with neg
// grad*input_scale*(x + alpha*scale) when x is the result, else
// grad*input_scale*alpha*scale*exp(x*input_scale).
func eluBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.gradSelf(c, "grad_output", "self_or_result")
	alpha, _ := e.number(c, "alpha")
	scale, _ := e.number(c, "scale")
	inScale, _ := e.number(c, "input_scale")
	negcoef := alpha * scale
	var neg *ir.Value
	if c.Arg("is_result").Bool {
		neg = e.mul(e.mul(g, f64(inScale)), val(e.add(x, f64(negcoef))))
	} else {
		ex := e.unary("exp", e.mul(x, f64(inScale)))
		neg = e.mul(e.mul(e.mul(g, f64(inScale)), f64(negcoef)), val(ex))
	}
	return []*ir.Value{e.castOut(e.where(e.cmp("le", x, i64(0)), neg, e.mul(g, f64(scale))))}
}

// hardsigmoidBackward: where((self > -3) & (self < 3), grad * (1/6), 0.0).
func hardsigmoidBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.gradSelf(c, "grad_output", "self")
	in := e.both("bitwise_and", e.cmp("gt", x, f64(-3)), e.cmp("lt", x, f64(3)))
	return []*ir.Value{e.castOut(e.where(in, e.mul(g, f64(1.0/6.0)), e.zeroLike(g)))}
}

// hardswishBackward: where(self <= -3, 0.0, where(self < 3, grad*(self/3 + 0.5), grad)).
func hardswishBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.gradSelf(c, "grad_output", "self")
	mid := e.mul(g, val(e.add(e.div(x, i64(3)), f64(0.5))))
	inner := e.where(e.cmp("lt", x, i64(3)), mid, g)
	return []*ir.Value{e.castOut(e.where(e.cmp("le", x, i64(-3)), e.zeroLike(g), inner))}
}

// softplusBackward: z = exp(x*beta); where(x*beta > threshold, grad, grad*z/(z+1)).
func softplusBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.gradSelf(c, "grad_output", "self")
	beta, bi := e.number(c, "beta")
	thr, ti := e.number(c, "threshold")
	xb := e.mul(x, numArg(beta, bi))
	z := e.unary("exp", xb)
	rhs := e.div(e.mul(g, val(z)), val(e.add(z, f64(1))))
	return []*ir.Value{e.castOut(e.where(e.cmp("gt", xb, numArg(thr, ti)), g, rhs))}
}

// mishBackward: t = tanh(softplus(x)); grad * (t + x*sigmoid(x)*(1 - t*t)).
func mishBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.gradSelf(c, "grad_output", "self")
	th := e.unary("tanh", e.softplusOf(x, 1, true, i64(20)))
	oneMinus := e.sub(i64(1), val(e.mul(th, val(th))))
	out := e.mul(e.mul(x, val(e.unary("sigmoid", x))), val(oneMinus))
	return []*ir.Value{e.castOut(e.mul(g, val(e.add(th, val(out)))))}
}

// isPosNegInf is refs isposinf/isneginf for floats: a == ±inf, spelled
// isinf(a) & (a > 0) (or a < 0) so no infinite literal enters the graph;
// the two agree on every float, NaN included. Integers (all-false
// zeros_like) stay whole.
func isPosNegInf(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	if t := tensor(x); e.err == nil && t != nil && !t.DType.IsFloat() {
		e.whole("the input is %s, not a floating dtype", t.DType.Name())
	}
	side := "gt"
	if c.Op.Schema.Name == "isneginf" {
		side = "lt"
	}
	return []*ir.Value{e.both("bitwise_and", e.unary("isinf", x), e.cmp(side, x, i64(0)))}
}

// dropoutBackward: grad * (mask.type_as(grad) * scale).
func dropoutBackward(e *emitter, c *ops.Call) []*ir.Value {
	g := e.tensorArg(c, "grad_output")
	t := tensor(g)
	if t == nil {
		return nil
	}
	m := e.cast(e.tensorArg(c, "mask"), t.DType)
	return []*ir.Value{e.mul(g, val(e.mul(m, c.Arg("scale"))))}
}
