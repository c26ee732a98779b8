package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Backward ops that AOTAutograd and Inductor keep in graphs, and the nn ops
// real graphs contain (glu, adaptive pooling, nll_loss, mse_loss). Schemas
// are PyTorch 2.15's (torch._C._jit_get_all_schemas()); the meta rules follow
// torch/_meta_registrations.py and torch/_decomp/decompositions.py and are
// checked against PyTorch's fake types by internal/opcases.

func backwardTable() []Entry {
	// Pointwise activation backward: grad_output and the forward's input (or
	// result) broadcast and promote as a binary pointwise op.
	act := func(schema string, operands ...string) Entry {
		return Entry{Schema: schema, Kind: KindPointwise, Meta: pw(PromoteDefault, operands...)}
	}
	n := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindNN, Meta: meta} }
	gs := []string{"grad_output", "self"}
	return []Entry{
		act("hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor", gs...),
		act("leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, bool self_is_result) -> Tensor", gs...),
		act("elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool is_result, Tensor self_or_result) -> Tensor", "grad_output", "self_or_result"),
		act("hardswish_backward(Tensor grad_output, Tensor self) -> Tensor", gs...),
		act("hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor", gs...),
		act("softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) -> Tensor", gs...),
		act("mish_backward(Tensor grad_output, Tensor self) -> Tensor", gs...),
		act("mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor", "grad_output", "self", "target"),
		n("glu_backward(Tensor grad_output, Tensor self, int dim) -> Tensor", likeArg("self")),
		n("glu(Tensor self, int dim=-1) -> Tensor", selfRule(metaGlu)),
		n("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", metaMSELoss),
		n("_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor", selfRule(metaAdaptivePool2d)),
		n("adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor", selfRule(metaAdaptivePool2d)),
		n("_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor", likeArg("self")),
		n("avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor", likeArg("self")),
		n("max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor", likeArg("self")),
		n("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)", metaNLLLossForward),
		n("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor", likeArg("self")),
		n("embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor", metaEmbeddingBackward),
		n("native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
			contiguousGrads("input", "weight", "bias")),
		n("native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
			metaBatchNormBackward),
		n("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
			metaConvBackward),
	}
}

// likeArg is a gradient with the type of one argument: a fresh contiguous
// tensor of its shape and dtype (the backward kernels allocate with
// empty_like / new_empty on contiguous inputs).
func likeArg(name string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		t, err := c.Tensor(name)
		if err != nil || t == nil {
			return nil, err
		}
		return one(env.Fresh(t.DType, copyExprs(t.Shape), env.PreserveStrides(t), t.Device)), nil
	}
}

// contiguousGrads are the gradients of the named arguments, each a fresh
// contiguous tensor of its argument's shape (None where output_mask says
// so): PyTorch 2.15's native_layer_norm_backward returns grad_input
// row-major whatever input's strides, eager and fake alike
// (testdata/opcases: a permuted input).
func contiguousGrads(names ...string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		mask, err := boolList(c, "output_mask")
		if err != nil {
			return nil, err
		}
		out := make([]ir.Type, len(names))
		for i, name := range names {
			t, err := c.Tensor(name)
			if err != nil {
				return nil, err
			}
			if t == nil || i < len(mask) && !mask[i] {
				out[i] = ir.Type{Kind: ir.KindNone}
				continue
			}
			out[i] = ir.TensorOf(env.Fresh(t.DType, copyExprs(t.Shape), ir.ContiguousStrides(t.Shape), t.Device))
		}
		return out, nil
	}
}

// boolList reads a bool[N] argument.
func boolList(c *Call, name string) ([]bool, error) {
	a := c.Arg(name)
	var out []bool
	for _, el := range a.Elems {
		if el.Kind != ir.ArgBool {
			return nil, Errorf(CodeInvalidArgVal, "", "%s: expected a list of bools", name)
		}
		out = append(out, el.Bool)
	}
	return out, nil
}

