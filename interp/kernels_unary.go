package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/rt"
)

// Unary pointwise ops. Float formulas follow ATen's CPU kernels
// (aten/src/ATen/native/cpu/UnaryOpsKernel.cpp, Activation.cpp) and
// torch/_refs; they run in float64 and are rounded once into the result
// dtype, which equals float32 opmath for the correctly rounded primitives
// and stays within a unit in the last place for transcendental functions.

// rounder rounds to a computation precision.
type rounder func(float64) float64

// rounderFor rounds to dt's opmath precision.
func rounderFor(dt ir.DType) rounder {
	if opmath(dt) == ir.F64 {
		return func(x float64) float64 { return x }
	}
	return func(x float64) float64 { return float64(float32(x)) }
}

// Kernel builders over scalar functions.
func fl1(f func(float64) float64) func(ir.DType) chunkF { return anyDType(chunkF(map1(f))) }
func in1(f func(int64) int64) func(ir.DType) chunkI     { return anyDType(chunkI(map1(f))) }

func map1[T lane](f func(T) T) func(dst []T, c [][]T) {
	return func(dst []T, c [][]T) {
		a := c[0]
		for i := range dst {
			dst[i] = f(a[i])
		}
	}
}

// unaryOp is a table row: the op's name, its promotion kind, and its
// float and int formulas (nil: not defined for that category).
type unaryOp struct {
	name string
	kind ops.PromotionKind
	f    func(float64) float64
	i    func(int64) int64
}

var unaryOps = []unaryOp{
	{"abs", ops.PromoteComplexToFloat, math.Abs, rt.AbsI64},
	{"neg", ops.PromoteDefault, func(x float64) float64 { return -x }, func(x int64) int64 { return -x }},
	{"positive", ops.PromoteDefault, func(x float64) float64 { return x }, func(x int64) int64 { return x }},
	{"sin", ops.PromoteIntToFloat, math.Sin, nil},
	{"cos", ops.PromoteIntToFloat, math.Cos, nil},
	{"tan", ops.PromoteIntToFloat, math.Tan, nil},
	{"asin", ops.PromoteIntToFloat, math.Asin, nil},
	{"acos", ops.PromoteIntToFloat, math.Acos, nil},
	{"atan", ops.PromoteIntToFloat, math.Atan, nil},
	{"sinh", ops.PromoteIntToFloat, math.Sinh, nil},
	{"cosh", ops.PromoteIntToFloat, math.Cosh, nil},
	{"tanh", ops.PromoteIntToFloat, math.Tanh, nil},
	{"asinh", ops.PromoteIntToFloat, math.Asinh, nil},
	{"acosh", ops.PromoteIntToFloat, math.Acosh, nil},
	{"atanh", ops.PromoteIntToFloat, math.Atanh, nil},
	{"exp", ops.PromoteIntToFloat, math.Exp, nil},
	{"exp2", ops.PromoteIntToFloat, math.Exp2, nil},
	{"expm1", ops.PromoteIntToFloat, math.Expm1, nil},
	{"log", ops.PromoteIntToFloat, math.Log, nil},
	{"log2", ops.PromoteIntToFloat, math.Log2, nil},
	{"log10", ops.PromoteIntToFloat, math.Log10, nil},
	{"log1p", ops.PromoteIntToFloat, math.Log1p, nil},
	{"sqrt", ops.PromoteIntToFloat, math.Sqrt, nil},
	{"rsqrt", ops.PromoteIntToFloat, func(x float64) float64 { return 1 / math.Sqrt(x) }, nil},
	{"reciprocal", ops.PromoteIntToFloat, func(x float64) float64 { return 1 / x }, nil},
	{"sigmoid", ops.PromoteIntToFloat, rt.Sigmoid, nil},
	{"erf", ops.PromoteIntToFloat, math.Erf, nil},
	{"erfc", ops.PromoteIntToFloat, math.Erfc, nil},
	{"erfinv", ops.PromoteIntToFloat, math.Erfinv, nil},
	{"lgamma", ops.PromoteIntToFloat, func(x float64) float64 { v, _ := math.Lgamma(x); return v }, nil},
	{"digamma", ops.PromoteIntToFloat, digamma, nil},
	{"i0", ops.PromoteIntToFloat, besselI0, nil},
	{"sinc", ops.PromoteIntToFloat, func(x float64) float64 {
		if x == 0 {
			return 1
		}
		return math.Sin(math.Pi*x) / (math.Pi * x)
	}, nil},
	{"deg2rad", ops.PromoteIntToFloat, func(x float64) float64 { return x * (math.Pi / 180) }, nil},
	{"rad2deg", ops.PromoteIntToFloat, func(x float64) float64 { return x * (180 / math.Pi) }, nil},
	{"silu", ops.PromoteIntToFloat, func(x float64) float64 { return x / (1 + math.Exp(-x)) }, nil},
	{"mish", ops.PromoteIntToFloat, func(x float64) float64 { return x * math.Tanh(math.Log1p(math.Exp(x))) }, nil},
	{"hardsigmoid", ops.PromoteIntToFloat, func(x float64) float64 { return math.Min(math.Max(x+3, 0), 6) / 6 }, nil},
	{"hardswish", ops.PromoteIntToFloat, func(x float64) float64 { return x * math.Min(math.Max(x+3, 0), 6) / 6 }, nil},
	{"ceil", ops.PromoteDefault, math.Ceil, func(x int64) int64 { return x }},
	{"floor", ops.PromoteDefault, math.Floor, func(x int64) int64 { return x }},
	{"round", ops.PromoteDefault, math.RoundToEven, func(x int64) int64 { return x }},
	{"trunc", ops.PromoteDefault, math.Trunc, func(x int64) int64 { return x }},
	{"fix", ops.PromoteDefault, math.Trunc, func(x int64) int64 { return x }},
	{"frac", ops.PromoteDefault, func(x float64) float64 { return x - math.Trunc(x) }, nil},
	{"sign", ops.PromoteDefault, rt.Sign, rt.SignI64},
	{"sgn", ops.PromoteDefault, rt.Sign, rt.SignI64},
	{"relu", ops.PromoteDefault, func(x float64) float64 {
		if x != x || x > 0 {
			return x
		}
		return 0
	}, func(x int64) int64 { return max(x, 0) }},
	{"relu6", ops.PromoteDefault, func(x float64) float64 { return clampNaN(x, 0, 6) }, func(x int64) int64 { return min(max(x, 0), 6) }},
	{"square", ops.PromoteBoolToLong, func(x float64) float64 { return x * x }, func(x int64) int64 { return x * x }},
	{"logical_not", ops.PromoteAlwaysBool, func(x float64) float64 { return rt.B2F(x == 0) }, func(x int64) int64 { return rt.B2I(x == 0) }},
	{"isnan", ops.PromoteAlwaysBool, func(x float64) float64 { return rt.B2F(x != x) }, func(int64) int64 { return 0 }},
	{"isinf", ops.PromoteAlwaysBool, func(x float64) float64 { return rt.B2F(math.IsInf(x, 0)) }, func(int64) int64 { return 0 }},
	{"isposinf", ops.PromoteAlwaysBool, func(x float64) float64 { return rt.B2F(math.IsInf(x, 1)) }, func(int64) int64 { return 0 }},
	{"isneginf", ops.PromoteAlwaysBool, func(x float64) float64 { return rt.B2F(math.IsInf(x, -1)) }, func(int64) int64 { return 0 }},
	{"isfinite", ops.PromoteAlwaysBool, func(x float64) float64 { return rt.B2F(!math.IsInf(x, 0) && x == x) }, func(int64) int64 { return 1 }},
	{"signbit", ops.PromoteAlwaysBool, func(x float64) float64 { return rt.B2F(math.Signbit(x)) }, func(x int64) int64 { return rt.B2I(x < 0) }},
}

