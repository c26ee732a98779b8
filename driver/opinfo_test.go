package driver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/driver"
)

// One hop from an op's name to every facet, whatever package holds it.
func TestFindOpsJoinsFacets(t *testing.T) {
	rows := driver.FindOps("aten::gather.default")
	require.Len(t, rows, 1)
	g := rows[0]
	assert.Equal(t, "aten::gather.default", g.Op.QualifiedName())
	assert.NotNil(t, g.Op.Meta)
	assert.True(t, g.EvalKernel)
	assert.True(t, g.Lowering)

	assert.Len(t, driver.FindOps("gather.default"), 1, "the namespace may be left out")
	assert.Len(t, driver.FindOps("add"), 2, "a bare name gives every overload: add.Tensor, add.Scalar")
	v := driver.FindOps("slice.Tensor")[0]
	assert.Equal(t, "scatter", v.Inverse)
	assert.Equal(t, "aten::slice_scatter.default", v.Op.ViewInverse)
	sm := driver.FindOps("aten::_softmax.default")[0]
	assert.Contains(t, sm.Decompose, "torch/_decomp/decompositions.py")
	assert.Empty(t, driver.FindOps("no_such_op"))
}
