package lowering

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// schedBuilder writes pre-fusion programs by hand, one kernel per op, the
// way lowering does: a pointwise kernel over the output shape, a
// reduction over the last dim as "reduce over r, then store", views folded
// into layouts, mm as an extern call. All tensors are f32.
type schedBuilder struct {
	p *Program
}

type schedT struct {
	buf *Buffer
	lay Layout
}

func newSchedBuilder(name string) *schedBuilder {
	return &schedBuilder{p: &Program{Name: name}}
}

// dims turns ints and symbol names into sizes.
func dims(ds ...any) []sym.Expr {
	out := make([]sym.Expr, len(ds))
	for i, d := range ds {
		switch d := d.(type) {
		case int:
			out[i] = sym.Const(int64(d))
		case string:
			out[i] = sym.Symbol(d)
		default:
			panic(fmt.Sprintf("dims: %T", d))
		}
	}
	return out
}

func contiguousLayout(shape []sym.Expr) Layout {
	strides := make([]sym.Expr, len(shape))
	st := sym.Const(1)
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = st
		st = sym.Mul(st, shape[i])
	}
	return Layout{DType: ir.F32, Shape: shape, Strides: strides, Offset: sym.Const(0)}
}

func numel(shape []sym.Expr) sym.Expr {
	n := sym.Const(1)
	for _, s := range shape {
		n = sym.Mul(n, s)
	}
	return n
}

func (b *schedBuilder) buffer(kind BufferKind, name string, shape []sym.Expr) *Buffer {
	id := len(b.p.Buffers)
	if name == "" {
		name = "buf" + itoa(id)
	}
	buf := &Buffer{ID: id, Name: name, DType: ir.F32, Size: numel(shape), Kind: kind, Align: 64}
	b.p.Buffers = append(b.p.Buffers, buf)
	for _, s := range shape {
		for _, f := range s.Free() {
			b.addSym(f)
		}
	}
	return buf
}

func (b *schedBuilder) addSym(name string) {
	for _, s := range b.p.Syms {
		if s == name {
			return
		}
	}
	b.p.Syms = append(b.p.Syms, name)
}

func (b *schedBuilder) input(name string, shape ...any) schedT {
	sh := dims(shape...)
	buf := b.buffer(BufInput, name, sh)
	lay := contiguousLayout(sh)
	b.p.Inputs = append(b.p.Inputs, &Param{Name: name, Type: ir.TensorOf(&ir.TensorType{DType: ir.F32, Shape: sh}), Buffer: buf, Layout: lay})
	return schedT{buf, lay}
}

func (b *schedBuilder) output(t schedT) {
	if t.buf.Kind == BufIntermediate {
		t.buf.Kind = BufOutput
	}
	b.p.Outputs = append(b.p.Outputs, &Result{Name: fmt.Sprintf("out%d", len(b.p.Outputs)), Buffer: t.buf, Layout: t.lay})
}

// kb appends instructions to one kernel.
type kb struct {
	k  *Kernel
	st *Stage
	id int
}

func (b *schedBuilder) kernel(origin string, outer []sym.Expr) *kb {
	k := &Kernel{Name: "kernel" + itoa(len(b.p.Kernels)), Outer: outer, Origins: []string{origin}, Vec: 1}
	b.p.Kernels = append(b.p.Kernels, k)
	st := &Stage{}
	k.Stages = []*Stage{st}
	return &kb{k: k, st: st}
}

func (k *kb) emit(in *Instr) *Instr {
	in.ID = k.id
	k.id++
	k.st.Body = append(k.st.Body, in)
	return in
}

func (k *kb) load(t schedT, idx []sym.Expr) *Instr {
	return k.emit(&Instr{Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: t.buf, DType: ir.F32, Index: t.lay.Index(idx)}})
}

func (k *kb) store(t schedT, idx []sym.Expr, v *Instr) {
	k.emit(&Instr{Op: OpStore, DType: ir.F32, Args: []*Instr{v}, Access: &Access{Buffer: t.buf, DType: ir.F32, Index: t.lay.Index(idx)}})
}

func (k *kb) call(fn string, args ...*Instr) *Instr {
	return k.emit(&Instr{Op: OpCall, Fn: fn, DType: ir.F32, Args: args})
}

func (k *kb) constant(v float64) *Instr {
	return k.emit(&Instr{Op: OpConst, DType: ir.F32, Imm: Scalar{Float: v}})
}

func vars(n int, name func(int) string) []sym.Expr {
	out := make([]sym.Expr, n)
	for i := range out {
		out[i] = sym.Symbol(name(i))
	}
	return out
}

