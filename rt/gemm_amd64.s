//go:build goexperiment.simd && amd64

#include "textflag.h"

// func sgemm6x16(kc int64, a *float32, lda int64, b *float32, c *float32, ldc int64, add bool)
//
// sgemm's 6×16 register block (gemm_amd64.go): C[0:6, 0:16] (row stride
// ldc bytes) gets, or with add has added to it, the sum over p < kc of
// A[r, p]·B[p, 0:16], A's rows lda bytes apart, B packed 16 floats a row.
// Each element's sum starts from +0 and takes one VFMADD231PS a step in
// the order of p, as the 4×16 lanes and the scalar loop: the same bits.
// Twelve accumulators keep both FMA pipes busy through the FMA's latency.
TEXT ·sgemm6x16(SB), NOSPLIT, $0-49
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R9
	MOVQ b+24(FP), DI
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	LEAQ (R9)(R9*2), R10 // 3·lda
	LEAQ (R9)(R9*4), R11 // 5·lda
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

loop:
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (SI)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (SI)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (SI)(R10*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (SI)(R9*4), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (SI)(R11*1), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $4, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop

	MOVB add+48(FP), AL
	TESTB AL, AL
	JZ   store
	// C + sum, as the 4×16 lanes add them
	VADDPS (DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1
	VADDPS (DX)(R8*1), Y2, Y2
	VADDPS 32(DX)(R8*1), Y3, Y3
	VADDPS (DX)(R8*2), Y4, Y4
	VADDPS 32(DX)(R8*2), Y5, Y5
	LEAQ (R8)(R8*2), R12
	VADDPS (DX)(R12*1), Y6, Y6
	VADDPS 32(DX)(R12*1), Y7, Y7
	VADDPS (DX)(R8*4), Y8, Y8
	VADDPS 32(DX)(R8*4), Y9, Y9
	LEAQ (R8)(R8*4), R13
	VADDPS (DX)(R13*1), Y10, Y10
	VADDPS 32(DX)(R13*1), Y11, Y11

store:
	LEAQ (R8)(R8*2), R12
	LEAQ (R8)(R8*4), R13
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
