package rt

import "math"

// Float32 sin and cos for generated kernels, in the manner of
// fastmath.go: float32 steps, the polynomial steps fused multiply-adds
// (FMA32), so that the lanes (codegen/golang simd_mathtrig.go) give the
// same bits. Inductor's C++ calls Sleef's u35 sin and cos (3.5 ulp:
// Vectorized<float>::sin in torch 2.15's headers); eager's float32 results
// are within 0.6 ulp of float64 on rt/testdata's inputs, and these within
// 0.72 on every float32 (fastmath_test.go, fastlog_test.go).

const (
	// TrigMax: up to |x| = 2^16 the reduction below is exact to about
	// 2^-57 (q·|π/2 - TrigA - TrigB - TrigC| with q < 2^16), far below
	// any |x - q·π/2| of a float32 x there; beyond it, and for ±Inf and
	// NaN, float64 math.Sin and math.Cos (Payne-Hanek) take over.
	TrigMax     float32 = 0x1p16
	TrigTwoOvPi float32 = 0x1.45f306p-1 // 2/π
	// π/2 = TrigA + TrigB + TrigC to 2^-76: each float32's rounding of
	// what the ones before leave.
	TrigA float32 = 0x1.921fb6p+0
	TrigB float32 = -0x1.777a5cp-25
	TrigC float32 = -0x1.ee59dap-50

	// sin r = r + r³·S(r²), cos r = 1 - r²/2 + r⁴·C(r²) on |r| ≤ π/4
	// (tools/fastmath/fit.py: relative error of S 2^-25, of C 2^-24).
	TrigS3 float32 = 0x1.86832ep-19
	TrigS2 float32 = -0x1.a08024p-13
	TrigS1 float32 = 0x1.111196p-7
	TrigS0 float32 = -0x1.555556p-3
	TrigC2 float32 = 0x1.9bbe96p-16
	TrigC1 float32 = -0x1.6c1290p-10
	TrigC0 float32 = 0x1.555554p-5
)

// SinF32 is sin x in float32; ±0 is returned as it is.
func SinF32(x float32) float32 {
	if x == 0 {
		return x
	}
	if !(AbsF32(x) <= TrigMax) {
		return float32(math.Sin(float64(x)))
	}
	return trigF32(x, 0)
}

// CosF32 is cos x in float32.
func CosF32(x float32) float32 {
	if !(AbsF32(x) <= TrigMax) {
		return float32(math.Cos(float64(x)))
	}
	return trigF32(x, 1)
}

// trigF32 is sin(x + off·π/2) for |x| ≤ TrigMax: q = round(x·2/π), r = x
// - q·π/2 as rh + rl (x - q·TrigA is exact: an FMA, and the difference
// fits in float32; -q·TrigB rounded and its error, x - q·TrigA plus
// that TwoSum-exact; the rest in rl), and ±sin r or ±cos r by (q+off) mod 4.
func trigF32(x float32, off int32) float32 {
	q := FMA32(x, TrigTwoOvPi, ExpMagic) - ExpMagic
	t := FMA32(q, -TrigA, x)
	np := float32(q * -TrigB)
	pe := FMA32(q, TrigB, np) // q·TrigB = pe - np exactly
	rh := t + np              // TwoSum(t, np)
	bv := rh - t
	e := (t - (rh - bv)) + (np - bv)
	rl := FMA32(q, -TrigC, e-pe)
	z := float32(rh * rh)
	n := int32(q) + off
	var y float32
	if n&1 == 0 {
		y = sinPoly(rh, rl, z)
	} else {
		y = cosPoly(rh, rl, z)
	}
	return math.Float32frombits(math.Float32bits(y) ^ uint32(n&2)<<30)
}

// sinPoly is sin(rh + rl) for |rh| ≤ π/4 and rl below rh's last place:
// rh + (rh³·S(rh²) + rl·(1 - rh²/2)), one rounding of rh and the rest.
func sinPoly(rh, rl, z float32) float32 {
	c := FMA32(z, -0.5*rl, rl)
	s := horner32(z, TrigS3, TrigS2, TrigS1, TrigS0)
	return rh + FMA32(float32(rh*z), s, c)
}

// cosPoly is cos(rh + rl): w = 1 - rh²/2 rounded once (an FMA), the
// rounding's error found with another (1 - w is exact), and with it
// r⁴·C(r²) and cos's derivative -sin r ≈ -rh times rl, added once.
func cosPoly(rh, rl, z float32) float32 {
	nh := -0.5 * rh
	w := FMA32(nh, rh, 1)
	werr := FMA32(nh, rh, 1-w)
	c := horner32(z, TrigC2, TrigC1, TrigC0)
	return w + FMA32(float32(z*z), c, FMA32(rh, -rl, werr))
}
