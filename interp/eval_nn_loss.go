package interp

import (
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Pointwise losses (smooth_l1, huber, soft_margin, binary_cross_entropy,
// binary_cross_entropy_with_logits) with their reduction, their backward,
// and the shrink/celu activations, in the formulas of ATen's CPU kernels
// (aten/src/ATen/native/Loss.cpp, BinaryOps, Activation).

func init() {
	register(lossKernel("smooth_l1_loss", []string{"self", "target"}, nil, func(p, x []float64) float64 {
		z, beta := math.Abs(x[0]-x[1]), p[0]
		if z < beta {
			return 0.5 * z * z / beta
		}
		return z - 0.5*beta
	}, "beta"), "smooth_l1_loss")
	register(lossKernel("huber_loss", []string{"self", "target"}, nil, func(p, x []float64) float64 {
		z, delta := math.Abs(x[0]-x[1]), p[0]
		if z < delta {
			return 0.5 * z * z
		}
		return delta * (z - 0.5*delta)
	}, "delta"), "huber_loss")
	register(lossKernel("soft_margin_loss", []string{"self", "target"}, nil, func(_, x []float64) float64 {
		return math.Log1p(math.Exp(-x[0] * x[1]))
	}), "soft_margin_loss")
	register(lossKernel("binary_cross_entropy", []string{"self", "target", "weight"}, []float64{0, 0, 1}, func(_, x []float64) float64 {
		return -x[2] * (x[1]*math.Max(math.Log(x[0]), -100) + (1-x[1])*math.Max(math.Log1p(-x[0]), -100))
	}), "binary_cross_entropy")
	register(lossKernel("binary_cross_entropy_with_logits", []string{"self", "target", "weight", "pos_weight"}, []float64{0, 0, 1, 1},
		func(_, x []float64) float64 {
			in, t := x[0], x[1]
			lw := (x[3]-1)*t + 1
			return x[2] * ((1-t)*in + lw*(math.Log1p(math.Exp(-math.Abs(in)))+math.Max(-in, 0)))
		}), "binary_cross_entropy_with_logits")
	grads := []string{"grad_output", "self", "target"}
	register(lossGrad("smooth_l1_loss_backward", grads, nil, func(p, x []float64) float64 {
		d, beta := x[1]-x[2], p[0]
		switch {
		case d <= -beta:
			return -x[0]
		case d >= beta:
			return x[0]
		}
		return x[0] * d / beta
	}, "beta"), "smooth_l1_loss_backward")
	register(lossGrad("huber_loss_backward", grads, nil, func(p, x []float64) float64 {
		d, delta := x[1]-x[2], p[0]
		return x[0] * math.Max(-delta, math.Min(d, delta))
	}, "delta"), "huber_loss_backward")
	register(lossGrad("soft_margin_loss_backward", grads, nil, func(_, x []float64) float64 {
		z := math.Exp(-x[1] * x[2])
		return -x[2] * z / (1 + z) * x[0]
	}), "soft_margin_loss_backward")
	register(lossGrad("binary_cross_entropy_backward", []string{"grad_output", "self", "target", "weight"}, []float64{0, 0, 0, 1},
		func(_, x []float64) float64 {
			return x[3] * x[0] * (x[1] - x[2]) / math.Max((1-x[1])*x[1], 1e-12)
		}), "binary_cross_entropy_backward")
}

// lanes runs f over the named operands, broadcast and promoted as a
// pointwise op; a None optional operand is the constant given in
// defaults (it takes no part in promotion). Float parameters are read
// first and passed as p.
func lanes(c *call, name string, names []string, defaults []float64, params []string, f func(p, x []float64) float64) (*Tensor, error) {
	p := make([]float64, len(params))
	for i, n := range params {
		v, err := c.float(n)
		if err != nil {
			return nil, err
		}
		p[i] = v
	}
	in := make([]operand, 0, len(names))
	for i, n := range names {
		if c.isNone(n) {
			in = append(in, operand{f: defaults[i], i: int64(defaults[i]), dt: ir.F64, scalar: true})
			continue
		}
		o, err := operands(c, n)
		if err != nil {
			return nil, err
		}
		in = append(in, o...)
	}
	chunk := func(dst []float64, cols [][]float64) {
		xs := make([]float64, len(cols))
		for i := range dst {
			for j, col := range cols {
				xs[j] = col[i]
			}
			dst[i] = f(p, xs)
		}
	}
	return elementwise(ewSpec{kind: ops.PromoteDefault, opName: name}, ewKernel{f: anyDType(chunkF(chunk))}, in)
}

// lossKernel is a pointwise loss followed by its reduction.
func lossKernel(name string, names []string, defaults []float64, f func(p, x []float64) float64, params ...string) kernel {
	return func(c *call) ([]any, error) {
		t, err := lanes(c, name, names, defaults, params, f)
		if err != nil {
			return nil, err
		}
		red, err := c.int("reduction")
		if err != nil {
			return nil, err
		}
		return oneT(reduceLoss(t, red))
	}
}

// lossGrad is a loss's pointwise gradient, divided by self's numel for a
// mean reduction; kernels without a reduction parameter are plain.
func lossGrad(name string, names []string, defaults []float64, f func(p, x []float64) float64, params ...string) kernel {
	return func(c *call) ([]any, error) {
		norm := 1.0
		if c.has("reduction") {
			red, err := c.int("reduction")
			if err != nil {
				return nil, err
			}
			self, err := c.tensor("self")
			if err != nil {
				return nil, err
			}
			if red == 1 {
				norm = 1 / float64(max(self.Numel(), 1))
			}
		}
		return oneT(lanes(c, name, names, defaults, params, func(p, x []float64) float64 { return norm * f(p, x) }))
	}
}
