//go:build goexperiment.simd && amd64

#include "textflag.h"

// ExpF32's constants (fastmath.go), each as 8 lanes, so that an
// instruction takes them from memory and the 16 registers hold values:
// rt.ExpLog2e, ExpMagic, -ExpC1, -ExpC2, ExpP0..ExpP5, 1, ExpClampLo,
// ExpClampHi, the exponent bias 127, ExpFastOff, ExpFastMax
// (TestExpShiftSum checks the results against ExpF32, bit for bit).
DATA expk<>+0(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA expk<>+8(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA expk<>+16(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA expk<>+24(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA expk<>+32(SB)/8, $0x4b4000004b400000
DATA expk<>+40(SB)/8, $0x4b4000004b400000
DATA expk<>+48(SB)/8, $0x4b4000004b400000
DATA expk<>+56(SB)/8, $0x4b4000004b400000
DATA expk<>+64(SB)/8, $0xbf318000bf318000
DATA expk<>+72(SB)/8, $0xbf318000bf318000
DATA expk<>+80(SB)/8, $0xbf318000bf318000
DATA expk<>+88(SB)/8, $0xbf318000bf318000
DATA expk<>+96(SB)/8, $0x395e8083395e8083
DATA expk<>+104(SB)/8, $0x395e8083395e8083
DATA expk<>+112(SB)/8, $0x395e8083395e8083
DATA expk<>+120(SB)/8, $0x395e8083395e8083
DATA expk<>+128(SB)/8, $0x3950696739506967
DATA expk<>+136(SB)/8, $0x3950696739506967
DATA expk<>+144(SB)/8, $0x3950696739506967
DATA expk<>+152(SB)/8, $0x3950696739506967
DATA expk<>+160(SB)/8, $0x3ab743ce3ab743ce
DATA expk<>+168(SB)/8, $0x3ab743ce3ab743ce
DATA expk<>+176(SB)/8, $0x3ab743ce3ab743ce
DATA expk<>+184(SB)/8, $0x3ab743ce3ab743ce
DATA expk<>+192(SB)/8, $0x3c0889083c088908
DATA expk<>+200(SB)/8, $0x3c0889083c088908
DATA expk<>+208(SB)/8, $0x3c0889083c088908
DATA expk<>+216(SB)/8, $0x3c0889083c088908
DATA expk<>+224(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expk<>+232(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expk<>+240(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expk<>+248(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expk<>+256(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expk<>+264(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expk<>+272(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expk<>+280(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expk<>+288(SB)/8, $0x3f0000003f000000
DATA expk<>+296(SB)/8, $0x3f0000003f000000
DATA expk<>+304(SB)/8, $0x3f0000003f000000
DATA expk<>+312(SB)/8, $0x3f0000003f000000
DATA expk<>+320(SB)/8, $0x3f8000003f800000
DATA expk<>+328(SB)/8, $0x3f8000003f800000
DATA expk<>+336(SB)/8, $0x3f8000003f800000
DATA expk<>+344(SB)/8, $0x3f8000003f800000
DATA expk<>+352(SB)/8, $0xc2d00000c2d00000
DATA expk<>+360(SB)/8, $0xc2d00000c2d00000
DATA expk<>+368(SB)/8, $0xc2d00000c2d00000
DATA expk<>+376(SB)/8, $0xc2d00000c2d00000
DATA expk<>+384(SB)/8, $0x42b2000042b20000
DATA expk<>+392(SB)/8, $0x42b2000042b20000
DATA expk<>+400(SB)/8, $0x42b2000042b20000
DATA expk<>+408(SB)/8, $0x42b2000042b20000
DATA expk<>+416(SB)/8, $0x0000007f0000007f
DATA expk<>+424(SB)/8, $0x0000007f0000007f
DATA expk<>+432(SB)/8, $0x0000007f0000007f
DATA expk<>+440(SB)/8, $0x0000007f0000007f
DATA expk<>+448(SB)/8, $0x8000007c8000007c
DATA expk<>+456(SB)/8, $0x8000007c8000007c
DATA expk<>+464(SB)/8, $0x8000007c8000007c
DATA expk<>+472(SB)/8, $0x8000007c8000007c
DATA expk<>+480(SB)/8, $0x800000fa800000fa
DATA expk<>+488(SB)/8, $0x800000fa800000fa
DATA expk<>+496(SB)/8, $0x800000fa800000fa
DATA expk<>+504(SB)/8, $0x800000fa800000fa
GLOBL expk<>(SB), RODATA|NOPTR, $512

#define LOG2E expk<>+0(SB)
#define MAGIC expk<>+32(SB)
#define NC1 expk<>+64(SB)
#define NC2 expk<>+96(SB)
#define P0 expk<>+128(SB)
#define P1 expk<>+160(SB)
#define P2 expk<>+192(SB)
#define P3 expk<>+224(SB)
#define P4 expk<>+256(SB)
#define P5 expk<>+288(SB)
#define ONE expk<>+320(SB)
#define LO expk<>+352(SB)
#define HI expk<>+384(SB)
#define BIAS expk<>+416(SB)
#define FOFF expk<>+448(SB)
#define FMAX expk<>+480(SB)

// Registers: Y15 the shift, Y14 and Y13 the two accumulators, Y12 ExpMagic;
// the first 8 elements of a block in Y0-Y4 (x, n, k, test or z, y), the
// second 8 in Y6-Y10.

// EXPHEAD loads 8 elements, x = src - shift, n = round(x·log2 e),
// k = int32(n), and T = lanes where k is outside the shortcut's range.
#define EXPHEAD(off, X, N, K, T) \
	VMOVUPS off(SI), X; \
	VSUBPS Y15, X, X; \
	VMOVAPS Y12, N; \
	VFMADD231PS LOG2E, X, N; \
	VSUBPS Y12, N, N; \
	VCVTTPS2DQ N, K; \
	VPADDD FOFF, K, T; \
	VPCMPGTD FMAX, T, T

// EXPPOLY is ExpF32's polynomial: X = r = x - n·ln 2, Y = e^r.
#define EXPPOLY(X, N, Z, Y) \
	VFMADD231PS NC1, N, X; \
	VFMADD231PS NC2, N, X; \
	VMULPS X, X, Z; \
	VMOVUPS P0, Y; \
	VFMADD213PS P1, X, Y; \
	VFMADD213PS P2, X, Y; \
	VFMADD213PS P3, X, Y; \
	VFMADD213PS P4, X, Y; \
	VFMADD213PS P5, X, Y; \
	VFMADD213PS X, Z, Y; \
	VADDPS ONE, Y, Y

// EXPFAST is ExpF32x8's shortcut: Y = e^r · 2^k.
#define EXPFAST(X, N, K, Z, Y) \
	EXPPOLY(X, N, Z, Y); \
	VPADDD BIAS, K, K; \
	VPSLLD $23, K, K; \
	VMULPS K, Y, Y

// EXPSLOW is the whole ExpF32 from X = x: the clamps (VMAXPS with the
// bound first returns x for a NaN, as the compare-and-blend does), the
// polynomial, and 2^k as two factors.
#define EXPSLOW(X, N, K, Z, Y) \
	VMOVUPS LO, Z; \
	VMAXPS X, Z, X; \
	VMOVUPS HI, Z; \
	VMINPS X, Z, X; \
	VMOVAPS Y12, N; \
	VFMADD231PS LOG2E, X, N; \
	VSUBPS Y12, N, N; \
	EXPPOLY(X, N, Z, Y); \
	VCVTTPS2DQ N, K; \
	VPSRAD $1, K, Z; \
	VPSUBD Z, K, K; \
	VPADDD BIAS, Z, Z; \
	VPSLLD $23, Z, Z; \
	VPADDD BIAS, K, K; \
	VPSLLD $23, K, K; \
	VMULPS Z, Y, Y; \
	VMULPS K, Y, Y

// func expShiftSum(n int64, src, dst *float32, shift float32, acc *[8]float32)
//
// For the first 8·n elements: e = ExpF32(src[i] - shift), stored to
// dst[i] unless dst is nil, and summed on 8 lanes into acc as the
// generated two-step lane loop sums it: elements 16j..16j+7 into one
// accumulator and 16j+8..16j+15 into another, in the order of j, the two
// joined, then a last 8 elements (n odd) added to the join. ExpF32x8's
// steps, the same bits; a pair's two shortcuts are decided together.
TEXT ·expShiftSum(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ dst+16(FP), DI
	VBROADCASTSS shift+24(FP), Y15
	MOVQ acc+32(FP), DX
	VMOVUPS (DX), Y14
	VXORPS Y13, Y13, Y13
	VMOVUPS MAGIC, Y12
	MOVQ CX, BX
	SHRQ $1, CX
	JZ   last

pair:
	EXPHEAD(0, Y0, Y1, Y2, Y3)
	EXPHEAD(32, Y6, Y7, Y8, Y9)
	VPOR Y3, Y9, Y3
	VPTEST Y3, Y3
	JNZ slow
	EXPFAST(Y0, Y1, Y2, Y3, Y4)
	EXPFAST(Y6, Y7, Y8, Y9, Y10)

done:
	TESTQ DI, DI
	JZ   nostore
	VMOVUPS Y4, (DI)
	VMOVUPS Y10, 32(DI)
	ADDQ $64, DI

nostore:
	VADDPS Y14, Y4, Y14
	VADDPS Y13, Y10, Y13
	ADDQ $64, SI
	DECQ CX
	JNZ  pair

last:
	VADDPS Y13, Y14, Y14
	TESTQ $1, BX
	JZ   out
	EXPHEAD(0, Y0, Y1, Y2, Y3)
	VPTEST Y3, Y3
	JNZ slow1
	EXPFAST(Y0, Y1, Y2, Y3, Y4)

done1:
	TESTQ DI, DI
	JZ   nostore1
	VMOVUPS Y4, (DI)

nostore1:
	VADDPS Y14, Y4, Y14

out:
	VMOVUPS Y14, (DX)
	VZEROUPPER
	RET

slow:
	EXPSLOW(Y0, Y1, Y2, Y3, Y4)
	EXPSLOW(Y6, Y7, Y8, Y9, Y10)
	JMP done

slow1:
	EXPSLOW(Y0, Y1, Y2, Y3, Y4)
	JMP done1
