package golang

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
)

// TestSIMDWideColumns: reductions over a middle dimension whose rows are
// long enough (sum of a product, softmax, amax, amin) run whole rows of
// outputs on wide column lanes (<kernel>Wide: rows outer, 8-lane pieces
// inner, accumulators in rows); a softmax over 300 rows keeps its stash
// small by running 48 outputs, not 128. The SIMD build, the same binary
// with KILN_SIMD=off and a scalar build give the same bits (each lane
// adds in the scalar order), and interp's values are within
// assert_close's tolerance. Rows of 83 and 50 leave tails of 3 and 2 to
// the scalar loop. NaNs in the first batch of x send softmax's max and
// the amin to their exact lanes, and so do columns of x whose minimum is
// a zero (+0 and -0 in them) in the second: without that, the NaNs'
// payloads and a zero's sign differ. (amax shares a stage with a store,
// so it always runs on the exact lanes.) Both widths are whole 16-lane
// pieces, so on a CPU with AVX-512 the 16-lane twins run, and the 8-lane
// functions in the KILN_SIMD=avx2 variant.
func TestSIMDWideColumns(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 6, 83][498, 83, 1]cpu", y: "f32[2, 300, 50][15000, 50, 1]cpu"):
        mul: "f32[3, 6, 83][498, 83, 1]cpu" = torch.ops.aten.mul.Tensor(x, 2)
        sum_1: "f32[3, 83][83, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [1])
        soft: "f32[3, 6, 83][498, 83, 1]cpu" = torch.ops.aten._softmax.default(x, 1, False)
        amax: "f32[3, 83][83, 1]cpu" = torch.ops.aten.amax.default(x, [1])
        amin: "f32[3, 83][83, 1]cpu" = torch.ops.aten.amin.default(x, [1])
        soft_y: "f32[2, 300, 50][15000, 50, 1]cpu" = torch.ops.aten._softmax.default(y, 1, False)
        return (sum_1, soft, amax, amin, soft_y)
`
	c, dir, lanes := simdModule(t, src)
	require.Contains(t, lanes, "Wide(v", "the reductions run on wide column lanes:\n%s", lanes)
	require.Contains(t, lanes, "x1+80 > int64(83)", "x's rows: 80 outputs a call")
	require.Contains(t, lanes, "x1+48 > int64(50)", "y's softmax: 48 outputs, its stash 48·300 floats")
	require.Regexp(t, `acc\d+ = acc\d+.Max\(v\d+\)\n\s*q\d+ = q\d+.Or\(`, lanes, "a max on VMAXPS with a record of NaNs")
	require.Regexp(t, `acc\d+ = rt.MaxF32x8\(acc\d+, v\d+, sign\)\n\s*acc\d+.Store\(\(\*\[8\]float32\)\(a\d+\[j:\]`, lanes,
		"then on the exact lanes, the accumulator in its row")
	require.Regexp(t, `acc\d+ = rt.MaxF32x16\(acc\d+, v\d+, sign\)\n\s*acc\d+.Store\(\(\*\[16\]float32\)\(a\d+\[j:\]`, lanes,
		"80 and 48 outputs are whole 16-lane pieces: a 16-lane twin runs them where the CPU has AVX-512")

	xs, ys := []int64{3, 6, 83}, []int64{2, 300, 50}
	x := f32Bits(xs, func(i int) uint32 {
		row, col := (i/83)%6, i%83
		switch {
		case i < 498 && i%17 == 3:
			return simdSpecials[i%len(simdSpecials)]
		case i >= 498 && i < 996 && col >= 5 && col <= 8 && (row == 2 || row == 4):
			// -0 then +0 in columns 5 and 7, +0 then -0 in 6 and 8: VMAXPS
			// and VMINPS pick a zero by operand order
			return map[bool]uint32{true: 0x80000000, false: 0}[(row == 2) == (col%2 == 1)]
		case i >= 498 && i < 996 && (col == 5 || col == 6):
			return math.Float32bits(-1 - float32(row)) // maximum a zero
		case i >= 498 && i < 996 && (col == 7 || col == 8):
			return math.Float32bits(1 + float32(row)) // minimum a zero
		}
		return math.Float32bits(float32(math.Sin(float64(i)*0.7) * 4))
	})
	y := f32Bits(ys, func(i int) uint32 { return math.Float32bits(float32(math.Cos(float64(i)*0.37) * 6)) })
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "y.npy"), y))
	simd, others := simdVariants(t, goBin, dir, in, 5)
	requireVariantsSame(t, simd, others)
	res, err := interp.Run(c.g, []any{x, y}, interp.Options{})
	require.NoError(t, err)
	for o := range simd {
		want := res.Outputs[o].(*interp.Tensor)
		got := f32Bits(want.Shape, func(i int) uint32 { return simd[o][i] })
		require.Nil(t, interp.Compare(want, got, interp.DefaultTolerance), "output %d", o)
	}
}

// A sum over dims 0 and 1 nests two reduce loops, r0 and r1, and its lane
// accumulators were named r<ID> too: with the reduce's ID 1 the SIMD
// build did not compile ("r1.Add undefined (type int64 ...)"; found by
// the decomposed layer-norm backward's weight gradient). Lane
// accumulators are acc<ID> now; the SIMD build, KILN_SIMD=off and the
// scalar build agree bit for bit, and interp within tolerance.
func TestSIMDColumnsNestedReduceLoops(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 16, 64][1024, 64, 1]cpu"):
        sum_1: "f32[64][1]cpu" = torch.ops.aten.sum.dim_IntList(x, [0, 1]);  x = None
        return (sum_1,)
`
	c, dir, lanes := simdModule(t, src)
	require.Contains(t, lanes, "for r1 := int64(0); r1 < int64(16); r1++ {")
	require.Contains(t, lanes, "acc1 = acc1.Add(v0)")
	x := f32Bits([]int64{2, 16, 64}, func(i int) uint32 { return math.Float32bits(float32(math.Sin(float64(i)*0.3) * 3)) })
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	simd, others := simdVariants(t, goBin, dir, in, 1)
	for name, got := range others {
		requireSameBits(t, got[0], simd[0], func(int) bool { return false }, "simd vs %s", name)
	}
	requireCloseToInterp(t, c, x, simd[:1])
}
