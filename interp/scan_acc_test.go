package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/ir"
)

// TestCumsumAccumulation pins the accumulation type of ATen's CPU scan
// (cpu_cum_base_kernel, at::acc_type<scalar_t, false>): float32 sums in
// float64, float64 in float64. Expected values printed by torch 2.15.0:
//
//	torch.cumsum(torch.tensor([1, 4e-8, 4e-8], dtype=torch.float32), 0)
//	  -> [1.0, 1.0, 1.0000001192092896]  (a float32 running sum stays 1.0)
//	torch.cumsum(torch.tensor([1.0, 1e-10], dtype=torch.float64), 0)
//	  -> [1.0, 1.0000000001]             (a float32 running sum gives 1.0)
func TestCumsumAccumulation(t *testing.T) {
	res := runGraph(t, `
def forward(self, x: "f32[3]", y: "f64[2]"):
    cumsum: "f32[3]" = torch.ops.aten.cumsum.default(x, 0)
    cumsum_1: "f64[2]" = torch.ops.aten.cumsum.default(y, 0)
    return (cumsum, cumsum_1)
`, f32([]int64{3}, 1, 4e-8, 4e-8), FromFloats(ir.F64, []int64{2}, []float64{1, 1e-10}))
	assert.Equal(t, []float64{1, 1, 1.0000001192092896}, floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []float64{1, 1.0000000001}, floatsOf(t, res.Outputs[1]))
}
