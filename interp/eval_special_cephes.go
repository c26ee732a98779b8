package interp

import (
	"fmt"
	"math"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Special functions as ATen's CPU kernels compute them
// (aten/src/ATen/native/Math.h, after Cephes): the same series, Chebyshev
// expansions and coefficient tables (special_coeffs_gen.go, generated from
// PyTorch's header), written once over the scalar type, so that a float32
// tensor is computed in float32 as PyTorch's float kernel does (its
// rounding, overflow to inf and NaN are PyTorch's) and a float64 tensor in
// float64.

// floatT is a kernel's scalar_t.
type floatT interface{ ~float32 | ~float64 }

// Math library calls in T: computed in float64 and rounded, which is within
// an ulp of libm's float versions.
func texp[T floatT](x T) T  { return T(math.Exp(float64(x))) }
func tlog[T floatT](x T) T  { return T(math.Log(float64(x))) }
func tsqrt[T floatT](x T) T { return T(math.Sqrt(float64(x))) }
func tsin[T floatT](x T) T  { return T(math.Sin(float64(x))) }
func tcos[T floatT](x T) T  { return T(math.Cos(float64(x))) }
func tacos[T floatT](x T) T { return T(math.Acos(float64(x))) }
func tabs[T floatT](x T) T  { return T(math.Abs(float64(x))) }
func tisnan[T floatT](x T) bool {
	return x != x
}
func tinf[T floatT]() T { return T(math.Inf(1)) }
func tnan[T floatT]() T { return T(math.NaN()) }

// chbevl sums a Chebyshev series at x (Cephes' chbevl).
func chbevl[T floatT](x T, a []float64) T {
	b0, b1, b2 := T(a[0]), T(0), T(0)
	for _, c := range a[1:] {
		b2 = b1
		b1 = b0
		b0 = x*b1 - b2 + T(c)
	}
	return T(0.5) * (b0 - b2)
}

// besselI0 is modified_bessel_i0_forward (and calc_i0, whose tables are
// the same).
func besselI0T[T floatT](x T) T {
	ax := tabs(x)
	if ax <= 8 {
		return texp(ax) * chbevl(ax/2-2, mbI0A[:])
	}
	return texp(ax) * chbevl(32/ax-2, mbI0B[:]) / tsqrt(ax)
}

// besselI1T is modified_bessel_i1_forward.
func besselI1T[T floatT](x T) T {
	ax := tabs(x)
	var out T
	if ax <= 8 {
		out = chbevl(ax/2-2, mbI1A[:]) * ax * texp(ax)
	} else {
		out = texp(ax) * chbevl(32/ax-2, mbI1B[:]) / tsqrt(ax)
	}
	if x < 0 {
		return -out
	}
	return out
}

// i1eTables are calc_i1/calc_i1e's: the float kernel keeps the last 17 and
// 7 terms of the double tables.
func i1eTables[T floatT]() (a, b []float64) {
	if _, f32 := any(T(0)).(float32); f32 {
		return i1eA[len(i1eA)-17:], i1eB[len(i1eB)-7:]
	}
	return i1eA[:], i1eB[:]
}

// calcI1 is calc_i1 (aten::special_i1); scaled, it is calc_i1e.
func calcI1[T floatT](x T, scaled bool) T {
	a, b := i1eTables[T]()
	ax := tabs(x)
	var out T
	switch {
	case ax <= 8 && scaled:
		out = chbevl(ax/2-2, a) * ax
	case ax <= 8:
		out = texp(ax) * ax * chbevl(ax/2-2, a)
	case scaled:
		out = chbevl(32/ax-2, b) / tsqrt(ax)
	default:
		out = texp(ax) * chbevl(32/ax-2, b) / tsqrt(ax)
	}
	if x < 0 {
		return -out
	}
	return out
}

// besselK is modified_bessel_k0/k1_forward and their scaled variants
// (exp(x)·K): Chebyshev series in x²-2 on (0, 2], in 8/x-2 above.
func besselK[T floatT](x T, order int, scaled bool) T {
	switch {
	case x == 0:
		return tinf[T]()
	case x < 0 || tisnan(x):
		return tnan[T]()
	}
	if x > 2 {
		b := mbK0B[:]
		if order == 1 {
			b = mbK1B[:]
		}
		v := chbevl(8/x-2, b) / tsqrt(x)
		if scaled {
			return v
		}
		return texp(-x) * v
	}
	var v T
	if order == 0 {
		v = chbevl(x*x-2, mbK0A[:]) - tlog(T(0.5)*x)*besselI0T(x)
	} else {
		v = tlog(T(0.5)*x)*besselI1T(x) + chbevl(x*x-2, mbK1A[:])/x
	}
	if scaled {
		return v * texp(x)
	}
	return v
}

// polyT evaluates Σ c[i]·zⁿ⁻ⁱ (Horner, highest power first).
func polyT[T floatT](z T, c []float64) T {
	s := T(0)
	for _, v := range c {
		s = s*z + T(v)
	}
	return s
}

// airyAi is airy_ai_forward: asymptotic expansions for x < -2.09 and
// x >= 2.09 (used alone above 8.32), the Maclaurin series in between.
func airyAi[T floatT](x T) T {
	const c1, c2, sqpii = 0.355028053887817239260, 0.258819403792806798405, 5.64189583547756286948e-01
	switch {
	case x != x:
		return x
	case math.IsInf(float64(x), 0):
		return tnan[T]()
	case x > T(103.892):
		return 0
	}
	if x < T(-2.09) {
		zeta := T(-2.0) * x * tsqrt(-x) / T(3.0)
		z := T(1.0) / zeta
		zz := z * z
		afn, afd := polyT(zz, airyAFN[:]), polyT(zz, airyAFD[:])
		agn, agd := polyT(zz, airyAGN[:]), polyT(zz, airyAGD[:])
		t := zeta + T(0.25)*T(math.Pi)
		return T(sqpii) / tsqrt(tsqrt(-x)) * (tsin(t)*(1+zz*afn/afd) - tcos(t)*(z*agn/agd))
	}
	var ai T
	asym := x >= T(2.09)
	if asym {
		zeta := T(2.0) * x * tsqrt(x) / T(3.0)
		an, ad := polyT(1/zeta, airyAN[:]), polyT(1/zeta, airyAD[:])
		ai = T(sqpii) * (an / ad) / (T(2.0) * tsqrt(tsqrt(x)) * texp(zeta))
		if x > T(8.3203353) {
			return ai
		}
	}
	eps := T(0x1p-52)
	if _, f32 := any(T(0)).(float32); f32 {
		eps = T(0x1p-23)
	}
	f, g, k := T(1), x, T(1)
	m, n, t, z := T(1), x, T(1), x*x*x
	for t > eps {
		m *= z
		k++
		m /= k
		n *= z
		k++
		n /= k
		m /= k
		f += m
		k++
		n /= k
		g += n
		t = tabs(m / f)
	}
	if asym {
		return ai
	}
	return T(c1)*f - T(c2)*g
}

// erfcx is exp(x²)·erfc(x) as calc_erfcx computes it: a continued fraction
// above 50, the y100 Chebyshev table in 400/(4+|x|) otherwise, and
// 2exp(x²) - erfcx(-x) for negative x.
func erfcx(x float64) float64 {
	switch {
	case x != x:
		return x
	case x >= 0 && x > 50:
		const ispi = 0.56418958354775628694807945156
		if x > 5e7 {
			return ispi / x
		}
		return ispi * ((x*x)*(x*x+4.5) + 2) / (x * ((x*x)*(x*x+5) + 3.75))
	case x >= 0:
		return erfcxY100At(400 / (4 + x))
	case x < -26.7:
		return math.Inf(1)
	case x < -6.1:
		return 2 * math.Exp(x*x)
	}
	return 2*math.Exp(x*x) - erfcxY100At(400/(4-x))
}

func erfcxY100At(y100 float64) float64 {
	i := int(y100)
	if i < 0 || i >= len(erfcxY100) {
		return 1 // y100 = 100: |x| < 4·eps, where erfcx is 1 to 1e-15
	}
	row := erfcxY100[i]
	t := 2*y100 - row.c
	s := 0.0
	for j := len(row.p) - 1; j >= 0; j-- {
		s = s*t + row.p[j]
	}
	return s
}

// zetaATen is ATen's zeta(x, q) (Hurwitz ζ, accumulated in double as the
// CPU kernel's acc_type): a direct sum, then Euler-Maclaurin.
func zetaATen(x, q float64) float64 {
	const machep = 1.11022302462515654042e-16
	a := [...]float64{12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
		-2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18}
	switch {
	case x == 1:
		return math.Inf(1)
	case x < 1:
		return math.NaN()
	}
	if q <= 0 {
		if q == math.Floor(q) {
			return math.Inf(1)
		}
		if x != math.Floor(x) {
			return math.NaN()
		}
	}
	s := math.Pow(q, -x)
	aa, b, i := q, 0.0, 0
	for i < 9 || aa <= 9 {
		i++
		aa++
		b = math.Pow(aa, -x)
		s += b
		if -machep*s < b && b < machep*s {
			return s
		}
	}
	w := aa
	s += b * w / (x - 1)
	s -= 0.5 * b
	fac, k := 1.0, 0.0
	for j := 0; j < 12; j++ {
		fac *= x + k
		b /= w
		t := fac * b / a[j]
		s += t
		if math.Abs(t/s) < machep {
			return s
		}
		k++
		fac *= x + k
		b /= w
		k++
	}
	return s
}

// byScalarType picks a kernel's float or double instantiation by the
// computation dtype (ATen upcasts Half and BFloat16 to float for these).
func byScalarType(f32 func(float32) float32, f64 func(float64) float64) func(ir.DType) chunkF {
	return func(dt ir.DType) chunkF {
		if dt == ir.F64 {
			return chunkF(map1(f64))
		}
		return chunkF(map1(func(x float64) float64 { return float64(f32(float32(x))) }))
	}
}

// byScalarType2 is byScalarType for a binary kernel.
func byScalarType2(f32 func(a, b float32) float32, f64 func(a, b float64) float64) func(ir.DType) chunkF {
	return func(dt ir.DType) chunkF {
		if dt == ir.F64 {
			return chunkF(map2(f64))
		}
		return chunkF(map2(func(a, b float64) float64 { return float64(f32(float32(a), float32(b))) }))
	}
}

// digammaT is calc_digamma: reflection for negative x (tan of the
// fractional part, in double), recurrence up to 10, then the asymptotic
// series.
func digammaT[T floatT](x T) T {
	if x == 0 {
		return T(math.Copysign(math.Inf(1), -float64(x)))
	}
	if x < 0 {
		if x == T(math.Trunc(float64(x))) {
			return tnan[T]()
		}
		_, r := math.Modf(float64(x))
		return digammaT(1-x) - T(math.Pi/math.Tan(math.Pi*r))
	}
	result := T(0)
	for x < 10 {
		result -= 1 / x
		x++
	}
	if x == 10 {
		return result + T(2.25175258906672110764)
	}
	a := []float64{8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
		-4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3, 8.33333333333333333333e-2}
	y := T(0)
	if x < T(1.0e17) {
		z := 1 / (x * x)
		y = z * polyT(z, a)
	}
	return result + tlog(x) - T(0.5)/x - y
}

// trigammaT is ATen's trigamma: reflection below 1/2, six recurrence
// steps, then the asymptotic series.
func trigammaT[T floatT](x T) T {
	sign, result := T(1), T(0)
	if x < T(0.5) {
		sign = -1
		s := tsin(T(math.Pi) * x)
		result -= T(math.Pi) * T(math.Pi) / (s * s)
		x = 1 - x
	}
	for i := 0; i < 6; i++ {
		result += 1 / (x * x)
		x++
	}
	ixx := 1 / (x * x)
	result += (1 + 1/(2*x) + ixx*(T(1.0/6)-ixx*(T(1.0/30)-ixx*T(1.0/42)))) / x
	return sign * result
}

// polygammaT is polygamma_kernel: digamma, trigamma, then calc_polygamma
// ((-1)ⁿ⁺¹ n! ζ(n+1, x), ζ in double).
func polygammaT[T floatT](n int64, x T) T {
	switch n {
	case 0:
		return digammaT(x)
	case 1:
		return trigammaT(x)
	}
	sign := T(-1)
	if n%2 == 1 {
		sign = 1
	}
	lg, _ := math.Lgamma(float64(T(n) + 1))
	return sign * texp(T(lg)) * T(zetaATen(float64(T(n+1)), float64(x)))
}

// cephesUnary are the unary special functions above, each in its float and
// double instantiation; their first parameter is `self` or `x` depending on
// the op, so they bind it by position.
var cephesUnary = []struct {
	name string
	f32  func(float32) float32
	f64  func(float64) float64
}{
	{"special_modified_bessel_i0", besselI0T[float32], besselI0T[float64]},
	{"special_modified_bessel_i1", besselI1T[float32], besselI1T[float64]},
	{"special_modified_bessel_k0", func(x float32) float32 { return besselK(x, 0, false) }, func(x float64) float64 { return besselK(x, 0, false) }},
	{"special_modified_bessel_k1", func(x float32) float32 { return besselK(x, 1, false) }, func(x float64) float64 { return besselK(x, 1, false) }},
	{"special_scaled_modified_bessel_k0", func(x float32) float32 { return besselK(x, 0, true) }, func(x float64) float64 { return besselK(x, 0, true) }},
	{"special_scaled_modified_bessel_k1", func(x float32) float32 { return besselK(x, 1, true) }, func(x float64) float64 { return besselK(x, 1, true) }},
	{"special_i1", func(x float32) float32 { return calcI1(x, false) }, func(x float64) float64 { return calcI1(x, false) }},
	{"special_i1e", func(x float32) float32 { return calcI1(x, true) }, func(x float64) float64 { return calcI1(x, true) }},
	{"special_airy_ai", airyAi[float32], airyAi[float64]},
	{"special_erfcx", func(x float32) float32 { return float32(erfcx(float64(x))) }, erfcx},
	{"special_log_ndtr", logNdtr[float32], logNdtr[float64]},
}

// logNdtr is calc_log_ndtr: log(erfcx(-t)/2) - t² below -1 (t = x/√2),
// log1p(-erfc(t)/2) above, in T (the float kernel's t² and logarithm
// round in float).
func logNdtr[T floatT](x T) T {
	t := x * T(1/math.Sqrt2)
	if x < -1 {
		return tlog(T(erfcx(float64(-t)))/2) - t*t
	}
	return T(math.Log1p(float64(-T(math.Erfc(float64(t))) / 2)))
}

// unaryF32 gives a unary table op (kernels_unary.go) its float kernel where
// ATen's float instantiation rounds differently from a double computation.
var unaryF32 = map[string]func(float32) float32{
	"digamma": digammaT[float32],
}

func init() {
	for _, u := range cephesUnary {
		k := ewKernel{f: byScalarType(u.f32, u.f64)}
		name := u.name
		register(func(c *call) ([]any, error) {
			in, err := operands(c, c.op.Schema.Params[0].Name)
			if err != nil {
				return nil, err
			}
			return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: name}, k, in))
		}, name)
	}
	zeta := ewKernel{f: fl2(zetaATen)}
	register(func(c *call) ([]any, error) {
		in, err := operands(c, "self", "other")
		if err != nil {
			return nil, err
		}
		return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: "special_zeta"}, zeta, in))
	}, "special_zeta")
	// torch.special's aliases run their base op's kernel.
	for alias, base := range ops.SpecialAliases() {
		base := base
		register(func(c *call) ([]any, error) {
			op := ops.Lookup(base)
			if op == nil {
				return nil, fmt.Errorf("%s: no op %s", c.op.QualifiedName(), base)
			}
			k := lookupKernel(op)
			if k == nil {
				return nil, fmt.Errorf("%s: %s has no eval kernel", c.op.QualifiedName(), base)
			}
			return k(c)
		}, alias)
	}
}

