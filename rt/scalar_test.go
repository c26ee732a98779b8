package rt_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	. "github.com/kiln-compiler/kiln/rt"
	"github.com/stretchr/testify/require"
)

// The runtime's scalar functions against interp's kernels for the same
// ATen ops, on float32, float64 and integer tensors of awkward values.
// Where interp calls rt itself (floor division, remainder, pow, fmax/fmin,
// sign, sigmoid), interp's result is checked against the oracles of
// oracle_test.go instead, which the rt functions meet too: comparing rt
// with interp there would compare rt with itself.

func runOp(t *testing.T, call string, dt ir.DType, n int, inputs ...any) *interp.Tensor {
	t.Helper()
	ann := fmt.Sprintf(`"%s[%d]"`, dt.Abbr(), n)
	params := "self, a: " + ann
	if len(inputs) == 2 {
		params += ", b: " + ann
	}
	src := fmt.Sprintf("def forward(%s):\n    r = %s\n    return (r,)\n", params, call)
	res, err := fx.Parse("t.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	out, err := interp.Run(res.Module.Graphs[0], inputs, interp.Options{})
	require.NoError(t, err, call)
	return out.Outputs[0].(*interp.Tensor)
}

var probes = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2.5, -2.5, 3, -7, 7.25, 1e-30, -1e-30, 1e30, -3.4e38,
	100, 0.1, 0.999, 1.0001, -1.0001, 20, -20, 88.5, -88.5, math.Inf(1), math.Inf(-1), math.NaN()}

var intProbes = []int64{0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -129, 255, 65536, math.MaxInt32, math.MinInt32, 63, 64}

func sameBits(want, got float64) bool {
	if want != want || got != got {
		return want != want && got != got
	}
	return math.Float64bits(want) == math.Float64bits(got)
}

func TestUnaryFloatsAgainstInterp(t *testing.T) {
	unary := map[string]func(float64) float64{
		"exp": math.Exp, "exp2": math.Exp2, "expm1": math.Expm1, "log": math.Log, "log2": math.Log2, "log10": math.Log10,
		"log1p": math.Log1p, "sqrt": math.Sqrt, "rsqrt": Rsqrt, "reciprocal": Reciprocal, "sin": math.Sin, "cos": math.Cos,
		"tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan, "sinh": math.Sinh, "cosh": math.Cosh,
		"tanh": math.Tanh, "asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh,
		"erf": math.Erf, "erfc": math.Erfc, "erfinv": math.Erfinv, "lgamma": Lgamma, "frac": Frac, "sign": signOracle,
		"floor": math.Floor, "ceil": math.Ceil, "round": math.RoundToEven, "trunc": math.Trunc,
	}
	for _, dt := range []ir.DType{ir.F32, ir.F64} {
		x := interp.FromFloats(dt, []int64{int64(len(probes))}, probes)
		for name, f := range unary {
			got := runOp(t, "torch.ops.aten."+name+".default(a)", dt, len(probes), x).Floats()
			for i, p := range x.Floats() {
				want := f(p)
				if dt == ir.F32 {
					want = float64(float32(want)) // generated code: float32(F(float64(x)))
				}
				require.True(t, sameBits(got[i], want), "%s %s(%v): interp %v, rt %v", dt.Abbr(), name, p, got[i], want)
			}
		}
	}
}

func TestBinaryFloatsAgainstInterp(t *testing.T) {
	var as, bs []float64
	for _, a := range probes {
		for _, b := range probes {
			as, bs = append(as, a), append(bs, b)
		}
	}
	n := len(as)
	binary := map[string]struct {
		f32 func(a, b float32) float32
		f64 func(a, b float64) float64
	}{
		"floor_divide.default": {divFloorATen[float32], divFloorATen[float64]},
		"remainder.Tensor":     {nil, remainderOracle},
		"fmod.Tensor":          {nil, math.Mod},
		"maximum.default":      {func(a, b float32) float32 { return max(a, b) }, func(a, b float64) float64 { return max(a, b) }},
		"minimum.default":      {func(a, b float32) float32 { return min(a, b) }, func(a, b float64) float64 { return min(a, b) }},
		"fmax.default":         {nil, fmaxOracle},
		"fmin.default":         {nil, fminOracle},
		"atan2.default":        {nil, math.Atan2},
		"copysign.Tensor":      {nil, math.Copysign},
		"mul.Tensor":           {func(a, b float32) float32 { return a * b }, nil},
		"div.Tensor":           {func(a, b float32) float32 { return a / b }, nil},
		"sub.Tensor":           {func(a, b float32) float32 { return a - b }, nil},
	}
	for _, dt := range []ir.DType{ir.F32, ir.F64} {
		a, b := interp.FromFloats(dt, []int64{int64(n)}, as), interp.FromFloats(dt, []int64{int64(n)}, bs)
		for name, fs := range binary {
			got := runOp(t, "torch.ops.aten."+name+"(a, b)", dt, n, a, b).Floats()
			av, bv := a.Floats(), b.Floats()
			for i := range got {
				var want float64
				switch {
				case dt == ir.F32 && fs.f32 != nil:
					want = float64(fs.f32(float32(av[i]), float32(bv[i])))
				case fs.f64 == nil:
					continue
				case dt == ir.F32:
					want = float64(float32(fs.f64(av[i], bv[i])))
				default:
					want = fs.f64(av[i], bv[i])
				}
				require.True(t, sameBits(got[i], want), "%s %s(%v, %v): interp %v, rt %v", dt.Abbr(), name, av[i], bv[i], got[i], want)
			}
		}
	}
}

