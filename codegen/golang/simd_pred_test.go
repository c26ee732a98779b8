package golang

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/stretchr/testify/require"
)

// TestSIMDIndexPredicate: scatters into a slice and a column of a
// clone (slice_scatter and select_scatter lowered as one kernel over the
// base, choosing by an index comparison) run on lanes over the blocks
// where the comparison is uniform: the copied blocks go on lanes, the
// blocks the slice starts or ends in and the gathered ones stay scalar.
// The SIMD build, the same binary with KILN_SIMD=off, a scalar build and
// interp give the same bits, NaN payloads included (the rows hold the
// specials). Rows of 150: the column is 9, the slice 70:90 starts and ends
// inside blocks of 8; elements 16-47 and 96-127 are blocks of 32 where
// both conditions are uniform (four steps on lanes), the rest blocks of
// 8. A bias added to the slice scatter is a broadcast every case reads.
func TestSIMDIndexPredicate(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[5, 150][150, 1]cpu", y: "f32[5, 20][20, 1]cpu", b: "f32[5, 1][1, 1]cpu"):
        mul: "f32[5, 20][20, 1]cpu" = torch.ops.aten.mul.Tensor(y, 2)
        slice_scatter: "f32[5, 150][150, 1]cpu" = torch.ops.aten.slice_scatter.default(x, mul, 1, 70, 90)
        select: "f32[5][150]cpu" = torch.ops.aten.select.int(x, 1, 9)
        mul_1: "f32[5][1]cpu" = torch.ops.aten.mul.Tensor(select, 3)
        select_scatter: "f32[5, 150][150, 1]cpu" = torch.ops.aten.select_scatter.default(x, mul_1, 1, 9)
        biased: "f32[5, 150][150, 1]cpu" = torch.ops.aten.add.Tensor(slice_scatter, b)
        return (slice_scatter, select_scatter, biased)
`
	c, dir, lanes := simdModule(t, src)
	// Fused into one kernel: a case per pair of conditions, the blocks
	// outside both copying x on lanes.
	require.Contains(t, lanes, "break lanes // a condition changes inside the block", "the scatters run on lanes:\n%s", lanes)
	require.Contains(t, lanes, "break wide // a condition changes inside the block", "blocks of 32 first:\n%s", lanes)
	require.Equal(t, 8, strings.Count(lanes, "\tcase "), "four cases in each loop:\n%s", lanes)

	n := len(simdSpecials)
	x := f32Bits([]int64{5, 150}, func(i int) uint32 {
		if i%7 == 2 {
			return simdSpecials[i%n]
		}
		return math.Float32bits(float32(math.Sin(float64(i)*0.3) * 5))
	})
	y := f32Bits([]int64{5, 20}, func(i int) uint32 { return simdSpecials[(3*i)%n] })
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "y.npy"), y))
	b := f32Bits([]int64{5, 1}, func(i int) uint32 { return math.Float32bits(float32(i) - 1.5) })
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "b.npy"), b))
	simd, variants := simdVariants(t, goBin, dir, in, 3)
	res, err := interp.Run(c.g, []any{x, y, b}, interp.Options{})
	require.NoError(t, err)
	variants["interp"] = [][]uint32{bitsOf(res.Outputs[0].(*interp.Tensor)), bitsOf(res.Outputs[1].(*interp.Tensor)), bitsOf(res.Outputs[2].(*interp.Tensor))}
	for name, got := range variants {
		for o := range got {
			// interp may return another NaN for 2·NaN; copies keep bits
			requireSameBits(t, got[o], simd[o], func(int) bool { return name == "interp" }, "output %d: simd vs %s", o, name)
		}
	}
}
