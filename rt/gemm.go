package rt

import (
	"fmt"
	"runtime"
)

// A float32 GEMM for mm and bmm, blocked as BLIS's: for each block of
// gemmKC values of k, A is packed a block of up to gemmMC rows at a time,
// 6 rows side by side a panel (the block stays in L2), then each strip of
// gemmNR columns of B is packed (16 KiB, in L1 while every panel of the
// block passes over it), and 6×16 blocks of C are accumulated in
// registers (on AVX2 lanes in GOEXPERIMENT=simd builds: gemm_amd64.go,
// gemm_amd64.s; rows and columns past the matrix's edge are zeros of the
// packs, and that block goes through a scratch copy of C). Without lanes
// a scalar loop runs each row against the packed strip. Every element of
// C is summed over each block of gemmKC values of k in order from +0,
// each step a fused multiply-add (one rounding, as the sgemm kernels
// behind PyTorch's mm compute): the lanes with VFMADD, the scalar loop
// with FMA32, the same bits. A block's sum is then added to C's sum of
// the blocks before: partial sums of 256 terms rather than one chain of k
// keep the rounding error down (corpus 007's ten 2048-wide layers: RMSE
// against float64 9.4e8, twice eager's 4.7e8, with one chain).

const (
	gemmNR = 16  // columns of C per strip (two 8-lane vectors)
	gemmMR = 6   // rows of C per register block
	gemmKC = 256 // values of k per block
	gemmMC = 264 // rows of A per packed block at most: 264 KiB at gemmKC, in L2
)

// f32Matrix is a strided float32 matrix view: element (i, j) is
// data[off + i*rs + j*cs].
type f32Matrix struct {
	data        []float32
	off, rs, cs int64
}

func (m f32Matrix) at(i, j int64) float32 { return m.data[m.off+i*m.rs+j*m.cs] }

// rowMajor returns m's rows·cols elements row-major: the data itself when
// m is already laid out that way, else a copy.
func (m f32Matrix) rowMajor(rows, cols int64) []float32 {
	if m.cs == 1 && (m.rs == cols || rows == 1) {
		return m.data[m.off : m.off+rows*cols]
	}
	out := make([]float32, rows*cols)
	for i := range rows {
		for j := range cols {
			out[i*cols+j] = m.at(i, j)
		}
	}
	return out
}

// sgemm writes c = a·b for a [m×k] row-major, b [k×n], c [m×n] (c
// row-major with row stride n), in parallel over groups of column strips
// (one group per worker).
func sgemm(m, k, n int64, a []float32, b f32Matrix, c []float32) error {
	if k == 0 {
		clear(c[:m*n])
		return nil
	}
	strips := (n + gemmNR - 1) / gemmNR
	group := max(1, (strips+int64(runtime.GOMAXPROCS(0))-1)/int64(runtime.GOMAXPROCS(0)))
	groups := (strips + group - 1) / group
	kcMax := min(gemmKC, k)
	// A's rows in equal blocks of at most gemmMC (B is packed once per block)
	blocks := (m + gemmMC - 1) / gemmMC
	mc := ((m+blocks-1)/blocks + gemmMR - 1) / gemmMR * gemmMR
	return ParallelFor(groups, m*k*gemmNR*group, func(lo, hi int64) error {
		bbuf := AllocBuffer(4 * kcMax * gemmNR)
		abuf := AllocBuffer(4 * (mc*kcMax + 2)) // packA6 writes 2 floats past the last panel
		defer ReleaseBuffer(bbuf)
		defer ReleaseBuffer(abuf)
		bpack, apack := F32s(bbuf), F32s(abuf)
		for gi := lo; gi < hi; gi++ {
			for p0 := int64(0); p0 < k; p0 += gemmKC {
				for i0 := int64(0); i0 < m; i0 += mc {
					blk := gemmBlock{a: a, b: b, k: k, i0: i0, mc: min(mc, m-i0), p0: p0, kc: min(gemmKC, k-p0), n: n,
						s0: gi * group, s1: min(strips, (gi+1)*group)}
					blk.run(bpack, apack, c)
				}
			}
		}
		return nil
	})
}

