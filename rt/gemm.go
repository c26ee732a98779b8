package rt

import (
	"fmt"
)

// A float32 GEMM for mm and bmm: B is packed a strip of gemmNR columns at
// a time into contiguous memory, and 6×16 and 4×16 blocks of C are
// accumulated in registers (on AVX2 lanes in GOEXPERIMENT=simd builds:
// gemm_amd64.go, gemm_amd64.s), the scalar loop taking the rows and
// columns left over. Every element of
// C is summed over each block of gemmKC values of k in order from +0, each
// step a fused multiply-add (one rounding, as the sgemm kernels behind
// PyTorch's CPU mm compute): the lanes with VFMADD, the scalar loop with
// FMA32, the same bits. A block's sum is then added to C's sum of the
// blocks before: partial sums of 256 terms rather than one chain of k
// keep the rounding error down (corpus 007's ten 2048-wide layers: RMSE
// against float64 9.4e8, twice eager's 4.7e8, with one chain).

const (
	gemmNR = 16 // columns of C per strip (two 8-lane vectors)
	gemmKC = 256
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

// sgemm writes c = a·b for a [m×k], b [k×n], c [m×n] (c row-major with
// row stride n), in parallel over column strips. Each strip's B is packed
// gemmKC rows at a time (16 KiB: it stays in L1 while every row block of
// C passes over it); C takes each block's sums in turn.
func sgemm(m, k, n int64, a []float32, b f32Matrix, c []float32) error {
	strips := (n + gemmNR - 1) / gemmNR
	return ParallelFor(strips, m*k*gemmNR, func(lo, hi int64) error {
		pack := make([]float32, gemmKC*gemmNR)
		for s := lo; s < hi; s++ {
			j0 := s * gemmNR
			w := min(gemmNR, n-j0)
			if k == 0 {
				for i := range m {
					clear(c[i*n+j0 : i*n+j0+w])
				}
			}
			for p0 := int64(0); p0 < k; p0 += gemmKC {
				kc := min(gemmKC, k-p0)
				b.pack(pack, p0, kc, j0, w)
				i := int64(0)
				if w == gemmNR {
					i = sgemmLanes(m, k, n, a, pack[:kc*gemmNR], c, p0, j0)
				}
				for ; i < m; i++ {
					sgemmRow(a[i*k+p0:i*k+p0+kc], pack, c[i*n+j0:i*n+j0+w], p0 == 0)
				}
			}
		}
		return nil
	})
}

// pack copies m's rows p0 to p0+kc, columns j0 to j0+w into pack, gemmNR
// floats a row. Along the memory's contiguous direction: rows for a
// row-major B, columns for a transposed one (linear's weight, whose
// columns a row-by-row walk would read one cache line per element).
func (m f32Matrix) pack(pack []float32, p0, kc, j0, w int64) {
	switch {
	case m.cs == 1:
		for p := range kc {
			o := m.off + (p0+p)*m.rs + j0
			copy(pack[p*gemmNR:p*gemmNR+w], m.data[o:o+w])
		}
	case m.rs == 1:
		for j := range w {
			o := m.off + (j0+j)*m.cs + p0
			col := m.data[o : o+kc]
			dst := pack[j:]
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
