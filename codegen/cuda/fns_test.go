package cuda_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/rt"
)

// floatRef is PyTorch's float semantics of the unary and binary Fns, in
// float64 (the Go runtime's formulas, which are checked against interp).
var floatRef = map[string]func(a, b float64) float64{
	"neg": func(a, _ float64) float64 { return -a }, "abs": func(a, _ float64) float64 { return math.Abs(a) },
	"exp": un(math.Exp), "exp2": un(math.Exp2), "expm1": un(math.Expm1), "log": un(math.Log), "log2": un(math.Log2),
	"log10": un(math.Log10), "log1p": un(math.Log1p), "sqrt": un(math.Sqrt),
	"rsqrt":      un(rt.Rsqrt),
	"reciprocal": un(rt.Reciprocal),
	"sin":        un(math.Sin), "cos": un(math.Cos), "tan": un(math.Tan), "asin": un(math.Asin), "acos": un(math.Acos),
	"atan": un(math.Atan), "sinh": un(math.Sinh), "cosh": un(math.Cosh), "tanh": un(math.Tanh), "asinh": un(math.Asinh),
	"acosh": un(math.Acosh), "atanh": un(math.Atanh), "erf": un(math.Erf), "erfc": un(math.Erfc), "erfinv": un(math.Erfinv),
	"sigmoid": un(rt.Sigmoid),
	"floor":   un(math.Floor), "ceil": un(math.Ceil), "round": un(math.RoundToEven), "trunc": un(math.Trunc),
	"frac":   un(rt.Frac),
	"sign":   un(rt.Sign),
	"lgamma": un(rt.Lgamma),
	"add":    func(a, b float64) float64 { return a + b }, "sub": func(a, b float64) float64 { return a - b },
	"mul": func(a, b float64) float64 { return a * b }, "truediv": func(a, b float64) float64 { return a / b },
	"floordiv":  rt.FloorDivF64,
	"remainder": rt.Remainder,
	"fmod":      math.Mod, "pow": math.Pow,
	"maximum": math.Max, "minimum": math.Min, "fmax": rt.FMax, "fmin": rt.FMin,
	"atan2": math.Atan2, "hypot": math.Hypot, "copysign": math.Copysign,
}

func un(f func(float64) float64) func(a, b float64) float64 {
	return func(a, _ float64) float64 { return f(a) }
}

// TestEveryFunctionHandled: every lowering.Fns name and ReduceOp has a
// CUDA form, and a program calling every function on every operand type
// it claims compiles (g++ emulation and, with clang, PTX).
func TestEveryFunctionHandled(t *testing.T) {
	b := newProg(t)
	x, i, m := b.input("x", ir.F32, "16"), b.input("i", ir.I64, "16"), b.input("m", ir.Bool, "16")
	operands := map[ir.DType]*lowering.Buffer{ir.F32: x, ir.F64: x, ir.I64: i, ir.Bool: m}
	names := make([]string, 0, len(lowering.Fns))
	for name := range lowering.Fns {
		names = append(names, name)
	}
	slices.Sort(names)
	calls := 0
	for _, name := range names {
		for _, dt := range []ir.DType{ir.F32, ir.F64, ir.I64, ir.Bool} {
			if !cuda.FnDefinedOn(name, dt) {
				continue
			}
			out := dt
			if lowering.BoolFns[name] {
				out = ir.Bool
			}
			if r, ok := lowering.RandFns[name]; ok {
				out = r
			}
			o := b.output(out, "16")
			k := b.kernel(1, "16")
			v := k.load(operands[dt], operands[dt].DType, "x0")
			if dt != operands[dt].DType {
				v = k.cast(v, dt)
			}
			args := slices.Repeat([]*lowering.Instr{v}, lowering.Fns[name])
			if name == "where" {
				args[0] = k.call("gt", ir.Bool, v, v)
			}
			k.store(o, "x0", k.call(name, out, args...))
			calls++
		}
		assert.True(t, cuda.FnDefinedOn(name, ir.F32) || cuda.FnDefinedOn(name, ir.I64), "%s has no CUDA form", name)
	}
	src, err := cuda.Generate(b.p)
	require.NoError(t, err)
	for op := lowering.ReduceSum; op <= lowering.ReduceAll; op++ {
		assert.True(t, cuda.HasReduce(op), "reduce %s", op)
	}
	assert.Greater(t, calls, 2*len(lowering.Fns))
	t.Run("g++", func(t *testing.T) {
		dir := t.TempDir()
		for name, buf := range map[string]*lowering.Buffer{"x": x, "i": i, "m": m} {
			vals := fvals(16, 9)
			require.NoError(t, interp.SaveNPY(dir+"/"+name+".npy", interp.FromFloats(buf.DType, []int64{16}, vals)))
		}
		emulate(t, src, dir)
	})
	t.Run("ptx", func(t *testing.T) {
		out := ptx(t, src)
		assert.Contains(t, out, ".entry kernel0")
	})
}

// TestFloatFunctions compares every float function with its float64
// reference, rounded to f32.
func TestFloatFunctions(t *testing.T) {
	b := newProg(t)
	x, y := b.input("x", ir.F32, "64"), b.input("y", ir.F32, "64")
	names := make([]string, 0, len(floatRef))
	for name := range floatRef {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		o := b.output(ir.F32, "64")
		k := b.kernel(4, "64")
		args := []*lowering.Instr{k.load(x, ir.F32, "x0")}
		if lowering.Fns[name] == 2 {
			args = append(args, k.load(y, ir.F32, "x0"))
		}
		k.store(o, "x0", k.call(name, ir.F32, args...))
	}
	xs, ys := fvals(64, 10), fvals(64, 11)
	xs[0], xs[1], xs[2], ys[3] = 0.5, -2.5, math.NaN(), math.Inf(-1)
	outs := runHand(t, b.p, map[string]*interp.Tensor{
		"x": interp.FromFloats(ir.F32, []int64{64}, xs), "y": interp.FromFloats(ir.F32, []int64{64}, ys)})
	for n, name := range names {
		want := make([]float64, 64)
		for j := range want {
			want[j] = floatRef[name](float64(float32(xs[j])), float64(float32(ys[j])))
		}
		w := interp.FromFloats(ir.F32, []int64{64}, want)
		tol := interp.Tolerance{RTol: 4e-6, ATol: 1e-5}
		if strings.HasPrefix(name, "lgamma") || name == "tan" {
			tol.RTol = 2e-5
		}
		if m := interp.CompareTensors(w, outs[n], tol); m != nil {
			t.Errorf("%s: %s", name, m)
		}
	}
}
