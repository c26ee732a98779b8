//go:build goexperiment.simd && amd64

package rt

import "simd/archsimd"

// useFMA: the lanes' GEMM multiplies and adds in one rounding (VFMADD),
// as the sgemm kernels PyTorch's mm calls do.
var useFMA = useSIMD && archsimd.X86.FMA()

// sgemm6x16 is sgemm's 6×16 register block in assembly (gemm_amd64.s);
// sgemm4x16 the same for 4 rows. Go's compiler kept an archsimd 4×16
// block in registers only with a register move per FMA (MulAdd writes a
// multiplicand's register) and spilled its pointers, about a third of
// the FMA pipes' peak; the assembly accumulates in place (VFMADD231PS),
// twelve chains.
//
//go:noescape
func sgemm6x16(kc int64, a *float32, lda int64, b *float32, c *float32, ldc int64, add bool)

//go:noescape
func sgemm4x16(kc int64, a *float32, lda int64, b *float32, c *float32, ldc int64, add bool)

// sgemmLanes runs sgemm's 6×16 register blocks, then one 4×16 block where
// 4 or 5 rows are left, over one packed block of k (rows p0 on of B,
// columns j0 on) on AVX2 lanes and returns how many rows of C it did (0
// without AVX2 and FMA).
func sgemmLanes(m, k, n int64, a, pack, c []float32, p0, j0 int64) int64 {
	kc := int64(len(pack) / gemmNR)
	if !useFMA || kc == 0 {
		return 0
	}
	i := int64(0)
	for ; i+6 <= m; i += 6 {
		// the block's last elements of A and C, checked here
		_ = a[(i+5)*k+p0+kc-1]
		_ = c[(i+5)*n+j0+gemmNR-1]
		sgemm6x16(kc, &a[i*k+p0], 4*k, &pack[0], &c[i*n+j0], 4*n, p0 > 0)
	}
	if i+4 <= m {
		_ = a[(i+3)*k+p0+kc-1]
		_ = c[(i+3)*n+j0+gemmNR-1]
		sgemm4x16(kc, &a[i*k+p0], 4*k, &pack[0], &c[i*n+j0], 4*n, p0 > 0)
		i += 4
	}
	return i
}

// addF32Lanes sets dst[j] = src[j] + dst[j] 8 at a time (addmm's bias) and
// returns how many it did.
func addF32Lanes(dst, src []float32) int {
	if !useSIMD {
		return 0
	}
	src = src[:len(dst)]
	j := 0
	for ; j+8 <= len(dst); j += 8 {
		x := archsimd.LoadFloat32x8((*[8]float32)(src[j : j+8]))
		x.Add(archsimd.LoadFloat32x8((*[8]float32)(dst[j : j+8]))).Store((*[8]float32)(dst[j : j+8]))
	}
	archsimd.ClearAVXUpperBits()
	return j
}
