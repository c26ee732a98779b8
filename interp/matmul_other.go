//go:build !amd64 || purego

package interp

func gemmKernel(kc int64, a, b, c []float64, ldc int64) { gemmKernelGo(kc, a, b, c, ldc) }