// bcast indexes an operand of the same rank as the output: a size-1 dim
// the output broadcasts reads index 0.
func bcast(t schedT, out []sym.Expr, idx []sym.Expr) []sym.Expr {
	res := make([]sym.Expr, len(idx))
	for i := range idx {
		if isUnitSize(t.lay.Shape[i]) && !isUnitSize(out[i]) {
			res[i] = sym.Const(0)
		} else {
			res[i] = idx[i]
		}
	}
	return res
}

// pointwise applies fn to same-rank operands, broadcasting size-1 dims.
func (b *schedBuilder) pointwise(origin, fn string, args ...schedT) schedT {
	shape := append([]sym.Expr{}, args[0].lay.Shape...)
	for _, a := range args[1:] {
		for i, s := range a.lay.Shape {
			if isUnitSize(shape[i]) {
				shape[i] = s
			}
		}
	}
	k := b.kernel(origin, shape)
	idx := vars(len(shape), OuterVar)
	vals := make([]*Instr, len(args))
	for i, a := range args {
		vals[i] = k.load(a, bcast(a, shape, idx))
	}
	out := schedT{b.buffer(BufIntermediate, "", shape), contiguousLayout(shape)}
	k.store(out, idx, k.call(fn, vals...))
	return out
}

// scalarOp is fn(a, c) for a constant c.
func (b *schedBuilder) scalarOp(origin, fn string, a schedT, c float64) schedT {
	shape := a.lay.Shape
	k := b.kernel(origin, shape)
	idx := vars(len(shape), OuterVar)
	v := k.call(fn, k.load(a, idx), k.constant(c))
	out := schedT{b.buffer(BufIntermediate, "", shape), contiguousLayout(shape)}
	k.store(out, idx, v)
	return out
}

// reduce reduces the last dim; mean divides by its size in the store
// stage, as lowering does.
func (b *schedBuilder) reduce(origin string, op ReduceOp, a schedT, keepdim, mean bool) schedT {
	n := len(a.lay.Shape)
	outer := append([]sym.Expr{}, a.lay.Shape[:n-1]...)
	if keepdim {
		outer = append(outer, sym.Const(1))
	}
	k := b.kernel(origin, outer)
	k.st.Reduce = []sym.Expr{a.lay.Shape[n-1]}
	idx := append(vars(n-1, OuterVar), sym.Symbol(ReduceVar(0)))
	r := k.emit(&Instr{Op: OpReduce, Reduce: op, DType: ir.F32, Args: []*Instr{k.load(a, idx)}})
	k.st = &Stage{}
	k.k.Stages = append(k.k.Stages, k.st)
	v := r
	if mean {
		size, _ := a.lay.Shape[n-1].Const()
		v = k.call("truediv", r, k.constant(float64(size)))
	}
	out := schedT{b.buffer(BufIntermediate, "", outer), contiguousLayout(outer)}
	k.store(out, vars(len(outer), OuterVar), v)
	return out
}

// transpose is a view: same buffer, swapped strides.
func (b *schedBuilder) transpose(a schedT) schedT {
	l := a.lay
	l.Shape = []sym.Expr{l.Shape[1], l.Shape[0]}
	l.Strides = []sym.Expr{l.Strides[1], l.Strides[0]}
	return schedT{a.buf, l}
}

// mm is an extern call.
func (b *schedBuilder) mm(origin string, x, w schedT) schedT {
	shape := []sym.Expr{x.lay.Shape[0], w.lay.Shape[1]}
	out := schedT{b.buffer(BufIntermediate, "", shape), contiguousLayout(shape)}
	k := &Kernel{Name: "kernel" + itoa(len(b.p.Kernels)), Origins: []string{origin}, Vec: 1,
		Extern: &Extern{Op: "aten::mm", Args: []Operand{{x.buf, x.lay}, {w.buf, w.lay}}, Outs: []Operand{{out.buf, out.lay}}}}
	b.p.Kernels = append(b.p.Kernels, k)
	return out
}

// copyInto is the functionalization epilogue copy_(dst, src).
func (b *schedBuilder) copyInto(dst, src schedT) {
	k := b.kernel("copy_", dst.lay.Shape)
	idx := vars(len(dst.lay.Shape), OuterVar)
	k.store(dst, idx, k.load(src, idx))
	for _, in := range b.p.Inputs {
		if in.Buffer == dst.buf {
			in.Mutated = true
		}
	}
}
