package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/lowering"
)

// _adaptive_avg_pool2d with sizes that do not divide (windows of different
// lengths, overlapping) lowers to one pointwise kernel per call, checked
// against interp; past 25 candidates per element kiln says no lowering,
// where Inductor calls ATen's kernel.
func TestAdaptiveAvgPoolLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4, 6][72, 24, 6, 1]cpu", y: "f32[3, 7, 5][35, 5, 1]cpu", z: "bf16[1, 2, 5, 5][50, 25, 5, 1]cpu"):
        a = torch.ops.aten._adaptive_avg_pool2d.default(x, [3, 5])
        b = torch.ops.aten._adaptive_avg_pool2d.default(y, [4, 2])
        c = torch.ops.aten.adaptive_avg_pool2d.default(z, [3, 3])
        return (a, b, c)
`
	p := checkLowering(t, src, nil)
	require.Len(t, p.Kernels, 3)
	for _, k := range p.Kernels {
		assert.Equal(t, lowering.KernelPointwise, k.Kind())
	}
	// 4 rows into 3: windows of 2 rows (ceil(6/3)); 6 columns into 5: 2.
	assert.Contains(t, p.Kernels[0].String(), "truediv")

	const big = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1, 1, 20, 20][400, 400, 20, 1]cpu"):
        a = torch.ops.aten._adaptive_avg_pool2d.default(x, [3, 3])
        return (a,)
`
	g := compile(t, "big.fx", big, defaultPipeline)
	_, err := lowering.Lower(g, lowering.Options{})
	require.Error(t, err)
	assert.True(t, lowering.IsNoLowering(err), "%v", err)
	assert.Contains(t, err.Error(), "8x8 candidates")
}
