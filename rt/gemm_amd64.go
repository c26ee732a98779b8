//go:build goexperiment.simd && amd64

package rt

import "simd/archsimd"

// useFMA: the lanes' GEMM multiplies and adds in one rounding (VFMADD),
// as the sgemm kernels PyTorch's mm calls do.
var useFMA = useSIMD && archsimd.X86.FMA()

// sgemm6x16 is sgemm's 6×16 register block in assembly (gemm_amd64.s):
// Go's compiler keeps the 4×16 block below in registers only with a
// register move per FMA (archsimd's MulAdd writes a multiplicand's
// register) and spills its pointers, about a third of the FMA pipes'
// peak; the assembly accumulates in place (VFMADD231PS), twelve chains.
//
//go:noescape
func sgemm6x16(kc int64, a *float32, lda int64, b *float32, c *float32, ldc int64, add bool)

// sgemmLanes runs sgemm's 6×16 register blocks (then 4×16) over one
// packed block of k (rows p0 on of B, columns j0 on) on AVX2 lanes and
// returns how many rows of C it did (0 without AVX2 and FMA).
func sgemmLanes(m, k, n int64, a, pack, c []float32, p0, j0 int64) int64 {
	if !useFMA {
		return 0
	}
	kc := int64(len(pack) / gemmNR)
	i := int64(0)
	for ; i+6 <= m && kc > 0; i += 6 {
		// the block's last elements of A and C, checked here
		_ = a[(i+5)*k+p0+kc-1]
		_ = c[(i+5)*n+j0+gemmNR-1]
		sgemm6x16(kc, &a[i*k+p0], 4*k, &pack[0], &c[i*n+j0], 4*n, p0 > 0)
	}
	for ; i+gemmMR <= m; i += gemmMR {
		rows := [gemmMR][]float32{}
		for r := range rows {
			rows[r] = c[(i+int64(r))*n+j0 : (i+int64(r))*n+j0+gemmNR]
		}
		// The block's sums start from +0 and join C's after the loop.
		var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x8
		a0 := a[i*k+p0 : i*k+p0+kc]
		// Equal lengths and a walking pack slice: one bounds check a step.
		a1 := a[(i+1)*k+p0:][:len(a0)]
		a2 := a[(i+2)*k+p0:][:len(a0)]
		a3 := a[(i+3)*k+p0:][:len(a0)]
		bp := pack
		for p := range a0 {
			b0 := archsimd.LoadFloat32x8((*[8]float32)(bp[0:8]))
			b1 := archsimd.LoadFloat32x8((*[8]float32)(bp[8:16]))
			bp = bp[gemmNR:]
			x := archsimd.BroadcastFloat32x8(a0[p])
			c00, c01 = x.MulAdd(b0, c00), x.MulAdd(b1, c01)
			x = archsimd.BroadcastFloat32x8(a1[p])
			c10, c11 = x.MulAdd(b0, c10), x.MulAdd(b1, c11)
			x = archsimd.BroadcastFloat32x8(a2[p])
			c20, c21 = x.MulAdd(b0, c20), x.MulAdd(b1, c21)
			x = archsimd.BroadcastFloat32x8(a3[p])
			c30, c31 = x.MulAdd(b0, c30), x.MulAdd(b1, c31)
		}
		if p0 > 0 {
			c00, c01 = archsimd.LoadFloat32x8((*[8]float32)(rows[0][0:8])).Add(c00), archsimd.LoadFloat32x8((*[8]float32)(rows[0][8:16])).Add(c01)
			c10, c11 = archsimd.LoadFloat32x8((*[8]float32)(rows[1][0:8])).Add(c10), archsimd.LoadFloat32x8((*[8]float32)(rows[1][8:16])).Add(c11)
			c20, c21 = archsimd.LoadFloat32x8((*[8]float32)(rows[2][0:8])).Add(c20), archsimd.LoadFloat32x8((*[8]float32)(rows[2][8:16])).Add(c21)
			c30, c31 = archsimd.LoadFloat32x8((*[8]float32)(rows[3][0:8])).Add(c30), archsimd.LoadFloat32x8((*[8]float32)(rows[3][8:16])).Add(c31)
		}
		c00.Store((*[8]float32)(rows[0][0:8]))
		c01.Store((*[8]float32)(rows[0][8:16]))
		c10.Store((*[8]float32)(rows[1][0:8]))
		c11.Store((*[8]float32)(rows[1][8:16]))
		c20.Store((*[8]float32)(rows[2][0:8]))
		c21.Store((*[8]float32)(rows[2][8:16]))
		c30.Store((*[8]float32)(rows[3][0:8]))
		c31.Store((*[8]float32)(rows[3][8:16]))
	}
	archsimd.ClearAVXUpperBits()
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
