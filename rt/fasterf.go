package rt

import "math"

// ErfF32's constants: where its branches change, and Cephes' erff and
// erfcf polynomials, highest degree first.
const (
	ErfSmall float32 = 1 // at most: x·T(x²)
	ErfMid   float32 = 2 // below: P; at or above: R

	ErfT0   float32 = 7.853861353153693e-5
	ErfT1   float32 = -8.010193625184903e-4
	ErfT2   float32 = 5.188327685732524e-3
	ErfT3   float32 = -2.685381193529856e-2
	ErfT4   float32 = 1.128358514861418e-1
	ErfT5   float32 = -3.761262582423300e-1
	ErfT6m1 float32 = 0.128379165726710 // Cephes' 1.128379165726710, less the 1 added last

	ErfP0 float32 = 2.326819970068386e-2
	ErfP1 float32 = -1.387039388740657e-1
	ErfP2 float32 = 3.687424674597105e-1
	ErfP3 float32 = -5.824733027278666e-1
	ErfP4 float32 = 6.210004621745983e-1
	ErfP5 float32 = -4.944515323274145e-1
	ErfP6 float32 = 3.404879937665872e-1
	ErfP7 float32 = -2.741127028184656e-1
	ErfP8 float32 = 5.638259427386472e-1

	ErfR0 float32 = -1.047766399936249e+1
	ErfR1 float32 = 1.297719955372516e+1
	ErfR2 float32 = -7.495518717768503
	ErfR3 float32 = 2.921019019210786
	ErfR4 float32 = -1.015265279202700
	ErfR5 float32 = 4.218463358204948e-1
	ErfR6 float32 = -2.820767439740514e-1
	ErfR7 float32 = 5.641895067754075e-1
)

// ErfF32 is erf in float32 for generated kernels, as fastmath.go's exp and
// tanh: Cephes' erff and erfcf coefficients (erf = x·T(x²) for |x| <= 1;
// 1 - e^{-x²}·(1/|x|)·P(1/x²) for 1 < |x| < 2 and R(1/x²) beyond, with the
// sign of x), every polynomial step a fused multiply-add and e^{-x²}
// ExpF32's, so that the lanes (codegen/golang erfLanes) give the same bits.
// The coefficients were checked against float64 erf before use (relative
// error 1.2e-9, 3.0e-8, 2.4e-8 on their ranges); against PyTorch 2.15's
// float64 and float32 erf see fastmath_test.go. For |x| past 9 e^{-x²} is 0 and the result ±1; a
// NaN is returned as it is.
func ErfF32(x float32) float32 {
	if x != x {
		return x // its own bits: which NaN the steps would pass on depends on operand order
	}
	a := AbsF32(x)
	if a <= ErfSmall {
		p := horner32(float32(x*x), ErfT0, ErfT1, ErfT2, ErfT3, ErfT4, ErfT5, ErfT6m1)
		return FMA32(x, p, x) // x·(1 + p): the last rounding once, on the sum
	}
	e := ExpF32(-float32(x * x))
	q := 1 / a
	y := float32(q * q)
	var p float32
	if a < ErfMid {
		p = horner32(y, ErfP0, ErfP1, ErfP2, ErfP3, ErfP4, ErfP5, ErfP6, ErfP7, ErfP8)
	} else {
		p = horner32(y, ErfR0, ErfR1, ErfR2, ErfR3, ErfR4, ErfR5, ErfR6, ErfR7)
	}
	r := 1 - float32(float32(e*q)*p)
	return math.Float32frombits(math.Float32bits(r) | math.Float32bits(x)&(1<<31))
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
