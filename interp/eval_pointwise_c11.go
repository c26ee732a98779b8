package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Pointwise kernels of the special-function lane (ops/table_pointwise_c11.go):
// softshrink and its backward, celu, log_sigmoid_backward (the CPU kernels
// of aten/src/ATen/native/cpu/Activation.cpp), frexp, complex and polar.

// kSoftshrink is x - λ above λ, x + λ below -λ, x·0 between (so -0 and NaN
// come through as the CPU kernel gives them).
func kSoftshrink(c *call) ([]any, error) {
	lambd, err := c.float("lambd")
	if err != nil {
		return nil, err
	}
	in, err := operands(c, "self")
	if err != nil {
		return nil, err
	}
	f := func(x float64) float64 {
		switch {
		case x > lambd:
			return x - lambd
		case x < -lambd:
			return x + lambd
		}
		return x * 0
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "softshrink"}, ewKernel{f: fl1(f)}, in))
}

// kSoftshrinkBackward passes the gradient outside [-λ, λ] (NaN included).
func kSoftshrinkBackward(c *call) ([]any, error) {
	lambd, err := c.float("lambd")
	if err != nil {
		return nil, err
	}
	return backward2("softshrink_backward", "self", func(rounder) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			if x >= -lambd && x <= lambd {
				return 0
			}
			return g
		}
	})(c)
}

// kCelu is elu(x, α, scale 1, input_scale 1/α), as ATen's celu calls it.
func kCelu(c *call) ([]any, error) {
	alpha, err := c.float("alpha")
	if err != nil {
		return nil, err
	}
	if alpha == 0 {
		return nil, fmt.Errorf("ZeroDivisionError: alpha cannot be 0 for CELU")
	}
	return kElu(c.with(map[string]any{"scale": 1.0, "input_scale": 1 / alpha}))
}

// kLogSigmoidBackward is (max_deriv - sign·b/(1+b))·grad, with b the
// forward's buffer exp(-|x|): max_deriv 1 and sign 1 for negative x, 0
// and -1 otherwise.
func kLogSigmoidBackward(c *call) ([]any, error) {
	in, err := operands(c, "grad_output", "self", "buffer")
	if err != nil {
		return nil, err
	}
	f := func(g, x, b float64) float64 {
		maxDeriv, sign := 0.0, -1.0
		if x < 0 {
			maxDeriv, sign = 1, 1
		}
		return (maxDeriv - sign*(b/(1+b))) * g
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "log_sigmoid_backward"}, ewKernel{f: fl3(f)}, in))
}

// kFrexp splits x into a mantissa in [0.5, 1) of x's dtype and an int32
// exponent (0 for zero, inf and NaN, as C's frexp gives them).
func kFrexp(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if !self.DType.IsFloat() {
		return nil, fmt.Errorf("torch.frexp() only supports floating-point dtypes")
	}
	xs := self.Floats()
	mant, exp := make([]float64, len(xs)), make([]float64, len(xs))
	for i, x := range xs {
		m, e := math.Frexp(x)
		mant[i], exp[i] = m, float64(e)
	}
	return []any{FromFloatsOn(self.DType, self.Shape, mant, self.Device()), FromFloatsOn(ir.I32, self.Shape, exp, self.Device())}, nil
}

// complexOf builds complex(a, b)'s and polar(a, b)'s kernel: both operands
// one of Half, Float, Double, broadcast, the result their complex dtype.
func complexOf(a, b string, f func(x, y float64) complex128) kernel {
	return func(c *call) ([]any, error) {
		x, y, err := c.tensor2(a, b)
		if err != nil {
			return nil, err
		}
		part := func(dt ir.DType) bool { return dt == ir.F16 || dt == ir.F32 || dt == ir.F64 }
		if !part(x.DType) || !part(y.DType) {
			return nil, fmt.Errorf("Expected both inputs to be Half, Float or Double tensors but got %s and %s", scalarTypeName(x.DType), scalarTypeName(y.DType))
		}
		if x.DType != y.DType {
			return nil, fmt.Errorf("Expected object of scalar type %s but got scalar type %s for second argument", scalarTypeName(x.DType), scalarTypeName(y.DType))
		}
		in := []operand{{t: x, dt: x.DType, promo: true}, {t: y, dt: y.DType, promo: true}}
		return oneT(complexElementwise(x.DType.ComplexOf(), func(v []complex128) complex128 { return f(real(v[0]), real(v[1])) }, in))
	}
}

// kHardshrink is x outside [-λ, λ] (NaN included), 0 inside.
func kHardshrink(c *call) ([]any, error) {
	lambd, err := c.float("lambd")
	if err != nil {
		return nil, err
	}
	in, err := operands(c, "self")
	if err != nil {
		return nil, err
	}
	f := func(x float64) float64 {
		if x >= -lambd && x <= lambd {
			return 0
		}
		return x
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "hardshrink"}, ewKernel{f: fl1(f)}, in))
}

