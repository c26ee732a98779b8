package cuda

import (
	"fmt"
	"strings"
)

// libmFns are the C math functions the scalar functions use, with their
// arity. Each gets km_<name> overloads for float and double: libm's (or
// CUDA's) <name>f and <name>, and in a bare device compilation libdevice's
// __nv_<name>f and __nv_<name>.
var libmFns = []struct {
	name  string
	arity int
}{
	{"exp", 1}, {"exp2", 1}, {"expm1", 1}, {"log", 1}, {"log2", 1}, {"log10", 1}, {"log1p", 1},
	{"sqrt", 1}, {"sin", 1}, {"cos", 1}, {"tan", 1}, {"asin", 1}, {"acos", 1}, {"atan", 1},
	{"sinh", 1}, {"cosh", 1}, {"tanh", 1}, {"asinh", 1}, {"acosh", 1}, {"atanh", 1},
	{"erf", 1}, {"erfc", 1}, {"erfinv", 1}, {"lgamma", 1}, {"floor", 1}, {"ceil", 1},
	{"rint", 1}, {"trunc", 1}, {"fabs", 1},
	{"fmod", 2}, {"pow", 2}, {"atan2", 2}, {"hypot", 2}, {"copysign", 2},
	{"fma", 3}, // x·y + z rounded once: the contractions ATen's vectorized CPU kernels compile to
}

// preludeMath writes the km_ wrappers.
func preludeMath() string {
	var b strings.Builder
	b.WriteString("\n// Math: km_<name> for float and double.\n#if defined(KILN_BARE)\n")
	for _, f := range libmFns {
		fmt.Fprintf(&b, "extern \"C\" __device__ float __nv_%sf(%s);\n", f.name, params("float", f.arity))
		fmt.Fprintf(&b, "extern \"C\" __device__ double __nv_%s(%s);\n", f.name, params("double", f.arity))
	}
	b.WriteString("#define KILN_MF(n) __nv_##n##f\n#define KILN_MD(n) __nv_##n\n#else\n")
	b.WriteString("#define KILN_MF(n) n##f\n#define KILN_MD(n) n\n#endif\n")
	for _, f := range libmFns {
		args := strings.Join([]string{"x", "y", "z"}[:f.arity], ", ")
		for _, t := range []struct{ c, m string }{{"float", "KILN_MF"}, {"double", "KILN_MD"}} {
			fmt.Fprintf(&b, "KD %s km_%s(%s) { return %s(%s)(%s); }\n", t.c, f.name, namedParams(t.c, f.arity), t.m, f.name, args)
		}
	}
	b.WriteString(preludeFns)
	b.WriteString(preludeRandom)
	return b.String()
}

func params(t string, n int) string {
	return strings.TrimSuffix(strings.Repeat(t+", ", n), ", ")
}

func namedParams(t string, n int) string {
	names := []string{"x", "y", "z"}[:n]
	for i, v := range names {
		names[i] = t + " " + v
	}
	return strings.Join(names, ", ")
}

