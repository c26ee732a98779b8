//go:build goexperiment.simd && amd64

package rt

import "simd/archsimd"

// Element indices of VPERMI2Q (ConcatPermute on Int64x8) for
// Transpose16x16: 64-bit elements 0-7 are x's, 8-15 y's.
var (
	// The low 256 bits of x then of y; the high 256 bits of each.
	permHalvesLo = [8]uint64{0, 1, 2, 3, 8, 9, 10, 11}
	permHalvesHi = [8]uint64{4, 5, 6, 7, 12, 13, 14, 15}
	// In each 256-bit half, x's low 128 bits then y's; the high 128 bits
	// of each (Select128FromPair(0, 2, y) and (1, 3, y) on each half).
	permBlocksLo = [8]uint64{0, 1, 8, 9, 4, 5, 12, 13}
	permBlocksHi = [8]uint64{2, 3, 10, 11, 6, 7, 14, 15}
)

// Transpose16x16 writes the transpose of the 16×16 block whose row j is
// src[j*stride:][:16] into dst: dst[16k+j] = src[j*stride+k]. The 16-lane
// tile loop (codegen/golang/simd_tile.go) reads a transposed operand this
// way where the CPU has AVX-512 (AVX512 holds): 64 shuffles for 256
// elements, as Inductor's transpose_mxn<float,16,16>.
//
// Loads and stores take Go's "v" register class, Z0-Z14 (go1.26's
// cmd/compile/internal/ssa/_gen/AMD64Ops.go; some AVX-512 shuffles may use
// the "w" class, Z16-Z31 too); the 16 whole rows would not fit the
// former, so each half of the columns runs apart: rows
// j and j+8 of 8 columns paired in one vector (the two halves of output
// column k are its rows 0-7 and 8-15), then Transpose8x8's steps on each
// 256-bit half. No vector goes through the stack.
func Transpose16x16(src []float32, stride int, dst *[256]float32) {
	_ = src[15*stride+15]
	transposeHalf(src, stride, &permHalvesLo, (*[128]float32)(dst[:128]))
	transposeHalf(src, stride, &permHalvesHi, (*[128]float32)(dst[128:]))
}

// transposeHalf writes columns 0-7 (half = permHalvesLo) or 8-15 (Hi) of
// Transpose16x16's block into dst, 16 rows a column. (Vectors passed
// to a function that is not inlined go through the stack: it takes the
// indices by address.)
func transposeHalf(src []float32, stride int, halfIdx *[8]uint64, dst *[128]float32) {
	half := archsimd.LoadUint64x8(halfIdx)
	bl, bh := archsimd.LoadUint64x8(&permBlocksLo), archsimd.LoadUint64x8(&permBlocksHi)
	row := func(j int) archsimd.Int64x8 {
		return archsimd.LoadFloat32x16((*[16]float32)(src[j*stride : j*stride+16])).AsInt64x8()
	}
	pair := func(j int) archsimd.Int32x16 { return row(j).ConcatPermute(row(j+8), half).AsInt32x16() }
	r0, r1, r2, r3, r4, r5, r6, r7 := pair(0), pair(1), pair(2), pair(3), pair(4), pair(5), pair(6), pair(7)
	// Rows interleaved by 32 bits, then by 64 bits: each 128-bit block
	// then holds four rows of one column.
	t0, t1 := r0.InterleaveLoGrouped(r1).AsInt64x8(), r0.InterleaveHiGrouped(r1).AsInt64x8()
	t2, t3 := r2.InterleaveLoGrouped(r3).AsInt64x8(), r2.InterleaveHiGrouped(r3).AsInt64x8()
	t4, t5 := r4.InterleaveLoGrouped(r5).AsInt64x8(), r4.InterleaveHiGrouped(r5).AsInt64x8()
	t6, t7 := r6.InterleaveLoGrouped(r7).AsInt64x8(), r6.InterleaveHiGrouped(r7).AsInt64x8()
	s0, s1 := t0.InterleaveLoGrouped(t2), t0.InterleaveHiGrouped(t2)
	s2, s3 := t1.InterleaveLoGrouped(t3), t1.InterleaveHiGrouped(t3)
	s4, s5 := t4.InterleaveLoGrouped(t6), t4.InterleaveHiGrouped(t6)
	s6, s7 := t5.InterleaveLoGrouped(t7), t5.InterleaveHiGrouped(t7)
	// Columns k and k+4 are the low and high blocks of s_k (rows 0-3)
	// and s_(k+4) (rows 4-7) in each 256-bit half.
	col := func(k int, v archsimd.Int64x8) { v.AsFloat32x16().Store((*[16]float32)(dst[16*k : 16*k+16])) }
	col(0, s0.ConcatPermute(s4, bl))
	col(1, s1.ConcatPermute(s5, bl))
	col(2, s2.ConcatPermute(s6, bl))
	col(3, s3.ConcatPermute(s7, bl))
	col(4, s0.ConcatPermute(s4, bh))
	col(5, s1.ConcatPermute(s5, bh))
	col(6, s2.ConcatPermute(s6, bh))
	col(7, s3.ConcatPermute(s7, bh))
}
