package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Meta rules for eye, dist, renorm, hash_tensor, _chunk_cat, _pdist_forward,
// nll_loss2d and the margin losses; results are row-major (structured ops
// allocate without strides) unless said.

// metaEye is an n×m (m defaults to n) factory in the default float dtype.
func metaEye(env *Env, c *Call) ([]ir.Type, error) {
	n, err := c.SymInt("n")
	if err != nil {
		return nil, err
	}
	m := n
	if c.Has("m") {
		if m, err = c.SymInt("m"); err != nil {
			return nil, err
		}
	}
	if err := env.checkSizes([]sym.Expr{n, m}); err != nil {
		return nil, err
	}
	dt, dev, err := factoryOptions(c, DefaultFloat, ir.CPU)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, []sym.Expr{n, m}, dev)), nil
}

// metaSameContiguous is self's dtype and shape, row-major.
func metaSameContiguous(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return env.Contiguous(self.DType, copyExprs(self.Shape), self.Device), nil
}

// metaHashTensor reduces over dim (all dims when empty) to uint64.
func metaHashTensor(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	reduced, err := reductionDims(c, self.Rank())
	if err != nil {
		return nil, err
	}
	keep, err := c.Bool("keepdim")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(ir.U64, reducedShape(self.Shape, reduced, keep), self.Device)), nil
}

// metaChunkCat pads each tensor's dim to a multiple of num_chunks, views
// it as [..., num_chunks, -1] and concatenates along dim+1.
func metaChunkCat(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := c.Tensors("tensors")
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, Errorf(CodeInvalidArgVal, "", "_chunk_cat expects a non-empty input tensor list")
	}
	dim, err := c.Int("dim")
	if err != nil {
		return nil, err
	}
	nc, err := c.Int("num_chunks")
	if err != nil {
		return nil, err
	}
	if nc < 1 {
		return nil, Errorf(CodeInvalidArgVal, "", "_chunk_cat expects positive num_chunks")
	}
	d := int(dim)
	if dim < 0 {
		if d, err = WrapDim(dim, ts[0].Rank()); err != nil {
			return nil, err
		}
	}
	width := sym.Const(0)
	for _, t := range ts {
		if d >= t.Rank() {
			return nil, Errorf(CodeShape, "", "_chunk_cat expects dim < ndim for all input tensors")
		}
		if t.DType != ts[0].DType {
			return nil, Errorf(CodeDType, "", "_chunk_cat expects all input tensors with the same dtype")
		}
		chunk := sym.FloorDiv(sym.Add(t.Shape[d], sym.Const(nc-1)), sym.Const(nc))
		width = sym.Add(width, sym.Mul(chunk, product(t.Shape[d+1:])))
	}
	shape := append(copyExprs(ts[0].Shape[:d]), sym.Const(nc), width)
	return one(env.Contiguous(ts[0].DType, shape, ts[0].Device)), nil
}

// metaNLLLoss2d is (output, total_weight): output [N, H, W] for
// reduction=none, else 0-dim.
func metaNLLLoss2d(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 4 {
		return nil, Errorf(CodeShape, "", "only batches of spatial inputs supported (4D tensors), but got input of dimension: %d", self.Rank())
	}
	red, err := c.Int("reduction")
	if err != nil {
		return nil, err
	}
	shape := []sym.Expr{}
	if red == 0 {
		shape = []sym.Expr{self.Shape[0], self.Shape[2], self.Shape[3]}
	}
	return types(env.Contiguous(self.DType, shape, self.Device), env.Contiguous(self.DType, []sym.Expr{}, self.Device)), nil
}

// metaMarginLoss is multi_margin_loss / multilabel_margin_loss_forward's
// loss: [N] for reduction=none on a batch, else 0-dim; the multilabel
// form also returns is_target, like self.
func metaMarginLoss(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	red, err := c.Int("reduction")
	if err != nil {
		return nil, err
	}
	shape := []sym.Expr{}
	if red == 0 && self.Rank() == 2 {
		shape = []sym.Expr{self.Shape[0]}
	}
	out := []ir.Type{ir.TensorOf(env.Contiguous(self.DType, shape, self.Device))}
	if len(c.Op.Schema.Returns) == 2 {
		out = append(out, ir.TensorOf(env.Contiguous(self.DType, copyExprs(self.Shape), self.Device)))
	}
	return out, nil
}

// metaPreluBackward is (grad_self, grad_weight), both over the broadcast of
// self and weight (one TensorIterator writes them).
func metaPreluBackward(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := pw(PromoteDefault, "self", "weight")(env, c)
	if err != nil {
		return nil, err
	}
	t := ts[0].Tensor
	return types(t, env.Fresh(t.DType, copyExprs(t.Shape), copyExprs(t.Strides), t.Device)), nil
}

// metaUnfoldBackward is grad_in's dtype over input_sizes, row-major.
func metaUnfoldBackward(env *Env, c *Call) ([]ir.Type, error) {
	g, err := c.Tensor("grad_in")
	if err != nil {
		return nil, err
	}
	sizes, err := c.SymInts("input_sizes")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(g.DType, sizes, g.Device)), nil
}

// metaLinearCEChunked is torch_nn::_linear_cross_entropy_batch_chunked's
// fake impl (torch/nn/modules/linear_cross_entropy.py): a 0-dim loss, then
// the gradients it precomputes for input, linear_weight and linear_bias,
// each [0, 0] (the bias [0]) when not asked for, all in input's dtype.
func metaLinearCEChunked(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "input", "linear_weight")
	if err != nil {
		return nil, err
	}
	in, w := ts[0], ts[1]
	if red := c.Arg("reduction"); red.Kind == ir.ArgString && red.Str != "mean" && red.Str != "sum" {
		return nil, Errorf(CodeUnsupported, "", "linear_cross_entropy does not support reduction='%s'", red.Str)
	}
	flags, err := readEach([]string{"compute_input_grad", "compute_linear_weight_grad", "compute_linear_bias_grad"}, c.Bool)
	if err != nil {
		return nil, err
	}
	empty2 := []sym.Expr{c0, c0}
	gi, gw, gb := empty2, copyExprs(empty2), []sym.Expr{c0}
	if flags[0] {
		gi = copyExprs(in.Shape)
	}
	if flags[1] {
		gw = copyExprs(w.Shape)
	}
	if flags[2] && w.Rank() > 0 {
		gb = copyExprs(w.Shape[:w.Rank()-1])
	}
	return types(env.Contiguous(in.DType, []sym.Expr{}, in.Device), env.Contiguous(in.DType, gi, in.Device),
		env.Contiguous(in.DType, gw, w.Device), env.Contiguous(in.DType, gb, in.Device)), nil
}

// metaLinearCENoReduction is the per-sample loss [N] in input's dtype.
func metaLinearCENoReduction(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	if in.Rank() < 1 {
		return nil, Errorf(CodeShape, "", "linear_cross_entropy: expected a batched input, got %s", shapeString(in.Shape))
	}
	return one(env.Contiguous(in.DType, []sym.Expr{in.Shape[0]}, in.Device)), nil
}

// metaResizeAs is resize_(self, the_template's sizes): row-major (or the
// memory_format's) strides on self's storage and offset.
func metaResizeAs(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	tmpl, err := c.Tensor("the_template")
	if err != nil {
		return nil, err
	}
	size := copyExprs(tmpl.Shape)
	t := viewOf(self, size, ir.ContiguousStrides(size), offsetOf(self))
	if f := c.Enum("memory_format"); f == "channels_last" || f == "channels_last_3d" {
		t.Strides = env.StridesFor(f, t)
	}
	return t, nil
}
