package rt

import "math"

// Float32 exp and tanh for generated kernels, as Inductor's C++ computes
// them: in float32 with a short polynomial (Cephes' expf and tanhf, the
// kind of code behind Sleef's u10 functions that ATen's vectorised CPU
// kernels call) rather than through float64 math.Exp. Each polynomial step
// is a fused multiply-add rounded once (as Sleef's AVX2 code does with
// VFMADD), which the lanes compute with one VFMADD213PS and the scalar
// code with FMA32, an exact emulation; so ExpF32x8 and TanhF32x8
// (fastmath_amd64.go) give the same bits on each lane as ExpF32 and
// TanhF32: a kernel's result does not depend on which loop ran an
// element. Accuracy against float64 (fastmath_test.go, and against
// torch.exp / torch.tanh values in testdata): within 1 ulp for exp and 1.5
// ulp for tanh, and at most 1 ulp from PyTorch's float32 results.

const (
	ExpClampLo float32 = -104 // exp below rounds to +0
	ExpClampHi float32 = 89   // exp above overflows to +Inf
	ExpLog2e   float32 = 1.44269504088896341
	ExpMagic   float32 = 12582912 // 1.5·2^23: adding it rounds to an integer (ties to even)
	ExpC1      float32 = 0.693359375
	ExpC2      float32 = -2.12194440e-4
	ExpP0      float32 = 1.9875691500e-4
	ExpP1      float32 = 1.3981999507e-3
	ExpP2      float32 = 8.3334519073e-3
	ExpP3      float32 = 4.1665795894e-2
	ExpP4      float32 = 1.6666665459e-1
	ExpP5      float32 = 5.0000001201e-1

	// The lanes' shortcut (ExpF32x8): where every lane's k = round(x·log2 e)
	// lies in [-124, 126], the clamps change nothing and y·2^k is a normal
	// float32 (y is within [0.7, 1.42]), so y·2^k1·2^(k-k1) = y·2^k exactly:
	// one factor instead of two, and no clamps. The test is one add and
	// one signed compare: k + ExpFastOff wraps [-124, 126] onto
	// [MinInt32, ExpFastMax]; a NaN or an overflowed conversion
	// (0x80000000) falls outside.
	ExpFastOff int32 = 124 + math.MinInt32
	ExpFastMax int32 = 250 + math.MinInt32

	TanhSmall float32 = 0.625 // below: odd polynomial; above: 1 - 2/(exp(2|x|)+1)
	TanhP0    float32 = -5.70498872745e-3
	TanhP1    float32 = 2.06390887954e-2
	TanhP2    float32 = -5.37397155531e-2
	TanhP3    float32 = 1.33314422036e-1
	TanhP4    float32 = -3.33332819422e-1
)

// FMA32 is x·y + z rounded once to float32, as VFMADD computes it. The
// float64 FMA (one hardware instruction) rounds the exact value v once to
// r; rounding r to float32 gives v's float32 rounding unless r lies on a
// midpoint between two float32 values (rounding to nearest never steps
// over a value float64 can hold, so r and v are on the same side of every
// other midpoint). For a normal float32 result that is the 29 bits float32
// drops being exactly 1000…0; that case, and the subnormal range, where
// float32 drops more bits, take fma32Slow.
func FMA32(x, y, z float32) float32 {
	r := math.FMA(float64(x), float64(y), float64(z))
	if a := math.Abs(r); math.Float64bits(r)&(1<<29-1) != 1<<28 && (a >= 0x1p-126 || a == 0) || a-a != 0 {
		return float32(r)
	}
	return fma32Slow(x, y, z)
}

// fma32Slow is FMA32 without the hardware FMA: the product of two float32
// values is exact in float64; the float64 sum is made round-to-odd
// (TwoSum gives its error; an inexact sum with an even last bit moves one
// unit toward the error), and a round-to-odd result with at least two
// more bits than float32 rounds to the nearest float32 exactly as the
// exact sum would (Boldo and Melquiond), so no double rounding. The
// conversions forbid Go from fusing anything itself.
func fma32Slow(x, y, z float32) float32 {
	p := float64(float64(x) * float64(y))
	b := float64(z)
	s := float64(p + b)
	if s-s != 0 { // ±Inf or NaN: nothing to correct
		return float32(s)
	}
	bb := float64(s - p)
	e := float64(p-float64(s-bb)) + float64(b-bb)
	if u := math.Float64bits(s); e != 0 && u&1 == 0 {
		if (e > 0) == (s > 0) {
			u++
		} else {
			u--
		}
		s = math.Float64frombits(u)
	}
	return float32(s)
}

// ExpF32 is e^x in float32: n = round(x·log2 e), r = x - n·ln 2 in two
// parts (Cody-Waite), a degree-7 polynomial in r (Horner, fused steps),
// times 2^n applied as two factors so that results near overflow and in
// the subnormal range need no special case. A NaN passes the clamps and
// stays NaN.
func ExpF32(x float32) float32 {
	if x < ExpClampLo { // a compare and a blend on lanes: NaN passes
		x = ExpClampLo
	}
	if x > ExpClampHi {
		x = ExpClampHi
	}
	n := FMA32(x, ExpLog2e, ExpMagic) - ExpMagic
	r := FMA32(n, -ExpC1, x)
	r = FMA32(n, -ExpC2, r)
	z := float32(r * r)
	y := FMA32(ExpP0, r, ExpP1)
	y = FMA32(y, r, ExpP2)
	y = FMA32(y, r, ExpP3)
	y = FMA32(y, r, ExpP4)
	y = FMA32(y, r, ExpP5)
	y = FMA32(y, z, r) + 1
	k := int32(n)
	k1 := k >> 1
	s1 := math.Float32frombits(uint32(k1+127) << 23)
	s2 := math.Float32frombits(uint32(k-k1+127) << 23)
	return float32(float32(y*s1) * s2)
}

// TanhF32 is tanh in float32: Cephes' tanhf (an odd polynomial below
// 0.625, 1 - 2/(e^{2|x|}+1) with the sign of x above), fused steps.
func TanhF32(x float32) float32 {
	a := AbsF32(x)
	if a > TanhSmall {
		e := ExpF32(a + a)
		y := 1 - 2/(e+1)
		return math.Float32frombits(math.Float32bits(y) | math.Float32bits(x)&(1<<31))
	}
	z := float32(x * x)
	p := FMA32(TanhP0, z, TanhP1)
	p = FMA32(p, z, TanhP2)
	p = FMA32(p, z, TanhP3)
	p = FMA32(p, z, TanhP4)
	return FMA32(float32(p*z), x, x)
}

// horner32 is c[0]·y^(n-1) + ... + c[n-1], one fused multiply-add a step
// (the lanes' MulAdd chain, step for step).
func horner32(y float32, c ...float32) float32 {
	p := FMA32(c[0], y, c[1])
	for _, k := range c[2:] {
		p = FMA32(p, y, k)
	}
	return p
}
