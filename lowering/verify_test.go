package lowering_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	. "github.com/kiln-compiler/kiln/lowering"
)

// goodProgram is a small valid program: out[x0] = sum_r in[x0, r] / 4 in one
// kernel, then a pointwise kernel reading out. Each broken case below
// breaks one invariant of a fresh copy of it.
func goodProgram() *Program {
	in := &Buffer{ID: 0, Name: "in", DType: ir.F32, Size: sym.Const(12), Kind: BufInput, Align: 16}
	mid := &Buffer{ID: 1, Name: "buf1", DType: ir.F32, Size: sym.Const(3), Align: 64}
	out := &Buffer{ID: 2, Name: "buf2", DType: ir.F32, Size: sym.Const(3), Kind: BufOutput, Align: 64}
	x0, r0 := sym.Symbol("x0"), sym.Symbol("r0")
	load := &Instr{ID: 0, Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: in, DType: ir.F32, Index: sym.Add(sym.Mul(sym.Const(4), x0), r0)}}
	red := &Instr{ID: 1, Op: OpReduce, Reduce: ReduceSum, DType: ir.F32, Args: []*Instr{load}}
	four := &Instr{ID: 2, Op: OpConst, DType: ir.F32, Imm: Scalar{Float: 4}}
	div := &Instr{ID: 3, Op: OpCall, Fn: "truediv", DType: ir.F32, Args: []*Instr{red, four}}
	st := &Instr{ID: 4, Op: OpStore, DType: ir.F32, Args: []*Instr{div}, Access: &Access{Buffer: mid, DType: ir.F32, Index: x0}}
	k0 := &Kernel{Name: "kernel0", Outer: []sym.Expr{sym.Const(3)}, Vec: 1, Stages: []*Stage{
		{Reduce: []sym.Expr{sym.Const(4)}, Body: []*Instr{load, red}},
		{Body: []*Instr{four, div, st}},
	}}
	l2 := &Instr{ID: 0, Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: mid, DType: ir.F32, Index: x0}}
	gt := &Instr{ID: 1, Op: OpCall, Fn: "gt", DType: ir.Bool, Args: []*Instr{l2, l2}}
	s2 := &Instr{ID: 2, Op: OpStore, DType: ir.F32, Args: []*Instr{l2}, Access: &Access{Buffer: out, DType: ir.F32, Index: x0}}
	k1 := &Kernel{Name: "kernel1", Outer: []sym.Expr{sym.Const(3)}, Vec: 1, Stages: []*Stage{{Body: []*Instr{l2, gt, s2}}}}
	return &Program{Name: "p", Buffers: []*Buffer{in, mid, out}, Kernels: []*Kernel{k0, k1},
		Outputs: []*Result{{Name: "out", Buffer: out}}}
}

func TestVerifyAcceptsGoodProgram(t *testing.T) {
	require.NoError(t, Verify(goodProgram()))
}

