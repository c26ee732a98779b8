package lowering

import (
	"math"
	"strconv"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// kbuilder appends instructions to one kernel, stage by stage.
type kbuilder struct {
	k      *Kernel
	st     *Stage
	nextID int
}

// newKernel starts a kernel over outer ranges for the node being lowered,
// with one outer-level stage open.
func (l *lowerer) newKernel(outer []sym.Expr) *kbuilder {
	k := &Kernel{Name: "kernel" + strconv.Itoa(len(l.p.Kernels)), Outer: outer, Vec: 1}
	if n := l.node; n != nil {
		k.Origins = []string{n.Name}
		k.Vec = nodeVec(n)
	}
	l.p.Kernels = append(l.p.Kernels, k)
	b := &kbuilder{k: k}
	b.stage(nil)
	return b
}

// nodeVec is the vector width the align pass proved for every tensor the
// node reads and writes: the smallest `vec` among its result and operands
// (a misaligned view read by an aligned add keeps the kernel scalar).
func nodeVec(n *ir.Node) int {
	vec := 1
	if v := n.Out(); v != nil {
		vec = attrInt(v.Attrs, "vec", 1)
	}
	n.WalkInputs(func(in *ir.Value) {
		if _, ok := in.Attrs.Get("vec"); ok && in.Type.Kind == ir.KindTensor {
			vec = min(vec, attrInt(in.Attrs, "vec", 1))
		}
	})
	return vec
}

// stage opens a new stage (reduce nil: outer-level). An empty outer-level
// stage left open is replaced instead of kept.
func (b *kbuilder) stage(reduce []sym.Expr) {
	if b.st != nil && len(b.st.Body) == 0 && len(b.st.Reduce) == 0 {
		b.st.Reduce = reduce
		return
	}
	b.st = &Stage{Reduce: reduce}
	b.k.Stages = append(b.k.Stages, b.st)
}

func (b *kbuilder) emit(in *Instr) *Instr {
	in.ID = b.nextID
	b.nextID++
	b.st.Body = append(b.st.Body, in)
	return in
}

// outerVars are x0..x{n-1} as expressions.
// outerVars is x0..x{n-1} as expressions, in a slice the caller owns.
func outerVars(n int) []sym.Expr {
	out := make([]sym.Expr, n)
	for i := range out {
		if i < len(firstOuterVars) {
			out[i] = firstOuterVars[i]
		} else {
			out[i] = sym.Symbol(OuterVar(i))
		}
	}
	return out
}

// firstOuterVars are made once: every kernel of a 100k-node graph asks for
// them, and sym.Symbol looks each name up in its shared table.
var firstOuterVars = func() []sym.Expr {
	out := make([]sym.Expr, 8)
	for i := range out {
		out[i] = sym.Symbol(OuterVar(i))
	}
	return out
}()

func (b *kbuilder) load(r tensorRef, idx []sym.Expr) *Instr {
	return b.emit(&Instr{Op: OpLoad, DType: r.layout.DType,
		Access: &Access{Buffer: r.buf, DType: r.layout.DType, Index: r.layout.Index(idx)}})
}

func (b *kbuilder) store(r tensorRef, idx []sym.Expr, x *Instr) {
	x = b.cast(x, r.layout.DType)
	b.emit(&Instr{Op: OpStore, DType: r.layout.DType, Args: []*Instr{x},
		Access: &Access{Buffer: r.buf, DType: r.layout.DType, Index: r.layout.Index(idx)}})
}

// cast converts x to dt; registers of f16/bf16 hold f32 values, but a cast
// between them still rounds, so only equal types are skipped.
func (b *kbuilder) cast(x *Instr, dt ir.DType) *Instr {
	if x.DType == dt {
		return x
	}
	return b.emit(&Instr{Op: OpCast, DType: dt, Args: []*Instr{x}})
}

func (b *kbuilder) call(fn string, dt ir.DType, args ...*Instr) *Instr {
	if BoolFns[fn] {
		dt = ir.Bool
	}
	return b.emit(&Instr{Op: OpCall, Fn: fn, DType: dt, Args: args})
}

func (b *kbuilder) index(e sym.Expr, dt ir.DType) *Instr {
	return b.emit(&Instr{Op: OpIndex, DType: dt, Expr: e})
}

func (b *kbuilder) reduce(op ReduceOp, dt ir.DType, x *Instr) *Instr {
	return b.emit(&Instr{Op: OpReduce, Reduce: op, DType: dt, Args: []*Instr{x}})
}

// constant emits v (a float64) as a constant of dt.
func (b *kbuilder) constant(v float64, dt ir.DType) *Instr {
	return b.emit(&Instr{Op: OpConst, DType: dt, Imm: scalarOf(v, dt)})
}

// constInt emits an integer constant, exact for all of int64.
func (b *kbuilder) constInt(v int64, dt ir.DType) *Instr {
	if dt.Category() == ir.CatInt {
		return b.emit(&Instr{Op: OpConst, DType: dt, Imm: Scalar{Int: v}})
	}
	return b.constant(float64(v), dt)
}

func scalarOf(v float64, dt ir.DType) Scalar {
	switch dt.Category() {
	case ir.CatBool:
		return Scalar{Bool: v != 0}
	case ir.CatInt:
		if math.IsNaN(v) {
			return Scalar{}
		}
		return Scalar{Int: int64(v)}
	}
	return Scalar{Float: v}
}

// opmath is the type PyTorch computes a pointwise op of dt in: float32 for
// the half and float8 types, dt otherwise.
func opmath(dt ir.DType) ir.DType {
	if dt.IsReducedFloat() {
		return ir.F32
	}
	return dt
}

// broadcastIndex maps the output index idx of a result of rank len(idx)
// onto an operand of shape: dims align from the right, and a dim of size 1
// that the output broadcasts reads index 0.
func broadcastIndex(shape, outShape, idx []sym.Expr) []sym.Expr {
	off := len(outShape) - len(shape)
	out := make([]sym.Expr, len(shape))
	for i, s := range shape {
		j := i + off
		switch {
		case j < 0:
			out[i] = sym.Const(0)
		case isOne(s) && !isOne(outShape[j]):
			out[i] = sym.Const(0)
		default:
			out[i] = idx[j]
		}
	}
	return out
}

func isOne(e sym.Expr) bool {
	c, ok := e.Const()
	return ok && c == 1
}

// loadBroadcast reads a tensor value at the broadcast of the outer index.
func (b *kbuilder) loadBroadcast(r tensorRef, outShape []sym.Expr) *Instr {
	idx := broadcastIndex(r.layout.Shape, outShape, outerVars(len(outShape)))
	return b.load(r, idx)
}
