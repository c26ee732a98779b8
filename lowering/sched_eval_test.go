package lowering

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/rt"
)

// schedEval runs a program in float64, as a test oracle for fusion and
// planning: outer iterations of a parallel kernel run in reverse order, so a fused kernel that
// reads an element another iteration writes sees a stale value, and a
// buffer that reuses another's memory really shares it, so a wrong reuse
// clobbers live data.
type schedEval struct {
	t   *testing.T
	env map[string]int64
	mem map[*Buffer][]float64
	// soft turns "cannot evaluate" (an unknown function, an index out of
	// range on random data) into schedUnsupported panics for schedTryRun.
	soft bool
}

type schedUnsupported struct{ why string }

// fail reports what the evaluator cannot do.
func (e *schedEval) fail(format string, args ...any) {
	if e.soft {
		panic(schedUnsupported{fmt.Sprintf(format, args...)})
	}
	e.t.Fatalf(format, args...)
}

// intRangeKey, in a run's env, draws integer inputs from [0, n) (index
// tensors) instead of random floats truncated to 0.
const intRangeKey = "int_range"

// schedTryRun is schedRun for programs the evaluator may not support:
// ok is false (with the reason) instead of a failed test.
func schedTryRun(t *testing.T, p *Program, env map[string]int64) (out map[string][]float64, why string) {
	defer func() {
		if r := recover(); r != nil {
			u, isU := r.(schedUnsupported)
			if !isU {
				panic(r)
			}
			out, why = nil, u.why
		}
	}()
	return schedRunMode(t, p, env, 5, true), ""
}

// schedRun evaluates p on inputs drawn from seed; it returns the outputs
// and the final contents of the inputs, by name.
func schedRun(t *testing.T, p *Program, env map[string]int64, seed uint64) map[string][]float64 {
	t.Helper()
	return schedRunMode(t, p, env, seed, false)
}

