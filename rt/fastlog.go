package rt

import "math"

// Float32 log, log1p and expm1 for generated kernels, in the manner of
// fastmath.go's exp: float32 steps, each polynomial step one fused
// multiply-add (FMA32), so that the lanes (codegen/golang simd_mathlog.go)
// give the same bits. ATen's vectorised kernels call Sleef's u10 versions
// of these; fastmath_test.go states the bounds measured against PyTorch.

const (
	// LogSqrtHalf is √½'s bits: x = 2^k·m with m in [√½, √2), found with
	// integer steps on x's bits less these (as fdlibm's logf).
	LogSqrtHalf uint32  = 0x3f3504f3
	LogTiny     float32 = 0x1p-126 // below (subnormal): scaled by 2^23 first
	LogScale    float32 = 0x1p23
	// fdlibm's logf polynomial in z = s², s = f/(2+f):
	// log(1+f) = f - f²/2 + s·(f²/2 + z·(Lg1 + z·(Lg2 + z·(Lg3 + z·Lg4)))),
	// error below 2^-34 on m's range.
	LogLg1 float32 = 0xaaaaaa.0p-24
	LogLg2 float32 = 0xccce13.0p-25
	LogLg3 float32 = 0x91e9ee.0p-25
	LogLg4 float32 = 0xf89e26.0p-26

	// Expm1Lo: e^x - 1 is -1 in float32 below about -17.33; clamping
	// there keeps 2^n a normal number.
	Expm1Lo float32 = -30
	// Expm1Split: from n = 25 on, 1 - 2^-n is not a float32 (see
	// Expm1F32). Expm1NMax caps the n of 2^-n, which is then far below
	// the result's last place.
	Expm1Split float32 = 25
	Expm1NMax  float32 = 64
	// e^r - 1 = r + r²/2 + r³·Q(r) on |r| ≤ ln 2/2, relative error of Q
	// 2^-23.7 (tools/fastmath/fit.py): r²/2 is exact inside an FMA.
	Expm1Q4 float32 = 0x1.a2daa8p-13
	Expm1Q3 float32 = 0x1.6d16eep-10
	Expm1Q2 float32 = 0x1.110fbep-7
	Expm1Q1 float32 = 0x1.555516p-5
	Expm1Q0 float32 = 0x1.555556p-3
)

// LogF32 is the natural log in float32: x = 2^k·(1+f) (a subnormal x
// scaled by 2^23 first), then logTail. log(±0) = -Inf, log(x<0) = NaN,
// log(+Inf) = +Inf and a NaN is returned as it is.
func LogF32(x float32) float32 {
	if !(x > 0) || x > math.MaxFloat32 {
		return logSpecial(x)
	}
	kAdj := float32(0)
	if x < LogTiny {
		x *= LogScale
		kAdj = -23
	}
	k, f := logReduce(x)
	return logTail(k+kAdj, f, 0)
}

// Log1pF32 is log(1+x) in float32: u = 1+x rounded, c = (the sum's exact
// error)/u, and log(1+x) = log(u) + log(1 + err/u) ≈ log(u) + c, c
// folded into logTail's small terms. For |x| below 2^-25 u is 1 and the
// result x itself; ±0 is returned as it is.
func Log1pF32(x float32) float32 {
	if !(x > -1) || x > math.MaxFloat32 || x == 0 {
		switch {
		case x < -1:
			return LogNaN()
		case x == -1:
			return float32(math.Inf(-1))
		}
		return x // ±0, +Inf, NaN
	}
	u := 1 + x
	bv := u - 1 // TwoSum(1, x): u + e = 1 + x exactly
	e := (1 - (u - bv)) + (x - bv)
	k, f := logReduce(u)
	return logTail(k, f, e/u)
}

// logSpecial is log(x) for x that is not positive and finite.
func logSpecial(x float32) float32 {
	switch {
	case x == 0:
		return float32(math.Inf(-1))
	case x < 0:
		return LogNaN()
	}
	return x // +Inf, NaN
}

