package fakeprop_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/passes/fakeprop"
)

// The annotation check is assert_size_stride's: each case's verdict is what
// torch._C._dynamo.guards.assert_size_stride returned (torch 2.15.0).
func TestAgreesAsAssertSizeStride(t *testing.T) {
	ten := func(shape, strides []int64) ir.Type {
		c := func(xs []int64) []sym.Expr {
			out := make([]sym.Expr, len(xs))
			for i, x := range xs {
				out[i] = sym.Const(x)
			}
			return out
		}
		return ir.Type{Kind: ir.KindTensor, Tensor: &ir.TensorType{DType: ir.F32, Shape: c(shape), Strides: c(strides), Device: ir.Device{Type: "cpu"}}}
	}
	for _, tc := range []struct {
		name            string
		annot, inferred ir.Type
		want            bool
	}{
		// tensor(1.).expand(1, 2, 4, 6) is (0, 0, 0, 0); (1, 0, 0, 0) passes
		{"a size-1 dim's stride", ten([]int64{1, 2, 4, 6}, []int64{1, 0, 0, 0}), ten([]int64{1, 2, 4, 6}, []int64{0, 0, 0, 0}), true},
		// ... and (0, 0, 0, 1) fails: "stride 0==1 at dim=3"
		{"a larger dim's stride", ten([]int64{1, 2, 4, 6}, []int64{0, 0, 0, 1}), ten([]int64{1, 2, 4, 6}, []int64{0, 0, 0, 0}), false},
		// empty(2, 0) is (1, 1); (7, 1) and (0, 9) pass
		{"no elements", ten([]int64{2, 0}, []int64{7, 1}), ten([]int64{2, 0}, []int64{1, 1}), true},
		// empty(2, 3): (4, 1) fails
		{"a contiguous tensor", ten([]int64{2, 3}, []int64{4, 1}), ten([]int64{2, 3}, []int64{3, 1}), false},
		{"different sizes", ten([]int64{2, 3}, []int64{3, 1}), ten([]int64{3, 2}, []int64{2, 1}), false},
	} {
		assert.Equal(t, tc.want, fakeprop.Agrees(tc.annot, tc.inferred), tc.name)
	}
}