// igamma is the regularized lower incomplete gamma P(a, x) (upper Q when
// upper), with calc_igamma/calc_igammac's special cases; the body is the
// classic series (x < a+1) and Lentz continued fraction (beyond), in
// double, where ATen follows SciPy's piecewise scheme: both converge to
// double precision on the same domain.
func igamma(a, x float64, upper bool) float64 {
	pick := func(p float64) float64 {
		if upper {
			return 1 - p
		}
		return p
	}
	switch {
	case x != x || a != a:
		return math.NaN()
	case x < 0 || a < 0:
		return math.NaN()
	case a == 0:
		if x > 0 {
			return pick(1)
		}
		return math.NaN()
	case x == 0:
		return pick(0)
	case math.IsInf(a, 1):
		if math.IsInf(x, 1) {
			return math.NaN()
		}
		return pick(0)
	case math.IsInf(x, 1):
		return pick(1)
	}
	lg, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lg)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 100000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-17 {
				break
			}
		}
		return pick(sum * front)
	}
	// Q(a, x) by the continued fraction of Numerical Recipes' gcf.
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1; i < 100000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-17 {
			break
		}
	}
	q := front * h
	if upper {
		return q
	}
	return 1 - q
}

func init() {
	for _, name := range []string{"igamma", "igammac"} {
		upper := name == "igammac"
		k := ewKernel{f: fl2(func(a, x float64) float64 { return igamma(a, x, upper) })}
		opName := name
		register(func(c *call) ([]any, error) {
			in, err := operands(c, "self", "other")
			if err != nil {
				return nil, err
			}
			return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: opName}, k, in))
		}, name)
	}
}