func schedRunMode(t *testing.T, p *Program, env map[string]int64, seed uint64, soft bool) map[string][]float64 {
	e := &schedEval{t: t, env: map[string]int64{}, mem: map[*Buffer][]float64{}, soft: soft}
	for k, v := range env {
		e.env[k] = v
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, b := range p.Buffers {
		if b.ReuseOf != nil {
			continue
		}
		n := e.eval(b.Size)
		if n < 0 || n > 1<<16 {
			e.fail("schedEval: buffer %s of %d elements", b.Name, n)
		}
		e.mem[b] = make([]float64, n)
		if b.Kind == BufInput {
			ints := env[intRangeKey]
			for i := range e.mem[b] {
				if ints > 0 && b.DType.IsInt() {
					e.mem[b][i] = float64(rng.Int64N(ints))
				} else {
					e.mem[b][i] = rng.Float64()*2 - 1
				}
			}
		} else {
			for i := range e.mem[b] {
				e.mem[b][i] = math.NaN() // never read before written
			}
		}
	}
	for _, b := range p.Buffers {
		if b.ReuseOf != nil {
			root := b.ReuseOf
			for root.ReuseOf != nil {
				root = root.ReuseOf
			}
			e.mem[b] = e.mem[root]
		}
	}
	for _, k := range p.Kernels {
		e.kernel(k)
	}
	out := map[string][]float64{}
	for _, r := range p.Outputs {
		if r.Buffer != nil {
			out[r.Name] = e.gather(r.Buffer, r.Layout)
		}
	}
	for _, in := range p.Inputs {
		if in.Buffer != nil {
			out["input:"+in.Name] = e.gather(in.Buffer, in.Layout)
		}
	}
	return out
}

func (e *schedEval) eval(x sym.Expr) int64 {
	v, err := x.Eval(e.env)
	if err != nil {
		e.fail("schedEval: %v", err)
	}
	return v
}

// gather reads a tensor through its layout in row-major order.
func (e *schedEval) gather(b *Buffer, l Layout) []float64 {
	sizes := make([]int64, len(l.Shape))
	for i, s := range l.Shape {
		sizes[i] = e.eval(s)
	}
	var out []float64
	forEachPoint(sizes, false, func(p []int64) {
		idx := make([]sym.Expr, len(p))
		for i, v := range p {
			idx[i] = sym.Const(v)
		}
		out = append(out, e.mem[b][e.eval(l.Index(idx))])
	})
	return out
}

// forEachPoint visits every point of a box, in row-major or reverse order.
func forEachPoint(sizes []int64, reverse bool, f func([]int64)) {
	total := int64(1)
	for _, s := range sizes {
		total *= s
	}
	p := make([]int64, len(sizes))
	for n := int64(0); n < total; n++ {
		lin := n
		if reverse {
			lin = total - 1 - n
		}
		for i := len(sizes) - 1; i >= 0; i-- {
			p[i] = lin % sizes[i]
			lin /= sizes[i]
		}
		f(p)
	}
}

func (e *schedEval) kernel(k *Kernel) {
	if k.Extern != nil {
		e.extern(k.Extern)
		return
	}
	outer := make([]int64, len(k.Outer))
	for i, s := range k.Outer {
		outer[i] = e.eval(s)
	}
	// A Serial kernel runs in index order, as codegen runs it.
	forEachPoint(outer, !k.Serial, func(p []int64) {
		for i, v := range p {
			e.env[OuterVar(i)] = v
		}
		vals := map[*Instr]float64{}
		for _, st := range k.Stages {
			e.stage(st, vals)
		}
	})
}

func (e *schedEval) stage(st *Stage, vals map[*Instr]float64) {
	if len(st.Reduce) == 0 {
		for _, in := range st.Body {
			e.instr(in, vals)
		}
		return
	}
	sizes := make([]int64, len(st.Reduce))
	for i, s := range st.Reduce {
		sizes[i] = e.eval(s)
	}
	acc := map[*Instr]float64{}
	for _, in := range st.Body {
		if in.Op == OpReduce || in.Op == OpScan {
			acc[in] = reduceInit(in.Reduce)
		}
	}
	// The reduce loop runs in order: a scan's prefixes depend on it.
	forEachPoint(sizes, false, func(p []int64) {
		for i, v := range p {
			e.env[ReduceVar(i)] = v
		}
		for _, in := range st.Body {
			switch in.Op {
			case OpReduce:
				acc[in] = reduceStep(in.Reduce, acc[in], vals[in.Args[0]])
			case OpScan: // the running value, visible to the rest of the step
				acc[in] = reduceStep(in.Reduce, acc[in], vals[in.Args[0]])
				vals[in] = acc[in]
			default:
				e.instr(in, vals)
			}
		}
	})
	for in, v := range acc {
		if in.Op == OpReduce {
			vals[in] = v
		}
	}
}

func reduceInit(op ReduceOp) float64 {
	switch op {
	case ReduceProd, ReduceAll:
		return 1
	case ReduceMax, ReduceLogAddExp:
		return math.Inf(-1)
	case ReduceMin:
		return math.Inf(1)
	}
	return 0
}

func reduceStep(op ReduceOp, acc, x float64) float64 {
	switch op {
	case ReduceProd:
		return acc * x
	case ReduceMax:
		return math.Max(acc, x)
	case ReduceMin:
		return math.Min(acc, x)
	case ReduceAny:
		return b2f(acc != 0 || x != 0)
	case ReduceAll:
		return b2f(acc != 0 && x != 0)
	case ReduceLogAddExp:
		lo, hi := math.Min(acc, x), math.Max(acc, x)
		if lo != hi || !math.IsInf(lo, 0) {
			return math.Log1p(math.Exp(lo-hi)) + hi
		}
		return x
	}
	return acc + x
}

var schedFns = map[string]func(a []float64) float64{
	"add": func(a []float64) float64 { return a[0] + a[1] }, "sub": func(a []float64) float64 { return a[0] - a[1] },
	"mul": func(a []float64) float64 { return a[0] * a[1] }, "truediv": func(a []float64) float64 { return a[0] / a[1] },
	"maximum": func(a []float64) float64 { return math.Max(a[0], a[1]) },
	"minimum": func(a []float64) float64 { return math.Min(a[0], a[1]) },
	"exp":     func(a []float64) float64 { return math.Exp(a[0]) }, "neg": func(a []float64) float64 { return -a[0] },
	"rsqrt": func(a []float64) float64 { return 1 / math.Sqrt(a[0]) }, "sqrt": func(a []float64) float64 { return math.Sqrt(a[0]) },
	"tanh": func(a []float64) float64 { return math.Tanh(a[0]) }, "abs": func(a []float64) float64 { return math.Abs(a[0]) },
	"log":        func(a []float64) float64 { return math.Log(a[0]) },
	"sigmoid":    func(a []float64) float64 { return 1 / (1 + math.Exp(-a[0])) },
	"pow":        func(a []float64) float64 { return math.Pow(a[0], a[1]) },
	"reciprocal": func(a []float64) float64 { return 1 / a[0] },
	// Predicates and selection (scatters lowered as where(inside, src, self)).
	"eq": func(a []float64) float64 { return b2f(a[0] == a[1]) }, "ne": func(a []float64) float64 { return b2f(a[0] != a[1]) },
	"lt": func(a []float64) float64 { return b2f(a[0] < a[1]) }, "le": func(a []float64) float64 { return b2f(a[0] <= a[1]) },
	"gt": func(a []float64) float64 { return b2f(a[0] > a[1]) }, "ge": func(a []float64) float64 { return b2f(a[0] >= a[1]) },
	"logical_and": func(a []float64) float64 { return b2f(a[0] != 0 && a[1] != 0) },
	"logical_or":  func(a []float64) float64 { return b2f(a[0] != 0 || a[1] != 0) },
	"logical_not": func(a []float64) float64 { return b2f(a[0] == 0) },
	"isnan":       func(a []float64) float64 { return b2f(math.IsNaN(a[0])) },
	"signbit":     func(a []float64) float64 { return b2f(math.Signbit(a[0])) },
	"rshift":      func(a []float64) float64 { return float64(int64(a[0]) >> uint(a[1])) },
	"bitwise_and": func(a []float64) float64 { return float64(int64(a[0]) & int64(a[1])) },
	"where": func(a []float64) float64 {
		if a[0] != 0 {
			return a[1]
		}
		return a[2]
	},
}

func (e *schedEval) instr(in *Instr, vals map[*Instr]float64) {
	switch in.Op {
	case OpLoad:
		vals[in] = e.mem[in.Access.Buffer][e.at(in, vals)]
	case OpStore:
		e.mem[in.Access.Buffer][e.at(in, vals)] = vals[in.Args[0]]
	case OpConst:
		if in.DType.IsFloat() {
			vals[in] = in.Imm.Float
		} else {
			vals[in] = float64(in.Imm.Int)
		}
	case OpIndex:
		vals[in] = float64(e.eval(in.Expr))
	case OpCheck:
		i, size := int64(vals[in.Args[0]]), e.eval(in.Expr)
		if !in.Check.Accepts(i, size) {
			e.fail("schedEval: %s", in.Check.Message(i, size))
		}
	case OpCast, OpBitcast:
		vals[in] = vals[in.Args[0]]
	case OpCall:
		f, ok := schedFns[in.Fn]
		if !ok {
			e.fail("schedEval: no function %s", in.Fn)
		}
		args := make([]float64, len(in.Args))
		for i, a := range in.Args {
			args[i] = vals[a]
		}
		vals[in] = f(args)
	default:
		e.fail("schedEval: %s outside an r-stage", in.Op)
	}
}

// at is an access's element, indirect indexes bound to their values.
func (e *schedEval) at(in *Instr, vals map[*Instr]float64) int64 {
	for _, t := range in.Access.Indirect {
		e.env["tmp"+itoa(t.ID)] = int64(vals[t])
	}
	i := e.eval(in.Access.Index)
	if i < 0 || i >= int64(len(e.mem[in.Access.Buffer])) {
		e.fail("schedEval: %s index %d out of range", in.Access.Buffer.Name, i)
	}
	return i
}

// extern runs aten::mm here, and any other extern through rt on byte
// copies of its buffers (written back whole, so that reused memory stays
// shared).
func (e *schedEval) extern(x *Extern) {
	if !strings.HasPrefix(x.Op, "aten::mm") {
		e.externRT(x)
		return
	}
	a, b, o := x.Args[0], x.Args[1], x.Outs[0]
	m, kk, n := e.eval(a.Layout.Shape[0]), e.eval(a.Layout.Shape[1]), e.eval(b.Layout.Shape[1])
	at := func(op Operand, i, j int64) *float64 {
		idx := e.eval(op.Layout.Index([]sym.Expr{sym.Const(i), sym.Const(j)}))
		return &e.mem[op.Buffer][idx]
	}
	for i := range m {
		for j := range n {
			s := 0.0
			for l := range kk {
				s += *at(a, i, l) * *at(b, l, j)
			}
			*at(o, i, j) = s
		}
	}
}

func (e *schedEval) externRT(x *Extern) {
	if err := runExternRT(x, e.mem, e.eval); err != nil {
		e.fail("schedEval: %v", err)
	}
}

// runExternRT runs extern x through rt on byte copies of its buffers in
// mem (f32, f64 and i64, one float64 per element), sizes evaluated by
// eval, and writes each output buffer back whole, in place, so that
// memory one buffer reuses from another stays shared. loopEval uses it
// too (export_test.go).
func runExternRT(x *Extern, mem map[*Buffer][]float64, eval func(sym.Expr) int64) error {
	var bad error
	tensor := func(o Operand) *rt.Tensor {
		if o.Buffer == nil {
			return nil
		}
		dt, vals := o.Buffer.DType, mem[o.Buffer]
		if o.Layout.DType != dt || dt != ir.F32 && dt != ir.F64 && dt != ir.I64 {
			bad = fmt.Errorf("extern %s: a %s view of a %s buffer", x.Op, o.Layout.DType, dt)
			return nil
		}
		data := make([]byte, len(vals)*dt.ItemSize())
		for i, v := range vals {
			switch dt {
			case ir.F32:
				binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(v)))
			case ir.F64:
				binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
			case ir.I64:
				binary.LittleEndian.PutUint64(data[8*i:], uint64(int64(v)))
			}
		}
		t := &rt.Tensor{DType: dt.Abbr(), Offset: eval(o.Layout.Offset), Data: data}
		for d := range o.Layout.Shape {
			t.Shape = append(t.Shape, eval(o.Layout.Shape[d]))
			t.Strides = append(t.Strides, eval(o.Layout.Strides[d]))
		}
		return t
	}
	args, outs := make([]*rt.Tensor, len(x.Args)), make([]*rt.Tensor, len(x.Outs))
	for i, a := range x.Args {
		args[i] = tensor(a)
	}
	for i, o := range x.Outs {
		outs[i] = tensor(o)
	}
	if bad != nil {
		return bad
	}
	var err error
	if len(outs) == 1 {
		err = rt.Extern(x.Op, outs[0], args, x.Params)
	} else {
		err = rt.ExternN(x.Op, outs, args, x.Params)
	}
	if err != nil {
		return fmt.Errorf("extern %s: %w", x.Op, err)
	}
	for i, o := range x.Outs {
		if o.Buffer == nil {
			continue
		}
		vals, data := mem[o.Buffer], outs[i].Data
		for j := range vals {
			switch o.Buffer.DType {
			case ir.F32:
				vals[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*j:])))
			case ir.F64:
				vals[j] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*j:]))
			case ir.I64:
				vals[j] = float64(int64(binary.LittleEndian.Uint64(data[8*j:])))
			}
		}
	}
	return nil
}

// requireClose compares two runs' outputs.
func requireClose(t *testing.T, want, got map[string][]float64) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	for name, w := range want {
		g := got[name]
		require.Len(t, g, len(w), name)
		for i := range w {
			if w[i] == g[i] || math.IsNaN(w[i]) && math.IsNaN(g[i]) {
				continue
			}
			require.InDelta(t, w[i], g[i], 1e-9*(1+math.Abs(w[i])), fmt.Sprintf("%s[%d]", name, i))
		}
	}
}