// clampNaN is min(max(x, lo), hi) with NaN propagating from x.
func clampNaN(x, lo, hi float64) float64 {
	if x != x {
		return x
	}
	return math.Min(math.Max(x, lo), hi)
}

var unaryByName = map[string]unaryOp{}

func init() {
	for _, u := range unaryOps {
		u := u
		unaryByName[u.name] = u
		register(func(c *call) ([]any, error) {
			self, err := c.val("self")
			if err != nil {
				return nil, err
			}
			return oneT(unaryNamed(u.name, self))
		}, u.name)
	}
	register(kBitwiseNot, "bitwise_not")
	register(kGelu, "gelu")
	register(paramUnary("hardtanh", "min_val", "max_val", func(p []float64) func(float64) float64 {
		return func(x float64) float64 { return clampNaN(x, p[0], p[1]) }
	}), "hardtanh")
	register(paramUnary("leaky_relu", "negative_slope", "", func(p []float64) func(float64) float64 {
		return func(x float64) float64 {
			if x > 0 {
				return x
			}
			return x * p[0]
		}
	}), "leaky_relu")
	register(kElu, "elu")
	register(paramUnary("softplus", "beta", "threshold", func(p []float64) func(float64) float64 {
		return func(x float64) float64 {
			if x*p[0] > p[1] {
				return x
			}
			return math.Log1p(math.Exp(x*p[0])) / p[0]
		}
	}), "softplus")
	register(kThreshold, "threshold")
	register(kNanToNum, "nan_to_num")
}

// unaryNamed runs a table op on a tensor.
func unaryNamed(name string, x any) (*Tensor, error) {
	u := unaryByName[name]
	o, err := scalarOperand(x)
	if err != nil {
		return nil, err
	}
	if name == "neg" && o.dt == ir.Bool {
		return nil, fmt.Errorf("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
	}
	k := ewKernel{}
	if u.f != nil {
		k.f = fl1(u.f)
		if f32 := unaryF32[name]; f32 != nil {
			k.f = byScalarType(f32, u.f)
		}
	}
	if u.i != nil {
		k.i = in1(u.i)
	}
	return elementwise(ewSpec{kind: u.kind, opName: name}, k, []operand{o})
}

func kBitwiseNot(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	f := func(x int64) int64 { return ^x }
	if self.DType == ir.Bool {
		f = func(x int64) int64 { return 1 - x }
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "bitwise_not"}, ewKernel{i: in1(f)}, []operand{{t: self, dt: self.DType, promo: true}}))
}

