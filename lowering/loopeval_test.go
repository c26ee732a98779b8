package lowering_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/rt"
)

// loopEval runs a lowered Program in float64 registers, with the dtype
// rounding of casts and stores, indirect indices, and kernels run one
// outer point after another in row-major order (how a Serial kernel must
// run). It is the oracle's counterpart: tests compare what it computes
// with what interp computes for the same graph and inputs.
type loopEval struct {
	t   *testing.T
	env map[string]int64
	mem map[*lowering.Buffer][]float64
}

// checkLowering compiles src, lowers it, runs the program and interp on
// the same inputs (random, with ints overriding integer inputs by name),
// and requires every output and every mutated input to agree. It returns
// the program for further checks.
func checkLowering(t *testing.T, src string, ints map[string][]int64) *lowering.Program {
	t.Helper()
	return runChecked(t, src, checkOpts{override: intInputs(ints)})
}

// checkLoweringFloats is checkLowering with float inputs given by name
// (NaN and ties included), converted to each input's dtype.
func checkLoweringFloats(t *testing.T, src string, floats map[string][]float64) *lowering.Program {
	t.Helper()
	return runChecked(t, src, checkOpts{override: func(name string, tt *interp.Tensor) *interp.Tensor {
		if vals, ok := floats[name]; ok {
			return interp.FromFloats(tt.DType, tt.Shape, vals)
		}
		return tt
	}})
}

// checkLoweringDynamic is checkLowering with fakeprop capturing dynamic
// output shapes (torch._dynamo.config.capture_dynamic_output_shape_ops),
// as a boolean-mask index_put needs.
func checkLoweringDynamic(t *testing.T, src string, ints map[string][]int64) *lowering.Program {
	t.Helper()
	return runChecked(t, src, checkOpts{override: intInputs(ints), cfg: passes.Config{CaptureDynamicOutputShapeOps: true}})
}

// checkOpts are runChecked's knobs.
type checkOpts struct {
	override func(string, *interp.Tensor) *interp.Tensor // input by name
	fuse     bool                                        // run the scheduler before evaluating
	coalesce bool                                        // then replace each kernel by its Coalesced
	cfg      passes.Config
	pipeline string // "": defaultPipeline
}

// intInputs overrides integer inputs by name.
func intInputs(ints map[string][]int64) func(string, *interp.Tensor) *interp.Tensor {
	return func(name string, tt *interp.Tensor) *interp.Tensor {
		if vals, ok := ints[name]; ok {
			return interp.FromInts(tt.DType, tt.Shape, vals)
		}
		return tt
	}
}

// checkFused is checkLowering with the scheduler's Fuse run on the
// program before it is evaluated.
func checkFused(t *testing.T, src string, ints map[string][]int64) *lowering.Program {
	t.Helper()
	return runChecked(t, src, checkOpts{override: intInputs(ints), fuse: true})
}

func runChecked(t *testing.T, src string, o checkOpts) *lowering.Program {
	t.Helper()
	g, p, inputs := lowerChecked(t, src, o)
	before := interp.CopyValues(inputs)
	res, err := interp.Run(g, inputs, interp.Options{Seed: 7})
	require.NoError(t, err)
	e := newLoopEval(t, p, res.Sym, before)
	require.Empty(t, e.run(p), "a check failed where interp runs")
	for i, r := range p.Outputs {
		if r.Buffer != nil {
			e.compare(r.Name, r.Layout.DType, res.Outputs[i].(*interp.Tensor).Floats(), e.gather(r.Buffer, r.Layout))
		}
	}
	for i, in := range p.Inputs {
		if in.Mutated {
			e.compare("input "+in.Name, in.Layout.DType, res.Inputs[i].(*interp.Tensor).Floats(), e.gather(in.Buffer, in.Layout))
		}
	}
	return p
}

