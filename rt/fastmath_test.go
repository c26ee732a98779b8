package rt

import (
	"bufio"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fastCase is one line of testdata/fastmath.txt (tools/fastmath/gen.py):
// an input, PyTorch's float32 result and its float64 result.
type fastCase struct {
	x, torch32 float32
	ref        float64
}

func readFastmath(t *testing.T) map[string][]fastCase {
	f, err := os.Open("testdata/fastmath.txt")
	require.NoError(t, err)
	defer f.Close()
	out := map[string][]fastCase{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		require.Len(t, fs, 4, line)
		xb, err1 := strconv.ParseUint(fs[1], 16, 32)
		yb, err2 := strconv.ParseUint(fs[2], 16, 32)
		ref, err3 := strconv.ParseFloat(fs[3], 64)
		require.NoError(t, err1)
		require.NoError(t, err2)
		require.NoError(t, err3, line)
		out[fs[0]] = append(out[fs[0]], fastCase{math.Float32frombits(uint32(xb)), math.Float32frombits(uint32(yb)), ref})
	}
	require.NoError(t, sc.Err())
	return out
}

// ulpErr is |got - ref| in units of float32's spacing at ref (the
// subnormal spacing below the normal range); 0 where both are the same
// infinity or NaN, +Inf where only one is.
func ulpErr(got float32, ref float64) float64 {
	g := float64(got)
	switch {
	case math.IsNaN(ref) || math.IsNaN(g):
		if math.IsNaN(ref) && math.IsNaN(g) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(ref, 0) || math.IsInf(g, 0) || math.Abs(ref) > math.MaxFloat32:
		if float32(ref) == got {
			return 0
		}
		return math.Inf(1)
	}
	a := math.Abs(ref)
	spacing := math.Ldexp(1, -149)
	if a >= 0x1p-126 {
		_, e := math.Frexp(a) // a = m·2^e, m in [0.5, 1)
		spacing = math.Ldexp(1, e-24)
	}
	return math.Abs(g-ref) / spacing
}

// TestFastMathAccuracy: ExpF32 and TanhF32 against PyTorch's float64
// results (ulp error, the measure Sleef's u10 bound uses) and against
// PyTorch's own float32 results, on inputs across each function's range.
func TestFastMathAccuracy(t *testing.T) {
	cases := readFastmath(t)
	fns := map[string]struct {
		f          func(float32) float32
		maxUlp     float64 // against float64
		maxVsTorch float64 // against torch's float32 result, in its ulp
	}{
		"exp":  {ExpF32, 1, 1},
		"tanh": {TanhF32, 1.5, 1},
		"erf":  {ErfF32, 1, 1},
		// measured: 0.657, 0.748, 0.700 ulp against float64; 1 ulp from
		// torch (torch's float32: 0.801, 1.000, 0.999 against float64)
		"log":   {LogF32, 0.75, 1},
		"log1p": {Log1pF32, 0.75, 1},
		"expm1": {Expm1F32, 0.75, 1},
		// measured: 0.598, 0.705 against float64 (torch's: 0.589, 0.597);
		// 1 ulp from torch
		"sin": {SinF32, 0.75, 1},
		"cos": {CosF32, 0.75, 1},
	}
	for name, fn := range fns {
		cs := cases[name]
		require.NotEmpty(t, cs, name)
		worst, worstTorch, torchWorst := 0.0, 0.0, 0.0
		for _, c := range cs {
			got := fn.f(c.x)
			e := ulpErr(got, c.ref)
			require.LessOrEqual(t, e, fn.maxUlp, "%s(%v) = %v, float64 %v", name, c.x, got, c.ref)
			worst = max(worst, e)
			d := ulpErr(got, float64(c.torch32))
			if !math.IsInf(d, 0) {
				worstTorch = max(worstTorch, d)
			}
			require.LessOrEqual(t, d, fn.maxVsTorch, "%s(%v) = %v, torch %v", name, c.x, got, c.torch32)
			torchWorst = max(torchWorst, ulpErr(c.torch32, c.ref))
		}
		t.Logf("%s: %d inputs; worst %.3f ulp against float64 (torch's float32: %.3f); worst %.3f ulp from torch",
			name, len(cs), worst, torchWorst, worstTorch)
	}
}

// fma32Exact is x·y + z rounded once to float32, through big.Float.
func fma32Exact(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(200).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetPrec(200).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetPrec(200).SetFloat64(float64(z)))
	f, _ := p.Float32() // nearest, ties to even; subnormals and overflow as IEEE
	return f
}

