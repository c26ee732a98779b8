package interp

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// The orthogonal polynomial family (special_chebyshev_polynomial_t/u/v/w,
// their shifted variants, hermite h/he, laguerre l, legendre p): each is
// ATen's *_forward(T x, int64_t n) of Math.h, a three-term recurrence with
// closed forms at the interval's ends, written over the scalar type so a
// float32 recurrence overflows (and turns to NaN) where PyTorch's does. n
// is a tensor of the promoted dtype, cast to int64 as static_cast does.

// polyFamily maps each op to its recurrence; one registration loop serves
// all of them.
var polyFamily = map[string]struct {
	f32 func(float32, int64) float32
	f64 func(float64, int64) float64
}{
	"special_chebyshev_polynomial_t":         {chebyshevT[float32], chebyshevT[float64]},
	"special_chebyshev_polynomial_u":         {chebyshevU[float32], chebyshevU[float64]},
	"special_chebyshev_polynomial_v":         {chebyshevV[float32], chebyshevV[float64]},
	"special_chebyshev_polynomial_w":         {chebyshevW[float32], chebyshevW[float64]},
	"special_shifted_chebyshev_polynomial_t": {shiftedChebyshevT[float32], shiftedChebyshevT[float64]},
	"special_shifted_chebyshev_polynomial_u": {shiftedChebyshevU[float32], shiftedChebyshevU[float64]},
	"special_shifted_chebyshev_polynomial_v": {shiftedChebyshevV[float32], shiftedChebyshevV[float64]},
	"special_shifted_chebyshev_polynomial_w": {shiftedChebyshevW[float32], shiftedChebyshevW[float64]},
	"special_hermite_polynomial_h":           {hermiteH[float32], hermiteH[float64]},
	"special_hermite_polynomial_he":          {hermiteHe[float32], hermiteHe[float64]},
	"special_laguerre_polynomial_l":          {laguerreL[float32], laguerreL[float64]},
	"special_legendre_polynomial_p":          {legendreP[float32], legendreP[float64]},
}

// polyDegree is static_cast<int64_t>(n) on x86 (NaN and out of range give
// INT64_MIN, a negative degree: the polynomial is 0).
func polyDegree[T floatT](n T) int64 { return floatToInt(float64(n), ir.I64) }

// recur runs r = a·q - p from (p, q) = (1, q1) up to degree n, stopping
// once q is NaN, as every Chebyshev-type recurrence of Math.h does.
func recur[T floatT](a, q1 T, n int64) T {
	p, q, r := T(1), q1, q1
	for k := int64(2); k <= n && !tisnan(q); k++ {
		r = a*q - p
		p = q
		q = r
	}
	return r
}

func chebyshevT[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case tabs(x) == 1:
		if x > 0 || n%2 == 0 {
			return 1
		}
		return -1
	case n > 6 && tabs(x) < 1:
		return tcos(T(n) * tacos(x))
	case n == 0:
		return 1
	case n == 1:
		return x
	}
	return recur(x+x, x, n)
}

func chebyshevU[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case tabs(x) == 1:
		if x > 0 || n%2 == 0 {
			return T(n + 1)
		}
		return -T(n + 1)
	case n > 8 && tabs(x) < 1:
		if tsin(tacos(x)) != 0 {
			return tsin(T(n+1)*tacos(x)) / tsin(tacos(x))
		}
		return T(n+1) * tcos(T(n+1)*tacos(x)) / x
	case n == 0:
		return 1
	case n == 1:
		return x + x
	}
	return recur(x+x, x+x, n)
}

func chebyshevV[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case tabs(x) == 1:
		if x > 0 {
			return 1
		}
		return oddSign[T](n, T(n+n+1))
	case n > 8 && tabs(x) < 1:
		if tsin(tacos(x)/2) != 1 {
			return tcos((T(n)+T(0.5))*tacos(x)) / tcos(tacos(x)/2)
		}
		return oddSign[T](n, T(n+n+1))
	case n == 0:
		return 1
	case n == 1:
		return x + x - 1
	}
	return recur(x+x, x+x-1, n)
}

func chebyshevW[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case tabs(x) == 1:
		if x > 0 {
			return T(n + n + 1)
		}
		return oddSign[T](n, 1)
	case n > 8 && tabs(x) < 1:
		if tcos(tacos(x)/2) != 1 {
			return tsin((T(n)+T(0.5))*tacos(x)) / tsin(tacos(x)/2)
		}
		if x > 0 {
			return T(n + n + 1)
		}
		return oddSign[T](n, 1)
	case n == 0:
		return 1
	case n == 1:
		return x + x + 1
	}
	return recur(x+x, x+x+1, n)
}

// oddSign is v for even n, -v for odd n.
func oddSign[T floatT](n int64, v T) T {
	if n%2 == 0 {
		return v
	}
	return -v
}

