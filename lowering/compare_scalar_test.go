package lowering_test

import "testing"

// A comparison takes a Python scalar in the promoted dtype, not in opmath:
// bf16(0.1) = 0.10009765625, so x > 0.1 is false for x = bf16(0.1), as
// ATen's compare kernels (scalar_value<scalar_t>) and interp say, while an
// f32 comparison with 0.1 would say true.
func TestCompareScalarInPromotedDType(t *testing.T) {
	checkLoweringFloats(t, `class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[4][1]cpu"):
        gt: "b8[4][1]cpu" = torch.ops.aten.gt.Scalar(x, 0.1)
        le: "b8[4][1]cpu" = torch.ops.aten.le.Scalar(x, 0.1)
        return (gt, le)
`, map[string][]float64{"x": {0.10009765625, 0.1, 0.099609375, 0.25}})
}
