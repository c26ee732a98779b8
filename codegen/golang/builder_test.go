package golang

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// Builders for hand-made loop-IR programs.

func c(v int64) sym.Expr     { return sym.Const(v) }
func v(name string) sym.Expr { return sym.Symbol(name) }

func add(xs ...sym.Expr) sym.Expr {
	e := sym.Const(0)
	for _, x := range xs {
		e = sym.Add(e, x)
	}
	return e
}

func mul(a, b sym.Expr) sym.Expr { return sym.Mul(a, b) }

func exprs(xs ...int64) []sym.Expr {
	out := make([]sym.Expr, len(xs))
	for i, x := range xs {
		out[i] = sym.Const(x)
	}
	return out
}

// contiguous is a row-major layout from offset 0.
func contiguous(dt ir.DType, shape ...sym.Expr) lowering.Layout {
	return lowering.Layout{DType: dt, Shape: shape, Strides: ir.ContiguousStrides(shape), Offset: sym.Const(0)}
}

// progBuilder assembles a Program.
type progBuilder struct{ p *lowering.Program }

func newProg(name string, syms ...string) *progBuilder {
	return &progBuilder{p: &lowering.Program{Name: name, Syms: syms}}
}

func (b *progBuilder) buffer(dt ir.DType, size sym.Expr, kind lowering.BufferKind) *lowering.Buffer {
	buf := &lowering.Buffer{ID: len(b.p.Buffers), DType: dt, Size: size, Kind: kind, Align: 64}
	buf.Name = "buf" + sym.Const(int64(buf.ID)).String()
	b.p.Buffers = append(b.p.Buffers, buf)
	return buf
}

// input adds a contiguous tensor input with its own buffer.
func (b *progBuilder) input(name string, dt ir.DType, shape ...sym.Expr) *lowering.Buffer {
	l := contiguous(dt, shape...)
	buf := b.buffer(dt, product(shape), lowering.BufInput)
	buf.Name = name
	b.p.Inputs = append(b.p.Inputs, &lowering.Param{Name: name, Buffer: buf, Layout: l})
	return buf
}

// output adds a fresh output buffer returned contiguously.
func (b *progBuilder) output(name string, dt ir.DType, shape ...sym.Expr) *lowering.Buffer {
	buf := b.buffer(dt, product(shape), lowering.BufOutput)
	b.p.Outputs = append(b.p.Outputs, &lowering.Result{Name: name, Buffer: buf, Layout: contiguous(dt, shape...)})
	return buf
}

func (b *progBuilder) kernel(outer ...sym.Expr) *kernelBuilder {
	k := &lowering.Kernel{Name: "kernel" + sym.Const(int64(len(b.p.Kernels))).String(), Outer: outer, Vec: 1}
	b.p.Kernels = append(b.p.Kernels, k)
	kb := &kernelBuilder{k: k}
	kb.stage()
	return kb
}

// kernelBuilder appends instructions to the kernel's current stage.
type kernelBuilder struct {
	k  *lowering.Kernel
	id int
}

// stage starts a new stage over the given reduction ranges.
func (kb *kernelBuilder) stage(reduce ...sym.Expr) *kernelBuilder {
	kb.k.Stages = append(kb.k.Stages, &lowering.Stage{Reduce: reduce})
	return kb
}

func (kb *kernelBuilder) emit(in *lowering.Instr) *lowering.Instr {
	in.ID = kb.id
	kb.id++
	s := kb.k.Stages[len(kb.k.Stages)-1]
	s.Body = append(s.Body, in)
	return in
}

func (kb *kernelBuilder) load(buf *lowering.Buffer, dt ir.DType, idx sym.Expr) *lowering.Instr {
	return kb.emit(&lowering.Instr{Op: lowering.OpLoad, DType: dt, Access: &lowering.Access{Buffer: buf, DType: dt, Index: idx}})
}

func (kb *kernelBuilder) store(buf *lowering.Buffer, idx sym.Expr, x *lowering.Instr) {
	kb.emit(&lowering.Instr{Op: lowering.OpStore, DType: x.DType, Args: []*lowering.Instr{x},
		Access: &lowering.Access{Buffer: buf, DType: x.DType, Index: idx}})
}

func (kb *kernelBuilder) call(fn string, dt ir.DType, args ...*lowering.Instr) *lowering.Instr {
	return kb.emit(&lowering.Instr{Op: lowering.OpCall, Fn: fn, DType: dt, Args: args})
}

func (kb *kernelBuilder) fconst(dt ir.DType, f float64) *lowering.Instr {
	return kb.emit(&lowering.Instr{Op: lowering.OpConst, DType: dt, Imm: lowering.Scalar{Float: f}})
}

func (kb *kernelBuilder) iconst(dt ir.DType, i int64) *lowering.Instr {
	return kb.emit(&lowering.Instr{Op: lowering.OpConst, DType: dt, Imm: lowering.Scalar{Int: i}})
}

func (kb *kernelBuilder) cast(dt ir.DType, x *lowering.Instr) *lowering.Instr {
	return kb.emit(&lowering.Instr{Op: lowering.OpCast, DType: dt, Args: []*lowering.Instr{x}})
}

func (kb *kernelBuilder) index(dt ir.DType, e sym.Expr) *lowering.Instr {
	return kb.emit(&lowering.Instr{Op: lowering.OpIndex, DType: dt, Expr: e})
}

func (kb *kernelBuilder) reduce(op lowering.ReduceOp, dt ir.DType, x *lowering.Instr) *lowering.Instr {
	return kb.emit(&lowering.Instr{Op: lowering.OpReduce, Reduce: op, DType: dt, Args: []*lowering.Instr{x}})
}