func TestVerifyRejects(t *testing.T) {
	body := func(p *Program, k, s int) []*Instr { return p.Kernels[k].Stages[s].Body }
	cases := []verifyCase{
		{"r-stage value used after its loop", func(p *Program) {
			body(p, 0, 1)[1].Args[0] = body(p, 0, 0)[0] // div reads the load, not the reduce
		}, "tmp0 lives only inside stage 0's reduction loop"},
		{"argument defined later", func(p *Program) {
			b := body(p, 0, 1)
			b[0], b[1] = b[1], b[0]
		}, "argument tmp2 is not defined before it"},
		{"reduce in an outer stage", func(p *Program) {
			p.Kernels[0].Stages[0].Reduce = nil
		}, "reduce in outer-level stage 0"},
		{"r var in an outer stage", func(p *Program) {
			body(p, 0, 1)[2].Access.Index = sym.Symbol("r0")
		}, "uses r0, but the stage has 0 reduce range(s)"},
		{"x var beyond Outer", func(p *Program) {
			body(p, 1, 0)[0].Access.Index = sym.Symbol("x1")
		}, "uses x1, but the kernel has 1 outer range(s)"},
		{"unknown symbol in an index", func(p *Program) {
			body(p, 1, 0)[0].Access.Index = sym.Symbol("s0")
		}, "uses s0, which is not a loop variable or program symbol"},
		{"unknown symbol in a range", func(p *Program) {
			p.Kernels[1].Outer[0] = sym.Symbol("s1")
		}, "outer range s1 uses s1"},
		{"unknown function", func(p *Program) {
			body(p, 0, 1)[1].Fn = "frobnicate"
		}, `unknown function "frobnicate"`},
		{"wrong arity", func(p *Program) {
			body(p, 0, 1)[1].Args = body(p, 0, 1)[1].Args[:1]
		}, "truediv takes 2 argument(s), has 1"},
		{"bool fn not bool", func(p *Program) {
			body(p, 1, 0)[1].DType = ir.F32
		}, "gt produces bool, not f32"},
		{"store without access", func(p *Program) {
			body(p, 1, 0)[2].Access = nil
		}, "store without an access"},
		{"store with two args", func(p *Program) {
			s := body(p, 1, 0)[2]
			s.Args = append(s.Args, s.Args[0])
		}, "store takes 1 argument(s), has 2"},
		{"access to a foreign buffer", func(p *Program) {
			body(p, 1, 0)[0].Access.Buffer = &Buffer{Name: "ghost", DType: ir.F32, Kind: BufInput}
		}, "buffer ghost is not in the program"},
		{"duplicate id", func(p *Program) {
			body(p, 1, 0)[1].ID = 0
		}, "tmp0: id defined twice"},
		{"read before written", func(p *Program) {
			p.Kernels[0], p.Kernels[1] = p.Kernels[1], p.Kernels[0]
		}, "buffer buf1 is read before any kernel writes it"},
		{"result buffer missing", func(p *Program) {
			p.Outputs[0].Buffer = &Buffer{Name: "lost"}
		}, "output out: buffer lost is not in the program"},
		{"indirect tmp not listed", func(p *Program) {
			body(p, 1, 0)[0].Access.Index = sym.Symbol("tmp7")
		}, "uses tmp7, which is not a loop variable or program symbol"},
	}
	requireVerifyRejects(t, goodProgram, cases)
}

// An indirect access may use the tmps it lists, defined before it.
func TestVerifyIndirect(t *testing.T) {
	p := goodProgram()
	b := p.Kernels[1].Stages[0].Body
	idx := &Instr{ID: 9, Op: OpConst, DType: ir.I64, Imm: Scalar{Int: 1}}
	p.Kernels[1].Stages[0].Body = append([]*Instr{idx}, b...)
	b[0].Access.Index = sym.Symbol("tmp9")
	b[0].Access.Indirect = []*Instr{idx}
	require.NoError(t, Verify(p))
}

// Verify reports every problem, not just the first.
func TestVerifyJoinsAll(t *testing.T) {
	p := goodProgram()
	p.Kernels[0].Stages[1].Body[1].Fn = "nope"
	p.Outputs[0].Buffer = &Buffer{Name: "lost"}
	err := Verify(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown function "nope"`)
	assert.Contains(t, err.Error(), "buffer lost is not in the program")
}

// A program of many kernels is checked on every core: the errors are the
// same, in program order, and "read before written" still means written
// by a kernel earlier in the program.
func TestVerifyManyKernelsInOrder(t *testing.T) {
	p := goodProgram()
	k0, k1 := p.Kernels[0], p.Kernels[1]
	p.Kernels = nil
	for range 3000 {
		p.Kernels = append(p.Kernels, k0, k1)
	}
	require.NoError(t, Verify(p))
	// The reader first, then its writer: only the first reader is early.
	p.Kernels[0], p.Kernels[1] = k1, k0
	err := Verify(p)
	require.Error(t, err)
	assert.Equal(t, "kernel1: tmp0: buffer buf1 is read before any kernel writes it", err.Error())

	bad := *k1
	bad.Name = "kernelX"
	bad.Stages = []*Stage{{Body: []*Instr{{ID: 0, Op: OpCall, Fn: "nope", DType: ir.F32}}}}
	p.Kernels[2500], p.Kernels[5500] = &bad, &bad
	err = Verify(p)
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 3, err.Error())
	assert.Contains(t, lines[0], "kernel1: tmp0")
	assert.Contains(t, lines[1], "kernelX")
	assert.Contains(t, lines[2], "kernelX")
}
