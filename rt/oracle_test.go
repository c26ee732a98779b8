package rt_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	. "github.com/kiln-compiler/kiln/rt"
	"github.com/stretchr/testify/require"
)

// Oracles for the scalar functions interp delegates to this package
// (floor division, remainder, pow, fmax/fmin, sign, sigmoid, abs), written
// from their definitions: exact rational or big-integer arithmetic where
// the result is exact, ATen's kernel steps in native precision where the
// rounding is ATen's, a tolerance only where rt documents one.

// floatPairs is every pair of the shared probes plus random pairs: small
// integers and halves (exact quotients), and random float32 bit patterns.
func floatPairs() (as, bs []float64) {
	for _, a := range probes {
		for _, b := range probes {
			as, bs = append(as, a), append(bs, b)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		as = append(as, float64(rng.IntN(4001)-2000)/2)
		bs = append(bs, float64(rng.IntN(81)-40)/4)
		as = append(as, float64(math.Float32frombits(rng.Uint32())))
		bs = append(bs, float64(math.Float32frombits(rng.Uint32())))
	}
	return as, bs
}

// divFloorATen is ATen's div_floor_floating (c10/util/generic_math.h),
// Python's float // made vectorizable, computed natively in T.
func divFloorATen[T float32 | float64](a, b T) T {
	if b == 0 {
		return a / b
	}
	mod := T(math.Mod(float64(a), float64(b))) // fmod is exact
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div -= 1
	}
	if div == 0 {
		return T(math.Copysign(0, float64(a/b)))
	}
	fl := T(math.Floor(float64(div)))
	if div-fl > 0.5 {
		fl += 1
	}
	return fl
}

