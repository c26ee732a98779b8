//go:build goexperiment.simd && amd64

package rt

import "simd/archsimd"

// useFMA: the lanes' GEMM multiplies and adds in one rounding (VFMADD),
// as the sgemm kernels PyTorch's mm calls do.
var useFMA = useSIMD && archsimd.X86.FMA()

// sgemm6x16 is sgemm's 6×16 register block in assembly (gemm_amd64.s),
// over a packed panel of A and a packed strip of B. Go's compiler kept
// an archsimd block in registers only with a register move per FMA
// (MulAdd writes a multiplicand's register) and spilled its pointers,
// about a third of the FMA pipes' peak; the assembly accumulates in place
// (VFMADD231PS), twelve chains.
//
//go:noescape
func sgemm6x16(kc int64, a *float32, b *float32, c *float32, ldc int64, add bool)

// packT8 is in gemm_amd64.s.
//
//go:noescape
func packT8(n int64, src *float32, lds int64, dst *float32)

// packTLanes packs a transposed B's full strip (16 columns, each
// contiguous along k) 8 values of k at a time on lanes and returns how
// many values of k it packed (0 without lanes).
func (m f32Matrix) packTLanes(pack []float32, p0, kc, j0 int64) int64 {
	n := kc / 8
	if !useFMA || n == 0 {
		return 0
	}
	o := m.off + j0*m.cs + p0
	_ = m.data[o+15*m.cs+8*n-1] // the last row's last value read
	_ = pack[8*n*gemmNR-1]
	packT8(n, &m.data[o], 4*m.cs, &pack[0])
	packT8(n, &m.data[o+8*m.cs], 4*m.cs, &pack[8])
	return 8 * n
}

// packA6 is in gemm_amd64.s.
//
//go:noescape
func packA6(n int64, src *float32, lds int64, dst *float32)

// zeros are the rows of a panel past the end of A.
var zeros [gemmKC]float32

// packA packs the block of A for the lanes, 6 rows side by side a panel
// (zero rows past the block; a full panel 8 values of k at a time on
// lanes), and reports whether the lanes run. apack has room for 2 floats
// past the last panel, which packA6 writes.
func (g gemmBlock) packA(apack []float32) bool {
	if !useFMA {
		return false
	}
	var rows [gemmMR][]float32
	for q := range (g.mc + gemmMR - 1) / gemmMR {
		dst := apack[q*g.kc*gemmMR : (q+1)*g.kc*gemmMR+2]
		full := g.mc-q*gemmMR >= gemmMR
		for r := range rows {
			rows[r] = zeros[:g.kc] // past the block
			if i := g.i0 + q*gemmMR + int64(r); i < g.i0+g.mc {
				rows[r] = g.a[i*g.k+g.p0 : i*g.k+g.p0+g.kc]
			}
		}
		done := int64(0)
		if full && g.kc >= 8 {
			_ = g.a[(g.i0+q*gemmMR+gemmMR-1)*g.k+g.p0+g.kc-1] // the last row's end
			done = g.kc / 8 * 8
			packA6(g.kc/8, &rows[0][0], 4*g.k, &dst[0])
		}
		r0, r1, r2, r3, r4, r5 := rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
		for p := done; p < g.kc; p++ {
			d := dst[p*gemmMR : p*gemmMR+gemmMR]
			d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		}
	}
	return true
}

// stripLanes multiplies every panel of the packed block by one packed
// strip (columns j0 to j0+w); a block at the matrix's edge (fewer rows,
// or fewer columns) goes through a scratch copy of C.
func (g gemmBlock) stripLanes(strip, apack, c []float32, j0, w int64) {
	add := g.p0 > 0
	var tmp [gemmMR * gemmNR]float32
	for q := range (g.mc + gemmMR - 1) / gemmMR {
		r0, rows := g.i0+q*gemmMR, min(gemmMR, g.mc-q*gemmMR)
		panel := &apack[q*g.kc*gemmMR]
		if rows == gemmMR && w == gemmNR {
			_ = c[(r0+gemmMR-1)*g.n+j0+gemmNR-1] // the block's last element, checked here
			sgemm6x16(g.kc, panel, &strip[0], &c[r0*g.n+j0], 4*g.n, add)
			continue
		}
		for r := range rows {
			copy(tmp[r*gemmNR:r*gemmNR+w], c[(r0+r)*g.n+j0:(r0+r)*g.n+j0+w])
		}
		sgemm6x16(g.kc, panel, &strip[0], &tmp[0], 4*gemmNR, add)
		for r := range rows {
			copy(c[(r0+r)*g.n+j0:(r0+r)*g.n+j0+w], tmp[r*gemmNR:r*gemmNR+w])
		}
	}
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
