package vmap

import (
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// ruleFunc batches node n (op, bound call c) when some argument is batched.
type ruleFunc func(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error

// namedRules are the batching rules that differ within a family, by
// schema name (in-place and *_copy variants included), as functorch
// registers them op by op.
var namedRules map[string]ruleFunc

func init() {
	namedRules = map[string]ruleFunc{}
	add := func(r ruleFunc, names ...string) {
		for _, n := range names {
			namedRules[n] = r
		}
	}
	add(viewSizeRule, "view", "_unsafe_view", "view_copy", "reshape")
	add(expandRule, "expand", "expand_copy")
	add(permuteRule, "permute", "permute_copy")
	add(tRule, "t", "t_", "t_copy")
	add(squeezeRule, "squeeze", "squeeze_", "squeeze_copy")
	add(unsupportedRule, "as_strided", "as_strided_", "as_strided_copy", "as_strided_scatter", "unfold", "unfold_copy",
		"view_as", "_reshape_alias", "convolution", "conv1d", "conv2d", "conv3d", "resize", "resize_", "roll")
	add(catRule, "cat")
	add(stackRule, "stack")
	add(repeatRule, "repeat")
	add(matmulRule, "mm", "bmm", "matmul", "mv", "dot", "vdot")
	add(addmmRule, "addmm", "baddbmm")
	add(linearRule, "linear")
	add(indexRule, "index", "_unsafe_index")
	add(indexPutRule, "index_put", "index_put_", "_unsafe_index_put", "_index_put_impl_")
	add(embeddingRule, "embedding")
	add(pointwiseRule, "masked_fill", "masked_fill_")
	add(newFactoryRule, "new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided")
	add(itemRule, "_local_scalar_dense")
	add(symSizeRule, "sym_size")
	// backward and attention ops whose batch dims do not follow the
	// generic nn rule (gradients shaped like weights, per-class losses)
	add(unsupportedRule, "convolution_backward", "native_batch_norm_backward", "native_layer_norm_backward",
		"embedding_dense_backward", "nll_loss_forward", "nll_loss_backward", "max_pool2d_with_indices_backward",
		"avg_pool2d_backward", "_adaptive_avg_pool2d_backward", "glu_backward", "mse_loss", "mse_loss_backward",
		"_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention_for_cpu_backward",
		"_fused_rms_norm", "diag", "view_as_complex", "view_as_real")
	add(passThroughRule, "layer_norm", "native_layer_norm", "constant_pad_nd", "pad", "tril", "triu", "tril_", "triu_")
}

// rule picks n's batching rule: by name, else by family.
func (v *vm) rule(op *ops.Op) ruleFunc {
	if r, ok := namedRules[op.Schema.Name]; ok {
		return r
	}
	if strings.HasPrefix(op.Schema.Name, "_foreach_") {
		return unsupportedRule // lists of tensors: no batching rule in kiln
	}
	switch op.Kind {
	case ops.KindPointwise, ops.KindCast:
		return pointwiseRule
	case ops.KindView:
		return viewRule
	case ops.KindReduction:
		return reduceRule
	case ops.KindScatterInverse:
		return scatterInverseRule
	case ops.KindIndexing:
		return gatherRule
	case ops.KindFactory:
		return likeRule
	case ops.KindShape, ops.KindNN:
		return dimRule
	case ops.KindDataDependent:
		return dynamicRule
	}
	return unsupportedRule
}

func unsupportedRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	return v.unsupported("kiln has no batching rule for %s (%s)", op.QualifiedName(), n.Name)
}

// passThroughRule: the op already works on leading batch dims (layer
// norms over trailing dims, padding of trailing dims, tril/triu) when
// only its first argument is batched.
func passThroughRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	bc := v.rebind(op, c)
	for _, p := range op.Schema.Params[1:] {
		if ov := bc.origValue(p.Name); ov != nil {
			if _, b := v.get(ov); b {
				return v.unsupported("%s with batched %s", shortName(op), p.Name)
			}
		}
	}
	return v.emitLike(n, bc)
}

