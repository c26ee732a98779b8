package rt

import (
	"bufio"
	"math"
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
