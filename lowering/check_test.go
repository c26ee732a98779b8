package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	. "github.com/kiln-compiler/kiln/lowering"
)

// checkProgram gathers rows of x (10 rows of 4) through the indices in
// idx: kernel0 checks and wraps each index (as index.Tensor does) and
// stores the row into buf2, kernel1 copies buf2 into the output buf3.
func checkProgram() *Program {
	x := &Buffer{ID: 0, Name: "x", DType: ir.F32, Size: sym.Const(40), Kind: BufInput, Align: 16}
	idx := &Buffer{ID: 1, Name: "idx", DType: ir.I64, Size: sym.Const(3), Kind: BufInput, Align: 16}
	mid := &Buffer{ID: 2, Name: "buf2", DType: ir.F32, Size: sym.Const(12), Align: 64}
	out := &Buffer{ID: 3, Name: "buf3", DType: ir.F32, Size: sym.Const(12), Kind: BufOutput, Align: 64}
	x0, x1 := sym.Symbol("x0"), sym.Symbol("x1")
	ld := &Instr{ID: 0, Op: OpLoad, DType: ir.I64, Access: &Access{Buffer: idx, DType: ir.I64, Index: x0}}
	chk := &Instr{ID: 1, Op: OpCheck, DType: ir.I64, Args: []*Instr{ld}, Expr: sym.Const(10),
		Check: &Check{Neg: true, Msg: "index {index} is out of bounds for dimension 0 with size {size}"}}
	zero := &Instr{ID: 2, Op: OpConst, DType: ir.I64}
	neg := &Instr{ID: 3, Op: OpCall, Fn: "lt", DType: ir.Bool, Args: []*Instr{ld, zero}}
	ten := &Instr{ID: 4, Op: OpIndex, DType: ir.I64, Expr: sym.Const(10)}
	up := &Instr{ID: 5, Op: OpCall, Fn: "add", DType: ir.I64, Args: []*Instr{ld, ten}}
	wrap := &Instr{ID: 6, Op: OpCall, Fn: "where", DType: ir.I64, Args: []*Instr{neg, up, ld}}
	row := &Instr{ID: 7, Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: x, DType: ir.F32,
		Index: sym.Add(sym.Mul(sym.Const(4), sym.Symbol("tmp6")), x1), Indirect: []*Instr{wrap}}}
	st := &Instr{ID: 8, Op: OpStore, DType: ir.F32, Args: []*Instr{row}, Access: &Access{Buffer: mid, DType: ir.F32,
		Index: sym.Add(sym.Mul(sym.Const(4), x0), x1)}}
	k0 := &Kernel{Name: "kernel0", Outer: []sym.Expr{sym.Const(3), sym.Const(4)}, Vec: 1,
		Stages: []*Stage{{Body: []*Instr{ld, chk, zero, neg, ten, up, wrap, row, st}}}}
	l2 := &Instr{ID: 0, Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: mid, DType: ir.F32, Index: sym.Add(sym.Mul(sym.Const(4), x0), x1)}}
	s2 := &Instr{ID: 1, Op: OpStore, DType: ir.F32, Args: []*Instr{l2}, Access: &Access{Buffer: out, DType: ir.F32, Index: sym.Add(sym.Mul(sym.Const(4), x0), x1)}}
	k1 := &Kernel{Name: "kernel1", Outer: []sym.Expr{sym.Const(3), sym.Const(4)}, Vec: 1, Stages: []*Stage{{Body: []*Instr{l2, s2}}}}
	return &Program{Name: "p", Buffers: []*Buffer{x, idx, mid, out}, Kernels: []*Kernel{k0, k1},
		Outputs: []*Result{{Name: "out", Buffer: out, Layout: Layout{DType: ir.F32,
			Shape: []sym.Expr{sym.Const(3), sym.Const(4)}, Strides: []sym.Expr{sym.Const(4), sym.Const(1)}, Offset: sym.Const(0)}}}}
}

func TestCheckPrints(t *testing.T) {
	p := checkProgram()
	require.NoError(t, Verify(p))
	assert.Contains(t, p.String(), "\n      check -10 <= tmp0 < 10 \"index {index} is out of bounds for dimension 0 with size {size}\"\n")
	chk := p.Kernels[0].Stages[0].Body[1]
	chk.Check.Neg, chk.Expr = false, sym.Symbol("s0")
	assert.Equal(t, `check 0 <= tmp0 < s0 "index {index} is out of bounds for dimension 0 with size {size}"`, chk.String())
	chk.Check.Neg = true
	assert.Equal(t, `check -s0 <= tmp0 < s0 "index {index} is out of bounds for dimension 0 with size {size}"`, chk.String())
}

