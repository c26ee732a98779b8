package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// IsInplaceView reads PyTorch's inplace_view tag (pytorch_schemas.txt, as
// tools/schemas/gen.py printed it), the fact functionalize uses to re-type
// a value an in-place op re-shapes.
func TestIsInplaceView(t *testing.T) {
	for target, want := range map[string]bool{
		"aten::transpose_.default": true, "aten::t_.default": true, "aten::unsqueeze_.default": true,
		"aten::squeeze_.dim": true, "aten::as_strided_.default": true, "aten::resize_.default": true,
		"aten::resize_as_.default": true, "aten::detach_.default": true,
		"aten::transpose.int": false, "aten::add_.Tensor": false, "aten::copy_.default": false,
		"aten::resize.default": false, "aten::index_put_.default": false,
	} {
		op := Lookup(target)
		if !assert.NotNil(t, op, target) {
			continue
		}
		assert.Equal(t, want, op.IsInplaceView(), target)
	}
	assert.False(t, (*Op)(nil).IsInplaceView())
}

// Every declared in-place view op is tagged: the rule the tag replaced
// (an in-place op of the view family) agrees with PyTorch on kiln's table.
func TestInplaceViewTagCoversDeclaredViews(t *testing.T) {
	for _, op := range Default().All() {
		if op.IsInplace() && op.Kind == KindView {
			assert.True(t, op.IsInplaceView(), "%s is an in-place view op but PyTorch does not tag it inplace_view", op.QualifiedName())
		}
	}
}