func TestIntegerOpsAgainstInterp(t *testing.T) {
	var as, bs []int64
	for _, a := range intProbes {
		for _, b := range intProbes {
			if b != 0 {
				as, bs = append(as, a), append(bs, b)
			}
		}
	}
	n := len(as)
	wrap32 := func(v int64) int64 { return int64(int32(v)) }
	cases := map[string]func(a, b int64) int64{
		"floor_divide.default":       floorDivIntOracle,
		"remainder.Tensor":           remainderIntOracle,
		"fmod.Tensor":                func(a, b int64) int64 { return a % b },
		"pow.Tensor_Tensor":          powIntOracle,
		"mul.Tensor":                 func(a, b int64) int64 { return a * b },
		"bitwise_left_shift.Tensor":  func(a, b int64) int64 { return Shl(a, b, 32) },
		"bitwise_right_shift.Tensor": func(a, b int64) int64 { return Shr(a, b, 32) },
		"maximum.default":            func(a, b int64) int64 { return max(a, b) },
		"bitwise_xor.Tensor":         func(a, b int64) int64 { return a ^ b },
	}
	a, b := interp.FromInts(ir.I32, []int64{int64(n)}, as), interp.FromInts(ir.I32, []int64{int64(n)}, bs)
	for name, f := range cases {
		got := runOp(t, "torch.ops.aten."+name+"(a, b)", ir.I32, n, a, b).Ints()
		av, bv := a.Ints(), b.Ints()
		for i := range got {
			require.Equal(t, got[i], wrap32(f(av[i], bv[i])), "%s(%d, %d)", name, av[i], bv[i])
		}
	}
}

// TestInterpPowSigmoidAgainstOracle checks interp's pow and sigmoid, which
// call rt, against the oracles' tolerances (see oracle_test.go).
func TestInterpPowSigmoidAgainstOracle(t *testing.T) {
	var as, bs []float64
	for _, a := range probes {
		for _, b := range probes {
			as, bs = append(as, a), append(bs, b)
		}
	}
	n := len(as)
	a, b := interp.FromFloats(ir.F64, []int64{int64(n)}, as), interp.FromFloats(ir.F64, []int64{int64(n)}, bs)
	got := runOp(t, "torch.ops.aten.pow.Tensor_Tensor(a, b)", ir.F64, n, a, b).Floats()
	for i := range got {
		want, tol, ok := powOracle(as[i], bs[i])
		switch {
		case !ok:
		case tol < 0:
			require.InEpsilon(t, want, got[i], 1e-12, "pow(%v, %v)", as[i], bs[i])
		default:
			require.LessOrEqual(t, ulps(want, got[i]), tol, "pow(%v, %v): want %v, got %v", as[i], bs[i], want, got[i])
		}
	}
	x := interp.FromFloats(ir.F64, []int64{int64(len(probes))}, probes)
	sig := runOp(t, "torch.ops.aten.sigmoid.default(a)", ir.F64, len(probes), x).Floats()
	for i, p := range probes {
		require.LessOrEqual(t, ulps(sigmoidOracle(p), sig[i]), 4.0, "sigmoid(%v): got %v", p, sig[i])
	}
}

func TestFloatToIntCastsAgainstInterp(t *testing.T) {
	x := interp.FromFloats(ir.F32, []int64{int64(len(probes))}, probes)
	for _, dt := range []ir.DType{ir.I64, ir.I32, ir.I8, ir.U8} {
		got := runOp(t, fmt.Sprintf("torch.ops.prims.convert_element_type.default(a, torch.%s)", dt.Name()), ir.F32, len(probes), x).Ints()
		for i, p := range x.Floats() {
			var want int64
			switch dt {
			case ir.I64:
				want = F2I64(p)
			case ir.I32:
				want = F2I32(p)
			case ir.I8:
				want = int64(int8(F2I32(p)))
			case ir.U8:
				want = int64(uint8(F2I32(p)))
			}
			require.Equal(t, got[i], want, "%s of %v", dt.Abbr(), p)
		}
	}
}

func TestArgMaxAndMaxAgainstInterp(t *testing.T) {
	nan := math.NaN()
	rows := [][]float64{{1, 5, 3, 5, -2}, {nan, 1, 2, 3, 4}, {1, 2, nan, 9, nan}, {math.Inf(-1), math.Inf(-1), -5, -5, -6}, {0, -0.0, 0, 1, 1}}
	var flat []float64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	x := interp.FromFloats(ir.F32, []int64{5, 5}, flat)
	g := func(op string) *interp.Tensor {
		src := fmt.Sprintf("def forward(self, a: \"f32[5, 5]\"):\n    r = torch.ops.aten.%s(a, 1)\n    return (r,)\n", op)
		res, err := fx.Parse("t.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
		require.NoError(t, err)
		out, err := interp.Run(res.Module.Graphs[0], []any{x}, interp.Options{})
		require.NoError(t, err)
		return out.Outputs[0].(*interp.Tensor)
	}
	argmax, argmin, amax := g("argmax.default").Ints(), g("argmin.default").Ints(), g("amax.default").Floats()
	for i, r := range rows {
		bestMax, atMax := Inf32(-1), int64(0)
		bestMin, atMin := Inf32(1), int64(0)
		m := Inf32(-1)
		for k, v := range r {
			bestMax, atMax = ArgMaxF32(bestMax, atMax, float32(v), int64(k))
			bestMin, atMin = ArgMinF32(bestMin, atMin, float32(v), int64(k))
			m = max(m, float32(v)) // the generated max reduction
		}
		require.Equal(t, argmax[i], atMax, "argmax row %d", i)
		require.Equal(t, argmin[i], atMin, "argmin row %d", i)
		require.True(t, sameBits(amax[i], float64(m)), "amax row %d: %v vs %v", i, amax[i], m)
	}
}
