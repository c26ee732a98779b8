package interp

import (
	"math"
	"math/cmplx"
)

// Complex formulas of elementwise ops, by op name: the engine's complex
// path (complexElementwise) computes them in complex128 and rounds each
// part into the result dtype once, as the std::complex / c10::complex
// kernels ATen instantiates for ComplexFloat and ComplexDouble compute
// them; real results (abs, comparisons, isnan) keep the real part. An op
// whose kernel sets its own formula (ewKernel.c) keeps it.
var complexByName = map[string]func(x []complex128) complex128{
	"abs":         func(x []complex128) complex128 { return complex(cmplx.Abs(x[0]), 0) },
	"neg":         func(x []complex128) complex128 { return -x[0] },
	"positive":    func(x []complex128) complex128 { return x[0] },
	"exp":         func(x []complex128) complex128 { return cmplx.Exp(x[0]) },
	"exp2":        func(x []complex128) complex128 { return cmplx.Exp(x[0] * math.Ln2) },
	"expm1":       func(x []complex128) complex128 { return cmplx.Exp(x[0]) - 1 },
	"log":         func(x []complex128) complex128 { return cmplx.Log(x[0]) },
	"log2":        func(x []complex128) complex128 { return cmplx.Log(x[0]) / math.Ln2 },
	"log10":       func(x []complex128) complex128 { return cmplx.Log10(x[0]) },
	"log1p":       func(x []complex128) complex128 { return cmplx.Log(1 + x[0]) },
	"sqrt":        func(x []complex128) complex128 { return cmplx.Sqrt(x[0]) },
	"rsqrt":       func(x []complex128) complex128 { return 1 / cmplx.Sqrt(x[0]) },
	"reciprocal":  func(x []complex128) complex128 { return 1 / x[0] },
	"sin":         func(x []complex128) complex128 { return cmplx.Sin(x[0]) },
	"cos":         func(x []complex128) complex128 { return cmplx.Cos(x[0]) },
	"tan":         func(x []complex128) complex128 { return cmplx.Tan(x[0]) },
	"asin":        func(x []complex128) complex128 { return cmplx.Asin(x[0]) },
	"acos":        func(x []complex128) complex128 { return cmplx.Acos(x[0]) },
	"atan":        func(x []complex128) complex128 { return cmplx.Atan(x[0]) },
	"sinh":        func(x []complex128) complex128 { return cmplx.Sinh(x[0]) },
	"cosh":        func(x []complex128) complex128 { return cmplx.Cosh(x[0]) },
	"tanh":        func(x []complex128) complex128 { return cmplx.Tanh(x[0]) },
	"asinh":       func(x []complex128) complex128 { return cmplx.Asinh(x[0]) },
	"acosh":       func(x []complex128) complex128 { return cmplx.Acosh(x[0]) },
	"atanh":       func(x []complex128) complex128 { return cmplx.Atanh(x[0]) },
	"sigmoid":     func(x []complex128) complex128 { return 1 / (1 + cmplx.Exp(-x[0])) },
	"silu":        func(x []complex128) complex128 { return x[0] / (1 + cmplx.Exp(-x[0])) },
	"square":      func(x []complex128) complex128 { return x[0] * x[0] },
	"sgn":         csgn,
	"sinc":        csinc,
	"isnan":       func(x []complex128) complex128 { return cbool(cmplx.IsNaN(x[0])) },
	"isinf":       func(x []complex128) complex128 { return cbool(math.IsInf(real(x[0]), 0) || math.IsInf(imag(x[0]), 0)) },
	"isfinite":    func(x []complex128) complex128 { return cbool(!cmplx.IsNaN(x[0]) && !cmplx.IsInf(x[0])) },
	"logical_not": func(x []complex128) complex128 { return cbool(x[0] == 0) },
	"pow":         func(x []complex128) complex128 { return cpow(x[0], x[1]) },
	"ldexp":       func(x []complex128) complex128 { return x[0] * cmplx.Pow(2, x[1]) },
	"logaddexp":   clogaddexp,
	"eq":          func(x []complex128) complex128 { return cbool(x[0] == x[1]) },
	"ne":          func(x []complex128) complex128 { return cbool(x[0] != x[1]) },
	"logical_and": func(x []complex128) complex128 { return cbool(x[0] != 0 && x[1] != 0) },
	"logical_or":  func(x []complex128) complex128 { return cbool(x[0] != 0 || x[1] != 0) },
	"logical_xor": func(x []complex128) complex128 { return cbool((x[0] != 0) != (x[1] != 0)) },
	// where(condition, self, other) and masked_fill(self, mask, value):
	// the bool operand reads as 0 or 1.
	"where":       func(x []complex128) complex128 { return pickIfC(x[0], x[1], x[2]) },
	"masked_fill": func(x []complex128) complex128 { return pickIfC(x[1], x[2], x[0]) },
}

func cbool(b bool) complex128 {
	if b {
		return 1
	}
	return 0
}

func pickIfC(p, a, b complex128) complex128 {
	if p != 0 {
		return a
	}
	return b
}

// csgn is z/|z|, 0 at 0 (torch.sgn).
func csgn(x []complex128) complex128 {
	if x[0] == 0 {
		return 0
	}
	return x[0] / complex(cmplx.Abs(x[0]), 0)
}

// csinc is sin(πz)/(πz), 1 at 0.
func csinc(x []complex128) complex128 {
	if x[0] == 0 {
		return 1
	}
	p := x[0] * math.Pi
	return cmplx.Sin(p) / p
}

// cpow is std::pow on complex: 1 for a zero exponent, exp(b·log a)
// otherwise (Go's Pow special-cases a zero base the way libstdc++ does).
func cpow(a, b complex128) complex128 {
	if b == 0 {
		return 1
	}
	return cmplx.Pow(a, b)
}

func absC(z complex128) float64 { return cmplx.Abs(z) }

// clogaddexp is log(exp(a) + exp(b)), shifted by the larger real part.
func clogaddexp(x []complex128) complex128 {
	a, b := x[0], x[1]
	if real(b) > real(a) {
		a, b = b, a
	}
	if math.IsInf(real(a), -1) {
		return a
	}
	return a + cmplx.Log(1+cmplx.Exp(b-a))
}
