package ops

import (
	"testing"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/stretchr/testify/require"
)

// Expected strides printed by PyTorch 2.15 under FakeTensorMode:
// torch.empty_strided(shape, stride).view(new).stride(). Eager (ATen's
// computeStride) differs on the first: (25, 20, 5).
func TestViewStridesFollowFakeTensors(t *testing.T) {
	cases := []struct{ shape, stride, view, want []int64 }{
		{[]int64{2, 1, 1, 4}, []int64{25, 25, 1, 5}, []int64{2, 1, 4}, []int64{25, 25, 5}},
		{[]int64{0, 5, 5}, []int64{25, 1, 5}, []int64{0, 5, 5}, []int64{25, 5, 1}},
		{[]int64{2, 1, 5}, []int64{5, 5, 1}, []int64{2, 1, 1, 5}, []int64{5, 5, 5, 1}},
		{[]int64{2, 1, 1}, []int64{5, 5, 5}, []int64{2, 1, 1, 1}, []int64{5, 5, 5, 5}},
		{[]int64{4, 1, 3}, []int64{3, 3, 1}, []int64{12}, []int64{1}},
		{[]int64{3, 4}, []int64{1, 3}, []int64{3, 4, 1}, []int64{1, 3, 3}},
		{[]int64{2, 3, 4}, []int64{12, 1, 3}, []int64{2, 3, 2, 2}, []int64{12, 1, 6, 3}},
		{[]int64{5, 1}, []int64{1, 5}, []int64{1, 5}, []int64{5, 1}},
		{[]int64{2, 1, 4}, []int64{25, 5, 5}, []int64{2, 4}, []int64{25, 5}},
	}
	env := NewEnv(nil)
	consts := func(xs []int64) []sym.Expr {
		out := make([]sym.Expr, len(xs))
		for i, x := range xs {
			out[i] = sym.Const(x)
		}
		return out
	}
	for _, c := range cases {
		got, ok := env.ComputeStride(consts(c.shape), consts(c.stride), consts(c.view))
		require.True(t, ok, "%v%v as %v", c.shape, c.stride, c.view)
		require.Equal(t, consts(c.want), got, "%v%v as %v", c.shape, c.stride, c.view)
	}
	// Not viewable under either algorithm: a transposed matrix flattened.
	_, ok := env.ComputeStride(consts([]int64{3, 4}), consts([]int64{1, 3}), consts([]int64{12}))
	require.False(t, ok)
}
