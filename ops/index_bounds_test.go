package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every declared index check names a registered op, and the messages are
// PyTorch's (ATen's TORCH_CHECK_INDEX texts).
func TestIndexBounds(t *testing.T) {
	for name, b := range indexBounds {
		assert.NotNil(t, Lookup(name), "%s is not in the registry", name)
		assert.NotEmpty(t, b.Msg, name)
	}
	gather := MustIndexBounds("aten::gather.default")
	_, err := gather.Check(-1, 5, 1)
	assert.EqualError(t, err, "index -1 is out of bounds for dimension 1 with size 5")
	i, err := MustIndexBounds("aten::index.Tensor").Check(-1, 5, 0)
	assert.NoError(t, err)
	assert.Equal(t, int64(4), i, "advanced indexing counts negatives from the end")
	_, err = MustIndexBounds("aten::index_copy.default").Check(4, 4, 0)
	assert.EqualError(t, err, "index_copy_(): index 4 is out of bounds for dimension 0 with size 4")
	_, err = MustIndexBounds("aten::embedding.default").Check(7, 7, 0)
	assert.EqualError(t, err, "index out of range in self")
}