func TestCheckMessageAndRange(t *testing.T) {
	c := &Check{Msg: "index {index} is out of bounds for dimension 1 with size {size}"}
	assert.Equal(t, "index -3 is out of bounds for dimension 1 with size 7", c.Message(-3, 7))
	assert.True(t, c.Accepts(0, 7))
	assert.True(t, c.Accepts(6, 7))
	assert.False(t, c.Accepts(7, 7))
	assert.False(t, c.Accepts(-1, 7))
	c.Neg = true
	assert.True(t, c.Accepts(-7, 7))
	assert.False(t, c.Accepts(-8, 7))
	assert.False(t, c.Accepts(7, 7))
	assert.Equal(t, "index out of range in self", (&Check{Msg: "index out of range in self"}).Message(9, 2))
}

func TestVerifyRejectsBadChecks(t *testing.T) {
	body := func(p *Program) []*Instr { return p.Kernels[0].Stages[0].Body }
	cases := []verifyCase{
		{"check used as a value", func(p *Program) {
			body(p)[3].Args[0] = body(p)[1]
		}, "argument tmp1 is a check, which has no value"},
		{"check used as an indirect index", func(p *Program) {
			a := body(p)[7].Access
			a.Indirect, a.Index = []*Instr{body(p)[1]}, sym.Symbol("tmp1")
		}, "indirect index tmp1 is a check, which has no value"},
		{"check of a float", func(p *Program) {
			body(p)[1].Args[0] = body(p)[7]
		}, "check of a f32 value, not an integer index"},
		{"check without a message", func(p *Program) {
			body(p)[1].Check = nil
		}, "tmp1: check without a message"},
		{"check without an operand", func(p *Program) {
			body(p)[1].Args = nil
		}, "check takes 1 argument(s), has 0"},
		{"bound names an unknown symbol", func(p *Program) {
			body(p)[1].Expr = sym.Symbol("s3")
		}, "uses s3, which is not a loop variable or program symbol"},
		{"check before its operand", func(p *Program) {
			b := body(p)
			b[0], b[1] = b[1], b[0]
		}, "tmp1: argument tmp0 is not defined before it"},
	}
	requireVerifyRejects(t, checkProgram, cases)
}

// Fusion forwards buf2 into kernel1 and drops the gather's store and
// buffer; the check stays, before the gathered load, and renumbering
// keeps it valid.
func TestFuseKeepsChecks(t *testing.T) {
	p := checkProgram()
	_, err := Fuse(p, FuseOptions{})
	require.NoError(t, err)
	require.NoError(t, Verify(p), "%s", p)
	require.Len(t, p.Kernels, 1, "%s", p)
	var ops []Opcode
	for _, in := range p.Kernels[0].Stages[0].Body {
		ops = append(ops, in.Op)
	}
	assert.Equal(t, []Opcode{OpLoad, OpCheck, OpConst, OpCall, OpIndex, OpCall, OpCall, OpLoad, OpStore}, ops, "%s", p)
	assert.NotContains(t, p.String(), "buffer buf2")
}

// A check whose index feeds nothing live any more is still a root: the
// gather's store is dead (buf2 unread, not an output), yet the index load
// and its check remain, as PyTorch raises for an unused result too.
func TestCleanKeepsCheckOfDeadGather(t *testing.T) {
	p := checkProgram()
	p.Kernels = p.Kernels[:1]
	p.Buffers = p.Buffers[:3]
	p.Outputs = nil
	_, err := Fuse(p, FuseOptions{})
	require.NoError(t, err)
	require.NoError(t, Verify(p), "%s", p)
	require.Len(t, p.Kernels, 1, "%s", p)
	body := p.Kernels[0].Stages[0].Body
	require.Len(t, body, 2, "%s", p)
	assert.Equal(t, OpLoad, body[0].Op)
	assert.Equal(t, OpCheck, body[1].Op)
	assert.Same(t, body[0], body[1].Args[0])
}