// preludeFns defines k_<fn> for every lowering.Fns name, overloaded by
// register type: F (float and double, via T), I (long long, wrapping like
// two's complement), B (bool). Semantics are PyTorch's (interp's).
const preludeFns = `
#define KILN_F1(name, body) \
  KD float k_##name(float x) { typedef float T; return body; } \
  KD double k_##name(double x) { typedef double T; return body; }
#define KILN_F2(name, body) \
  KD float k_##name(float a, float b) { typedef float T; return body; } \
  KD double k_##name(double a, double b) { typedef double T; return body; }
#define KILN_I1(name, body) KD long long k_##name(long long x) { typedef unsigned long long U; return body; }
#define KILN_I2(name, body) KD long long k_##name(long long a, long long b) { typedef unsigned long long U; return body; }
#define KILN_FP1(name) KILN_F1(name, km_##name(x))

KILN_F1(neg, -x) KILN_I1(neg, (long long)(0ULL - (U)x))
KILN_F1(abs, km_fabs(x)) KILN_I1(abs, x < 0 ? (long long)(0ULL - (U)x) : x)
KILN_FP1(exp) KILN_FP1(exp2) KILN_FP1(expm1) KILN_FP1(log) KILN_FP1(log2) KILN_FP1(log10) KILN_FP1(log1p)
KILN_FP1(sqrt) KILN_FP1(sin) KILN_FP1(cos) KILN_FP1(tan) KILN_FP1(asin) KILN_FP1(acos) KILN_FP1(atan)
KILN_FP1(sinh) KILN_FP1(cosh) KILN_FP1(tanh) KILN_FP1(asinh) KILN_FP1(acosh) KILN_FP1(atanh)
KILN_FP1(erf) KILN_FP1(erfc) KILN_FP1(erfinv) KILN_FP1(lgamma)
KILN_F1(rsqrt, T(1) / km_sqrt(x))
KILN_F1(reciprocal, T(1) / x)
KILN_F1(sigmoid, T(1) / (T(1) + km_exp(-x)))
KILN_FP1(floor) KILN_I1(floor, x)
KILN_FP1(ceil) KILN_I1(ceil, x)
KILN_F1(round, km_rint(x)) KILN_I1(round, x)
KILN_FP1(trunc) KILN_I1(trunc, x)
KILN_F1(frac, x - km_trunc(x))
KILN_F1(sign, T((x > 0) - (x < 0))) KILN_I1(sign, (long long)((x > 0) - (x < 0)))
KD bool k_sign(bool x) { return x; }
KD bool k_signbit(float x) { return (k_f32_bits(x) >> 31) != 0; }
KD bool k_signbit(double x) { return (k_f64_bits(x) >> 63) != 0; }
KD bool k_signbit(long long x) { return x < 0; }
KD bool k_signbit(bool) { return false; }
template <class T> KD bool k_logical_not(T x) { return x == 0; }
KILN_I1(bitwise_not, ~x)
KD bool k_bitwise_not(bool x) { return !x; }
template <class T> KD bool k_isnan(T x) { return x != x; }
template <class T> KD bool k_isinf(T x) { return x - x != x - x && x == x; }
template <class T> KD bool k_isfinite(T x) { return x - x == x - x; }
KD bool k_isinf(long long) { return false; }
KD bool k_isfinite(long long) { return true; }
KD bool k_isnan(bool) { return false; }
KD bool k_isinf(bool) { return false; }
KD bool k_isfinite(bool) { return true; }

KILN_F2(add, a + b) KILN_I2(add, (long long)((U)a + (U)b))
KD bool k_add(bool a, bool b) { return a || b; }
KILN_F2(sub, a - b) KILN_I2(sub, (long long)((U)a - (U)b))
KILN_F2(mul, a * b) KILN_I2(mul, (long long)((U)a * (U)b))
KD bool k_mul(bool a, bool b) { return a && b; }
KILN_F2(truediv, a / b)
// ATen's div_floor_floating.
template <class T> KD T k_floordiv_f(T a, T b) {
  if (b == 0) return a / b;
  T mod = km_fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div = div - T(1);
  if (div == 0) return km_copysign(T(0), a / b);
  T fl = km_floor(div);
  if (div - fl > T(0.5)) fl = fl + T(1);
  return fl;
}
KILN_F2(floordiv, k_floordiv_f<T>(a, b)) KILN_I2(floordiv, floordiv(a, b))
template <class T> KD T k_remainder_f(T a, T b) {
  T m = km_fmod(a, b);
  if (m != 0 && (b < 0) != (m < 0)) m = m + b;
  return m;
}
KILN_F2(remainder, k_remainder_f<T>(a, b)) KILN_I2(remainder, pymod(a, b))
KILN_F2(fmod, km_fmod(a, b)) KILN_I2(fmod, (b == 0 || b == -1) ? 0 : a % b)
// std::pow with the exponents ATen special-cases.
template <class T> KD T k_pow_f(T a, T b) {
  if (b == T(2)) return a * a;
  if (b == T(3)) return a * a * a;
  if (b == T(0.5)) return km_sqrt(a);
  if (b == T(-0.5)) return T(1) / km_sqrt(a);
  if (b == T(-1)) return T(1) / a;
  if (b == T(-2)) return T(1) / (a * a);
  return km_pow(a, b);
}
KILN_F2(pow, k_pow_f<T>(a, b))
// ATen's powi: negative exponents give 1, +-1 or 0.
KD long long k_pow(long long a, long long b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? ((-b) % 2 ? -1 : 1) : 0;
  unsigned long long r = 1, x = (unsigned long long)a;
  for (; b > 0; b >>= 1) {
    if (b & 1) r *= x;
    x *= x;
  }
  return (long long)r;
}
KILN_F2(maximum, (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b)) KILN_I2(maximum, a > b ? a : b)
KILN_F2(minimum, (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b)) KILN_I2(minimum, a < b ? a : b)
KD bool k_maximum(bool a, bool b) { return a || b; }
KD bool k_minimum(bool a, bool b) { return a && b; }
KILN_F2(fmax, a != a ? b : b != b ? a : (a > b ? a : b)) KILN_I2(fmax, a > b ? a : b)
KILN_F2(fmin, a != a ? b : b != b ? a : (a < b ? a : b)) KILN_I2(fmin, a < b ? a : b)
// ATen's _log_add_exp_helper(b, a): a logcumsumexp scan folding b into a.
template <class T> KD T k_logaddexp_f(T a, T b) {
  T lo = (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b);
  T hi = (a != a || b != b) ? lo : (a > b ? a : b);
  if (lo != hi || lo - lo == lo - lo) return km_log1p(km_exp(lo - hi)) + hi;
  return b;
}
KILN_F2(logaddexp, k_logaddexp_f<T>(a, b))
KILN_F2(atan2, km_atan2(a, b))
KILN_F2(hypot, km_hypot(a, b))
KILN_F2(copysign, km_copysign(a, b))
template <class T> KD bool k_eq(T a, T b) { return a == b; }
template <class T> KD bool k_ne(T a, T b) { return a != b; }
template <class T> KD bool k_lt(T a, T b) { return a < b; }
template <class T> KD bool k_le(T a, T b) { return a <= b; }
template <class T> KD bool k_gt(T a, T b) { return a > b; }
template <class T> KD bool k_ge(T a, T b) { return a >= b; }
template <class T> KD bool k_logical_and(T a, T b) { return a != 0 && b != 0; }
template <class T> KD bool k_logical_or(T a, T b) { return a != 0 || b != 0; }
template <class T> KD bool k_logical_xor(T a, T b) { return (a != 0) != (b != 0); }
KILN_I2(bitwise_and, a & b) KILN_I2(bitwise_or, a | b) KILN_I2(bitwise_xor, a ^ b)
KD bool k_bitwise_and(bool a, bool b) { return a && b; }
KD bool k_bitwise_or(bool a, bool b) { return a || b; }
KD bool k_bitwise_xor(bool a, bool b) { return a != b; }
// Shifts past the dtype's width give 0 (left) or the sign fill (right).
KD long long k_lshift(long long a, long long b, int width) {
  return (b < 0 || b >= width) ? 0 : (long long)((unsigned long long)a << b);
}
KD long long k_rshift(long long a, long long b, int width) {
  return a >> ((b < 0 || b >= width) ? width - 1 : b);
}
template <class T> KD T k_where(bool c, T a, T b) { return c ? a : b; }

#if defined(KILN_EMULATE)
// erfinv for the CPU build (libm has none): Giles' single-precision
// approximation refined by Newton steps on erf.
static double erfinv(double y) {
  if (y != y || y < -1 || y > 1) return NAN;
  if (y == 1) return INFINITY;
  if (y == -1) return -INFINITY;
  double w = -log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    x = 2.81022636e-08;
    x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w; x = -4.39150654e-06 + x * w;
    x = 0.00021858087 + x * w; x = -0.00125372503 + x * w; x = -0.00417768164 + x * w;
    x = 0.246640727 + x * w; x = 1.50140941 + x * w;
  } else {
    w = sqrt(w) - 3.0;
    x = -0.000200214257;
    x = 0.000100950558 + x * w; x = 0.00134934322 + x * w; x = -0.00367342844 + x * w;
    x = 0.00573950773 + x * w; x = -0.0076224613 + x * w; x = 0.00943887047 + x * w;
    x = 1.00167406 + x * w; x = 2.83297682 + x * w;
  }
  x *= y;
  for (int i = 0; i < 3; i++) x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
  return x;
}
#endif
`
