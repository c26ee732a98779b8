//go:build goexperiment.simd && amd64

package rt

import (
	"os"
	"simd/archsimd"
)

// This file is compiled only with GOEXPERIMENT=simd on amd64; simd_off.go
// is its twin. Generated packages call their 8-lane inner loops only when
// SIMD() holds, and otherwise run every element on the scalar loop.

// useSIMD: the CPU has AVX2 and FMA (every Float32x8 operation used is
// AVX, AVX2 or, in exp and tanh, FMA; every AVX2 CPU but a few VIA ones
// has FMA) and KILN_SIMD=off does not ask for the scalar loops.
var useSIMD = archsimd.X86.AVX2() && archsimd.X86.FMA() && os.Getenv("KILN_SIMD") != "off"

// SIMD reports whether generated 8-lane inner loops run.
func SIMD() bool { return useSIMD }

// SIMDStatus says which inner loops run, for -simd.
func SIMDStatus() string {
	switch {
	case useSIMD:
		return "avx2: float32 inner loops run on 8 lanes (GOEXPERIMENT=simd build)"
	case !archsimd.X86.AVX2() || !archsimd.X86.FMA():
		return "off: GOEXPERIMENT=simd build, but this CPU has no AVX2 and FMA"
	}
	return "off: GOEXPERIMENT=simd build, scalar loops forced by KILN_SIMD=off"
}

// The lane operations below compute, bit for bit, what the Go compiler
// makes of the scalar code on amd64 (NaN payloads included), so a kernel
// gives the same bits whichever loop ran an element.

// SignF32x8 is the float32 sign bit in every lane, the mask NegF32x8 and
// AbsF32x8 take (a loop builds it once).
func SignF32x8() archsimd.Uint32x8 { return archsimd.BroadcastUint32x8(1 << 31) }

// NegF32x8 flips the sign bit, as Go's -x (NaN's sign too; -(+0) = -0).
func NegF32x8(x archsimd.Float32x8, sign archsimd.Uint32x8) archsimd.Float32x8 {
	return x.AsUint32x8().Xor(sign).AsFloat32x8()
}

// AbsF32x8 clears the sign bit, as AbsF32.
func AbsF32x8(x archsimd.Float32x8, sign archsimd.Uint32x8) archsimd.Float32x8 {
	return x.AsUint32x8().AndNot(sign).AsFloat32x8()
}

// MinF32x8 is Go's min on each lane. The compiler lowers the scalar min
// on amd64 to MINSS(MINSS(x, y), x) | MINSS(x, y), which is the smaller
// operand where x and y are ordered and unequal, and x|y (bitwise)
// elsewhere: -0 for min(+0, -0) in either order, a NaN when either is
// NaN, as PyTorch's minimum. It treats VMINPS as commutative (it is not
// for NaN or ±0), so the lanes cannot copy that sequence; they take
// VMINPS where the operands are ordered and unequal (there it is
// commutative) and x|y elsewhere.
func MinF32x8(x, y archsimd.Float32x8) archsimd.Float32x8 {
	either := x.AsUint32x8().Or(y.AsUint32x8()).AsFloat32x8()
	return x.Min(y).Merge(either, x.Less(y).Or(x.Greater(y)))
}

// MaxF32x8 is Go's max on each lane: -min(-x, -y), as the compiler
// lowers it on amd64 (NaN-propagating, max(-0, +0) = +0).
func MaxF32x8(x, y archsimd.Float32x8, sign archsimd.Uint32x8) archsimd.Float32x8 {
	return NegF32x8(MinF32x8(NegF32x8(x, sign), NegF32x8(y, sign)), sign)
}
