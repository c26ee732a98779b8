package lowering_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/lowering"
)

// max_pool2d_with_indices_backward lowers to one pointwise kernel over
// grad_input (Inductor's lowering); the indices come from the forward pool
// in the same graph, so they are the ones PyTorch would save, and every
// case runs against interp (which scatters each gradient at its index).

func TestMaxPoolBackwardLowering(t *testing.T) {
	// Overlapping windows with padding and ceil_mode (up to 2x2 candidate
	// windows per element, unbatched), windows with gaps between them
	// (stride 3 > kernel 2: some elements are in no window) and the plain
	// 2x2/2 case of corpus 101. Ties and NaNs pick the first maximum and
	// the last NaN, so gradients pile up on a few elements.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 7, 6][42, 6, 1]cpu", g1: "f32[2, 4, 4][16, 4, 1]cpu", y: "f32[1, 2, 8, 8][128, 64, 8, 1]cpu", g2: "f32[1, 2, 3, 3][18, 9, 3, 1]cpu", g3: "f32[1, 2, 4, 4][32, 16, 4, 1]cpu"):
        mp1 = torch.ops.aten.max_pool2d_with_indices.default(x, [3, 3], [2, 2], [1, 1], [1, 1], True)
        i1 = mp1[1]
        b1 = torch.ops.aten.max_pool2d_with_indices_backward.default(g1, x, [3, 3], [2, 2], [1, 1], [1, 1], True, i1)
        mp2 = torch.ops.aten.max_pool2d_with_indices.default(y, [2, 2], [3, 3])
        i2 = mp2[1]
        b2 = torch.ops.aten.max_pool2d_with_indices_backward.default(g2, y, [2, 2], [3, 3], [0, 0], [1, 1], False, i2)
        mp3 = torch.ops.aten.max_pool2d_with_indices.default(y, [2, 2])
        i3 = mp3[1]
        b3 = torch.ops.aten.max_pool2d_with_indices_backward.default(g3, y, [2, 2], [], [0, 0], [1, 1], False, i3)
        return (b1, b2, b3)
`
	p := checkLoweringFloats(t, src, map[string][]float64{"x": tiedWithNaNs(84, 7, 8, 29), "y": tiedWithNaNs(128, 3)})
	var back []*lowering.Kernel
	for _, k := range p.Kernels {
		if strings.HasPrefix(k.Origins[0], "b") {
			back = append(back, k)
		}
	}
	require.Len(t, back, 3, "%s", p)
	for i, k := range back {
		assert.Equal(t, lowering.KernelPointwise, k.Kind(), "b%d", i+1)
	}
	// Candidate windows per element: 2x2 for k=3/s=2, 1 otherwise.
	assert.Equal(t, 4, strings.Count(back[0].String(), "= eq("), "%s", back[0])
	assert.Equal(t, 1, strings.Count(back[1].String(), "= eq("), "%s", back[1])
	assert.Equal(t, 1, strings.Count(back[2].String(), "= eq("), "%s", back[2])
}

func TestMaxPoolBackwardFused(t *testing.T) {
	// corpus 101's shape: relu -> max pool; backward max pool then
	// threshold_backward, which fuses into the pool backward's kernel.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 8, 8][192, 64, 8, 1]cpu", g: "f32[2, 3, 4, 4][48, 16, 4, 1]cpu"):
        relu = torch.ops.aten.relu.default(x)
        mp = torch.ops.aten.max_pool2d_with_indices.default(relu, [2, 2], [2, 2])
        i = mp[1]
        b = torch.ops.aten.max_pool2d_with_indices_backward.default(g, relu, [2, 2], [2, 2], [0, 0], [1, 1], False, i)
        tb = torch.ops.aten.threshold_backward.default(b, relu, 0)
        return (tb,)
`
	p := checkFused(t, src, nil)
	var origins [][]string
	for _, k := range p.Kernels {
		origins = append(origins, k.Origins)
	}
	assert.Contains(t, origins, []string{"b", "tb"}, "%s", p)
}

