package golang

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
)

// TestSIMDFold16: a sum over rows whose body is heavy (softplus through
// log1p and exp) and a plain sum compute 16 elements at a time where the
// CPU has AVX-512, folding the halves into the 8-lane loop's two
// accumulators: the SIMD build gives the bits of the same binary on 8
// lanes (KILN_SIMD=avx2), and interp's values within tolerance. Rows of
// 45 leave a 16-block, an 8-lane step and a scalar tail; a max reduction
// keeps its 8-lane loop.
func TestSIMDFold16(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[7, 45][45, 1]cpu"):
        exp: "f32[7, 45][45, 1]cpu" = torch.ops.aten.exp.default(x)
        log1p: "f32[7, 45][45, 1]cpu" = torch.ops.aten.log1p.default(exp)
        sum_1: "f32[7][1]cpu" = torch.ops.aten.sum.dim_IntList(log1p, [1])
        sum_2: "f32[7][1]cpu" = torch.ops.aten.sum.dim_IntList(x, [1])
        amax: "f32[7][1]cpu" = torch.ops.aten.amax.default(x, [1])
        return (sum_1, sum_2, amax)
`
	c, dir, lanes := simdModule(t, src)
	require.Contains(t, lanes, "Lanes16(", "the sums run 16 elements at a time:\n%s", lanes)
	require.Regexp(t, `acc\d+B = acc\d+B.Add\(v\d+Hi\)`, lanes, "the high half into the second step's accumulator")
	shape := []int64{7, 45}
	x := f32Bits(shape, func(i int) uint32 {
		if i < 45 && i%13 == 5 { // specials in the first row only: the other rows' sums are finite
			return simdSpecials[i%len(simdSpecials)]
		}
		return math.Float32bits(float32(math.Sin(float64(i)*0.37) * 30))
	})
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	simd, others := simdVariants(t, goBin, dir, in, 3)
	for o := range simd {
		requireSameBits(t, others["simd-avx2"][o], simd[o], func(int) bool { return false }, "16 lanes vs 8, output %d", o)
	}
	requireCloseToInterp(t, c, x, simd)
}