// The shifted polynomials are the plain ones at 2x-1, with their own
// closed forms at x = 1 and x = 0 (and a lower degree cutoff for W).
func shiftedChebyshevT[T floatT](x T, n int64) T {
	y := x + x - 1
	switch {
	case n < 0:
		return 0
	case x == 1:
		return 1
	case x == 0:
		return oddSign[T](n, 1)
	case n > 6 && tabs(y) < 1:
		return tcos(T(n) * tacos(y))
	case n == 0:
		return 1
	case n == 1:
		return y
	}
	return recur(y+y, y, n)
}

func shiftedChebyshevU[T floatT](x T, n int64) T {
	y := x + x - 1
	switch {
	case n < 0:
		return 0
	case x == 1:
		return T(n + 1)
	case x == 0:
		return oddSign[T](n, T(n+1))
	case n > 6 && tabs(y) < 1:
		if tsin(tacos(y)) != 0 {
			return tsin(T(n+1)*tacos(y)) / tsin(tacos(y))
		}
		return T(n+1) * tcos(T(n+1)*tacos(y)) / y
	case n == 0:
		return 1
	case n == 1:
		return y + y
	}
	return recur(y+y, y+y, n)
}

func shiftedChebyshevV[T floatT](x T, n int64) T {
	y := x + x - 1
	switch {
	case n < 0:
		return 0
	case x == 1:
		return 1
	case x == 0:
		return oddSign[T](n, T(n+n+1))
	case n > 6 && tabs(y) < 1:
		if tsin(tacos(y)/2) != 1 {
			return tcos((T(n)+T(0.5))*tacos(y)) / tcos(tacos(y)/2)
		}
		return oddSign[T](n, T(n+n+1))
	case n == 0:
		return 1
	case n == 1:
		return y + y - 1
	}
	return recur(y+y, y+y-1, n)
}

func shiftedChebyshevW[T floatT](x T, n int64) T {
	y := x + x - 1
	switch {
	case n < 0:
		return 0
	case x == 1:
		return T(n + n + 1)
	case x == 0:
		return oddSign[T](n, 1)
	case n > 4 && tabs(y) < 1:
		if tcos(tacos(y)/2) != 1 {
			return tsin((T(n)+T(0.5))*tacos(y)) / tsin(tacos(y)/2)
		}
		return oddSign[T](n, 1)
	case n == 0:
		return 1
	case n == 1:
		return y + y + 1
	}
	return recur(y+y, y+y+1, n)
}

// hermiteLimit is getHermitianLimit: past it the recurrence returns NaN.
func hermiteLimit[T floatT]() int64 {
	if _, f32 := any(T(0)).(float32); f32 {
		return 128
	}
	return 512
}

func hermiteH[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return 1
	case n == 1:
		return x + x
	case n > hermiteLimit[T]():
		return tnan[T]()
	}
	p, q, r := T(1), x+x, T(0)
	for k := int64(2); k < n+n; k += 2 {
		r = (x+x)*q - T(k)*p
		p = q
		q = r
	}
	return r
}

func hermiteHe[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return 1
	case n == 1:
		return x
	case n > hermiteLimit[T]():
		return tnan[T]()
	}
	p, q, r := T(1), x, T(0)
	for k := int64(1); k < n; k++ {
		r = x*q - T(k)*p
		p = q
		q = r
	}
	return r
}

func laguerreL[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case tabs(x) == 0:
		return 1
	case n == 0:
		return 1
	case n == 1:
		return 1 - x
	}
	p, q, r := T(1), 1-x, 1-x
	for k := int64(1); k < n && !tisnan(q); k++ {
		r = ((T(k+k)+(1-x))*q - T(k)*p) / T(k+1)
		p = q
		q = r
	}
	return r
}

func legendreP[T floatT](x T, n int64) T {
	switch {
	case n < 0:
		return 0
	case tabs(x) == 1:
		if x > 0 || n%2 == 0 {
			return 1
		}
		return -1
	case n == 0:
		return 1
	case n == 1:
		return x
	}
	p, q, r := T(1), x, x
	for k := int64(1); k < n && !tisnan(q); k++ {
		r = (T(k+k+1)*x*q - T(k)*p) / T(k+1)
		p = q
		q = r
	}
	return r
}

// polyKernel is the family's eval kernel: (x, n) promoted together, n
// read as a degree.
func polyKernel(name string) kernel {
	fam := polyFamily[name]
	f32 := func(x, n float32) float32 { return fam.f32(x, polyDegree(n)) }
	f64 := func(x, n float64) float64 { return fam.f64(x, polyDegree(n)) }
	k := ewKernel{f: byScalarType2(f32, f64)}
	return func(c *call) ([]any, error) {
		in, err := operands(c, "x", "n")
		if err != nil {
			return nil, err
		}
		return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: name}, k, in))
	}
}

func init() {
	for name := range polyFamily {
		register(polyKernel(name), name)
	}
}
