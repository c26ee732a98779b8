package cuda

// preludeHead selects one of three compilation modes and defines what the
// kernels need without the CUDA SDK's headers:
//
//   - KILN_EMULATE (g++ -x c++ -DKILN_EMULATE): a CPU program; the CUDA
//     keywords are defined away and a launch loops over blocks and threads.
//   - __CUDACC_RTC__ (NVRTC, NVIDIA's runtime compiler, which PyTorch's
//     CUDA wheels ship): device code only, CUDA's built-in vector types,
//     thread ids, atomics and math, no headers; ptxas then gives SASS for a
//     real GPU architecture (tools/cuda_nvrtc), with no GPU present.
//   - __CUDACC__ (nvcc, or clang with the CUDA headers): a real GPU program
//     through the CUDA runtime API.
//   - bare clang device compilation (clang --cuda-device-only -nocudainc):
//     PTX for inspection; thread ids come from NVVM builtins, math from
//     libdevice declarations (left unresolved: the PTX is read, not run),
//     and the host part is compiled out.
const preludeHead = `// ---- kiln prelude ----
#if defined(KILN_EMULATE)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define KILN_HOST_CODE 1
#define __global__
#define __device__
#define __host__
#define KD static inline
#define KHD static inline
// Emulated launches run blocks and threads one after another; the ids are
// globals that KILN_LAUNCH sets before each call.
static unsigned kiln_tid, kiln_bid, kiln_bdim, kiln_gdim;
#define KILN_TID kiln_tid
#define KILN_BID kiln_bid
#define KILN_BDIM kiln_bdim
#define KILN_GDIM kiln_gdim
// libm has no erfinv; the prelude defines one (see preludeFns).
static double erfinv(double y);
static float erfinvf(float y) { return (float)erfinv((double)y); }
#elif defined(__CUDACC__)
#if defined(__CUDACC_RTC__)
#define KILN_RTC 1
// NVRTC declares memcpy for device code, not the builtin
#define __builtin_memcpy memcpy
#else
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define KILN_HOST_CODE 1
#define KILN_CUDA_RUNTIME 1
#endif
#define KD static __device__ __forceinline__
#define KHD static __host__ __device__ __forceinline__
#define KILN_TID threadIdx.x
#define KILN_BID blockIdx.x
#define KILN_BDIM blockDim.x
#define KILN_GDIM gridDim.x
#elif defined(__CUDA__)
#define KILN_BARE 1
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define KD static __device__ inline __attribute__((always_inline))
#define KHD static __host__ __device__ inline __attribute__((always_inline))
#define KILN_TID __nvvm_read_ptx_sreg_tid_x()
#define KILN_BID __nvvm_read_ptx_sreg_ctaid_x()
#define KILN_BDIM __nvvm_read_ptx_sreg_ntid_x()
#define KILN_GDIM __nvvm_read_ptx_sreg_nctaid_x()
#else
#error "compile with nvcc, NVRTC, clang -x cuda, or g++ -x c++ -DKILN_EMULATE"
#endif

#if !defined(KILN_CUDA_RUNTIME) && !defined(KILN_RTC)
// 16-, 8- and 4-byte vector types, aligned like CUDA's.
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
#endif

// Bits and reinterpretation (memcpy is exact and alias-safe everywhere).
template <class To, class From> KHD To k_reinterpret(From f) {
  To t;
  __builtin_memcpy(&t, &f, sizeof(To));
  return t;
}
KHD float k_bits_f32(unsigned int u) { return k_reinterpret<float>(u); }
KHD unsigned int k_f32_bits(float f) { return k_reinterpret<unsigned int>(f); }
KHD double k_bits_f64(unsigned long long u) { return k_reinterpret<double>(u); }
KHD unsigned long long k_f64_bits(double f) { return k_reinterpret<unsigned long long>(f); }

// Python semantics for index expressions (ir/sym Expr.Code): floor
// division and modulo round toward -inf. A zero divisor gives 0 (sizes
// are never zero where kiln divides by them).
KHD long long floordiv(long long a, long long b) {
  if (b == 0) return 0;
  if (b == -1) return (long long)(0ULL - (unsigned long long)a);
  long long q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
KHD long long pymod(long long a, long long b) {
  if (b == 0 || b == -1) return 0;
  long long m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}
KHD long long kiln_max(long long a, long long b) { return a > b ? a : b; }
KHD long long kiln_min(long long a, long long b) { return a < b ? a : b; }
#undef max
#undef min
#define max kiln_max
#define min kiln_min
`

