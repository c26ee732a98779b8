package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Pointwise losses and their backwards, after torch/_decomp (smooth_l1)
// and torch/_refs (huber_loss), as Inductor 2.15 runs them: the loss in
// opmath, then apply_loss_reduction.

// reduceLoss is decompositions.py apply_loss_reduction: mean (1), sum (2)
// or none (0). ok is false (the node stays whole) for anything else.
func (e *emitter) reduceLoss(c *ops.Call, loss *ir.Value) (*ir.Value, bool) {
	switch r := c.Arg("reduction"); {
	case r.Kind != ir.ArgInt:
		e.whole("reduction is %s, not an int", r.String())
		return nil, false
	case r.Int == reductionMean:
		return e.call("aten::mean.default", []ir.Arg{val(loss)}), true
	case r.Int == reductionSum:
		return e.call("aten::sum.default", []ir.Arg{val(loss)}), true
	case r.Int != reductionNone:
		e.whole("reduction %d is not none (0), mean (1) or sum (2)", r.Int)
		return nil, false
	}
	return loss, true
}

// lossNorm is the backwards' norm: 1/numel for reduction=mean, else 1;
// ok is false (whole) for a mean over a symbolic or empty input.
func (e *emitter) lossNorm(c *ops.Call, x *ir.Value) (float64, bool) {
	if c.Arg("reduction").Int != reductionMean {
		return 1, true
	}
	n, ok := tensor(x).Numel().Const()
	if !ok || n == 0 {
		e.whole("reduction=mean over a symbolic or empty input")
		return 0, false
	}
	return 1 / float64(n), true
}

// reducedLoss is loss reduced as c asks, in the output dtype.
func (e *emitter) reducedLoss(c *ops.Call, loss *ir.Value) []*ir.Value {
	out, ok := e.reduceLoss(c, loss)
	if !ok {
		return nil
	}
	return []*ir.Value{e.castOut(out)}
}

// lossGradOperands reads a pointwise loss backward's operands:
// grad_output, self and target (in opmath), its threshold param, and the
// reduction's scale of the gradient; ok is false on an error.
func (e *emitter) lossGradOperands(c *ops.Call, param string) (g, x, y *ir.Value, p, norm float64, ok bool) {
	g = e.floatInput(c, "grad_output")
	x, y = e.opmath(e.tensorArg(c, "self")), e.opmath(e.tensorArg(c, "target"))
	p, _ = e.number(c, param)
	if e.err != nil {
		return nil, nil, nil, 0, 0, false
	}
	norm, ok = e.lossNorm(c, x)
	return g, x, y, p, norm, ok
}

// smoothL1Loss is decompositions.py smooth_l1_loss: z = |self - target|,
// where(z < beta, 0.5 * z**2 / beta, z - 0.5 * beta), reduced.
func smoothL1Loss(e *emitter, c *ops.Call) []*ir.Value {
	x, y := e.floatInput(c, "self"), e.opmath(e.tensorArg(c, "target"))
	beta, _ := e.number(c, "beta")
	if e.err != nil {
		return nil
	}
	z := e.unary("abs", e.sub(val(x), val(y)))
	sq := e.div(e.mul(e.call("aten::pow.Tensor_Scalar", []ir.Arg{val(z), i64(2)}), f64(0.5)), f64(beta))
	return e.reducedLoss(c, e.where(e.cmp("lt", z, f64(beta)), sq, e.sub(val(z), f64(0.5*beta))))
}

// smoothL1LossBackward is decompositions.py smooth_l1_loss_backward:
// d = self - target, g = norm * grad, where(|d| < beta, g * d / beta,
// g * sign(d)).
func smoothL1LossBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x, y, beta, norm, ok := e.lossGradOperands(c, "beta")
	if !ok {
		return nil
	}
	d := e.sub(val(x), val(y))
	ng := e.mul(g, f64(norm))
	in := e.div(e.both("mul", ng, d), f64(beta))
	return []*ir.Value{e.castOut(e.where(e.cmp("lt", e.unary("abs", d), f64(beta)), in, e.both("mul", ng, e.unary("sign", d))))}
}

// huberLoss is refs huber_loss: z = |input - target|, where(z < delta,
// 0.5 * z * z, delta * (z - 0.5 * delta)), reduced.
func huberLoss(e *emitter, c *ops.Call) []*ir.Value {
	x, y := e.floatInput(c, "self"), e.opmath(e.tensorArg(c, "target"))
	delta, _ := e.number(c, "delta")
	if e.err != nil {
		return nil
	}
	if delta <= 0 {
		e.whole("delta %v is not positive (huber_loss does not support non-positive values for delta.)", delta)
		return nil
	}
	z := e.unary("abs", e.sub(val(x), val(y)))
	in := e.both("mul", e.mul(z, f64(0.5)), z)
	return e.reducedLoss(c, e.where(e.cmp("lt", z, f64(delta)), in, e.mul(e.sub(val(z), f64(0.5*delta)), f64(delta))))
}

// huberLossBackward is decompositions.py huber_loss_backward: d = self -
// target, where(d < -delta, -norm * grad * delta, where(d > delta, norm *
// grad * delta, norm * d * grad)).
func huberLossBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x, y, delta, norm, ok := e.lossGradOperands(c, "delta")
	if !ok {
		return nil
	}
	d := e.sub(val(x), val(y))
	lo := e.mul(e.mul(g, f64(-norm)), f64(delta))
	hi := e.mul(e.mul(g, f64(norm)), f64(delta))
	mid := e.both("mul", e.mul(d, f64(norm)), g)
	return []*ir.Value{e.castOut(e.where(e.cmp("lt", d, f64(-delta)), lo, e.where(e.cmp("gt", d, f64(delta)), hi, mid)))}
}

// bceWithLogits is decompositions.py binary_cross_entropy_with_logits:
// (1 - target) * self - log_weight * logsigmoid(self), log_weight =
// (pos_weight - 1) * target + 1 when pos_weight is given (else 1), times
// weight when given, reduced (in opmath, cast back once).
func bceWithLogits(e *emitter, c *ops.Call) []*ir.Value {
	x, y := e.floatInput(c, "self"), e.opmath(e.tensorArg(c, "target"))
	if e.err != nil || tensor(x) == nil {
		return nil
	}
	ls, _ := e.logSigmoid(x)
	if c.Arg("pos_weight").Kind == ir.ArgValue {
		pw := e.opmath(e.tensorArg(c, "pos_weight"))
		logWeight := e.add(e.both("mul", e.sub(val(pw), i64(1)), y), i64(1))
		ls = e.both("mul", logWeight, ls)
	}
	loss := e.sub(val(e.both("mul", e.call("aten::rsub.Scalar", []ir.Arg{val(y), i64(1)}), x)), val(ls))
	if c.Arg("weight").Kind == ir.ArgValue {
		loss = e.both("mul", loss, e.opmath(e.tensorArg(c, "weight")))
	}
	if e.err != nil {
		return nil
	}
	return e.reducedLoss(c, loss)
}