// lowerChecked compiles and lowers src (fusing when asked) and makes its
// inputs, overridden by name.
func lowerChecked(t *testing.T, src string, o checkOpts) (*ir.Graph, *lowering.Program, []any) {
	t.Helper()
	pipeline := defaultPipeline
	if o.pipeline != "" {
		pipeline = o.pipeline
	}
	g, ctx := fxtest.Run(t, t.Name()+".fx", src, pipeline, o.cfg)
	require.False(t, ctx.Diags.HasErrors(), "%v", ctx.Diags.Items)
	p, err := lowering.Lower(g, lowering.Options{Name: "g"})
	require.NoError(t, err)
	require.NoError(t, lowering.Verify(p), "%s", p)
	if o.fuse {
		_, err := lowering.Fuse(p, lowering.FuseOptions{})
		require.NoError(t, err)
		require.NoError(t, lowering.Verify(p), "%s", p)
	}
	if o.coalesce {
		for i, k := range p.Kernels {
			p.Kernels[i] = k.Coalesced()
		}
		require.NoError(t, lowering.Verify(p), "%s", p)
	}
	inputs, err := interp.MakeInputs(g, interp.Options{Seed: 7})
	require.NoError(t, err)
	for i, v := range g.Inputs {
		if tt, ok := inputs[i].(*interp.Tensor); ok {
			inputs[i] = o.override(v.Name, tt)
		}
	}
	return g, p, inputs
}

// checkFails runs src on ints under interp, which must raise, and under
// loopEval (after fusion when fuse is set), whose failing OpCheck must
// say exactly what interp says. It returns the message.
func checkFails(t *testing.T, src string, ints map[string][]int64, fuse bool) string {
	t.Helper()
	g, p, inputs := lowerChecked(t, src, checkOpts{override: intInputs(ints), fuse: fuse})
	before := interp.CopyValues(inputs)
	_, ierr := interp.Run(g, inputs, interp.Options{Seed: 7})
	require.Error(t, ierr, "interp accepts the indices")
	e := newLoopEval(t, p, map[string]int64{}, before)
	got := e.run(p)
	require.NotEmpty(t, got, "no check failed:\n%s", p)
	require.Equal(t, interpMessage(t, ierr), got)
	return got
}

// interpMessage is the op's own message in interp's error (PyTorch's),
// without the position and node interp adds.
func interpMessage(t *testing.T, err error) string {
	t.Helper()
	var d *diag.Diagnostic
	require.ErrorAs(t, err, &d)
	return strings.TrimPrefix(d.Message, d.Node+": ")
}

// newLoopEval allocates p's buffers (NaN: never read before written) and
// loads the inputs.
func newLoopEval(t *testing.T, p *lowering.Program, env map[string]int64, inputs []any) *loopEval {
	e := &loopEval{t: t, env: env, mem: map[*lowering.Buffer][]float64{}}
	for _, b := range p.Buffers {
		e.mem[b] = make([]float64, e.eval(b.Size, nil))
		for i := range e.mem[b] {
			e.mem[b][i] = math.NaN()
		}
	}
	for i, in := range p.Inputs {
		if in.Buffer != nil {
			e.scatter(in.Buffer, in.Layout, inputs[i].(*interp.Tensor).Floats())
		}
	}
	return e
}

// checkFailed is the panic a failing OpCheck raises inside loopEval.
type checkFailed struct{ msg string }

// run runs p's kernels in order; it returns the message of the first
// failing check ("" when none fails), as the generated code stops there.
func (e *loopEval) run(p *lowering.Program) (failed string) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(checkFailed)
			if !ok {
				panic(r)
			}
			failed = f.msg
		}
	}()
	for _, k := range p.Kernels {
		e.kernel(k)
	}
	return ""
}

func (e *loopEval) compare(name string, dt ir.DType, want, got []float64) {
	e.t.Helper()
	require.Len(e.t, got, len(want), name)
	tol := 1e-5
	if dt.IsReducedFloat() {
		tol = 1e-2
	}
	for i := range want {
		if math.IsNaN(want[i]) {
			require.True(e.t, math.IsNaN(got[i]), "%s[%d]: want NaN, got %v", name, i, got[i])
			continue
		}
		require.InDelta(e.t, want[i], got[i], tol*(1+math.Abs(want[i])), "%s[%d]", name, i)
	}
}