// paramUnary builds a float-only activation with up to two float params.
func paramUnary(name, p0, p1 string, mk func([]float64) func(float64) float64) kernel {
	return func(c *call) ([]any, error) {
		self, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		var ps []float64
		for _, p := range []string{p0, p1} {
			if p == "" {
				continue
			}
			v, err := c.float(p)
			if err != nil {
				return nil, err
			}
			ps = append(ps, v)
		}
		f := mk(ps)
		k := ewKernel{f: fl1(f)}
		if name == "hardtanh" { // also defined for ints
			k.i = in1(func(x int64) int64 { return int64(f(float64(x))) })
		}
		return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: name}, k, []operand{{t: self, dt: self.DType, promo: true}}))
	}
}

func kGelu(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	approx, err := c.str("approximate")
	if err != nil {
		return nil, err
	}
	f := func(x float64) float64 { return x * 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
	switch approx {
	case "", "none":
	case "tanh":
		f = func(x float64) float64 {
			inner := math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
			return 0.5 * x * (1 + math.Tanh(inner))
		}
	default:
		return nil, fmt.Errorf("approximate argument must be either none or tanh.")
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "gelu"}, ewKernel{f: fl1(f)}, []operand{{t: self, dt: self.DType, promo: true}}))
}

func kElu(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	var p [3]float64
	for i, name := range []string{"alpha", "scale", "input_scale"} {
		if p[i], err = c.float(name); err != nil {
			return nil, err
		}
	}
	f := func(x float64) float64 {
		if x > 0 {
			return x * p[1]
		}
		return (math.Exp(x*p[2]) - 1) * p[0] * p[1]
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "elu"}, ewKernel{f: fl1(f)}, []operand{{t: self, dt: self.DType, promo: true}}))
}

func kThreshold(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	th, err := c.float("threshold")
	if err != nil {
		return nil, err
	}
	val, err := c.float("value")
	if err != nil {
		return nil, err
	}
	k := ewKernel{
		f: fl1(func(x float64) float64 {
			if x <= th {
				return val
			}
			return x
		}),
		i: in1(func(x int64) int64 {
			if float64(x) <= th {
				return int64(val)
			}
			return x
		}),
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "threshold"}, k, []operand{{t: self, dt: self.DType, promo: true}}))
}

// kNanToNum replaces NaN and infinities; the defaults are 0 and the
// dtype's largest and lowest finite values.
func kNanToNum(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	part := self.DType
	if part.IsComplex() { // each part of a complex value separately
		part = part.ComplexComponent()
	}
	lo, hi := finiteRange(part)
	vals := []float64{0, hi, lo}
	for i, name := range []string{"nan", "posinf", "neginf"} {
		if !c.isNone(name) {
			if vals[i], err = c.float(name); err != nil {
				return nil, err
			}
		}
	}
	f := func(x float64) float64 {
		switch {
		case x != x:
			return vals[0]
		case math.IsInf(x, 1):
			return vals[1]
		case math.IsInf(x, -1):
			return vals[2]
		}
		return x
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "nan_to_num"},
		ewKernel{f: fl1(f), i: in1(func(x int64) int64 { return x }), c: func(x []complex128) complex128 {
			return complex(f(real(x[0])), f(imag(x[0])))
		}}, []operand{{t: self, dt: self.DType, promo: true}}))
}

// finiteRange is the lowest and largest finite value of a float dtype.
func finiteRange(dt ir.DType) (lo, hi float64) {
	switch dt {
	case ir.F16:
		hi = 65504
	case ir.BF16:
		hi = float64(F32FromBF16(0x7F7F))
	case ir.F32:
		hi = math.MaxFloat32
	case ir.F8E4M3FN:
		hi = 448
	case ir.F8E5M2:
		hi = 57344
	case ir.F8E4M3FNUZ:
		hi = 240
	case ir.F8E5M2FNUZ:
		hi = 57344
	default:
		hi = math.MaxFloat64
	}
	return -hi, hi
}

// digamma is ψ(x) as calc_digamma computes it in double.
func digamma(x float64) float64 { return digammaT(x) }

// besselI0 is the modified Bessel function of the first kind, order 0
// (power series; accurate to double precision for |x| up to ~700).
func besselI0(x float64) float64 {
	ax := math.Abs(x)
	if ax > 30 {
		// asymptotic expansion e^x / sqrt(2πx) · (1 + 1/(8x) + 9/(128x²) + ...)
		t := 1 / ax
		s := 1 + t/8 + 9*t*t/128 + 225*t*t*t/3072
		return math.Exp(ax) / math.Sqrt(2*math.Pi*ax) * s
	}
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 500; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}