// preludeFloat converts between float32 registers and the reduced float
// formats with exact bit manipulation, after c10 (BFloat16.h, Half.h,
// Float8_*.h) and kiln's interp/floatconv.go: round to nearest, ties to
// even; no cuda_bf16.h, so it compiles without the CUDA SDK.
const preludeFloat = `
// 2^n for -126 <= n <= 127, exactly.
KD float k_pow2(int n) { return k_bits_f32((unsigned int)(n + 127) << 23); }
// Round a float in [0, 2^23) to an integer, ties to even (the 2^23 trick
// under the default rounding mode).
KD float k_rne(float x) { return x < 8388608.0f ? (x + 8388608.0f) - 8388608.0f : x; }

KD float k_from_bf16(unsigned short h) { return k_bits_f32((unsigned int)h << 16); }
KD unsigned short k_to_bf16(float f) {
  if (f != f) return 0x7FC0;
  unsigned int u = k_f32_bits(f);
  u += ((u >> 16) & 1u) + 0x7FFFu;
  return (unsigned short)(u >> 16);
}

// Minifloats: ebits exponent bits, mbits mantissa bits, bias; kind 0 is
// IEEE-like (inf and NaNs in the top exponent), 1 is "fn" (no inf, only
// S.1111.111 is NaN), 2 is "fnuz" (no inf, no -0, 0x80 is the NaN).
KD unsigned int k_mini_nan(int ebits, int mbits, int kind, unsigned int sign) {
  unsigned int sbit = 1u << (ebits + mbits);
  if (kind == 2) return sbit;
  if (kind == 1) return sign | (sbit - 1u);
  unsigned int mant = mbits <= 3 ? (1u << mbits) - 1u : 1u << (mbits - 1);
  return sign | (((1u << ebits) - 1u) << mbits) | mant;
}
KD unsigned int k_mini_magnitude(float a, int ebits, int mbits, int bias) {
  unsigned int over = 1u << (ebits + mbits);
  if (a > 3.4028234663852886e38f) return over;
  int emin = 1 - bias;
  if (a < k_pow2(emin)) return (unsigned int)k_rne(a * k_pow2(mbits - emin));
  int e = (int)((k_f32_bits(a) >> 23) & 0xFFu) - 127;
  float q = k_rne(a * k_pow2(mbits - e));
  if (q >= k_pow2(mbits + 1)) {
    q = q * 0.5f;
    e++;
  }
  int biased = e + bias;
  if (biased >= (1 << ebits)) return over;
  return ((unsigned int)biased << mbits) | ((unsigned int)q - (1u << mbits));
}
KD unsigned int k_mini_encode(float f, int ebits, int mbits, int bias, int kind) {
  unsigned int sbit = 1u << (ebits + mbits);
  unsigned int sign = (k_f32_bits(f) >> 31) ? sbit : 0u;
  if (f != f) return k_mini_nan(ebits, mbits, kind, sign);
  unsigned int code = k_mini_magnitude(f < 0 ? -f : f, ebits, mbits, bias);
  if (kind == 0) {
    unsigned int inf = ((1u << ebits) - 1u) << mbits;
    if (code >= inf) code = inf;
  } else if (kind == 1) {
    if (code >= sbit - 1u) return k_mini_nan(ebits, mbits, kind, sign);
  } else {
    if (code >= sbit) return k_mini_nan(ebits, mbits, kind, sign);
    if (code == 0) return 0;
  }
  return sign | code;
}
KD float k_mini_decode(unsigned int code, int ebits, int mbits, int bias, int kind) {
  unsigned int sbit = 1u << (ebits + mbits);
  unsigned int mag = code & (sbit - 1u);
  float nan = k_bits_f32(0x7FC00000u);
  if (kind == 2 && code == sbit) return nan;
  if (kind == 1 && mag == sbit - 1u) return nan;
  int exp = (int)(mag >> mbits);
  float mant = (float)(mag & ((1u << mbits) - 1u));
  float v;
  if (kind == 0 && exp == (1 << ebits) - 1) {
    if (mant != 0.0f) return nan;
    v = k_bits_f32(0x7F800000u);
  } else if (exp == 0) {
    v = mant * k_pow2(1 - bias - mbits);
  } else {
    v = (mant + k_pow2(mbits)) * k_pow2(exp - bias - mbits);
  }
  return (code & sbit) ? -v : v;
}
KD unsigned char k_to_e8m0(float f) {
  unsigned int bits = k_f32_bits(f);
  unsigned int exp = (bits >> 23) & 0xFFu;
  if (exp == 0xFFu) return 0xFF;
  bool g = (bits & 0x400000u) != 0, r = (bits & 0x200000u) != 0, s = (bits & 0x1FFFFFu) != 0;
  if (g && (r || s || exp > 0)) exp++;
  return (unsigned char)exp;
}
KD float k_from_e8m0(unsigned char b) {
  if (b == 0) return k_bits_f32(0x00400000u);
  if (b == 0xFF) return k_bits_f32(0x7F800001u);
  return k_bits_f32((unsigned int)b << 23);
}

// Float to integer as interp (x86 static_cast): truncation; NaN and out of
// range give the most negative value of the 32- or 64-bit conversion.
KD long long k_f2i64(double v) {
  if (v != v || v >= 9223372036854775807.0 || v < -9223372036854775808.0) return (-9223372036854775807LL - 1);
  return (long long)v;
}
KD long long k_f2i32(double v) {
  if (v != v || v >= 2147483648.0 || v < -2147483648.0) return -2147483648LL;
  return (long long)(int)v;
}

// Per dtype: k_ld_<dt> (memory to register), k_st_<dt> (register to
// memory), k_rnd_<dt> (register rounded or wrapped into the dtype).
#define KILN_INT_DT(dt, T)                                                      \
  KD long long k_ld_##dt(T x) { return (long long)x; }                         \
  KD T k_st_##dt(long long x) { return (T)(unsigned long long)x; }            \
  KD long long k_rnd_##dt(long long x) { return (long long)(T)(unsigned long long)x; }
KILN_INT_DT(u8, unsigned char)
KILN_INT_DT(i8, signed char)
KILN_INT_DT(u16, unsigned short)
KILN_INT_DT(i16, short)
KILN_INT_DT(u32, unsigned int)
KILN_INT_DT(i32, int)
KILN_INT_DT(i64, long long)
KILN_INT_DT(u64, unsigned long long)
KD bool k_ld_b8(unsigned char x) { return x != 0; }
KD unsigned char k_st_b8(bool x) { return x ? 1 : 0; }
KD bool k_rnd_b8(bool x) { return x; }
KD float k_ld_f32(float x) { return x; }
KD float k_st_f32(float x) { return x; }
KD float k_rnd_f32(float x) { return x; }
KD double k_ld_f64(double x) { return x; }
KD double k_st_f64(double x) { return x; }
KD double k_rnd_f64(double x) { return x; }
KD float k_ld_bf16(unsigned short x) { return k_from_bf16(x); }
KD unsigned short k_st_bf16(float x) { return k_to_bf16(x); }
KD float k_rnd_bf16(float x) { return k_from_bf16(k_to_bf16(x)); }
#define KILN_MINI_DT(dt, T, E, M, B, K)                                                 \
  KD float k_ld_##dt(T x) { return k_mini_decode(x, E, M, B, K); }                     \
  KD T k_st_##dt(float x) { return (T)k_mini_encode(x, E, M, B, K); }                  \
  KD float k_rnd_##dt(float x) { return k_mini_decode(k_mini_encode(x, E, M, B, K), E, M, B, K); }
KILN_MINI_DT(f16, unsigned short, 5, 10, 15, 0)
KILN_MINI_DT(f8e5m2, unsigned char, 5, 2, 15, 0)
KILN_MINI_DT(f8e4m3fn, unsigned char, 4, 3, 7, 1)
KILN_MINI_DT(f8e4m3fnuz, unsigned char, 4, 3, 8, 2)
KILN_MINI_DT(f8e5m2fnuz, unsigned char, 5, 2, 16, 2)
KD float k_ld_f8e8m0fnu(unsigned char x) { return k_from_e8m0(x); }
KD unsigned char k_st_f8e8m0fnu(float x) { return k_to_e8m0(x); }
KD float k_rnd_f8e8m0fnu(float x) { return k_from_e8m0(k_to_e8m0(x)); }
`
