//go:build amd64 && !purego

#include "textflag.h"

// func gemmKernel4x8AVX2(kc int64, a, b, c *float64, ldc int64)
//
// c[r, 0:8] += a[l, r] * b[l, 0:8] for l = 0 … kc-1, r = 0 … 3: a is packed
// 4 values per l, b 8 per l, c has row stride ldc (elements). Each term is
// a VMULPD rounded to float64 and then a VADDPD, in ascending l: the same
// bits as gemmKernelGo.
TEXT ·gemmKernel4x8AVX2(SB), NOSPLIT, $0-40
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	LEAQ (DX)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD (R9), Y2
	VMOVUPD 32(R9), Y3
	VMOVUPD (R10), Y4
	VMOVUPD 32(R10), Y5
	VMOVUPD (R11), Y6
	VMOVUPD 32(R11), Y7

loop:
	VMOVUPD (DI), Y8
	VMOVUPD 32(DI), Y9
	VBROADCASTSD (SI), Y10
	VBROADCASTSD 8(SI), Y11
	VMULPD Y8, Y10, Y12
	VMULPD Y9, Y10, Y13
	VADDPD Y12, Y0, Y0
	VADDPD Y13, Y1, Y1
	VMULPD Y8, Y11, Y14
	VMULPD Y9, Y11, Y15
	VADDPD Y14, Y2, Y2
	VADDPD Y15, Y3, Y3
	VBROADCASTSD 16(SI), Y10
	VBROADCASTSD 24(SI), Y11
	VMULPD Y8, Y10, Y12
	VMULPD Y9, Y10, Y13
	VADDPD Y12, Y4, Y4
	VADDPD Y13, Y5, Y5
	VMULPD Y8, Y11, Y14
	VMULPD Y9, Y11, Y15
	VADDPD Y14, Y6, Y6
	VADDPD Y15, Y7, Y7
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop

	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, (R9)
	VMOVUPD Y3, 32(R9)
	VMOVUPD Y4, (R10)
	VMOVUPD Y5, 32(R10)
	VMOVUPD Y6, (R11)
	VMOVUPD Y7, 32(R11)
	VZEROUPPER
	RET
