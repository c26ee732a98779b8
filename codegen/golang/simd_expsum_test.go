package golang

import (
	"math"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/stretchr/testify/require"
)

// TestExpShiftSum: softmax's sum of exp(x - max) (stored to its stash) and
// log_softmax's (not stored) run in rt.ExpShiftSum, and the module gives
// the bits the same loops give as Go lanes (the generator with the
// assembly turned off), NaN payloads aside, on rows that take the exp
// shortcut, rows whose exp underflows (the whole function), NaNs and
// infinities; and interp's values within tolerance. Rows of 61 are three
// pairs of 8-lane blocks, a last block of 8 and a scalar tail of 5.
func TestExpShiftSum(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[7, 61][61, 1]cpu"):
        soft: "f32[7, 61][61, 1]cpu" = torch.ops.aten._softmax.default(x, 1, False)
        lsm: "f32[7, 61][61, 1]cpu" = torch.ops.aten._log_softmax.default(x, 1, False)
        return (soft, lsm)
`
	c, dir, lanes := simdModule(t, src)
	require.Regexp(t, regexp.MustCompile(`rt\.ExpShiftSum\(a\d+, a\d+, sv\d+, `), lanes, "softmax's sum, stored")
	require.Regexp(t, regexp.MustCompile(`rt\.ExpShiftSum\(a\d+, nil, sv\d+, `), lanes, "log_softmax's sum, not stored")

	expShiftSumOn = false
	_, goDir, goLanes := simdModule(t, src)
	expShiftSumOn = true
	require.NotContains(t, goLanes, "ExpShiftSum")

	const rows, cols = 7, 61
	x := f32Bits([]int64{rows, cols}, func(i int) uint32 {
		r, j := i/cols, i%cols
		v := math.Sin(float64(i)*0.37) * 3
		switch {
		case r == 1: // a spread of 300: most exps underflow
			v = -300 * float64(j) / cols
		case r == 2 && j == 17:
			v = math.NaN()
		case r == 3 && j == 40:
			v = math.Inf(1)
		case r == 4 && j%9 == 0:
			v = math.Inf(-1)
		case r == 5: // large values whose differences stay small
			v = 80 + float64(j)*0.01
		}
		return math.Float32bits(float32(v))
	})
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	bins := t.TempDir()
	asm := runVariant(t, buildVariant(t, goBin, dir, filepath.Join(bins, "asm"), "GOEXPERIMENT=simd"), in, 2)
	lanesGo := runVariant(t, buildVariant(t, goBin, goDir, filepath.Join(bins, "go"), "GOEXPERIMENT=simd"), in, 2)
	for o := range asm {
		requireSameBits(t, lanesGo[o], asm[o], func(int) bool { return true }, "output %d: assembly vs Go lanes", o)
	}
	requireCloseToInterp(t, c, x, asm)
}
