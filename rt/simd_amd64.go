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

// useAVX512: lanes run, the CPU has AVX-512 (F, CD, BW, DQ and VL, as
// archsimd requires) and KILN_SIMD=avx2 does not ask for 8 lanes only.
var useAVX512 = useSIMD && archsimd.X86.AVX512() && os.Getenv("KILN_SIMD") != "avx2"

// SIMD reports whether generated 8-lane inner loops run.
func SIMD() bool { return useSIMD }

// AVX512 reports whether generated 16-lane inner loops run: a pointwise
// loop's 16-lane twin (codegen/golang/simd_width.go), which computes the
// same bits as its 8-lane loop.
func AVX512() bool { return useAVX512 }

// SIMDStatus says which inner loops run, for -simd.
func SIMDStatus() string {
	switch {
	case useAVX512:
		return "avx512: pointwise loops, wide column reductions, transposed tiles and row sums' bodies on 16 float32 lanes, the rest on 8 (GOEXPERIMENT=simd build)"
	case useSIMD && archsimd.X86.AVX512():
		return "avx2: float32 inner loops run on 8 lanes, 16 forbidden by KILN_SIMD=avx2 (GOEXPERIMENT=simd build)"
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

// AnyInt32x8 and AnyInt32x16 report whether a lane is not zero (a record
// of NaNs seen, a mask as integers).
func AnyInt32x8(x archsimd.Int32x8) bool { return !x.IsZero() }

func AnyInt32x16(x archsimd.Int32x16) bool {
	return x.NotEqual(archsimd.BroadcastInt32x16(0)).ToBits() != 0
}

// StoreBF16x8 writes the bf16 values on x's lanes (each already rounded:
// its low 16 bits zero) to dst[:8], the top half of each lane's bits: the
// halves shifted down to at most 0xffff, then packed by VPACKUSDW, whose
// unsigned saturation leaves them as they are. (AVX2 has no narrowing
// store, VPMOVDW, which the 16-lane loops use.)
func StoreBF16x8(x archsimd.Float32x8, dst []uint16) {
	u := x.AsUint32x8().ShiftAllRight(16)
	u.GetLo().AsInt32x4().SaturateToUint16Concat(u.GetHi().AsInt32x4()).Store((*[8]uint16)(dst[:8]))
}

// SignF32x16, NegF32x16, MinF32x16 and MaxF32x16 are the 16-lane twins
// of the 8-lane operations above, step for step (a wide column
// reduction's exact max and min, respelled for 16 lanes, call them).
func SignF32x16() archsimd.Uint32x16 { return archsimd.BroadcastUint32x16(1 << 31) }

func NegF32x16(x archsimd.Float32x16, sign archsimd.Uint32x16) archsimd.Float32x16 {
	return x.AsUint32x16().Xor(sign).AsFloat32x16()
}

func MinF32x16(x, y archsimd.Float32x16) archsimd.Float32x16 {
	either := x.AsUint32x16().Or(y.AsUint32x16()).AsFloat32x16()
	return x.Min(y).Merge(either, x.Less(y).Or(x.Greater(y)))
}

func MaxF32x16(x, y archsimd.Float32x16, sign archsimd.Uint32x16) archsimd.Float32x16 {
	return NegF32x16(MinF32x16(NegF32x16(x, sign), NegF32x16(y, sign)), sign)
}

// Transpose8x8 writes the transpose of the 8×8 block whose row j is
// src[j*stride:][:8] into dst: dst[8k+j] = src[j*stride+k]. A generated
// tile loop (codegen/golang/simd_tile.go) reads a transposed operand
// (x.t() added to a row-major tensor) this way: eight row loads and 24
// shuffles for 64 elements, as Inductor's transpose_mxn, instead of 64
// strided scalar loads.
func Transpose8x8(src []float32, stride int, dst *[64]float32) {
	_ = src[7*stride+7]
	row := func(j int) archsimd.Int32x8 {
		return archsimd.LoadFloat32x8((*[8]float32)(src[j*stride : j*stride+8])).AsInt32x8()
	}
	r0, r1, r2, r3, r4, r5, r6, r7 := row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)
	// Pairs of rows interleaved by 32 bits, then by 64 bits: each
	// 128-bit half then holds four rows of one column.
	t0, t1 := r0.InterleaveLoGrouped(r1).AsInt64x4(), r0.InterleaveHiGrouped(r1).AsInt64x4()
	t2, t3 := r2.InterleaveLoGrouped(r3).AsInt64x4(), r2.InterleaveHiGrouped(r3).AsInt64x4()
	t4, t5 := r4.InterleaveLoGrouped(r5).AsInt64x4(), r4.InterleaveHiGrouped(r5).AsInt64x4()
	t6, t7 := r6.InterleaveLoGrouped(r7).AsInt64x4(), r6.InterleaveHiGrouped(r7).AsInt64x4()
	s0, s1 := t0.InterleaveLoGrouped(t2).AsFloat32x8(), t0.InterleaveHiGrouped(t2).AsFloat32x8()
	s2, s3 := t1.InterleaveLoGrouped(t3).AsFloat32x8(), t1.InterleaveHiGrouped(t3).AsFloat32x8()
	s4, s5 := t4.InterleaveLoGrouped(t6).AsFloat32x8(), t4.InterleaveHiGrouped(t6).AsFloat32x8()
	s6, s7 := t5.InterleaveLoGrouped(t7).AsFloat32x8(), t5.InterleaveHiGrouped(t7).AsFloat32x8()
	// Columns k and k+4 are the low and high halves of s_k (rows 0-3)
	// and s_(k+4) (rows 4-7).
	s0.Select128FromPair(0, 2, s4).Store((*[8]float32)(dst[0:8]))
	s1.Select128FromPair(0, 2, s5).Store((*[8]float32)(dst[8:16]))
	s2.Select128FromPair(0, 2, s6).Store((*[8]float32)(dst[16:24]))
	s3.Select128FromPair(0, 2, s7).Store((*[8]float32)(dst[24:32]))
	s0.Select128FromPair(1, 3, s4).Store((*[8]float32)(dst[32:40]))
	s1.Select128FromPair(1, 3, s5).Store((*[8]float32)(dst[40:48]))
	s2.Select128FromPair(1, 3, s6).Store((*[8]float32)(dst[48:56]))
	s3.Select128FromPair(1, 3, s7).Store((*[8]float32)(dst[56:64]))
}

// Splat8 and Splat16 are arrays of x, the constants generated lane loops
// read as memory operands (codegen/golang memConsts).
func Splat8(x float32) (a [8]float32) {
	for i := range a {
		a[i] = x
	}
	return a
}

func Splat16(x float32) (a [16]float32) {
	for i := range a {
		a[i] = x
	}
	return a
}
