package rt

import (
	"flag"
	"math"
	"sync"
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
	"log":   {LogF32, math.Log, 0.76},
	"log1p": {Log1pF32, math.Log1p, 0.77},
	"expm1": {Expm1F32, math.Expm1, 0.79},
	"sin":   {SinF32, math.Sin, 0.72},
	"cos":   {CosF32, math.Cos, 0.72},
}

var fastAll = flag.Bool("fastmath.all", false, "TestFastLogSweep: every float32, not every 4099th (minutes)")

// TestFastLogSweep: every 4099th float32 bit pattern (both signs,
// subnormals, infinities, NaNs; every one with -fastmath.all) against
// Go's float64 functions: within the stated bound, the worst over all
// 2^32 inputs (log 0.760, log1p 0.765, expm1 0.782, sin 0.719, cos 0.718
// ulp), infinities and NaNs where float64's are.
func TestFastLogSweep(t *testing.T) {
	step := uint64(4099)
	if *fastAll {
		step = 1
	}
	for name, fn := range fastLogFns {
		var mu sync.Mutex
		var wg sync.WaitGroup
		worst := 0.0
		for part := range uint64(2) { // two goroutines: -fastmath.all takes minutes
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := 0.0
				for b := part * step; b < 1<<32; b += 2 * step {
					x := math.Float32frombits(uint32(b))
					got, want := fn.f(x), fn.ref(float64(x))
					e := ulpErr(got, want)
					if e > fn.maxUlp {
						t.Errorf("%s(%v = %08x) = %v, float64 %v: %.3f ulp", name, x, uint32(b), got, want, e)
						return
					}
					w = max(w, e)
				}
				mu.Lock()
				worst = max(worst, w)
				mu.Unlock()
			}()
		}
		wg.Wait()
		t.Logf("%s: worst %.3f ulp", name, worst)
	}
}

// TestFastLogSpecials: where PyTorch's float32 result (testdata) is ±0,
// ±Inf or NaN and so is its float64 result rounded to float32, these
// functions return it exactly (the sign of a zero included; any NaN for a
// NaN). One case differs and is left out by the second condition: torch's
// float32 log1p(1e-45) is 0, its float64 one 1e-45, which Log1pF32 returns.
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
