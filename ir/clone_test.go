package ir_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
)

// A 0-dim tensor's stride list is empty, not missing: PyTorch prints a
// clone of a scalar tensor as f32[][]cpu (issue 11: Clone turned [] into nil).
func TestCloneKeepsEmptyStrideList(t *testing.T) {
	typ, err := ir.ParseType("f32[][]cpu")
	require.NoError(t, err)
	c := typ.Tensor.Clone()
	assert.True(t, c.HasStrides())
	assert.Equal(t, "f32[][]cpu", ir.Type{Kind: ir.KindTensor, Tensor: c}.String())
	typ, err = ir.ParseType("f32[]")
	require.NoError(t, err)
	assert.False(t, typ.Tensor.Clone().HasStrides(), "unknown strides stay unknown")
}
