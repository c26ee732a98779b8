package cuda_test

import (
	"context"
	"testing"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// a*b + c stays a rounded multiply and a rounded add, as eager PyTorch
// computes it: the PTX has mul and add, never a contracted fma.
func TestNoFMAContraction(t *testing.T) {
	needTool(t, "clang")
	g := compileFX(t, "muladd.fx", `class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[1024][1]cuda:0", b: "f32[1024][1]cuda:0", c: "f32[1024][1]cuda:0"):
        mul: "f32[1024][1]cuda:0" = torch.ops.aten.mul.Tensor(a, b)
        add: "f32[1024][1]cuda:0" = torch.ops.aten.add.Tensor(mul, c)
        return (add,)
`, defaultPipeline)
	src, err := cuda.Generate(lowerFused(t, g))
	require.NoError(t, err)
	ptx, err := cuda.PTX(context.Background(), src)
	require.NoError(t, err)
	assert.Regexp(t, `mul\.rn\.f32|mul\.f32`, ptx)
	assert.NotRegexp(t, `fma\.rn\.f32`, ptx)
}
