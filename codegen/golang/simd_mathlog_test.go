package golang

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/stretchr/testify/require"
)

// TestSIMDMathSweep: the lane expansions of rt's float32 log, log1p,
// expm1, sin and cos (simd_mathlog.go, simd_mathtrig.go) give the scalar
// functions' bits on every 65521st of the 2^32 bit patterns (NaNs,
// infinities, subnormals, both signs) with the specials, and on values up
// to ±2^16 in rows of their own (sin and cos off their fallback), in the
// SIMD build (16 lanes where the CPU has AVX-512), the same binary on 8
// lanes and with KILN_SIMD=off, and a scalar build; and they are within 1
// ulp of interp's float64 functions (exactly where interp's value is 0,
// infinite or NaN).
func TestSIMDMathSweep(t *testing.T) {
	goBin := goTool(t)
	fns := []string{"log", "log1p", "expm1", "sin", "cos"}
	rows, cols := 1024, 65
	ann := fmt.Sprintf(`"f32[%d, %d][%d, 1]cpu"`, rows, cols, cols)
	var lines, outs []string
	for _, fn := range fns {
		lines = append(lines, fmt.Sprintf("        %s_1: %s = torch.ops.aten.%s.default(x)", fn, ann, fn))
		outs = append(outs, fn+"_1")
	}
	src := fmt.Sprintf("class GraphModule(torch.nn.Module):\n    def forward(self, x: %s):\n%s\n        return (%s,)\n",
		ann, strings.Join(lines, "\n"), strings.Join(outs, ", "))
	c, dir, lanes := simdModule(t, src)
	for fn, step := range map[string]string{"log": "_tiny :=", "log1p": "_u0 :=", "expm1": "_chi :=", "sin": "_sin :=", "cos": "_cos :="} {
		require.True(t, strings.Contains(lanes, step), "%s runs on lanes", fn)
	}
	n := len(simdSpecials)
	x := f32Bits([]int64{int64(rows), int64(cols)}, func(i int) uint32 {
		if i >= rows*cols/2 { // ordinary values up to ±2^16 (sin and cos off their fallback)
			frac := float64(uint32(uint64(i)*2654435761)) / (1 << 32)
			return math.Float32bits(float32(math.Ldexp(2*frac-1, i%18-1)))
		}
		if i%11 == 5 {
			return simdSpecials[i%n]
		}
		return uint32(uint64(i) * 65521)
	})
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	simd, variants := simdVariants(t, goBin, dir, in, len(fns))
	for name, got := range variants {
		for o := range got {
			requireSameBits(t, simd[o], got[o], func(int) bool { return false }, "%s: simd vs %s", fns[o], name)
		}
	}
	res, err := interp.Run(c.g, []any{x}, interp.Options{})
	require.NoError(t, err)
	for o, fn := range fns {
		requireWithinUlp(t, bitsOf(res.Outputs[o].(*interp.Tensor)), simd[o], 1, "interp vs simd, %s", fn)
	}
}
