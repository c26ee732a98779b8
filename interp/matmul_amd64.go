//go:build amd64 && !purego

package interp

import "golang.org/x/sys/cpu"

// useGemmAVX2: the micro-kernel runs on AVX2 lanes (VMULPD then VADDPD,
// the same roundings as gemmKernelGo).
var useGemmAVX2 = cpu.X86.HasAVX2

// gemmKernel4x8AVX2 is gemmKernelGo on lanes; matmul_amd64.s.
//
//go:noescape
func gemmKernel4x8AVX2(kc int64, a, b, c *float64, ldc int64)

func gemmKernel(kc int64, a, b, c []float64, ldc int64) {
	if !useGemmAVX2 || kc == 0 {
		gemmKernelGo(kc, a, b, c, ldc)
		return
	}
	// The assembly reads kc·4 values of a, kc·8 of b and a 4×8 tile of c.
	_, _ = a[kc*gemmMR-1], b[kc*gemmNR-1]
	_ = c[(gemmMR-1)*ldc+gemmNR-1]
	gemmKernel4x8AVX2(kc, &a[0], &b[0], &c[0], ldc)
}