// eval evaluates an index expression over the loop variables and tmps.
func (e *loopEval) eval(x sym.Expr, vars map[string]int64) int64 {
	env := map[string]int64{}
	for k, v := range e.env {
		env[k] = v
	}
	for k, v := range vars {
		env[k] = v
	}
	v, err := x.Eval(env)
	require.NoError(e.t, err, "eval %s", x)
	return v
}

// points lists every index of a box in row-major order.
func points(sizes []int64) [][]int64 {
	out := [][]int64{{}}
	for _, s := range sizes {
		var next [][]int64
		for _, p := range out {
			for i := int64(0); i < s; i++ {
				next = append(next, append(append([]int64{}, p...), i))
			}
		}
		out = next
	}
	return out
}

func (e *loopEval) sizes(xs []sym.Expr) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = e.eval(x, nil)
	}
	return out
}

// scatter writes row-major values into a buffer through a layout.
func (e *loopEval) scatter(b *lowering.Buffer, l lowering.Layout, vals []float64) {
	for i, p := range points(e.sizes(l.Shape)) {
		e.mem[b][e.eval(l.Index(consts(p)), nil)] = vals[i]
	}
}

// gather reads a tensor through its layout in row-major order.
func (e *loopEval) gather(b *lowering.Buffer, l lowering.Layout) []float64 {
	var out []float64
	for _, p := range points(e.sizes(l.Shape)) {
		out = append(out, e.mem[b][e.eval(l.Index(consts(p)), nil)])
	}
	return out
}

func consts(p []int64) []sym.Expr {
	out := make([]sym.Expr, len(p))
	for i, v := range p {
		out[i] = sym.Const(v)
	}
	return out
}

func (e *loopEval) kernel(k *lowering.Kernel) {
	if k.Extern != nil {
		err := lowering.RunExternRT(k.Extern, e.mem, func(x sym.Expr) int64 { return e.eval(x, nil) })
		var bad *rt.BoundsError
		if errors.As(err, &bad) { // an extern's own index check
			panic(checkFailed{bad.Msg})
		}
		require.NoError(e.t, err)
		return
	}
	for _, p := range points(e.sizes(k.Outer)) {
		vars := map[string]int64{}
		for i, v := range p {
			vars[lowering.OuterVar(i)] = v
		}
		vals := map[*lowering.Instr]float64{}
		for _, st := range k.Stages {
			e.stage(st, vars, vals)
		}
	}
}

func (e *loopEval) stage(st *lowering.Stage, vars map[string]int64, vals map[*lowering.Instr]float64) {
	if len(st.Reduce) == 0 {
		for _, in := range st.Body {
			e.instr(in, vars, vals)
		}
		return
	}
	acc := map[*lowering.Instr]float64{}
	for _, in := range st.Body {
		if in.Op == lowering.OpReduce || in.Op == lowering.OpScan {
			acc[in] = map[lowering.ReduceOp]float64{lowering.ReduceProd: 1, lowering.ReduceMax: math.Inf(-1),
				lowering.ReduceMin: math.Inf(1), lowering.ReduceLogAddExp: math.Inf(-1)}[in.Reduce]
		}
	}
	best := map[*lowering.Instr]float64{} // an arg reduction's value at acc
	for step, p := range points(e.sizes(st.Reduce)) {
		for i, v := range p {
			vars[lowering.ReduceVar(i)] = v
		}
		for _, in := range st.Body {
			switch {
			case in.Op == lowering.OpReduce && (in.Reduce == lowering.ReduceArgMax || in.Reduce == lowering.ReduceArgMin):
				argFold(in.Reduce, best, acc, in, vals[in.Args[0]], step)
			case in.Op == lowering.OpReduce:
				acc[in] = e.fold(in, acc[in], vals[in.Args[0]])
			case in.Op == lowering.OpScan:
				// the running value, rounded at every step as codegen's
				// accumulator register is
				acc[in] = roundTo(in.DType, e.fold(in, acc[in], vals[in.Args[0]]))
				vals[in] = acc[in]
			default:
				e.instr(in, vars, vals)
			}
		}
	}
	for in, v := range acc {
		if in.Op == lowering.OpReduce {
			vals[in] = roundTo(in.DType, v)
		}
	}
}

