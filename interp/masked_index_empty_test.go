package interp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
)

// TestUnsafeMaskedIndexEmptySelf: on an empty self PyTorch returns the
// fill over the indexed shape, whatever the indices and the mask hold
// (torch 2.15.0: _unsafe_masked_index(empty(0), [T, F, T, F], [[0, 1, 5,
// -3]], 1.5) is [1.5] * 4; on empty(2, 0) with a [3] index, shape [3, 0]).
func TestUnsafeMaskedIndexEmptySelf(t *testing.T) {
	const src = `class GraphModule(torch.nn.Module):
    def forward(self, e: "f32[0][1]cpu", m: "b8[4][1]cpu", i: "i64[4][1]cpu", e2: "f32[2, 0][1, 1]cpu", m2: "b8[3, 0][1, 1]cpu", j: "i64[3][1]cpu"):
        z = torch.ops.aten._unsafe_masked_index.default(e, m, [i], 1.5)
        z2 = torch.ops.aten._unsafe_masked_index.default(e2, m2, [j], 1.5)
        return (z, z2)
`
	res := runGraph(t, src, FromFloats(ir.F32, []int64{0}, nil), FromInts(ir.Bool, []int64{4}, []int64{1, 0, 1, 0}),
		FromInts(ir.I64, []int64{4}, []int64{0, 1, 5, -3}), FromFloats(ir.F32, []int64{2, 0}, nil),
		FromInts(ir.Bool, []int64{3, 0}, nil), FromInts(ir.I64, []int64{3}, []int64{0, 1, 1}))
	require.Equal(t, []float64{1.5, 1.5, 1.5, 1.5}, res.Outputs[0].(*Tensor).Floats())
	require.Equal(t, []int64{3, 0}, res.Outputs[1].(*Tensor).Shape)
}
