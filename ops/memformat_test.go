package ops_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// TestSuggestMemoryFormatAgreesWithPyTorch: every layout
// tools/memformat/gen.py asked PyTorch about, ambiguous ones included.
func TestSuggestMemoryFormatAgreesWithPyTorch(t *testing.T) {
	raw, err := os.ReadFile("../testdata/memformat/cases.json")
	require.NoError(t, err)
	var data struct {
		Cases []struct {
			Shape, Strides []int64
			Format         string
		}
	}
	require.NoError(t, json.Unmarshal(raw, &data))
	require.Greater(t, len(data.Cases), 1000)
	consts := func(xs []int64) []sym.Expr {
		out := make([]sym.Expr, len(xs))
		for i, x := range xs {
			out[i] = sym.Const(x)
		}
		return out
	}
	for _, c := range data.Cases {
		tt := &ir.TensorType{DType: ir.F32, Shape: consts(c.Shape), Strides: consts(c.Strides), Offset: sym.Const(0)}
		assert.Equal(t, c.Format, ops.SuggestMemoryFormat(tt), "shape %v strides %v", c.Shape, c.Strides)
	}
}
