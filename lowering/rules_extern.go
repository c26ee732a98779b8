package lowering

import (
	"fmt"
	"strconv"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Extern kernels: opaque library calls on tensor operands.

// externSpec names an extern op's tensor operands and its int parameters.
type externSpec struct {
	tensors []string // schema parameters, in call order; optional ones may be None
	params  []string // int / int[] / bool parameters kept as int64 lists
}

var externSpecs = map[string]externSpec{
	"mm":  {tensors: []string{"self", "mat2"}},
	"bmm": {tensors: []string{"self", "mat2"}},
	"convolution": {tensors: []string{"input", "weight", "bias"},
		params: []string{"stride", "padding", "dilation", "transposed", "output_padding", "groups"}},
	// Inductor's fallback too (torch 2.15 lowering.py: make_fallback; no
	// decomposition in torch/_decomp): self gives only the shape.
	"_adaptive_avg_pool2d_backward": {tensors: []string{"grad_output", "self"}},
}

func externRules() map[string]rule {
	t := map[string]rule{}
	for name, spec := range externSpecs {
		t[name] = spec.lower
	}
	t["addmm"] = lowerAddmmExtern
	t["baddbmm"] = lowerAddmm("aten::bmm.default", "batch1", "batch2")
	t["topk"] = lowerTopk
	t["sort"] = lowerSort
	t["sort.stable"] = lowerSort
	t["convolution_backward"] = lowerConvBackward
	t["_embedding_bag"] = lowerEmbeddingBag
	t["_embedding_bag_forward_only"] = lowerEmbeddingBag
	t["_embedding_bag_backward"] = lowerEmbeddingBagBackward
	t["upsample_bilinear2d_backward"] = lowerUpsampleBilinearBackward
	t["_scaled_dot_product_flash_attention_for_cpu"] = lowerSDPAFlashCPU
	t["_scaled_dot_product_flash_attention_for_cpu_backward"] = lowerSDPAFlashCPUBackward
	return t
}

func (s externSpec) lower(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	e, err := s.extern(l, c)
	if err != nil {
		return err
	}
	e.Outs = []Operand{{out.buf, out.layout}}
	l.newExtern(e)
	return nil
}

// extern is c's call with the spec's operands and parameters, its outputs
// left to the caller.
func (s externSpec) extern(l *lowerer, c *ops.Call) (*Extern, error) {
	e := &Extern{Op: c.Op.QualifiedName(), Params: map[string][]int64{}}
	for _, name := range s.tensors {
		a := c.Arg(name)
		if a.Kind == ir.ArgNone {
			e.Args = append(e.Args, Operand{})
			continue
		}
		r, err := l.ref(a)
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, Operand{r.buf, r.layout})
	}
	for _, name := range s.params {
		vals, err := intParam(c, name)
		if err != nil {
			return nil, noLowering(c.Node, "extern kernels take constant parameters", "%s: %v", c.Op, err)
		}
		e.Params[name] = vals
	}
	return e, nil
}

// intParam reads an int, bool or int[] parameter as constants.
func intParam(c *ops.Call, name string) ([]int64, error) {
	a := c.Arg(name)
	if a.Kind == ir.ArgBool {
		return []int64{int64(b2f(a.Bool))}, nil
	}
	return c.Ints(name)
}

func (l *lowerer) newExtern(e *Extern) {
	k := &Kernel{Name: "kernel" + strconv.Itoa(len(l.p.Kernels)), Extern: e, Vec: 1}
	if l.node != nil {
		k.Origins = []string{l.node.Name}
	}
	l.p.Kernels = append(l.p.Kernels, k)
}

