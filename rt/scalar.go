package rt

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Scalar semantics of the loop IR's calls, after ATen's CPU kernels (the
// interp package is the oracle). Float functions are defined on float64;
// generated code computes a float32 value as float32(F(float64(x))), which
// is PyTorch's result for the correctly rounded operations and within an
// ulp for the transcendental ones (exp and tanh on float32 are the float32
// polynomials of fastmath.go instead, as Inductor's C++ computes them). Integer functions take int64 registers;
// generated code wraps their results to the dtype's width.

// ErrZeroDivision is PyTorch's CPU error for integer division by zero.
var ErrZeroDivision = errors.New("ZeroDivisionError")

// IndexError is the error of a failed bounds check of an index read from
// a tensor (the loop IR's OpCheck): msg is PyTorch's message with
// "{index}" and "{size}" standing for the index and the size, as
// lowering.Check.Message fills them in.
func IndexError(msg string, index, size int64) error {
	return &BoundsError{strings.NewReplacer("{index}", strconv.FormatInt(index, 10), "{size}", strconv.FormatInt(size, 10)).Replace(msg)}
}

// BoundsError is IndexError's error, so that a caller can tell a bad index
// (an input PyTorch refuses) from a failure of the program.
type BoundsError struct{ Msg string }

func (e *BoundsError) Error() string { return e.Msg }

// FloorDiv is Python's // on int64 index values; 0 for a zero divisor
// (index expressions never divide by zero; this keeps a bad size from
// crashing the program).
func FloorDiv(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// PyMod is Python's % on int64 index values (the divisor's sign).
func PyMod(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	m := a % b
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m
}

// RemainderI64 is remainder on integers (b != 0, checked by the caller).
func RemainderI64(a, b int64) int64 { return PyMod(a, b) }

// FloorDivI64 is floor_divide on integers (b != 0, checked by the caller).
func FloorDivI64(a, b int64) int64 { return FloorDiv(a, b) }

// FloorDivFloat is ATen's div_floor_floating with every step rounded by r
// (interp passes its dtype rounding; FloorDivF32/F64 below are the
// generated code's).
func FloorDivFloat(a, b float64, r func(float64) float64) float64 {
	if b == 0 {
		return a / b
	}
	mod := math.Mod(a, b)
	div := r(r(a-mod) / b)
	if mod != 0 && (b < 0) != (mod < 0) {
		div = r(div - 1)
	}
	if div == 0 {
		return math.Copysign(0, a/b)
	}
	fl := math.Floor(div)
	if div-fl > 0.5 {
		fl++
	}
	return fl
}

func round32(x float64) float64 { return float64(float32(x)) }
func round64(x float64) float64 { return x }

// FloorDivF32 is floor_divide computed in float32.
func FloorDivF32(a, b float32) float32 {
	return float32(FloorDivFloat(float64(a), float64(b), round32))
}

// FloorDivF64 is floor_divide computed in float64.
func FloorDivF64(a, b float64) float64 { return FloorDivFloat(a, b, round64) }

// Remainder is Python's float %: fmod moved to the divisor's sign.
func Remainder(a, b float64) float64 {
	m := math.Mod(a, b)
	if m != 0 && (b < 0) != (m < 0) {
		m += b
	}
	return m
}

// PowI64 is ATen's integer pow: negative exponents give 1, ±1 or 0.
func PowI64(a, b int64) int64 {
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
	r := int64(1)
	for b > 0 {
		if b&1 != 0 {
			r *= a
		}
		a *= a
		b >>= 1
	}
	return r
}

// Pow is std::pow with the exponents ATen special-cases.
func Pow(a, b float64) float64 {
	switch b {
	case 2:
		return a * a
	case 3:
		return a * a * a
	case 0.5:
		return math.Sqrt(a)
	case -0.5:
		return 1 / math.Sqrt(a)
	case -1:
		return 1 / a
	case -2:
		return 1 / (a * a)
	}
	return math.Pow(a, b)
}

// AbsF32 clears the sign bit.
func AbsF32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// AbsI64 is |x| with wrapping (|MinInt64| = MinInt64, as in C++).
func AbsI64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// FMax is fmax: a NaN loses unless both are NaN.
func FMax(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return math.Max(a, b)
}

// FMin is fmin.
func FMin(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return math.Min(a, b)
}

// Sigmoid is 1 / (1 + e^-x).
func Sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Rsqrt is 1 / √x.
func Rsqrt(x float64) float64 { return 1 / math.Sqrt(x) }

// RsqrtF32 is 1 / √x in float32, as ATen's vectorised rsqrt computes it
// (torch 2.15's vec512_float.h: _mm512_div_ps(1, _mm512_sqrt_ps(x))): the
// square root correctly rounded, then the division.
func RsqrtF32(x float32) float32 { return 1 / float32(math.Sqrt(float64(x))) }

// SigmoidF32 is 1 / (1 + e^-x) in float32 (exp within an ulp: ExpF32).
// torch 2.15's float32 sigmoid equals (1 + torch.exp(-x)).reciprocal() on
// 96% of 1.1M inputs in [-100, 100], the float64 formula rounded on 65%
// (its kernel's source is not among the installed headers).
func SigmoidF32(x float32) float32 { return 1 / (1 + ExpF32(-x)) }

// Reciprocal is 1 / x.
func Reciprocal(x float64) float64 { return 1 / x }

// Lgamma is log|Γ(x)|.
func Lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// Frac is x - trunc(x).
func Frac(x float64) float64 { return x - math.Trunc(x) }

// Sign is (x > 0) - (x < 0); 0 for NaN, as ATen's CPU kernel computes it.
func Sign(x float64) float64 { return B2F(x > 0) - B2F(x < 0) }

// SignI64 is the integer sign.
func SignI64(x int64) int64 { return B2I(x > 0) - B2I(x < 0) }

// IsInf reports ±inf.
func IsInf(x float64) bool { return math.IsInf(x, 0) }

// IsFinite reports neither inf nor NaN.
func IsFinite(x float64) bool { return !math.IsInf(x, 0) && x == x }

// Shl is ATen's lshift: a shift past the width gives 0.
func Shl(a, b int64, width int64) int64 {
	if b < 0 || b >= width {
		return 0
	}
	return a << uint(b)
}

// Shr is ATen's arithmetic rshift: a shift past the width fills with the sign.
func Shr(a, b int64, width int64) int64 {
	if b < 0 || b >= width {
		b = width - 1
	}
	return a >> uint(b)
}

// B2I is 1 for true, 0 for false.
func B2I(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// B2F is 1 for true, 0 for false.
func B2F(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// B2F32 is 1 for true, 0 for false.
func B2F32(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// B2U8 is a bool's storage byte.
func B2U8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// F2I64 is static_cast<int64_t>(double) as x86 compiles it: truncation;
// NaN and out-of-range values give the "integer indefinite" MinInt64. It
// serves int64, uint64 and uint32 targets.
func F2I64(v float64) int64 {
	if v != v || v >= 9223372036854775807 || v < -9223372036854775808 {
		return math.MinInt64
	}
	return int64(v)
}

// F2I32 is the 32-bit conversion narrower integer targets go through:
// MinInt32 for NaN and out-of-range values.
func F2I32(v float64) int64 {
	if v != v || v >= 2147483648 || v < -2147483648 {
		return math.MinInt32
	}
	return int64(int32(v))
}

// NaN32 is a float32 NaN.
func NaN32() float32 { return float32(math.NaN()) }

// Inf32 is +inf (sign ≥ 0) or -inf as a float32.
func Inf32(sign int) float32 { return float32(math.Inf(sign)) }

// NegZero32 is -0 as a float32 (Go constants have no negative zero).
func NegZero32() float32 { return math.Float32frombits(1 << 31) }

// NegZero64 is -0 as a float64.
func NegZero64() float64 { return math.Copysign(0, -1) }

// ArgMaxF32 folds x at index k into a running argmax (first index wins;
// a NaN is maximal and sticks).
func ArgMaxF32(best float32, at int64, x float32, k int64) (float32, int64) {
	if best == best && (x != x || x > best) {
		return x, k
	}
	return best, at
}

// ArgMinF32 is ArgMaxF32 for the minimum.
func ArgMinF32(best float32, at int64, x float32, k int64) (float32, int64) {
	if best == best && (x != x || x < best) {
		return x, k
	}
	return best, at
}

// ArgMaxF64 is ArgMaxF32 on float64.
func ArgMaxF64(best float64, at int64, x float64, k int64) (float64, int64) {
	if best == best && (x != x || x > best) {
		return x, k
	}
	return best, at
}

// ArgMinF64 is ArgMinF32 on float64.
func ArgMinF64(best float64, at int64, x float64, k int64) (float64, int64) {
	if best == best && (x != x || x < best) {
		return x, k
	}
	return best, at
}

// ArgMaxI64 is the integer argmax.
func ArgMaxI64(best int64, at int64, x int64, k int64) (int64, int64) {
	if x > best {
		return x, k
	}
	return best, at
}

// ArgMinI64 is the integer argmin.
func ArgMinI64(best int64, at int64, x int64, k int64) (int64, int64) {
	if x < best {
		return x, k
	}
	return best, at
}

// Float32bits etc. let generated code reinterpret bits without importing math.
func Float32bits(f float32) uint32     { return math.Float32bits(f) }
func Float32frombits(b uint32) float32 { return math.Float32frombits(b) }
func Float64bits(f float64) uint64     { return math.Float64bits(f) }
func Float64frombits(b uint64) float64 { return math.Float64frombits(b) }