// TestFMA32RoundsOnce: FMA32 equals the exactly rounded x·y + z on random
// operands and on sums built to fall next to a float32 midpoint (a tiny z
// beside a product that is itself near one, and cancelling products),
// where rounding first to float64 would round twice.
func TestFMA32RoundsOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	f := func() float32 {
		return float32(r.NormFloat64() * math.Exp2(float64(r.IntN(60)-30)))
	}
	for i := range 300000 {
		x, y := f(), f()
		var z float32
		switch i % 4 {
		case 0:
			z = f()
		case 1: // cancel the product's float32 part: the rest decides
			z = -float32(float64(x) * float64(y))
		case 2: // a product on a float32 midpoint, and a z far below it:
			// the float64 sum is the midpoint itself, a tie the exact sum
			// is not (3·(1+2^-23) = 3 + 1.5 units of float32's last place)
			for {
				x, y = float32(2*r.IntN(8)+3), f()
				if isF32Midpoint(float64(x) * float64(y)) {
					break
				}
			}
			z = float32(float64(x) * float64(y) * 0x1p-40 * float64(1-2*(i/4%2)))
		default:
			z = float32(float64(x) * float64(y) * 0x1p-25)
		}
		want := fma32Exact(x, y, z)
		got := FMA32(x, y, z)
		require.Equal(t, math.Float32bits(want), math.Float32bits(got), "FMA32(%v, %v, %v)", x, y, z)
	}
	// The case above by hand: the float64 sum 3 + 1.5 units ties to even
	// (up), the exact sum is below the midpoint.
	x, y, z := float32(3), float32(1+0x1p-23), float32(-0x1p-60)
	require.Equal(t, math.Float32bits(3+0x1p-22), math.Float32bits(FMA32(x, y, z)))
	for _, c := range [][3]float32{{float32(math.Inf(1)), 0, 1}, {float32(math.NaN()), 1, 1}, {3e38, 3e38, -1},
		{1e-30, 1e-30, 0}, {-1e-30, 1e-30, 0}, {0x1p-75, 0x1p-75, 0x1p-149}} {
		want, got := fma32Exact2(c[0], c[1], c[2]), FMA32(c[0], c[1], c[2])
		require.True(t, math.Float32bits(want) == math.Float32bits(got) || want != want && got != got, "FMA32(%v)", c)
	}
}

// fma32Exact2 is fma32Exact where big.Float has no value (Inf, NaN).
func fma32Exact2(x, y, z float32) float32 {
	p := float64(x) * float64(y)
	if p-p != 0 || z-z != 0 {
		return float32(p + float64(z))
	}
	return fma32Exact(x, y, z)
}

// isF32Midpoint reports a float64 halfway between two adjacent normal
// float32 values.
func isF32Midpoint(p float64) bool {
	p = math.Abs(p)
	lo := float32(p)
	if float64(lo) == p || math.IsInf(float64(lo), 0) || p < 0x1p-126 {
		return false
	}
	if float64(lo) > p {
		lo = math.Nextafter32(lo, 0)
	}
	return (float64(lo)+float64(math.Nextafter32(lo, float32(math.Inf(1)))))/2 == p
}

// TestFMA32SlowAgrees: the path without hardware FMA gives the same bits
// as FMA32 on random and cancelling operands (and FMA32's own test holds
// it to the exact rounding).
func TestFMA32SlowAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	f := func() float32 { return float32(r.NormFloat64() * math.Exp2(float64(r.IntN(90)-45))) }
	for i := range 200000 {
		x, y, z := f(), f(), f()
		if i%3 == 0 {
			z = -float32(float64(x) * float64(y))
		}
		require.Equal(t, math.Float32bits(fma32Slow(x, y, z)), math.Float32bits(FMA32(x, y, z)), "%v·%v+%v", x, y, z)
	}
}

// TestErfSweep: ErfF32 within 1 ulp of float64 erf on every float32 in
// [1, 4.5) (the one-polynomial branch, and past where erf rounds to 1) and
// on every 61st in [2^-30, 1) (x·T(x²)).
func TestErfSweep(t *testing.T) {
	sweep := func(lo, hi float32, step uint32) {
		worst, at := 0.0, float32(0)
		for b := math.Float32bits(lo); b < math.Float32bits(hi); b += step {
			x := math.Float32frombits(b)
			if e := ulpErr(ErfF32(x), math.Erf(float64(x))); e > worst {
				worst, at = e, x
			}
		}
		t.Logf("erf on [%v, %v), every %d: worst %.3f ulp against float64, at %v", lo, hi, step, worst, at)
		require.LessOrEqual(t, worst, 1.0, "at %v", at)
	}
	sweep(1, 4.5, 1)
	sweep(0x1p-30, 1, 61)
}