func TestMaxPoolBackwardRefusals(t *testing.T) {
	// Where Inductor calls ATen's kernel kiln says so: dilation, and more
	// than 25 candidate windows per element (kernel 6, stride 1: 6x6).
	for _, tc := range []struct{ args, want string }{
		{"[2, 2], [2, 2], [0, 0], [2, 2], False", "dilation"},
		{"[6, 6], [1, 1], [0, 0], [1, 1], False", "6x6 candidate windows"},
	} {
		src := `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1, 1, 8, 8][64, 64, 8, 1]cpu", g: "f32[1, 1, 3, 3][9, 9, 3, 1]cpu", i: "i64[1, 1, 3, 3][9, 9, 3, 1]cpu"):
        b = torch.ops.aten.max_pool2d_with_indices_backward.default(g, x, ` + tc.args + `, i)
        return (b,)
`
		g := compile(t, "refuse.fx", src, defaultPipeline)
		_, err := lowering.Lower(g, lowering.Options{})
		require.Error(t, err)
		assert.True(t, lowering.IsNoLowering(err), "%v", err)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), "Inductor calls ATen's kernel")
	}
}

// TestPoolBackwardEager: the lowered kernels, evaluated on the inputs
// PyTorch ran (testdata/training/eager/{max_pool,avg_pool}, written by
// tools/graphgen/training_step.py: corpus 101's 2x2/2, overlapping windows
// with padding, ceil_mode and ties, stride 3 > kernel 2, count_include_pad
// both ways, divisor_override, bf16), give PyTorch's eager gradients.
func TestPoolBackwardEager(t *testing.T) {
	for name, kernels := range map[string]int{"max_pool": 4, "avg_pool": 5} {
		t.Run(name, func(t *testing.T) {
			dir := "../testdata/training/eager/" + name
			src, err := os.ReadFile(filepath.Join(dir, "graph.fx"))
			require.NoError(t, err)
			g, p, inputs := lowerChecked(t, string(src), checkOpts{override: func(_ string, tt *interp.Tensor) *interp.Tensor { return tt }})
			for i, v := range g.Inputs {
				x, err := interp.LoadNPY(filepath.Join(dir, fmt.Sprintf("in_%d.npy", i)), v.Type.Tensor.DType)
				require.NoError(t, err, v.Name)
				inputs[i] = x
			}
			require.Len(t, p.Kernels, kernels)
			e := newLoopEval(t, p, nil, inputs)
			require.Empty(t, e.run(p))
			for i, r := range p.Outputs {
				want, err := interp.LoadNPY(filepath.Join(dir, fmt.Sprintf("out_%d.npy", i)), r.Layout.DType)
				require.NoError(t, err)
				e.compare(r.Name, r.Layout.DType, want.Floats(), e.gather(r.Buffer, r.Layout))
			}
		})
	}
}

func TestAvgPoolBackwardLowering(t *testing.T) {
	// Padding with and without count_include_pad, ceil_mode windows that
	// overhang the padded input, divisor_override, unbatched and stride 3
	// > kernel 2 (elements in no window): each one pointwise kernel,
	// checked against interp (ATen's CPU divisors).
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, g: "f32[2, 3, 4, 4][48, 16, 4, 1]cpu", x: "f32[2, 3, 7, 6][126, 42, 6, 1]cpu", gu: "f32[3, 4, 3][12, 3, 1]cpu", xu: "f32[3, 7, 6][42, 6, 1]cpu", g3: "f32[2, 3, 2, 2][12, 4, 2, 1]cpu"):
        a = torch.ops.aten.avg_pool2d_backward.default(g, x, [3, 3], [2, 2], [1, 1], True, True, None)
        b = torch.ops.aten.avg_pool2d_backward.default(g, x, [3, 3], [2, 2], [1, 1], True, False, None)
        c = torch.ops.aten.avg_pool2d_backward.default(gu, xu, [3, 2], [2, 2], [1, 0], False, False, 5)
        d = torch.ops.aten.avg_pool2d_backward.default(g3, x, [2, 2], [3, 3], [0, 0], False, True, None)
        return (a, b, c, d)
`
	p := checkLowering(t, src, nil)
	require.Len(t, p.Kernels, 4)
	for _, k := range p.Kernels {
		assert.Equal(t, lowering.KernelPointwise, k.Kind())
	}
}
