package cuda_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// progBuilder builds loop-IR programs by hand, for tests that must not
// depend on lowering's choices.
type progBuilder struct {
	t *testing.T
	p *lowering.Program
}

func newProg(t *testing.T, syms ...string) *progBuilder {
	return &progBuilder{t: t, p: &lowering.Program{Name: "hand", Syms: syms}}
}

func (b *progBuilder) expr(s string) sym.Expr {
	e, err := sym.Parse(s)
	require.NoError(b.t, err, s)
	return e
}

func (b *progBuilder) exprs(ss ...string) []sym.Expr {
	out := make([]sym.Expr, len(ss))
	for i, s := range ss {
		out[i] = b.expr(s)
	}
	return out
}

// layout is contiguous with the given sizes.
func (b *progBuilder) layout(dt ir.DType, shape ...string) lowering.Layout {
	sh := b.exprs(shape...)
	return lowering.Layout{DType: dt, Shape: sh, Strides: ir.ContiguousStrides(sh), Offset: sym.Const(0)}
}

func numel(l lowering.Layout) sym.Expr {
	n := sym.Const(1)
	for _, s := range l.Shape {
		n = sym.Mul(n, s)
	}
	return n
}

// input adds a graph input of a contiguous layout.
func (b *progBuilder) input(name string, dt ir.DType, shape ...string) *lowering.Buffer {
	l := b.layout(dt, shape...)
	buf := &lowering.Buffer{ID: len(b.p.Buffers), Name: name, DType: dt, Size: numel(l), Kind: lowering.BufInput, Align: 16}
	b.p.Buffers = append(b.p.Buffers, buf)
	b.p.Inputs = append(b.p.Inputs, &lowering.Param{Name: name, Type: ir.Type{Kind: ir.KindTensor}, Buffer: buf, Layout: l})
	return buf
}

// output adds a program-allocated buffer returned as output i.
func (b *progBuilder) output(dt ir.DType, shape ...string) *lowering.Buffer {
	l := b.layout(dt, shape...)
	buf := &lowering.Buffer{ID: len(b.p.Buffers), DType: dt, Size: numel(l), Kind: lowering.BufOutput, Align: 64}
	buf.Name = "buf" + itoa(buf.ID)
	b.p.Buffers = append(b.p.Buffers, buf)
	b.p.Outputs = append(b.p.Outputs, &lowering.Result{Name: buf.Name, Buffer: buf, Layout: l})
	return buf
}

// kernelBuilder appends stages and instructions to one kernel.
type kernelBuilder struct {
	b  *progBuilder
	k  *lowering.Kernel
	st *lowering.Stage
}

func (b *progBuilder) kernel(vec int, outer ...string) *kernelBuilder {
	k := &lowering.Kernel{Name: "kernel" + itoa(len(b.p.Kernels)), Outer: b.exprs(outer...), Vec: vec, Origins: []string{"hand"}}
	b.p.Kernels = append(b.p.Kernels, k)
	kb := &kernelBuilder{b: b, k: k}
	kb.stage()
	return kb
}

// stage starts a stage over the given reduction ranges.
func (kb *kernelBuilder) stage(reduce ...string) *kernelBuilder {
	kb.st = &lowering.Stage{Reduce: kb.b.exprs(reduce...)}
	kb.k.Stages = append(kb.k.Stages, kb.st)
	return kb
}

func (kb *kernelBuilder) add(in *lowering.Instr) *lowering.Instr {
	n := 0
	for _, s := range kb.k.Stages {
		n += len(s.Body)
	}
	in.ID = n
	kb.st.Body = append(kb.st.Body, in)
	return in
}

func (kb *kernelBuilder) load(buf *lowering.Buffer, dt ir.DType, idx string) *lowering.Instr {
	return kb.add(&lowering.Instr{Op: lowering.OpLoad, DType: dt, Access: &lowering.Access{Buffer: buf, DType: dt, Index: kb.b.expr(idx)}})
}

func (kb *kernelBuilder) store(buf *lowering.Buffer, idx string, v *lowering.Instr) {
	kb.add(&lowering.Instr{Op: lowering.OpStore, DType: buf.DType, Args: []*lowering.Instr{v},
		Access: &lowering.Access{Buffer: buf, DType: buf.DType, Index: kb.b.expr(idx)}})
}

func (kb *kernelBuilder) call(fn string, dt ir.DType, args ...*lowering.Instr) *lowering.Instr {
	return kb.add(&lowering.Instr{Op: lowering.OpCall, Fn: fn, DType: dt, Args: args})
}

func (kb *kernelBuilder) fconst(dt ir.DType, v float64) *lowering.Instr {
	return kb.add(&lowering.Instr{Op: lowering.OpConst, DType: dt, Imm: lowering.Scalar{Float: v}})
}

func (kb *kernelBuilder) iconst(dt ir.DType, v int64) *lowering.Instr {
	return kb.add(&lowering.Instr{Op: lowering.OpConst, DType: dt, Imm: lowering.Scalar{Int: v}})
}

func (kb *kernelBuilder) cast(v *lowering.Instr, dt ir.DType) *lowering.Instr {
	return kb.add(&lowering.Instr{Op: lowering.OpCast, DType: dt, Args: []*lowering.Instr{v}})
}

func (kb *kernelBuilder) reduce(op lowering.ReduceOp, dt ir.DType, v *lowering.Instr) *lowering.Instr {
	return kb.add(&lowering.Instr{Op: lowering.OpReduce, Reduce: op, DType: dt, Args: []*lowering.Instr{v}})
}

func (kb *kernelBuilder) index(e string, dt ir.DType) *lowering.Instr {
	return kb.add(&lowering.Instr{Op: lowering.OpIndex, DType: dt, Expr: kb.b.expr(e)})
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
