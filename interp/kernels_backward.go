package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/rt"
)

// Backward kernels of pointwise activations, declared once as a family:
// each row names the op, its second tensor operand, its scalar parameters
// (bools read as 0/1) and the lane function of (grad, x) after the CPU
// kernels in aten/src/ATen/native/cpu/Activation.cpp.
type actGrad struct {
	name, x string
	params  []string
	f       func(p []float64) func(g, x float64) float64
}

var actGrads = []actGrad{
	{"hardtanh_backward", "self", []string{"min_val", "max_val"}, func(p []float64) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			if x <= p[0] || x >= p[1] {
				return 0
			}
			return g
		}
	}},
	{"leaky_relu_backward", "self", []string{"negative_slope"}, func(p []float64) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			if x > 0 {
				return g
			}
			return g * p[0]
		}
	}},
	{"elu_backward", "self_or_result", []string{"alpha", "scale", "input_scale", "is_result"}, func(p []float64) func(g, x float64) float64 {
		alpha, scale, inScale, isResult := p[0], p[1], p[2], p[3] != 0
		return func(g, x float64) float64 {
			switch {
			case x > 0:
				return g * scale
			case isResult:
				return g * inScale * (x + alpha*scale)
			}
			return g * inScale * alpha * scale * math.Exp(x*inScale)
		}
	}},
	{"hardswish_backward", "self", nil, func([]float64) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			switch {
			case x < -3:
				return 0
			case x <= 3:
				return g * (x/3 + 0.5)
			}
			return g
		}
	}},
	{"hardsigmoid_backward", "self", nil, func([]float64) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			if x > -3 && x < 3 {
				return g / 6
			}
			return 0
		}
	}},
	{"softplus_backward", "self", []string{"beta", "threshold"}, func(p []float64) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			if x*p[0] > p[1] {
				return g
			}
			z := math.Exp(x * p[0])
			return g * z / (z + 1)
		}
	}},
	{"mish_backward", "self", nil, func([]float64) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			s := rt.Sigmoid(x)
			t := math.Tanh(math.Log1p(math.Exp(x)))
			return g * (t + x*s*(1-t*t))
		}
	}},
}

func (a actGrad) kernel(c *call) ([]any, error) {
	p := make([]float64, len(a.params))
	for i, name := range a.params {
		v, err := c.float(name)
		if err != nil {
			return nil, err
		}
		p[i] = v
	}
	f := a.f(p)
	return backward2(a.name, a.x, func(rounder) func(g, x float64) float64 { return f })(c)
}

// kMSELoss is mean/sum/none of (self - target)².
func kMSELoss(c *call) ([]any, error) {
	diff, err := elementwiseOf(c, "mse_loss", func(a, b float64) float64 { return (a - b) * (a - b) }, "self", "target")
	if err != nil {
		return nil, err
	}
	red, err := c.int("reduction")
	if err != nil {
		return nil, err
	}
	return oneT(reduceLoss(diff, red))
}

// reduceLoss applies a loss's reduction (0 none, 1 mean, 2 sum).
func reduceLoss(t *Tensor, red int64) (*Tensor, error) {
	if red == 0 {
		return t, nil
	}
	s := 0.0
	xs := t.Floats()
	for _, x := range xs {
		s += x
	}
	if red == 1 {
		s /= float64(len(xs))
	}
	return FromFloatsOn(t.DType, []int64{}, []float64{s}, t.Device()), nil
}

// elementwiseOf runs a two-operand float lane function with broadcasting
// and PyTorch's default promotion.
func elementwiseOf(c *call, name string, f func(a, b float64) float64, a, b string) (*Tensor, error) {
	in, err := operands(c, a, b)
	if err != nil {
		return nil, err
	}
	return elementwise(ewSpec{kind: ops.PromoteDefault, opName: name}, ewKernel{f: fl2(f)}, in)
}

// kMSELossBackward is grad · norm · (self - target), norm = 2/numel for
// mean, 2 otherwise.
func kMSELossBackward(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	red, err := c.int("reduction")
	if err != nil {
		return nil, err
	}
	norm := 2.0
	if red == 1 {
		norm = 2 / float64(max(self.Numel(), 1))
	}
	in, err := operands(c, "grad_output", "self", "target")
	if err != nil {
		return nil, err
	}
	k := ewKernel{f: fl3(func(g, x, t float64) float64 { return norm * (x - t) * g })}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "mse_loss_backward"}, k, in))
}

// gluHalves splits self along dim into its two halves.
func gluHalves(c *call) (self, a, b *Tensor, d int, err error) {
	self, dim, err := c.selfInt("dim")
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if d, err = wrapDim(dim, self.Dim()); err != nil {
		return nil, nil, nil, 0, err
	}
	n := self.Shape[d]
	if n%2 != 0 {
		return nil, nil, nil, 0, fmt.Errorf("Halving dimension must be even, but dimension %d is size %d", d, n)
	}
	a, _ = sliceView(self, int64(d), ptr(int64(0)), ptr(n/2), 1)
	b, _ = sliceView(self, int64(d), ptr(n/2), ptr(n), 1)
	return self, a, b, d, nil
}

// kGlu is a · sigmoid(b) of the two halves.
func kGlu(c *call) ([]any, error) {
	self, a, b, _, err := gluHalves(c)
	if err != nil {
		return nil, err
	}
	av, bv := a.Floats(), b.Floats()
	for i := range av {
		av[i] *= rt.Sigmoid(bv[i])
	}
	return one(FromFloatsOn(self.DType, a.Shape, av, self.Device()))
}

// kGluBackward: d/da = σ(b)·g, d/db = a·σ(b)(1-σ(b))·g, concatenated.
func kGluBackward(c *call) ([]any, error) {
	g, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	self, a, b, d, err := gluHalves(c)
	if err != nil {
		return nil, err
	}
	out, err := Empty(self.DType, self.Shape, nil, self.Device())
	if err != nil {
		return nil, err
	}
	n := self.Shape[d]
	oa, _ := sliceView(out, int64(d), ptr(int64(0)), ptr(n/2), 1)
	ob, _ := sliceView(out, int64(d), ptr(n/2), ptr(n), 1)
	av, bv, gv := a.Floats(), b.Floats(), g.Floats()
	da, db := make([]float64, len(av)), make([]float64, len(av))
	for i := range av {
		s := rt.Sigmoid(bv[i])
		da[i] = s * gv[i]
		db[i] = av[i] * s * (1 - s) * gv[i]
	}
	scatterF(out.DType, out.Storage.Data, oa.offsets(), da)
	scatterF(out.DType, out.Storage.Data, ob.offsets(), db)
	return one(out)
}

func init() {
	for _, a := range actGrads {
		register(a.kernel, a.name)
	}
	register(kMSELoss, "mse_loss")
	register(kMSELossBackward, "mse_loss_backward")
	register(kGlu, "glu")
	register(kGluBackward, "glu_backward")
}
