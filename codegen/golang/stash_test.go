package golang

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/stretchr/testify/require"
)

// TestStashAndRowExtrema: softmax over rows computes each exp once (the
// sum's stage stashes it, the last stage reads it back), and amax/amin
// over rows take one VMAXPS/VMINPS a step on lanes; the same
// binary with KILN_SIMD=off and a scalar build agree bit for bit on
// softmax (the SIMD build's sums add in another order: within
// tolerance), and on the extrema's values (NaN or not, the sign of a zero:
// Go's max(-0, +0) is +0), and all agree with interp up to the sign of
// a zero. Rows of 45 are five
// 8-lane steps and a 5-element scalar tail.
func TestStashAndRowExtrema(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[6, 45][45, 1]cpu"):
        soft: "f32[6, 45][45, 1]cpu" = torch.ops.aten._softmax.default(x, 1, False)
        amax: "f32[6][1]cpu" = torch.ops.aten.amax.default(x, [1])
        amin: "f32[6][1]cpu" = torch.ops.aten.amin.default(x, [1])
        return (soft, amax, amin)
`
	c, dir, lanes := simdModule(t, src)
	main, err := os.ReadFile(filepath.Join(dir, "graphs", "simd_ops", "simd_ops.go"))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(main), "rt.ExpF32("), "softmax's scalar loops compute exp once:\n%s", main)
	require.Contains(t, string(main), "rt.AllocBuffer(16 * int64(45) * 4)", "a stash for a row of 45 (16 rows for column lanes)")
	withExp := 0
	for _, fn := range strings.Split(lanes, "\nfunc ")[1:] {
		if strings.Contains(fn, ".ConvertToInt32()") || strings.Contains(fn, "rt.ExpShiftSum(") {
			withExp++
		}
	}
	require.Equal(t, 1, withExp, "one lane loop computes exp (the sum's):\n%s", lanes)
	require.Regexp(t, `acc\d+ = acc\d+\.Max\(`, lanes)
	require.Regexp(t, `acc\d+ = acc\d+\.Min\(`, lanes)

	const rows, cols = 6, 45
	vals := make([]float32, rows*cols)
	negZero := float32(math.Copysign(0, -1))
	for i := range vals {
		vals[i] = float32(math.Sin(float64(i)*0.37) * 3)
	}
	row := func(r int) []float32 { return vals[r*cols : (r+1)*cols] }
	for i := range row(1) { // zeros of both signs: max +0, min -0
		row(1)[i] = negZero
	}
	row(1)[20] = 0
	for i := range row(2) { // -0 only: max -0 (and min)
		row(2)[i] = negZero
	}
	for i := range row(3) { // +0 with one -0 in the tail: min -0
		row(3)[i] = 0
	}
	row(3)[43] = negZero
	row(4)[11] = float32(math.NaN())
	row(5)[42] = float32(math.Inf(1))
	row(5)[3] = float32(math.Inf(-1))
	x := f32Bits([]int64{rows, cols}, func(i int) uint32 { return math.Float32bits(vals[i]) })
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	simd, variants := simdVariants(t, goBin, dir, in, 3)
	res, err := interp.Run(c.g, []any{x}, interp.Options{})
	require.NoError(t, err)
	for name, got := range variants {
		if name == "scalar" { // the lanes' sums add in another order
			requireSameBits(t, got[0], variants["simd-off"][0], func(int) bool { return false }, "softmax: scalar vs simd-off")
		}
		for o := 1; o < 3; o++ {
			requireSameBits(t, got[o], simd[o], func(int) bool { return true }, "output %d: simd vs %s", o, name)
		}
	}
	require.Equal(t, uint32(0), simd[1][1], "max(-0, …, +0, …) = +0")
	require.Equal(t, uint32(0x80000000), simd[1][2], "max of -0s = -0")
	require.Equal(t, uint32(0x80000000), simd[2][3], "min(+0, …, -0) = -0")
	require.True(t, isNaNBits(simd[1][4]) && isNaNBits(simd[2][4]), "a NaN in the row")
	require.Equal(t, math.Float32bits(float32(math.Inf(1))), simd[1][5])
	require.Equal(t, math.Float32bits(float32(math.Inf(-1))), simd[2][5])
	// interp (and PyTorch, whose amax of zeros keeps whichever sign its
	// vector order meets) agree up to the sign of a zero.
	for o := range simd {
		want := res.Outputs[o].(*interp.Tensor)
		require.Nil(t, interp.Compare(want, f32Bits(want.Shape, func(i int) uint32 { return simd[o][i] }), interp.DefaultTolerance), "output %d", o)
	}
}