// gemmBlock is one block of A (rows i0 to i0+mc, k from p0 to p0+kc)
// against B's strips s0 to s1 (columns 16·s0 to 16·s1).
type gemmBlock struct {
	a                    []float32
	b                    f32Matrix
	k, i0, mc, p0, kc, n int64
	s0, s1               int64
}

// run packs the block of A for the lanes (when they run), then each strip
// of B in turn, and multiplies.
func (g gemmBlock) run(bpack, apack, c []float32) {
	lanes := g.packA(apack)
	strip := bpack[:g.kc*gemmNR]
	for s := g.s0; s < g.s1; s++ {
		j0 := s * gemmNR
		w := min(gemmNR, g.n-j0)
		g.b.pack(strip, g.p0, g.kc, j0, w)
		if lanes {
			g.stripLanes(strip, apack, c, j0, w)
			continue
		}
		for i := g.i0; i < g.i0+g.mc; i++ {
			sgemmRow(g.a[i*g.k+g.p0:i*g.k+g.p0+g.kc], strip, c[i*g.n+j0:i*g.n+j0+w], g.p0 == 0)
		}
	}
}

// pack copies m's rows p0 to p0+kc, columns j0 to j0+w into pack, gemmNR
// floats a row, zeros past w. Along the memory's contiguous direction:
// rows for a row-major B, columns for a transposed one (linear's weight,
// whose columns a row-by-row walk would read one cache line per element).
func (m f32Matrix) pack(pack []float32, p0, kc, j0, w int64) {
	if w < gemmNR {
		for p := range kc {
			clear(pack[p*gemmNR+w : (p+1)*gemmNR])
		}
	}
	switch {
	case m.cs == 1:
		for p := range kc {
			o := m.off + (p0+p)*m.rs + j0
			copy(pack[p*gemmNR:p*gemmNR+w], m.data[o:o+w])
		}
	case m.rs == 1:
		done := int64(0)
		if w == gemmNR {
			done = m.packTLanes(pack, p0, kc, j0)
		}
		for j := range w * min(kc-done, 1) {
			o := m.off + (j0+j)*m.cs + p0
			col := m.data[o+done : o+kc]
			dst := pack[done*gemmNR+j:]
			for p, x := range col {
				dst[int64(p)*gemmNR] = x
			}
		}
	default:
		for p := range kc {
			row := pack[p*gemmNR : p*gemmNR+w]
			for j := range row {
				row[j] = m.at(p0+p, j0+int64(j))
			}
		}
	}
}

// sgemmRow adds row i of A's block of k times the packed strip, summed
// from +0, to crow (sets it, on the first block), on scalars.
func sgemmRow(arow, pack, crow []float32, first bool) {
	var acc [gemmNR]float32
	for p, x := range arow {
		bp := pack[p*gemmNR : p*gemmNR+gemmNR]
		for j := range crow {
			acc[j] = FMA32(x, bp[j], acc[j])
		}
	}
	for j := range crow {
		if first {
			crow[j] = acc[j]
		} else {
			crow[j] += acc[j]
		}
	}
}

// fits checks that every element of t's layout lies in its data, so the
// strided reads and writes of the GEMM stay in bounds.
func (t *Tensor) fits() error {
	st := t.strides()
	last := t.Offset
	for i, s := range t.Shape {
		if s == 0 {
			return nil
		}
		if st[i] < 0 {
			return fmt.Errorf("negative stride %d in dimension %d", st[i], i)
		}
		last += (s - 1) * st[i]
	}
	if t.Offset < 0 || (last+1)*int64(ItemSize(t.DType)) > int64(len(t.Data)) {
		return fmt.Errorf("layout %v strides %v offset %d needs more than the %d bytes of its buffer", t.Shape, st, t.Offset, len(t.Data))
	}
	return nil
}
