//go:build goexperiment.simd && amd64

#include "textflag.h"

// GEMMSTEP is one step of k: two vectors of B's packed row, six values of
// A's packed panel broadcast, twelve fused multiply-adds.
#define GEMMSTEP(ao, bo) \
	VMOVUPS bo(DI), Y12; \
	VMOVUPS (bo+32)(DI), Y13; \
	VBROADCASTSS ao(SI), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS (ao+4)(SI), Y15; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS (ao+8)(SI), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS (ao+12)(SI), Y15; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS (ao+16)(SI), Y14; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VBROADCASTSS (ao+20)(SI), Y15; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11

// func sgemm6x16(kc int64, a *float32, b *float32, c *float32, ldc int64, add bool)
//
// sgemm's 6×16 register block (gemm.go): C[0:6, 0:16] (row stride ldc
// bytes) gets, or with add has added to it, the sum over p < kc of
// A[r, p]·B[p, 0:16], A packed 6 floats a step (its 6 rows side by side),
// B packed 16 floats a step. Each element's sum starts from +0 and takes
// one VFMADD231PS a step in the order of p, as the scalar loop (FMA32):
// the same bits. Twelve accumulators keep both FMA pipes busy through the
// FMA's latency.
TEXT ·sgemm6x16(SB), NOSPLIT, $0-41
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	// C's rows, added to and stored after the loop: fetched during it
	LEAQ (R8)(R8*2), R12 // 3·ldc
	LEAQ (R8)(R8*4), R13 // 5·ldc
	PREFETCHT0 (DX)
	PREFETCHT0 60(DX)
	PREFETCHT0 (DX)(R8*1)
	PREFETCHT0 60(DX)(R8*1)
	PREFETCHT0 (DX)(R8*2)
	PREFETCHT0 60(DX)(R8*2)
	PREFETCHT0 (DX)(R12*1)
	PREFETCHT0 60(DX)(R12*1)
	PREFETCHT0 (DX)(R8*4)
	PREFETCHT0 60(DX)(R8*4)
	PREFETCHT0 (DX)(R13*1)
	PREFETCHT0 60(DX)(R13*1)
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

	MOVQ CX, BX
	SHRQ $1, CX
	JZ   last

loop:
	// two steps of k an iteration
	GEMMSTEP(0, 0)
	GEMMSTEP(24, 64)
	ADDQ $48, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop

last:
	TESTQ $1, BX
	JZ   sums
	GEMMSTEP(0, 0)

sums:
	MOVB add+40(FP), AL
	TESTB AL, AL
	JZ   store
	// C + sum, as the scalar loop adds them
	VADDPS (DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1
	VADDPS (DX)(R8*1), Y2, Y2
	VADDPS 32(DX)(R8*1), Y3, Y3
	VADDPS (DX)(R8*2), Y4, Y4
	VADDPS 32(DX)(R8*2), Y5, Y5
	VADDPS (DX)(R12*1), Y6, Y6
	VADDPS 32(DX)(R12*1), Y7, Y7
	VADDPS (DX)(R8*4), Y8, Y8
	VADDPS 32(DX)(R8*4), Y9, Y9
	VADDPS (DX)(R13*1), Y10, Y10
	VADDPS 32(DX)(R13*1), Y11, Y11

store:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R8*1)
	VMOVUPS Y3, 32(DX)(R8*1)
	VMOVUPS Y4, (DX)(R8*2)
	VMOVUPS Y5, 32(DX)(R8*2)
	VMOVUPS Y6, (DX)(R12*1)
	VMOVUPS Y7, 32(DX)(R12*1)
	VMOVUPS Y8, (DX)(R8*4)
	VMOVUPS Y9, 32(DX)(R8*4)
	VMOVUPS Y10, (DX)(R13*1)
	VMOVUPS Y11, 32(DX)(R13*1)
	VZEROUPPER
	RET

// func packT8(n int64, src *float32, lds int64, dst *float32)
//
// Transposes 8 rows of 8·n floats (lds bytes apart) into n·8 rows of 8
// floats, 64 bytes apart: dst[16p + j] = src[j·lds/4 + p]. A transposed B
// (linear's weight) packs 16 columns as two of these, 64 floats per 8
// row loads and 24 shuffles instead of 64 strided scalar stores.
TEXT ·packT8(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	MOVQ dst+24(FP), DI
	LEAQ (R8)(R8*2), R9  // 3·lds
	LEAQ (R8)(R8*4), R10 // 5·lds
	LEAQ (R9)(R8*4), R11 // 7·lds

packloop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (SI)(R9*1), Y3
	VMOVUPS (SI)(R8*4), Y4
	VMOVUPS (SI)(R10*1), Y5
	VMOVUPS (SI)(R9*2), Y6
	VMOVUPS (SI)(R11*1), Y7
	// pairs of rows interleaved: t0 = r0[0] r1[0] r0[1] r1[1] | r0[4] ...
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	// s0 = column 0 of rows 0-3 | column 4 of rows 0-3, s1 columns 1 | 5, ...
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	// column p: the halves of rows 0-3 and 4-7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 64(DI)
	VMOVUPS Y10, 128(DI)
	VMOVUPS Y11, 192(DI)
	VMOVUPS Y12, 256(DI)
	VMOVUPS Y13, 320(DI)
	VMOVUPS Y14, 384(DI)
	VMOVUPS Y15, 448(DI)
	ADDQ $32, SI
	ADDQ $512, DI
	DECQ CX
	JNZ  packloop
	VZEROUPPER
	RET

// func packA6(n int64, src *float32, lds int64, dst *float32)
//
// Packs 6 rows of 8·n floats (lds bytes apart) side by side: dst[6p + r]
// = src[r·lds/4 + p]. packT8's transpose with two rows of zeros; each
// column goes out as 8 floats 24 bytes after the last, so the next one
// overwrites the two zeros, and the last writes 8 bytes past the panel
// (the caller leaves room).
TEXT ·packA6(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	MOVQ dst+24(FP), DI
	LEAQ (R8)(R8*2), R9  // 3·lds
	LEAQ (R8)(R8*4), R10 // 5·lds
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

aloop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (SI)(R9*1), Y3
	VMOVUPS (SI)(R8*4), Y4
	VMOVUPS (SI)(R10*1), Y5
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y6, Y12, Y4
	VSHUFPS $0xEE, Y6, Y12, Y5
	VSHUFPS $0x44, Y6, Y13, Y14
	VSHUFPS $0xEE, Y6, Y13, Y15
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y14, Y2, Y10
	VPERM2F128 $0x20, Y15, Y3, Y11
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 24(DI)
	VMOVUPS Y10, 48(DI)
	VMOVUPS Y11, 72(DI)
	VPERM2F128 $0x31, Y4, Y0, Y8
	VPERM2F128 $0x31, Y5, Y1, Y9
	VPERM2F128 $0x31, Y14, Y2, Y10
	VPERM2F128 $0x31, Y15, Y3, Y11
	VMOVUPS Y8, 96(DI)
	VMOVUPS Y9, 120(DI)
	VMOVUPS Y10, 144(DI)
	VMOVUPS Y11, 168(DI)
	ADDQ $32, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  aloop
	VZEROUPPER
	RET