// LogNaN is the NaN log and log1p give below their domain (the x86
// default NaN), as a function: Go has no NaN constant. It is a NaN, not
// torch's bits: torch's float32 log(-1) is 0x7fc00000 and log1p(-2.5)
// 0xffffffff (rt/testdata/fastmath.txt), and TestFastLogSpecials asks for
// a NaN where torch gives one.
func LogNaN() float32 { return math.Float32frombits(0xffc00000) }

// logReduce splits a positive normal x into k and f, x = 2^k·(1+f) with
// 1+f in [√½, √2): integer steps on the bits (f = m - 1 is exact).
func logReduce(x float32) (k, f float32) {
	u := math.Float32bits(x) - LogSqrtHalf
	k = float32(int32(u) >> 23)
	m := math.Float32frombits(u&0x7fffff + LogSqrtHalf)
	return k, m - 1
}

// logTail is k·ln 2 + log(1+f) + c for a small c. ln 2 is ExpC1 + ExpC2
// (k·ExpC1 is exact: ExpC1 has 9 bits); the big part k·ExpC1 + f is a
// Fast2Sum (|k·ExpC1| ≥ |f| where k ≠ 0), whose error joins the small
// terms: k·ExpC2, c, and f²/2's rounding error, found exactly with an FMA.
// The result is one rounding of the big part plus the small ones.
func logTail(k, f, c float32) float32 {
	s := f / (2 + f)
	z := float32(s * s)
	r := float32(z * horner32(z, LogLg4, LogLg3, LogLg2, LogLg1))
	h := 0.5 * f
	hfsq := float32(h * f)
	hfe := FMA32(h, f, -hfsq)
	a := FMA32(k, ExpC2, c) - hfe
	lo := FMA32(s, hfsq+r, a) - hfsq
	hi := float32(k * ExpC1)
	t := hi + f
	return t + ((f - (t - hi)) + lo)
}

// Expm1F32 is e^x - 1 in float32, on ExpF32's reduction:
// n = round(x·log2 e), r = x - n·ln 2, and e^x - 1 = 2^n·(r + c + r²/2 +
// r³·Q(r)) with c = 1 - 2^-n: r + c as a Fast2Sum (|c| ≥ ½ > |r| where
// n ≠ 0), its error joining the small part, so that the cancellation of r and c (n = 1, r
// near -ln 2/2) costs nothing; from n = 25 on c is 1 and -2^-n joins the
// small part. 2^n is applied as two factors (n reaches 128 below
// overflow). ±0 and NaN are returned as they are; x is clamped to
// [Expm1Lo, ExpClampHi].
func Expm1F32(x float32) float32 {
	if x != x || x == 0 {
		return x
	}
	if x < Expm1Lo {
		x = Expm1Lo
	}
	if x > ExpClampHi {
		x = ExpClampHi
	}
	n := FMA32(x, ExpLog2e, ExpMagic) - ExpMagic
	r := FMA32(n, -ExpC1, x)
	r = FMA32(n, -ExpC2, r)
	p := math.Float32frombits(uint32(127-int32(min(n, Expm1NMax))) << 23) // 2^-n
	chi, clo := 1-p, float32(0)
	if n >= Expm1Split {
		chi, clo = 1, -p
	}
	s := chi + r
	e := r - (s - chi)
	r3 := float32(float32(r*r) * r)
	w := FMA32(r3, horner32(r, Expm1Q4, Expm1Q3, Expm1Q2, Expm1Q1, Expm1Q0), e+clo)
	y := s + FMA32(0.5*r, r, w)
	k := int32(n)
	k1 := k >> 1
	s1 := math.Float32frombits(uint32(k1+127) << 23)
	s2 := math.Float32frombits(uint32(k-k1+127) << 23)
	return float32(float32(y*s1) * s2)
}
