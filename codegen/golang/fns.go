package golang

import (
	"fmt"
	"strings"
)

// fnImpl is a loop-IR scalar function in Go, one template per register
// class of its operands (%[1]s, %[2]s: the operands; %[3]d: the integer
// width); "" where the function is not defined for that class. divides
// marks integer versions that raise ZeroDivisionError on a zero divisor.
type fnImpl struct {
	f32, f64, i64, b string
	divides          bool
}

// viaF64 computes a float64 function; a float32 operand goes through
// float64 and is rounded once (interp's semantics).
func viaF64(fn string) fnImpl {
	return fnImpl{f32: "float32(" + fn + "(float64(%[1]s)))", f64: fn + "(%[1]s)"}
}

func viaF64Bin(fn string) fnImpl {
	return fnImpl{f32: "float32(" + fn + "(float64(%[1]s), float64(%[2]s)))", f64: fn + "(%[1]s, %[2]s)"}
}

// same uses one template for both float classes and ints.
func same(t string) fnImpl { return fnImpl{f32: t, f64: t, i64: t} }

func with(f fnImpl, edit func(*fnImpl)) fnImpl { edit(&f); return f }

const truthy = "(%[1]s != 0)"

var fnImpls = map[string]fnImpl{
	"neg": same("(-%[1]s)"),
	"abs": {f32: "rt.AbsF32(%[1]s)", f64: "math.Abs(%[1]s)", i64: "rt.AbsI64(%[1]s)", b: "%[1]s"},
	// exp and tanh on f32 are float32 polynomials, as Inductor's C++ (Sleef)
	// computes them: within 1 and 1.5 ulp (rt/fastmath.go), with lane twins.
	"exp": {f32: "rt.ExpF32(%[1]s)", f64: "math.Exp(%[1]s)"}, "exp2": viaF64("math.Exp2"),
	"log2": viaF64("math.Log2"), "log10": viaF64("math.Log10"),
	// log, log1p and expm1 on f32 likewise (rt/fastlog.go), with lane twins.
	"log":   {f32: "rt.LogF32(%[1]s)", f64: "math.Log(%[1]s)"},
	"log1p": {f32: "rt.Log1pF32(%[1]s)", f64: "math.Log1p(%[1]s)"},
	"expm1": {f32: "rt.Expm1F32(%[1]s)", f64: "math.Expm1(%[1]s)"},
	// sqrt and 1/x through float64 are float32's correctly rounded results
	// (53 ≥ 2·24+2 bits: rounding twice is innocuous); rsqrt and sigmoid
	// are computed in float32 as torch's float32 results are
	// (rt.RsqrtF32, rt.SigmoidF32), which the lanes compute step for step.
	"sqrt": viaF64("math.Sqrt"), "reciprocal": viaF64("rt.Reciprocal"),
	"rsqrt": {f32: "rt.RsqrtF32(%[1]s)", f64: "rt.Rsqrt(%[1]s)"},
	"tan":   viaF64("math.Tan"),
	// sin and cos on f32 likewise (rt/fasttrig.go), with lane twins.
	"sin": {f32: "rt.SinF32(%[1]s)", f64: "math.Sin(%[1]s)"}, "cos": {f32: "rt.CosF32(%[1]s)", f64: "math.Cos(%[1]s)"},
	"asin": viaF64("math.Asin"), "acos": viaF64("math.Acos"), "atan": viaF64("math.Atan"),
	"sinh": viaF64("math.Sinh"), "cosh": viaF64("math.Cosh"), "tanh": {f32: "rt.TanhF32(%[1]s)", f64: "math.Tanh(%[1]s)"},
	"asinh": viaF64("math.Asinh"), "acosh": viaF64("math.Acosh"), "atanh": viaF64("math.Atanh"),
	"sigmoid": {f32: "rt.SigmoidF32(%[1]s)", f64: "rt.Sigmoid(%[1]s)"}, "erf": {f32: "rt.ErfF32(%[1]s)", f64: "math.Erf(%[1]s)"}, "erfc": viaF64("math.Erfc"),
	"erfinv": viaF64("math.Erfinv"), "lgamma": viaF64("rt.Lgamma"), "frac": viaF64("rt.Frac"),
	"floor":       with(viaF64("math.Floor"), func(f *fnImpl) { f.i64, f.b = "%[1]s", "%[1]s" }),
	"ceil":        with(viaF64("math.Ceil"), func(f *fnImpl) { f.i64, f.b = "%[1]s", "%[1]s" }),
	"round":       with(viaF64("math.RoundToEven"), func(f *fnImpl) { f.i64, f.b = "%[1]s", "%[1]s" }),
	"trunc":       with(viaF64("math.Trunc"), func(f *fnImpl) { f.i64, f.b = "%[1]s", "%[1]s" }),
	"sign":        with(viaF64("rt.Sign"), func(f *fnImpl) { f.i64, f.b = "rt.SignI64(%[1]s)", "%[1]s" }),
	"signbit":     {f32: "math.Signbit(float64(%[1]s))", f64: "math.Signbit(%[1]s)", i64: "(%[1]s < 0)", b: "false"},
	"logical_not": {f32: "(%[1]s == 0)", f64: "(%[1]s == 0)", i64: "(%[1]s == 0)", b: "(!%[1]s)"},
	"bitwise_not": {i64: "(^%[1]s)", b: "(!%[1]s)"},
	"isnan":       {f32: "(%[1]s != %[1]s)", f64: "(%[1]s != %[1]s)", i64: "false", b: "false"},
	"isinf":       {f32: "rt.IsInf(float64(%[1]s))", f64: "rt.IsInf(%[1]s)", i64: "false", b: "false"},
	"isfinite":    {f32: "rt.IsFinite(float64(%[1]s))", f64: "rt.IsFinite(%[1]s)", i64: "true", b: "true"},

	"add": with(same("(%[1]s + %[2]s)"), func(f *fnImpl) { f.b = "(%[1]s || %[2]s)" }),
	"sub": same("(%[1]s - %[2]s)"),
	// The conversion keeps Go from fusing a product into a following sum
	// (VFMADD with GOAMD64=v3): eager PyTorch rounds both, and so do lanes.
	"mul":       {f32: "float32(%[1]s * %[2]s)", f64: "float64(%[1]s * %[2]s)", i64: "(%[1]s * %[2]s)", b: "(%[1]s && %[2]s)"},
	"truediv":   {f32: "(%[1]s / %[2]s)", f64: "(%[1]s / %[2]s)"},
	"floordiv":  {f32: "rt.FloorDivF32(%[1]s, %[2]s)", f64: "rt.FloorDivF64(%[1]s, %[2]s)", i64: "rt.FloorDivI64(%[1]s, %[2]s)", divides: true},
	"remainder": with(viaF64Bin("rt.Remainder"), func(f *fnImpl) { f.i64, f.divides = "rt.RemainderI64(%[1]s, %[2]s)", true }),
	"fmod":      with(viaF64Bin("math.Mod"), func(f *fnImpl) { f.i64, f.divides = "(%[1]s %% %[2]s)", true }),
	"pow":       with(viaF64Bin("rt.Pow"), func(f *fnImpl) { f.i64 = "rt.PowI64(%[1]s, %[2]s)" }),
	// Go's max and min propagate NaN and order -0 < +0, as ATen's maximum.
	"maximum":  with(same("max(%[1]s, %[2]s)"), func(f *fnImpl) { f.b = "(%[1]s || %[2]s)" }),
	"minimum":  with(same("min(%[1]s, %[2]s)"), func(f *fnImpl) { f.b = "(%[1]s && %[2]s)" }),
	"fmax":     with(viaF64Bin("rt.FMax"), func(f *fnImpl) { f.i64, f.b = "max(%[1]s, %[2]s)", "(%[1]s || %[2]s)" }),
	"fmin":     with(viaF64Bin("rt.FMin"), func(f *fnImpl) { f.i64, f.b = "min(%[1]s, %[2]s)", "(%[1]s && %[2]s)" }),
	"atan2":    viaF64Bin("math.Atan2"),
	"hypot":    viaF64Bin("math.Hypot"),
	"copysign": viaF64Bin("math.Copysign"),

	"eq": with(same("(%[1]s == %[2]s)"), func(f *fnImpl) { f.b = "(%[1]s == %[2]s)" }),
	"ne": with(same("(%[1]s != %[2]s)"), func(f *fnImpl) { f.b = "(%[1]s != %[2]s)" }),
	"lt": with(same("(%[1]s < %[2]s)"), func(f *fnImpl) { f.b = "(rt.B2I(%[1]s) < rt.B2I(%[2]s))" }),
	"le": with(same("(%[1]s <= %[2]s)"), func(f *fnImpl) { f.b = "(rt.B2I(%[1]s) <= rt.B2I(%[2]s))" }),
	"gt": with(same("(%[1]s > %[2]s)"), func(f *fnImpl) { f.b = "(rt.B2I(%[1]s) > rt.B2I(%[2]s))" }),
	"ge": with(same("(%[1]s >= %[2]s)"), func(f *fnImpl) { f.b = "(rt.B2I(%[1]s) >= rt.B2I(%[2]s))" }),

	"logical_and": with(same("((%[1]s != 0) && (%[2]s != 0))"), func(f *fnImpl) { f.b = "(%[1]s && %[2]s)" }),
	"logical_or":  with(same("((%[1]s != 0) || (%[2]s != 0))"), func(f *fnImpl) { f.b = "(%[1]s || %[2]s)" }),
	"logical_xor": with(same("((%[1]s != 0) != (%[2]s != 0))"), func(f *fnImpl) { f.b = "(%[1]s != %[2]s)" }),
	"bitwise_and": {i64: "(%[1]s & %[2]s)", b: "(%[1]s && %[2]s)"},
	"bitwise_or":  {i64: "(%[1]s | %[2]s)", b: "(%[1]s || %[2]s)"},
	"bitwise_xor": {i64: "(%[1]s ^ %[2]s)", b: "(%[1]s != %[2]s)"},
	"lshift":      {i64: "rt.Shl(%[1]s, %[2]s, %[3]d)"},
	"rshift":      {i64: "rt.Shr(%[1]s, %[2]s, %[3]d)"},
}

// template picks the version of fn for operands of class r.
func (f fnImpl) template(r regClass) string {
	return [...]string{f.f32, f.f64, f.i64, f.b}[r]
}

// callExpr renders fn on operand expressions of class r.
func callExpr(fn string, r regClass, width int, args []string) (string, bool, error) {
	impl, ok := fnImpls[fn]
	if !ok {
		return "", false, fmt.Errorf("function %q is not supported by the Go backend", fn)
	}
	t := impl.template(r)
	if t == "" {
		return "", false, fmt.Errorf("function %q is not defined on %s operands", fn, goType(r))
	}
	if !strings.Contains(t, "%") {
		return t, false, nil
	}
	vals := []any{"", "", width}
	for i, a := range args {
		vals[i] = a
	}
	return fmt.Sprintf(t, vals...), impl.divides && r == regI64, nil
}