// exactFloorDiv is floor(a/b) in exact arithmetic, reported only where
// ATen's steps are exact too: trunc(a/b)·b (= a - fmod(a, b)) representable
// in T, and |floor| ≤ 2^p, T's significand (then no step rounds). single
// selects float32 (p = 24) over float64 (p = 53).
func exactFloorDiv(a, b float64, single bool) (float64, bool) {
	if b == 0 || math.IsInf(a, 0) || math.IsInf(b, 0) || a != a || b != b {
		return 0, false
	}
	ra, rb := new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(b)
	q := new(big.Rat).Quo(ra, rb)
	trunc := new(big.Int).Quo(q.Num(), q.Denom())
	floor := new(big.Int).Div(q.Num(), q.Denom()) // Euclidean = floor, as Denom > 0
	p := uint(53)
	if single {
		p = 24
	}
	limit := new(big.Int).Lsh(big.NewInt(1), p)
	if new(big.Int).Abs(floor).Cmp(limit) > 0 || new(big.Int).Abs(trunc).Cmp(limit) > 0 {
		return 0, false
	}
	tb := new(big.Float).SetPrec(4096).SetRat(new(big.Rat).Mul(new(big.Rat).SetInt(trunc), rb))
	var acc big.Accuracy
	if single {
		_, acc = tb.Float32()
	} else {
		_, acc = tb.Float64()
	}
	if acc != big.Exact {
		return 0, false
	}
	if floor.Sign() == 0 { // ATen: copysign(0, a/b)
		if math.Signbit(a) != math.Signbit(b) {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	v, _ := new(big.Float).SetInt(floor).Float64()
	return v, true
}

func TestFloorDivFloatAgainstOracle(t *testing.T) {
	as, bs := floatPairs()
	exact := 0
	for i := range as {
		a, b := as[i], bs[i]
		a32, b32 := float32(a), float32(b)
		got64, got32 := FloorDivF64(a, b), FloorDivF32(a32, b32)
		require.True(t, sameBits(divFloorATen(a, b), got64), "f64 %v // %v: got %v", a, b, got64)
		require.True(t, sameFloat(divFloorATen(a32, b32), got32), "f32 %v // %v: got %v", a32, b32, got32)
		if want, ok := exactFloorDiv(a, b, false); ok {
			exact++
			require.True(t, sameBits(want, got64), "f64 %v // %v: floor %v, got %v", a, b, want, got64)
		}
		if want, ok := exactFloorDiv(float64(a32), float64(b32), true); ok {
			require.True(t, sameBits(want, float64(got32)), "f32 %v // %v: floor %v, got %v", a32, b32, want, got32)
		}
	}
	require.Greater(t, exact, len(as)/3, "the exact oracle must cover most pairs")
}

// remainderOracle is ATen's remainder: a - b·floor(a/b) exactly, rounded
// once (fmod is exact and fmod + b is one rounding); a zero result keeps
// a's sign (ATen does not copysign it to b, unlike Python's float %).
func remainderOracle(a, b float64) float64 {
	switch {
	case a != a || b != b || math.IsInf(a, 0) || b == 0:
		return math.NaN()
	case math.IsInf(b, 0):
		if a == 0 || math.Signbit(a) == math.Signbit(b) {
			return a
		}
		return b
	}
	ra, rb := new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(b)
	q := new(big.Rat).Quo(ra, rb)
	floor := new(big.Int).Div(q.Num(), q.Denom())
	r := new(big.Rat).Sub(ra, new(big.Rat).Mul(rb, new(big.Rat).SetInt(floor)))
	v, _ := r.Float64()
	if v == 0 {
		return math.Copysign(0, a)
	}
	return v
}

func TestRemainderAgainstOracle(t *testing.T) {
	as, bs := floatPairs()
	for i := range as {
		want, got := remainderOracle(as[i], bs[i]), Remainder(as[i], bs[i])
		require.True(t, sameBits(want, got), "%v %% %v: want %v, got %v", as[i], bs[i], want, got)
	}
}

// ulps is the distance between two float64 values in units of the last
// place of want (at least the smallest normal's, near underflow).
func ulps(want, got float64) float64 {
	if want == got || (want != want && got != got) {
		return 0
	}
	ulp := math.Max(math.Abs(want)*0x1p-52, 0x1p-1022)
	return math.Abs(want-got) / ulp
}

// powExact is a^n for integer n exactly, rounded to float64 once.
func powExact(a float64, n int) float64 {
	r := new(big.Rat).SetInt64(1)
	x := new(big.Rat).SetFloat64(a)
	for range max(n, -n) {
		r.Mul(r, x)
	}
	if n < 0 {
		if r.Sign() == 0 {
			return math.Inf(1) // callers skip a = 0
		}
		r.Inv(r)
	}
	v, _ := r.Float64()
	return v
}

// TestPowAgainstOracle: for the exponents ATen special-cases, exact
// values rounded once where rt (like ATen) computes them in one operation
// (a², 1/a, √a) and within an ulp where it takes two (a³, 1/a², 1/√a);
// elsewhere std::pow's definition: the C99 Annex F special values, exact
// integer powers within std::pow's few ulps, exp(b·log a) within 1e-12.
func TestPowAgainstOracle(t *testing.T) {
	as, bs := floatPairs()
	for _, a := range append(probes, 0.75, 1.5, 3.25, -0.3, 1e-5, 12345.678) {
		for _, b := range []float64{2, 3, -1, -2, 0.5, -0.5, 4, 5, -3} {
			as, bs = append(as, a), append(bs, b)
		}
	}
	for i := range as {
		a, b := as[i], bs[i]
		got := Pow(a, b)
		want, tol, ok := powOracle(a, b)
		if !ok {
			continue
		}
		if tol < 0 {
			require.InEpsilon(t, want, got, 1e-12, "pow(%v, %v)", a, b)
			continue
		}
		require.LessOrEqual(t, ulps(want, got), tol, "pow(%v, %v): want %v, got %v", a, b, want, got)
	}
}

// powTol is the ulps allowed per special-cased exponent: 0 for one
// rounding, 1 for two.
var powTol = map[float64]float64{2: 0, -1: 0, 0.5: 0, 3: 1, -2: 1, -0.5: 1}

// powOracle is pow's expected value and tolerance (ulps; -1 for relative
// 1e-12); ok is false where the oracle has nothing exact to say (results
// underflowing to subnormals, or past exp's range).
func powOracle(a, b float64) (want, tol float64, ok bool) {
	if b == 0.5 || b == -0.5 { // ATen: sqrt(a) and 1/sqrt(a), IEEE sqrt's specials
		switch { // IEEE sqrt: NaN below 0, √±0 = ±0, √inf = inf
		case a != a || a < 0:
			return math.NaN(), 0, true
		case a == 0 || math.IsInf(a, 1):
			if b < 0 {
				return 1 / a, 0, true
			}
			return a, 0, true
		}
		r := new(big.Float).SetPrec(256).Sqrt(new(big.Float).SetFloat64(a))
		if b < 0 {
			r.Quo(new(big.Float).SetPrec(256).SetInt64(1), r)
		}
		want, _ = r.Float64()
		return want, powTol[b], true
	}
	if w, ok := powSpecial(a, b); ok {
		return w, 0, true
	}
	switch {
	case a < 0 && b != math.Trunc(b):
		return math.NaN(), 0, true
	case b == math.Trunc(b) && math.Abs(b) <= 5:
		want = powExact(a, int(b))
		if math.Abs(want) < 0x1p-1000 || math.IsInf(want, 0) {
			return 0, 0, false
		}
		if t, ok := powTol[b]; ok {
			return want, t, true
		}
		return want, 4, true
	case a > 0 && math.Abs(b*math.Log(a)) < 700:
		return math.Exp(b * math.Log(a)), -1, true
	}
	return 0, 0, false
}

// powSpecial is pow's special-value table (C99 Annex F.9.4.4, which
// std::pow and Go's math.Pow follow); ok is false outside it.
func powSpecial(a, b float64) (float64, bool) {
	oddInt := b == math.Trunc(b) && math.Mod(b, 2) != 0 && !math.IsInf(b, 0)
	switch {
	case b == 0, a == 1:
		return 1, true
	case a != a || b != b:
		return math.NaN(), true
	case a == 0 && b < 0:
		if oddInt {
			return math.Copysign(math.Inf(1), a), true
		}
		return math.Inf(1), true
	case a == 0 && b > 0:
		if oddInt {
			return a, true
		}
		return 0, true
	case a == -1 && math.IsInf(b, 0):
		return 1, true
	case math.IsInf(b, 0):
		if (math.Abs(a) < 1) == (b < 0) {
			return math.Inf(1), true
		}
		return 0, true
	case math.IsInf(a, 0):
		if b < 0 {
			if a < 0 && oddInt {
				return math.Copysign(0, -1), true
			}
			return 0, true
		}
		if a < 0 && oddInt {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	return 0, false
}

// fmaxOracle is C's fmax: a NaN operand is ignored; +0 counts above -0
// (IEEE 754-2019 maximumNumber).
func fmaxOracle(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a == b:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func fminOracle(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a == b:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

// signOracle is ATen's CPU sign: -1, 0 or 1; +0 for ±0 and NaN.
func signOracle(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func TestFMaxFMinSignAgainstOracle(t *testing.T) {
	as, bs := floatPairs()
	for i := range as {
		a, b := as[i], bs[i]
		require.True(t, sameBits(fmaxOracle(a, b), FMax(a, b)), "fmax(%v, %v) = %v", a, b, FMax(a, b))
		require.True(t, sameBits(fminOracle(a, b), FMin(a, b)), "fmin(%v, %v) = %v", a, b, FMin(a, b))
		require.True(t, sameBits(signOracle(a), Sign(a)), "sign(%v) = %v", a, Sign(a))
	}
}

// sigmoidOracle is 1/(1+e^-x), evaluated as e^x/(1+e^x) for x < 0 (a
// different rounding path: no overflow of e^-x).
func sigmoidOracle(x float64) float64 {
	if x < 0 {
		e := math.Exp(x)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(-x))
}

// TestSigmoidAgainstOracle: exact at 0 and ±inf, NaN for NaN, within 4
// ulps of the oracle in float64 and 1 ulp in float32 (rt documents
// transcendental results as within an ulp of PyTorch's).
func TestSigmoidAgainstOracle(t *testing.T) {
	require.Equal(t, 0.5, Sigmoid(0))
	require.Equal(t, 1.0, Sigmoid(math.Inf(1)))
	require.Equal(t, 0.0, Sigmoid(math.Inf(-1)))
	require.True(t, math.IsNaN(Sigmoid(math.NaN())))
	xs := append([]float64{}, probes...)
	for i := -4000; i <= 4000; i++ {
		xs = append(xs, float64(i)/100)
	}
	for _, x := range xs {
		want, got := sigmoidOracle(x), Sigmoid(x)
		if x != x {
			require.True(t, got != got)
			continue
		}
		require.LessOrEqual(t, ulps(want, got), 4.0, "sigmoid(%v): want %v, got %v", x, want, got)
		w32, g32 := float32(want), float32(got)
		d := math.Abs(float64(w32 - g32))
		require.LessOrEqual(t, d, float64(math.Nextafter32(w32, float32(math.Inf(1)))-w32), "sigmoid32(%v)", x)
	}
}

// intPairs is every pair of the shared integer probes plus random ones
// near the int64 limits.
func intPairs() (as, bs []int64) {
	vals := append([]int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 40, -(1 << 40) - 7}, intProbes...)
	for _, a := range vals {
		for _, b := range vals {
			as, bs = append(as, a), append(bs, b)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		as, bs = append(as, int64(rng.Uint64())), append(bs, int64(rng.Uint64())>>rng.IntN(64))
		as, bs = append(as, rng.Int64N(201)-100), append(bs, rng.Int64N(21)-10)
	}
	return as, bs
}

// wrap64 is x modulo 2^64 as a two's-complement int64 (C++'s wrapping).
func wrap64(x *big.Int) int64 {
	m := new(big.Int).Mod(x, new(big.Int).Lsh(big.NewInt(1), 64))
	return int64(m.Uint64())
}

// floorDivIntOracle is floor(a/b) in big integers: Euclidean division
// (0 ≤ m < |b|) less one when b < 0 and m ≠ 0.
func floorDivIntOracle(a, b int64) int64 {
	q, m := new(big.Int).DivMod(big.NewInt(a), big.NewInt(b), new(big.Int))
	if b < 0 && m.Sign() != 0 {
		q.Sub(q, big.NewInt(1))
	}
	return wrap64(q)
}

// remainderIntOracle is a - b·floor(a/b), in big integers.
func remainderIntOracle(a, b int64) int64 {
	q := big.NewInt(floorDivIntOracle(a, b))
	if a == math.MinInt64 && b == -1 {
		return 0
	}
	return wrap64(new(big.Int).Sub(big.NewInt(a), q.Mul(q, big.NewInt(b))))
}

// powIntOracle is ATen's powi (aten/src/ATen/native/Pow.h): a^b modulo
// 2^64 for b ≥ 0; for b < 0, 1 for a = 1, ±1 for a = -1, else 0.
func powIntOracle(a, b int64) int64 {
	if b < 0 {
		switch {
		case a == 1:
			return 1
		case a == -1 && b%2 != 0:
			return -1
		case a == -1:
			return 1
		}
		return 0
	}
	mod := new(big.Int).Lsh(big.NewInt(1), 64)
	base := new(big.Int).Mod(big.NewInt(a), mod)
	return wrap64(new(big.Int).Exp(base, big.NewInt(b), mod))
}

func TestIntegerOpsAgainstOracle(t *testing.T) {
	as, bs := intPairs()
	for i := range as {
		a, b := as[i], bs[i]
		require.Equal(t, powIntOracle(a, b), PowI64(a, b), "pow(%d, %d)", a, b)
		require.Equal(t, signOracle(float64(a)), float64(SignI64(a)), "sign(%d)", a)
		require.Equal(t, wrap64(new(big.Int).Abs(big.NewInt(a))), AbsI64(a), "abs(%d)", a)
		if b == 0 {
			continue
		}
		require.Equal(t, floorDivIntOracle(a, b), FloorDivI64(a, b), "%d // %d", a, b)
		require.Equal(t, remainderIntOracle(a, b), RemainderI64(a, b), "%d %% %d", a, b)
	}
}