// argFold folds x at flat reduce position step into an argmax's or
// argmin's running (value, position): the first extreme wins, NaN counts
// as maximal (and minimal), as ATen's argmax and argmin compare.
func argFold(op lowering.ReduceOp, best, acc map[*lowering.Instr]float64, in *lowering.Instr, x float64, step int) {
	b, seen := best[in]
	better := func() bool {
		switch {
		case !seen:
			return true
		case math.IsNaN(b):
			return false
		case math.IsNaN(x):
			return true
		case op == lowering.ReduceArgMax:
			return x > b
		}
		return x < b
	}
	if better() {
		best[in], acc[in] = x, float64(step)
	}
}

// fold combines x into a reduction's or a scan's running value a.
func (e *loopEval) fold(in *lowering.Instr, a, x float64) float64 {
	switch in.Reduce {
	case lowering.ReduceSum:
		return a + x
	case lowering.ReduceProd:
		return a * x
	case lowering.ReduceMax:
		return evalFns["maximum"]([]float64{a, x})
	case lowering.ReduceMin:
		return evalFns["minimum"]([]float64{a, x})
	case lowering.ReduceLogAddExp:
		return logAddExp(a, x)
	}
	e.t.Fatalf("loopEval: %s %s", in.Op, in.Reduce)
	return 0
}

func (e *loopEval) instr(in *lowering.Instr, vars map[string]int64, vals map[*lowering.Instr]float64) {
	switch in.Op {
	case lowering.OpLoad, lowering.OpStore:
		at := map[string]int64{}
		for k, v := range vars {
			at[k] = v
		}
		for _, t := range in.Access.Indirect {
			at[fmt.Sprintf("tmp%d", t.ID)] = int64(vals[t])
		}
		i := e.eval(in.Access.Index, at)
		buf := e.mem[in.Access.Buffer]
		require.True(e.t, i >= 0 && i < int64(len(buf)), "%s out of bounds: %d of %d", in, i, len(buf))
		if in.Op == lowering.OpLoad {
			vals[in] = buf[i]
		} else {
			buf[i] = roundTo(in.Access.DType, vals[in.Args[0]])
		}
	case lowering.OpConst:
		switch in.DType.Category() {
		case ir.CatFloat:
			vals[in] = roundTo(in.DType, in.Imm.Float) // a bf16 constant is a bf16 value
		case ir.CatBool:
			vals[in] = b2f(in.Imm.Bool)
		default:
			vals[in] = float64(in.Imm.Int)
		}
	case lowering.OpIndex:
		vals[in] = roundTo(in.DType, float64(e.eval(in.Expr, vars)))
	case lowering.OpCheck:
		i, size := int64(vals[in.Args[0]]), e.eval(in.Expr, vars)
		if !in.Check.Accepts(i, size) {
			panic(checkFailed{in.Check.Message(i, size)})
		}
	case lowering.OpCast:
		vals[in] = roundTo(in.DType, vals[in.Args[0]])
	case lowering.OpCall:
		f, ok := evalFns[in.Fn]
		require.True(e.t, ok, "loopEval: no function %s", in.Fn)
		args := make([]float64, len(in.Args))
		for i, a := range in.Args {
			args[i] = vals[a]
		}
		vals[in] = roundTo(in.DType, f(args))
	default:
		e.t.Fatalf("loopEval: %s outside an r-stage", in)
	}
}