// metaGlu halves dim; the result is a new contiguous tensor.
func metaGlu(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if err := needDims(self, "glu"); err != nil {
		return nil, Errorf(CodeDim, "", "glu does not support scalars because halving size must be even")
	}
	d, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	if n, ok := self.Shape[d].Const(); ok && n%2 != 0 {
		return nil, Errorf(CodeShape, "", "Halving dimension must be even, but dimension %d is size %d", d, n)
	}
	shape := copyExprs(self.Shape)
	shape[d] = sym.FloorDiv(shape[d], sym.Const(2))
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaMSELoss is the broadcast of self and target for reduction=none, a
// 0-dim tensor otherwise.
func metaMSELoss(env *Env, c *Call) ([]ir.Type, error) {
	red, err := c.Int("reduction")
	if err != nil {
		return nil, err
	}
	ts, err := pw(PromoteDefault, "self", "target")(env, c)
	if err != nil || red == 0 {
		return ts, err
	}
	t := ts[0].Tensor
	return one(env.Contiguous(t.DType, []sym.Expr{}, t.Device)), nil
}

// metaAdaptivePool2d replaces the last two sizes by output_size.
func metaAdaptivePool2d(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	size, err := c.SymInts("output_size")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 3 && self.Rank() != 4 || len(size) != 2 {
		return nil, Errorf(CodeShape, "", "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s", shapeString(self.Shape))
	}
	shape := append(copyExprs(self.Shape[:self.Rank()-2]), size...)
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaNLLLossForward: output is [N] for reduction=none on a batch, else 0-dim;
// total_weight is always 0-dim.
func metaNLLLossForward(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil || self == nil {
		return nil, err
	}
	red, err := c.Int("reduction")
	if err != nil {
		return nil, err
	}
	if self.Rank() < 1 || self.Rank() > 2 {
		return nil, Errorf(CodeShape, "", "input tensor should be 1D or 2D")
	}
	outShape := []sym.Expr{}
	if red == 0 && self.Rank() == 2 {
		outShape = []sym.Expr{self.Shape[0]}
	}
	return []ir.Type{ir.TensorOf(env.Contiguous(self.DType, outShape, self.Device)),
		ir.TensorOf(env.Contiguous(self.DType, []sym.Expr{}, self.Device))}, nil
}

// metaEmbeddingBackward is [num_weights, grad.size(-1)] of grad's dtype.
func metaEmbeddingBackward(env *Env, c *Call) ([]ir.Type, error) {
	g, err := c.Tensor("grad_output")
	if err != nil || g == nil {
		return nil, err
	}
	nw, err := c.SymInt("num_weights")
	if err != nil {
		return nil, err
	}
	if err := needDims(g, "embedding_dense_backward"); err != nil {
		return nil, err
	}
	return one(env.Contiguous(g.DType, []sym.Expr{nw, g.Shape[g.Rank()-1]}, g.Device)), nil
}

// metaBatchNormBackward: grad_input like input; grad_weight and grad_bias
// are [C] of weight's dtype (input's when weight is None).
func metaBatchNormBackward(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil || in == nil {
		return nil, err
	}
	w, err := c.Tensor("weight")
	if err != nil {
		return nil, err
	}
	mask, err := boolList(c, "output_mask")
	if err != nil {
		return nil, err
	}
	if in.Rank() < 2 {
		return nil, Errorf(CodeShape, "", "Expected 2D or more input (got %dD input)", in.Rank())
	}
	out := []ir.Type{{Kind: ir.KindNone}, {Kind: ir.KindNone}, {Kind: ir.KindNone}}
	if len(mask) > 0 && mask[0] {
		out[0] = ir.TensorOf(env.Fresh(in.DType, copyExprs(in.Shape), env.PreserveStrides(in), in.Device))
	}
	dt := in.DType
	if w != nil {
		dt = w.DType
	}
	for i := 1; i < 3; i++ {
		if len(mask) > i && mask[i] {
			out[i] = ir.TensorOf(env.Contiguous(dt, []sym.Expr{in.Shape[1]}, in.Device))
		}
	}
	return out, nil
}

// metaConvBackward: grad_input like input, grad_weight like weight,
// grad_bias of bias_sizes (weight's dtype), each None where masked off.
func metaConvBackward(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil || in == nil {
		return nil, err
	}
	w, err := c.Tensor("weight")
	if err != nil || w == nil {
		return nil, err
	}
	mask, err := boolList(c, "output_mask")
	if err != nil {
		return nil, err
	}
	out := []ir.Type{{Kind: ir.KindNone}, {Kind: ir.KindNone}, {Kind: ir.KindNone}}
	for i, t := range []*ir.TensorType{in, w} {
		if len(mask) > i && mask[i] {
			out[i] = ir.TensorOf(env.Fresh(t.DType, copyExprs(t.Shape), env.PreserveStrides(t), t.Device))
		}
	}
	if len(mask) > 2 && mask[2] && !c.IsNone("bias_sizes") {
		bs, err := c.SymInts("bias_sizes")
		if err != nil {
			return nil, err
		}
		out[2] = ir.TensorOf(env.Contiguous(w.DType, bs, w.Device))
	}
	return out, nil
}
