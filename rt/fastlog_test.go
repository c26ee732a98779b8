package rt

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// fastLogFns are fastlog.go's and fasttrig.go's functions with Go's float64 twins and the
// bound measured against them (ulp of the float32 result).
var fastLogFns = map[string]struct {
	f      func(float32) float32
	ref    func(float64) float64
	maxUlp float64
}{
	"log":   {LogF32, math.Log, 0.75},
	"log1p": {Log1pF32, math.Log1p, 0.75},
	"expm1": {Expm1F32, math.Expm1, 0.77},
	"sin":   {SinF32, math.Sin, 0.75},
	"cos":   {CosF32, math.Cos, 0.75},
}

// TestFastLogSweep: every 4099th float32 bit pattern (both signs,
// subnormals, infinities, NaNs) against Go's float64 functions: within
// the stated bound (worst seen over every 101st pattern: log 0.735, log1p
// 0.742, expm1 0.761, sin 0.719, cos 0.708 ulp), infinities and NaNs where
// float64's are.
func TestFastLogSweep(t *testing.T) {
	for name, fn := range fastLogFns {
		worst := 0.0
		for b := uint64(0); b < 1<<32; b += 4099 {
			x := math.Float32frombits(uint32(b))
			got, want := fn.f(x), fn.ref(float64(x))
			e := ulpErr(got, want)
			require.LessOrEqual(t, e, fn.maxUlp, "%s(%v = %08x) = %v, float64 %v", name, x, uint32(b), got, want)
			worst = max(worst, e)
		}
		t.Logf("%s: worst %.3f ulp", name, worst)
	}
}

// TestFastLogSpecials: where PyTorch's float32 result (testdata) is ±0,
// ±Inf or NaN and so is its float64 result rounded to float32, these
// functions return it exactly (the sign of a zero included; any NaN for a
// NaN). One case differs and is left out by the second condition: torch's
// float32 log1p(1e-45) is 0, its float64 one 1e-45, which LogF32 returns.
func TestFastLogSpecials(t *testing.T) {
	cases := readFastmath(t)
	for name, fn := range fastLogFns {
		n := 0
		for _, c := range cases[name] {
			w := c.torch32
			special := func(v float32) bool { return v == 0 || math.IsInf(float64(v), 0) || v != v }
			if !special(w) || !special(float32(c.ref)) {
				continue
			}
			n++
			got := fn.f(c.x)
			if w != w {
				require.True(t, got != got, "%s(%v) = %v, torch NaN", name, c.x, got)
				continue
			}
			require.Equal(t, math.Float32bits(w), math.Float32bits(got), "%s(%v) = %v, torch %v", name, c.x, got, w)
		}
		require.NotZero(t, n, name)
	}
}
