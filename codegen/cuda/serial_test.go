package cuda_test

import (
	"testing"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/lowering"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scatter_add whose indices may repeat is a Serial kernel. Along dim 0
// of a 1-d tensor every iteration may update any element: its launch is
// one thread (grid-stride over every index in order), so two updates of
// one element never race; the copy of self before it stays parallel.
func TestSerialKernelLaunchesOneThread(t *testing.T) {
	g := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[12][1]cpu", ix: "i64[8][1]cpu", s: "f32[8][1]cpu"):
        scatter_add: "f32[12][1]cpu" = torch.ops.aten.scatter_add.default(x, 0, ix, s)
        return (scatter_add,)
`
	serial, k, src := serialScatterCUDA(t, g)
	require.Empty(t, k.Split, "nothing keeps two iterations apart")
	assert.Contains(t, src, "KILN_LAUNCH("+serial+", 1, 1, ")
	assert.Contains(t, src, "kiln_grid(nwork, ", "other kernels keep a full grid")
}

// A serial kernel with Split (scatter_add along dim 0 of [3, 4]: each
// column x1 apart) launches a thread per column, each walking the rows in
// order.
func TestSerialSplitKernelLaunchesAThreadPerColumn(t *testing.T) {
	g := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 4][4, 1]cpu", ix: "i64[2, 4][4, 1]cpu", s: "f32[2, 4][4, 1]cpu"):
        scatter_add: "f32[3, 4][4, 1]cpu" = torch.ops.aten.scatter_add.default(x, 0, ix, s)
        return (scatter_add,)
`
	serial, k, src := serialScatterCUDA(t, g)
	require.Equal(t, []int{1}, k.Split)
	assert.NotContains(t, src, "KILN_LAUNCH("+serial+", 1, 1, ")
	assert.Contains(t, src, "const long long nwork = 4;")
	assert.Contains(t, src, "for (long long q = 0; q < (long long)(2); ++q) {")
}

// serialScatterCUDA compiles the scatter_add graph src, lowers and fuses it,
// and returns its serial kernel's name, the kernel and the program's CUDA.
func serialScatterCUDA(t *testing.T, src string) (string, *lowering.Kernel, string) {
	p := lowerFused(t, compileFX(t, "scatter.fx", src, defaultPipeline))
	var serial *lowering.Kernel
	for _, k := range p.Kernels {
		if k.Serial {
			serial = k
		}
	}
	require.NotNil(t, serial, "scatter_add lowers to a serial kernel:\n%s", p)
	cu, err := cuda.Generate(p)
	require.NoError(t, err)
	return serial.Name, serial, cu
}
