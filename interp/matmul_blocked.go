package interp

import (
	"runtime"
	"sync"
)

// The float64 GEMM behind mm, bmm, matmul, addmm and linear. Corpus graphs
// multiply 1024×768 by 768×50005 (a vocabulary projection); a triple loop
// takes minutes on that, so the product is cache-blocked as GotoBLAS does:
// a block of B (gemmKC rows × gemmNC columns) is packed into panels of
// gemmNR columns that stay in L2, a panel of gemmMR rows of A into L1, and a
// register-blocked micro-kernel runs over them (AVX2 lanes on amd64).
//
// Every output element is summed in one fixed order whatever the blocking,
// the lanes or the number of goroutines: c starts at +0 and takes the
// terms a[i,l]·b[l,j] for l = 0, 1, …, k-1, each product rounded to
// float64 and then added (a multiply and an add, never a fused
// multiply-add). So the result depends only on the operands, and equals
// that of the plain loop `c += float64(a*b)` bit for bit.
const (
	gemmMR = 4   // rows of a micro-tile
	gemmNR = 8   // columns of a micro-tile: two AVX2 lanes of 4
	gemmKC = 256 // depth of a packed block: an A panel is 8 KiB, a B panel 16 KiB (L1)
	gemmNC = 192 // columns of a packed B block: 384 KiB (L2)
)

// bmmRaw multiplies B batches of [M,K]·[K,N] row-major arrays.
func bmmRaw(a, b []float64, batch, m, k, n int64) []float64 {
	out := make([]float64, batch*m*n)
	if m == 0 || n == 0 || k == 0 {
		return out
	}
	var bpack []float64
	for p := int64(0); p < batch; p++ {
		ap, bp, cp := a[p*m*k:(p+1)*m*k], b[p*k*n:(p+1)*k*n], out[p*m*n:(p+1)*m*n]
		for jc := int64(0); jc < n; jc += gemmNC {
			nc := min(gemmNC, n-jc)
			for pc := int64(0); pc < k; pc += gemmKC {
				kc := min(gemmKC, k-pc)
				bpack = packB(bpack, bp, n, pc, kc, jc, nc)
				gemmRowBlocks(ap, bpack, cp, m, k, n, pc, kc, jc, nc)
			}
		}
	}
	return out
}

// packB copies b[pc:pc+kc, jc:jc+nc] into panels of gemmNR columns, each
// stored row after row (kc·gemmNR values); a last partial panel is padded
// with zeros, whose lanes are never stored.
func packB(dst, b []float64, n, pc, kc, jc, nc int64) []float64 {
	panels := (nc + gemmNR - 1) / gemmNR
	need := panels * kc * gemmNR
	if int64(cap(dst)) < need {
		dst = make([]float64, need)
	}
	dst = dst[:need]
	for q := int64(0); q < panels; q++ {
		j0 := jc + q*gemmNR
		w := min(gemmNR, jc+nc-j0)
		panel := dst[q*kc*gemmNR : (q+1)*kc*gemmNR]
		for l := int64(0); l < kc; l++ {
			row := panel[l*gemmNR : (l+1)*gemmNR]
			src := b[(pc+l)*n+j0 : (pc+l)*n+j0+w]
			copy(row, src)
			clear(row[w:])
		}
	}
	return dst
}

// gemmRowBlocks runs the micro-kernel over every row panel of A against
// the packed block of B, splitting row panels over goroutines when the
// block is large. Goroutines write disjoint rows of c.
func gemmRowBlocks(a, bpack, c []float64, m, k, n, pc, kc, jc, nc int64) {
	panels := (m + gemmMR - 1) / gemmMR
	work := func(lo, hi int64) {
		var apack [gemmMR * gemmKC]float64
		var tile [gemmMR * gemmNR]float64
		for q := lo; q < hi; q++ {
			i0 := q * gemmMR
			h := min(gemmMR, m-i0)
			packA(apack[:kc*gemmMR], a, k, i0, h, pc, kc)
			for jp := int64(0); jp*gemmNR < nc; jp++ {
				j0 := jc + jp*gemmNR
				w := min(gemmNR, jc+nc-j0)
				bp := bpack[jp*kc*gemmNR : (jp+1)*kc*gemmNR]
				if h == gemmMR && w == gemmNR {
					gemmKernel(kc, apack[:kc*gemmMR], bp, c[i0*n+j0:], n)
					continue
				}
				// An edge tile runs on a full-size copy; only its
				// valid part goes back.
				clear(tile[:])
				for r := int64(0); r < h; r++ {
					copy(tile[r*gemmNR:r*gemmNR+w], c[(i0+r)*n+j0:(i0+r)*n+j0+w])
				}
				gemmKernel(kc, apack[:kc*gemmMR], bp, tile[:], gemmNR)
				for r := int64(0); r < h; r++ {
					copy(c[(i0+r)*n+j0:(i0+r)*n+j0+w], tile[r*gemmNR:r*gemmNR+w])
				}
			}
		}
	}
	workers := int64(runtime.GOMAXPROCS(0))
	if workers == 1 || panels < 2 || m*kc*nc < 1<<18 {
		work(0, panels)
		return
	}
	parts := min(workers, panels)
	var wg sync.WaitGroup
	for p := int64(0); p < parts; p++ {
		lo, hi := panels*p/parts, panels*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(lo, hi)
		}()
	}
	wg.Wait()
}

// packA copies a[i0:i0+h, pc:pc+kc] column by column (gemmMR values per
// l), padding missing rows with zeros.
func packA(dst, a []float64, k, i0, h, pc, kc int64) {
	for r := int64(0); r < gemmMR; r++ {
		if r >= h {
			for l := int64(0); l < kc; l++ {
				dst[l*gemmMR+r] = 0
			}
			continue
		}
		src := a[(i0+r)*k+pc : (i0+r)*k+pc+kc]
		for l, v := range src {
			dst[int64(l)*gemmMR+r] = v
		}
	}
}

// gemmKernelGo is the micro-kernel in Go: c[r,j] += a[l,r]·b[l,j] for l
// ascending, c a gemmMR×gemmNR tile with row stride ldc. The conversion
// float64(x*y) keeps the compiler from fusing the multiply and the add
// (the Go spec lets it fuse otherwise), as the lanes do not fuse either.
func gemmKernelGo(kc int64, a, b, c []float64, ldc int64) {
	for r := int64(0); r < gemmMR; r++ {
		row := c[r*ldc : r*ldc+gemmNR]
		var acc [gemmNR]float64
		copy(acc[:], row)
		for l := int64(0); l < kc; l++ {
			x := a[l*gemmMR+r]
			bl := b[l*gemmNR : (l+1)*gemmNR]
			for j := range acc {
				acc[j] += float64(x * bl[j])
			}
		}
		copy(row, acc[:])
	}
}
