package rt

import "math"

// ErfF32's constants: where its branches change, Cephes' erff polynomial
// and erfc's, highest degree first.
const (
	ErfSmall float32 = 1 // at most: x·T(x²)

	ErfT0   float32 = 7.853861353153693e-5
	ErfT1   float32 = -8.010193625184903e-4
	ErfT2   float32 = 5.188327685732524e-3
	ErfT3   float32 = -2.685381193529856e-2
	ErfT4   float32 = 1.128358514861418e-1
	ErfT5   float32 = -3.761262582423300e-1
	ErfT6m1 float32 = 0.128379165726710 // Cephes' 1.128379165726710, less the 1 added last

	// One polynomial in u = ErfUa·y + ErfUb, y = 1/x² taken onto [-1, 1]
	// over |x| in [1, 3.95] (beyond, erf rounds to ±1 and Q(u) stays near
	// 1/√π): erfc(x)·x·e^{x²} ≈ Q(u), fitted by weighted least squares
	// (relative error 1.3e-8 in float64; tools/fastmath/fit_erf.py). Q's
	// variable on [-1, 1] keeps Horner's steps well conditioned: in y its
	// coefficients alternate up to 18 in size.
	ErfUa  float32 = 2.136962890625
	ErfUb  float32 = -1.136962890625
	ErfQ0  float32 = 3.7125970266060904e-05
	ErfQ1  float32 = -5.1363247621338814e-05
	ErfQ2  float32 = -3.255622505093925e-05
	ErfQ3  float32 = 1.6277037502732128e-05
	ErfQ4  float32 = 0.00013340840814635158
	ErfQ5  float32 = -0.00021100348385516554
	ErfQ6  float32 = 0.0003280956589151174
	ErfQ7  float32 = -0.000742166128475219
	ErfQ8  float32 = 0.0017676332499831915
	ErfQ9  float32 = -0.004553905222564936
	ErfQ10 float32 = 0.01369918417185545
	ErfQ11 float32 = -0.054475124925374985
	ErfQ12 float32 = 0.47166797518730164
)

// ErfF32 is erf in float32 for generated kernels, as fastmath.go's exp and
// tanh: x·T(x²) for |x| <= 1 (Cephes' erff coefficients), else
// 1 - e^{-x²}·(1/|x|)·Q(u) with the sign of x; every polynomial step a fused
// multiply-add and e^{-x²} ExpF32's, so that the lanes (codegen/golang
// erfLanes) give the same bits. Within 0.97 ulp of float64 erf on every
// float32 in [1, 4.5) and on a sweep of [2^-30, 1) (TestErfSweep; Cephes'
// two erfc polynomials, P and R, were 1.56 ulp off at worst, and cost the
// lanes a polynomial more); against PyTorch 2.15's float32 erf see
// fastmath_test.go. For |x| past 9 e^{-x²} is 0 and the result ±1; a NaN is
// returned as it is.
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
	u := FMA32(ErfUa, float32(q*q), ErfUb)
	p := horner32(u, ErfQ0, ErfQ1, ErfQ2, ErfQ3, ErfQ4, ErfQ5, ErfQ6, ErfQ7, ErfQ8, ErfQ9, ErfQ10, ErfQ11, ErfQ12)
	r := FMA32(-float32(e*q), p, 1) // 1 - e·q·p, rounded once after the product
	return math.Float32frombits(math.Float32bits(r) | math.Float32bits(x)&(1<<31))
}