// kHardshrinkBackward passes the gradient outside [-λ, λ].
func kHardshrinkBackward(c *call) ([]any, error) {
	lambd, err := c.float("lambd")
	if err != nil {
		return nil, err
	}
	in, err := operands(c, "grad_out", "self")
	if err != nil {
		return nil, err
	}
	f := func(g, x float64) float64 {
		if x >= -lambd && x <= lambd {
			return 0
		}
		return g
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "hardshrink_backward"}, ewKernel{f: fl2(f)}, in))
}

// kDist is ‖self - other‖_p: the difference in the promoted dtype, then
// linalg_vector_norm's p-norm over every element.
func kDist(c *call) ([]any, error) {
	in, err := operands(c, "self", "other")
	if err != nil {
		return nil, err
	}
	diff, err := elementwise(ewSpec{kind: ops.PromoteDefault, opName: "dist"}, ewKernel{f: fl2(func(a, b float64) float64 { return a - b }),
		c: func(x []complex128) complex128 { return x[0] - x[1] }}, in)
	if err != nil {
		return nil, err
	}
	if !diff.DType.IsFloat() && !diff.DType.IsComplex() {
		return nil, fmt.Errorf("norm(): input dtype should be either floating point or complex. Got %s instead.", scalarTypeName(diff.DType))
	}
	if diff.DType.IsComplex() {
		diff = tensorPart(diff, absPart)
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	return oneT(tensorPNorm(diff, p))
}

// tensorPNorm is the p-norm of all of t's elements, in float64, rounded once.
func tensorPNorm(t *Tensor, p float64) (*Tensor, error) {
	xs := t.Floats()
	var v float64
	switch {
	case math.IsInf(p, 1):
		for _, x := range xs {
			v = maxNaN(v, math.Abs(x))
		}
	case math.IsInf(p, -1):
		v = math.Inf(1)
		for _, x := range xs {
			v = minNaN(v, math.Abs(x))
		}
	case p == 0:
		for _, x := range xs {
			if x != 0 {
				v++
			}
		}
	default:
		for _, x := range xs {
			v += math.Pow(math.Abs(x), p)
		}
		v = math.Pow(v, 1/p)
	}
	return FromFloatsOn(t.DType, []int64{}, []float64{v}, t.Device()), nil
}

// kAngle is arg(z) for complex inputs (a real result), π for negative
// reals, 0 otherwise, NaN kept.
func kAngle(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	in := []operand{{t: self, dt: self.DType, promo: true}}
	if self.DType.IsComplex() {
		return oneT(complexElementwise(self.DType.ComplexComponent(), func(x []complex128) complex128 {
			return complex(math.Atan2(imag(x[0]), real(x[0])), 0)
		}, in))
	}
	f := func(x float64) float64 {
		switch {
		case x != x:
			return x
		case x < 0:
			return math.Pi
		}
		return 0
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: "angle"}, ewKernel{f: fl1(f)}, in))
}

// kLogitBackward is g / (x(1 - x)): NaN outside [0, 1] without eps, 0
// outside [eps, 1 - eps] with it.
func kLogitBackward(c *call) ([]any, error) {
	in, err := operands(c, "grad_output", "self")
	if err != nil {
		return nil, err
	}
	hasEps := !c.isNone("eps")
	eps := 0.0
	if hasEps {
		if eps, err = c.float("eps"); err != nil {
			return nil, err
		}
	}
	f := func(g, x float64) float64 {
		switch {
		case hasEps && (x < eps || x > 1-eps):
			return 0
		case !hasEps && (x < 0 || x > 1):
			return math.NaN()
		}
		return g / (x * (1 - x))
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "logit_backward"}, ewKernel{f: fl2(f)}, in))
}

func init() {
	register(kAngle, "angle")
	register(kLogitBackward, "logit_backward")
	register(kHardshrink, "hardshrink")
	register(kHardshrinkBackward, "hardshrink_backward")
	register(kDist, "dist")
	register(kSoftshrink, "softshrink")
	register(kSoftshrinkBackward, "softshrink_backward")
	register(kCelu, "celu")
	register(kLogSigmoidBackward, "log_sigmoid_backward")
	register(kFrexp, "frexp.Tensor")
	register(complexOf("real", "imag", func(x, y float64) complex128 { return complex(x, y) }), "complex")
	register(complexOf("abs", "angle", func(r, t float64) complex128 { return complex(r*math.Cos(t), r*math.Sin(t)) }), "polar")
}
