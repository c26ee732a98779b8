package lowering_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/lowering"
)

// Pooling lowers to reduction kernels over the window; every case runs
// the program against interp on the same inputs.

// tiedWithNaNs is n values with many ties (so "first maximum" matters) and
// NaNs at the given positions (so "last NaN" matters).
func tiedWithNaNs(n int, nans ...int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64((i*5)%7%3 - 1)
	}
	for _, i := range nans {
		out[i] = math.NaN()
	}
	return out
}

func TestMaxPoolWithIndicesLowering(t *testing.T) {
	// Unbatched [C, H, W], padding, dilation and ceil_mode: windows hang
	// over every edge. Positions 7 and 8 (row 1, cols 1 and 2) are two NaNs
	// in one window; 29 a lone one.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 5, 6][30, 6, 1]cpu"):
        mpi = torch.ops.aten.max_pool2d_with_indices.default(x, [3, 2], [2, 2], [1, 1], [1, 2], True)
        getitem = mpi[0]
        getitem_1 = mpi[1]
        return (getitem, getitem_1)
`
	p := checkLoweringFloats(t, src, map[string][]float64{"x": tiedWithNaNs(60, 7, 8, 29)})
	require.Len(t, p.Kernels, 1, "values and indices come from one kernel")
	k := p.Kernels[0]
	require.Len(t, k.Stages, 3, "max over the window, locate it, store")
	assert.Equal(t, lowering.KernelReduction, k.Kind())
	assert.Contains(t, k.String(), "reduce min", "first maximum")
	assert.Contains(t, k.String(), "isnan", "last NaN")
}

func TestMaxPoolOffsetsLowering(t *testing.T) {
	// The inductor low-memory form (corpus 009's): offsets within the
	// window, int8; bf16 values compare in float32 and store exactly.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[2, 3, 7, 7][147, 49, 7, 1]cpu"):
        relu = torch.ops.aten.relu.default(x)
        lm = torch.ops.prims._low_memory_max_pool_with_offsets.default(relu, [3, 3], [2, 2], [1, 1], [1, 1], False)
        getitem = lm[0]
        getitem_1 = lm[1]
        return (getitem, getitem_1)
`
	p := checkLoweringFloats(t, src, map[string][]float64{"x": tiedWithNaNs(294, 10, 11, 100)})
	dump := p.String()
	assert.Contains(t, dump, "store buf2[", "values")
	assert.Regexp(t, `cast\(tmp\d+\) : i8\n\s+store buf3\[`, dump, "offsets are int8")
}

func TestMaxPoolLowering(t *testing.T) {
	// Without padding or ceil_mode every window is inside: no guards. An
	// integer max pool fills with the dtype's minimum where guarded.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1, 2, 9, 9][162, 81, 9, 1]cpu", i: "i64[1, 4, 4][16, 4, 1]cpu"):
        mp = torch.ops.aten.max_pool2d.default(x, [3, 3], [3, 3])
        mpi = torch.ops.aten.max_pool2d.default(i, [2, 2], [], [1, 1])
        return (mp, mpi)
`
	vals := make([]int64, 16)
	for j := range vals {
		vals[j] = int64(j%5) - 3
	}
	p := checkLowering(t, src, map[string][]int64{"i": vals})
	require.Len(t, p.Kernels, 2)
	assert.NotContains(t, p.Kernels[0].String(), "where", "no padding: no guard")
	assert.Contains(t, p.Kernels[1].String(), "const -9223372036854775808 : i64")
}

func TestAvgPoolLowering(t *testing.T) {
	// count_include_pad divides by the window clipped to the padded input,
	// otherwise to the input; ceil_mode makes the last window overhang.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 7, 6][126, 42, 6, 1]cpu", h: "bf16[1, 2, 5, 5][50, 25, 5, 1]cpu"):
        inc = torch.ops.aten.avg_pool2d.default(x, [3, 2], [2, 2], [1, 1], True)
        exc = torch.ops.aten.avg_pool2d.default(x, [3, 3], [2, 2], [1, 1], True, False)
        plain = torch.ops.aten.avg_pool2d.default(h, [2, 2])
        return (inc, exc, plain)
`
	p := checkLowering(t, src, nil)
	require.Len(t, p.Kernels, 3)
	assert.Contains(t, p.Kernels[2].String(), "index 4 : f32", "no padding: a constant divisor")
}

func TestPoolRefusals(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1, 1, 4, 4][16, 16, 4, 1]cpu"):
        avg = torch.ops.aten.avg_pool2d.default(x, [2, 2], [2, 2], [0, 0], False, True, 3)
        return (avg,)
`
	g := compile(t, "refuse.fx", src, defaultPipeline)
	_, err := lowering.Lower(g, lowering.Options{})
	require.Error(t, err)
	assert.True(t, lowering.IsNoLowering(err), "%v", err)
	assert.True(t, strings.Contains(err.Error(), "divisor_override"), "%v", err)
}

func TestPoolFused(t *testing.T) {
	// A pointwise consumer of the pooled values fuses into the pool's
	// kernel as a stage after the window reductions (the producer relu,
	// over the input's larger space, stays apart); the fused program must
	// still agree with interp.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 6, 6][108, 36, 6, 1]cpu"):
        relu = torch.ops.aten.relu.default(x)
        mpi = torch.ops.aten.max_pool2d_with_indices.default(relu, [3, 3], [2, 2], [1, 1])
        getitem = mpi[0]
        getitem_1 = mpi[1]
        mul = torch.ops.aten.mul.Tensor(getitem, 2)
        avg = torch.ops.aten.avg_pool2d.default(relu, [2, 2], [2, 2], [1, 1], True)
        return (mul, getitem_1, avg)
`
	p := checkFused(t, src, nil)
	require.Len(t, p.Kernels, 3, "%s", p)
	assert.Equal(t, []string{"mpi", "mul"}, p.Kernels[1].Origins)
}