// roundTo rounds a register value as a value of dt.
func roundTo(dt ir.DType, v float64) float64 {
	switch {
	case dt == ir.Bool:
		return b2f(v != 0)
	case dt == ir.F32:
		return float64(float32(v))
	case dt == ir.BF16:
		return float64(interp.F32FromBF16(interp.BF16FromF32(float32(v))))
	case dt == ir.F16:
		return float64(interp.F32FromF16(interp.F16FromF32(float32(v))))
	case dt.IsInt():
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		if dt.ItemSize() == 8 {
			return math.Trunc(v) // float64 registers hold what int64 does
		}
		return float64(dt.WrapInt(int64(math.Trunc(v))))
	}
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var evalFns = map[string]func(a []float64) float64{
	"gt": func(a []float64) float64 { return b2f(a[0] > a[1]) }, "le": func(a []float64) float64 { return b2f(a[0] <= a[1]) },
	"add": func(a []float64) float64 { return a[0] + a[1] }, "sub": func(a []float64) float64 { return a[0] - a[1] },
	"mul": func(a []float64) float64 { return a[0] * a[1] }, "truediv": func(a []float64) float64 { return a[0] / a[1] },
	"maximum": func(a []float64) float64 {
		if math.IsNaN(a[0]) || math.IsNaN(a[1]) {
			return math.NaN()
		}
		return math.Max(a[0], a[1])
	},
	"minimum": func(a []float64) float64 {
		if math.IsNaN(a[0]) || math.IsNaN(a[1]) {
			return math.NaN()
		}
		return math.Min(a[0], a[1])
	},
	"lt":          func(a []float64) float64 { return b2f(a[0] < a[1]) },
	"ge":          func(a []float64) float64 { return b2f(a[0] >= a[1]) },
	"eq":          func(a []float64) float64 { return b2f(a[0] == a[1]) },
	"ne":          func(a []float64) float64 { return b2f(a[0] != a[1]) },
	"isnan":       func(a []float64) float64 { return b2f(math.IsNaN(a[0])) },
	"logical_and": func(a []float64) float64 { return b2f(a[0] != 0 && a[1] != 0) },
	"where":       func(a []float64) float64 { return map[bool]float64{true: a[1], false: a[2]}[a[0] != 0] },
	"rsqrt":       func(a []float64) float64 { return 1 / math.Sqrt(a[0]) }, "sqrt": func(a []float64) float64 { return math.Sqrt(a[0]) },
	"reciprocal":  func(a []float64) float64 { return 1 / a[0] },
	"exp":         func(a []float64) float64 { return math.Exp(a[0]) },
	"log":         func(a []float64) float64 { return math.Log(a[0]) },
	"neg":         func(a []float64) float64 { return -a[0] },
	"tanh":        func(a []float64) float64 { return math.Tanh(a[0]) },
	"sigmoid":     func(a []float64) float64 { return 1 / (1 + math.Exp(-a[0])) },
	"abs":         func(a []float64) float64 { return math.Abs(a[0]) },
	"pow":         func(a []float64) float64 { return math.Pow(a[0], a[1]) },
	"logical_or":  func(a []float64) float64 { return b2f(a[0] != 0 || a[1] != 0) },
	"logical_not": func(a []float64) float64 { return b2f(a[0] == 0) },
	"signbit":     func(a []float64) float64 { return b2f(math.Signbit(a[0])) },
	"rshift":      func(a []float64) float64 { return float64(int64(a[0]) >> uint(a[1])) },
	"bitwise_and": func(a []float64) float64 { return float64(int64(a[0]) & int64(a[1])) },
}

// logAddExp is ATen's _log_add_exp_helper(x, acc), in float64.
func logAddExp(acc, x float64) float64 {
	if math.IsNaN(acc) || math.IsNaN(x) {
		return math.NaN()
	}
	lo, hi := math.Min(acc, x), math.Max(acc, x)
	if lo != hi || !math.IsInf(lo, 0) {
		return math.Log1p(math.Exp(lo-hi)) + hi
	}
	return x
}