// floatDoubleOnly are the special functions whose CPU kernels ATen
// dispatches for float and double only: a Half or BFloat16 computation
// fails with the kernel's name ("erfcx_cpu" not implemented for 'Half').
// (i0e, i1, i1e, entr and xlog1py take the reduced floats too.)
var floatDoubleOnly = map[string]bool{
	"special_bessel_j0": true, "special_bessel_j1": true, "special_bessel_y0": true, "special_bessel_y1": true,
	"special_modified_bessel_i0": true, "special_modified_bessel_i1": true, "special_modified_bessel_k0": true,
	"special_modified_bessel_k1": true, "special_scaled_modified_bessel_k0": true, "special_scaled_modified_bessel_k1": true,
	"special_spherical_bessel_j0": true, "special_ndtri": true, "special_erfcx": true, "special_log_ndtr": true,
	"special_airy_ai": true, "special_zeta": true,
	"special_chebyshev_polynomial_t": true, "special_chebyshev_polynomial_u": true, "special_chebyshev_polynomial_v": true,
	"special_chebyshev_polynomial_w": true, "special_shifted_chebyshev_polynomial_t": true,
	"special_shifted_chebyshev_polynomial_u": true, "special_shifted_chebyshev_polynomial_v": true,
	"special_shifted_chebyshev_polynomial_w": true, "special_hermite_polynomial_h": true,
	"special_hermite_polynomial_he": true, "special_laguerre_polynomial_l": true, "special_legendre_polynomial_p": true,
}

// withFloatDispatch refuses a reduced-float computation for the ops above
// (their result dtype is the computation dtype).
func withFloatDispatch(name string, k kernel) kernel {
	if !floatDoubleOnly[name] {
		return k
	}
	return func(c *call) ([]any, error) {
		outs, err := k(c)
		if err != nil {
			return nil, err
		}
		if t, ok := outs[0].(*Tensor); ok && (t.DType == ir.F16 || t.DType == ir.BF16) {
			return nil, fmt.Errorf("\"%s_cpu\" not implemented for '%s'", strings.TrimPrefix(name, "special_"), scalarTypeName(t.DType))
		}
		return outs, nil
	}
}