// pointwiseRule: broadcasting ops. Batched operands of lower rank are
// padded after the batch dim so the batch dim lines up; copy and in-place
// ops keep self's shape (self expanded to the batch for copy).
func pointwiseRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	bc := v.rebind(op, c)
	selfName := op.Schema.Params[0].Name
	selfShaped := op.IsInplace() || op.Schema.Name == "copy"
	if selfShaped && !op.IsInplace() {
		if err := v.batchedArg(bc, selfName); err != nil {
			return err
		}
	}
	R := 0
	for _, p := range op.Schema.Params {
		if ov := bc.origValue(p.Name); ov != nil && v.ptensor(ov) != nil && (!selfShaped || p.Name == selfName) {
			R = max(R, v.rank(ov))
		}
	}
	for _, p := range op.Schema.Params {
		ov := bc.origValue(p.Name)
		if ov == nil || v.ptensor(ov) == nil || selfShaped && p.Name == selfName {
			continue
		}
		nv, b := v.get(ov)
		if !b || v.rank(ov) >= R {
			continue
		}
		padded, err := v.pad(nv, ov.Name, v.rank(ov), R)
		if err != nil {
			return err
		}
		bc.set(p.Name, ir.ValueArg(padded))
	}
	m, err := v.emitNamed(bc, len(n.Results), n)
	if err != nil {
		return err
	}
	res := m.Results
	if !op.IsInplace() && len(res) == 1 {
		if res[0], err = v.castLike(res[0], n.Results[0]); err != nil {
			return err
		}
	}
	v.finish(n, res)
	return nil
}

// castLike casts x to orig's per-example dtype when batching changed it (a
// batched 0-dim operand is a 1-dim tensor to type promotion).
func (v *vm) castLike(x, orig *ir.Value) (*ir.Value, error) {
	want := v.ptensor(orig)
	if want == nil || x.Type.Kind != ir.KindTensor || x.Type.Tensor.DType == want.DType {
		return x, nil
	}
	n, err := v.b.Call("aten::_to_copy.default", []ir.Arg{ir.ValueArg(x)}, []ir.Kwarg{{Name: "dtype", Arg: ir.DTypeArg(want.DType)}}, 1, ir.Type{})
	if err != nil {
		return nil, err
	}
	v.note("cast back to %s", want.DType.Abbr())
	return n.Out(), nil
}

// dimRule: ops whose only batching concern is their dim arguments
// (softmax, cumsum, flip, ...): shift every dim past the batch dim.
func dimRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	bc := v.rebind(op, c)
	self := bc.origValue(op.Schema.Params[0].Name)
	if self == nil {
		return unsupportedRule(v, n, op, c)
	}
	if _, b := v.get(self); !b {
		return v.unsupported("%s with an unbatched %s", shortName(op), op.Schema.Params[0].Name)
	}
	if err := v.shiftAll(bc, v.rank(self)); err != nil {
		return err
	}
	return v.emitLike(n, bc)
}

// shiftAll shifts every dim parameter of bc.
func (v *vm) shiftAll(bc *bcall, rank int) error {
	for _, name := range dimParams {
		if bc.has(name) {
			if err := v.shiftDims(bc, name, rank); err != nil {
				return err
			}
		}
	}
	return nil
}

// likeRule: *_like factories of a batched tensor are batched.
func likeRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	if !c.Has("self") {
		return unsupportedRule(v, n, op, c)
	}
	return v.emitLike(n, v.rebind(op, c))
}

// newFactoryRule: new_zeros(self, size) of a batched self makes a batched
// tensor of size [B, *size] (functorch's NEW_BLAH_BATCH_RULE).
func newFactoryRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	bc := v.rebind(op, c)
	size := bc.get("size")
	if !size.IsSequence() {
		return v.unsupported("%s: size is not a list", shortName(op))
	}
	bc.set("size", ir.ListArg(append([]ir.Arg{ir.IntArg(v.B)}, size.Elems...)...))
	if bc.has("stride") {
		return v.unsupported("%s with a batched self", shortName(op))
	}
	v.note("size gains the batch dim")
	return v.emitLike(n, bc)
}

// symSizeRule: the size of a per-example dim is the batched tensor's size
// one dim further.
func symSizeRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	bc := v.rebind(op, c)
	if err := v.shiftDim(bc, "dim", v.rank(bc.origValue("self"))); err != nil {
		return err
	}
	m, err := v.emitCall(bc, 1)
	if err != nil {
		return err
	}
	v.set(n.Results[0], m.Out(), false)
	return nil
}

// itemRule: functorch refuses .item() on a batched tensor.
func itemRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	return v.ctx.Errorf(n, CodeItem, "keep the data-dependent part out of the vmapped function",
		"vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use a Tensor in some data-dependent control flow or (3) encountering this error in PyTorch internals. For (1): we don't support vmap over calling .item() on a Tensor, please try to rewrite what you're doing with other operations. For (2): If you're doing some control flow instead, we don't support that yet, please shout over at https://github.com/pytorch/functorch/issues/257 . For (3): please file an issue.")
}

// dynamicRule: functorch refuses ops with data-dependent output shapes.
func dynamicRule(v *vm, n *ir.Node, op *ops.Op, c *ops.Call) error {
	return v.ctx.Errorf(n, CodeItem, "keep the data-dependent part out of the vmapped function",
		"vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over %s. Please voice your support in https://github.com/pytorch/functorch/issues/256",
		op.Schema.Namespace+"::"+op.Schema.Name)
}