// lowerAddmmExtern is f32 self + m1 @ m2 (alpha = beta = 1, self
// broadcast over the rows or whole) as one extern call that adds self to
// the product it holds in f32, as Inductor calls extern_kernels.addmm
// and PyTorch's GEMM adds self in its epilogue: the bias costs no kernel
// of its own. Other dtypes and scalings take lowerAddmm's product and
// pointwise epilogue.
func lowerAddmmExtern(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "mat1", "mat2")
	if err != nil {
		return err
	}
	self := c.Arg("self")
	if out.layout.DType != ir.F32 || !isLit(c.Arg("alpha"), 1) || !isLit(c.Arg("beta"), 1) || self.Kind != ir.ArgValue {
		return lowerAddmm("aten::mm.default", "mat1", "mat2")(l, c)
	}
	bias, err := l.ref(self)
	if err != nil {
		return err
	}
	expanded, ok := broadcastLayout(bias.layout, out.layout.Shape)
	if !ok || bias.layout.DType != ir.F32 {
		return lowerAddmm("aten::mm.default", "mat1", "mat2")(l, c)
	}
	l.newExtern(&Extern{Op: "aten::addmm.default", Params: map[string][]int64{},
		Args: []Operand{{bias.buf, expanded}, {in[0].buf, in[0].layout}, {in[1].buf, in[1].layout}},
		Outs: []Operand{{out.buf, out.layout}}})
	return nil
}

// broadcastLayout is l expanded to shape as broadcasting does (sizes
// aligned from the right; a size-1 or missing dimension gets stride 0);
// false when l's sizes do not broadcast to shape.
func broadcastLayout(l Layout, shape []sym.Expr) (Layout, bool) {
	if len(l.Shape) > len(shape) {
		return Layout{}, false
	}
	out := Layout{DType: l.DType, Shape: shape, Strides: make([]sym.Expr, len(shape)), Offset: l.Offset}
	lead := len(shape) - len(l.Shape)
	for d := range shape {
		out.Strides[d] = sym.Const(0)
		if d < lead {
			continue
		}
		switch s := l.Shape[d-lead]; {
		case sym.Equal(s, shape[d]):
			out.Strides[d] = l.Strides[d-lead]
		case isOne(s):
		default:
			return Layout{}, false
		}
	}
	return out, true
}

// lowerAddmm is beta*self + alpha*(m1 @ m2): an extern product into a
// contiguous intermediate, then a pointwise kernel (beta=0 ignores self,
// NaN included, as ATen does).
func lowerAddmm(mmOp, m1, m2 string) rule {
	return func(l *lowerer, c *ops.Call) error {
		out, in, err := l.operands(c, m1, m2)
		if err != nil {
			return err
		}
		a, b := in[0], in[1]
		shape := out.layout.Shape
		// The product stays in opmath (f32 for half types) until the bias
		// is added: PyTorch's addmm rounds once, in the GEMM's epilogue.
		prod := Layout{DType: opmath(out.layout.DType), Shape: shape, Strides: ir.ContiguousStrides(shape), Offset: sym.Const(0)}
		pbuf := l.newBuffer("", prod.DType, extent(prod), BufIntermediate)
		l.newExtern(&Extern{Op: mmOp, Args: []Operand{{a.buf, a.layout}, {b.buf, b.layout}},
			Outs: []Operand{{pbuf, prod}}, Params: map[string][]int64{}})
		return addmmEpilogue(l, c, out, tensorRef{pbuf, prod})
	}
}

func addmmEpilogue(l *lowerer, c *ops.Call, out, prod tensorRef) error {
	shape := out.layout.Shape
	kb := l.newKernel(shape)
	e := &pwEnv{kbuilder: kb, c: c, dt: arithType(opmath(out.layout.DType)), outDT: out.layout.DType}
	y := kb.cast(kb.loadBroadcast(prod, shape), e.dt)
	if alpha := c.Arg("alpha"); !(alpha.Kind == ir.ArgInt && alpha.Int == 1) {
		k, err := e.scalarArg(alpha, e.dt)
		if err != nil {
			return err
		}
		y = e.fn("mul", k, y)
	}
	if beta := c.Arg("beta"); !isLit(beta, 0) {
		self, err := l.operand(e, c.Arg("self"), e.dt, shape)
		if err != nil {
			return fmt.Errorf("self: %w", err)
		}
		if !(beta.Kind == ir.ArgInt && beta.Int == 1) {
			k, err := e.scalarArg(beta, e.dt)
			if err != nil {
				return err
			}
			self = e.fn("mul", k, self)
		}
		y = e.fn("add", self, y)
	}
	kb.store(out, outerVars(len(shape)), y)
	return nil
}
