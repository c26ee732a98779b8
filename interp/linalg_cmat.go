package interp

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/kiln-compiler/kiln/ir"
)

// Dense matrices for the linear algebra kernels. Every algorithm runs in
// complex128 on a batch of row-major matrices: a real input enters with
// zero imaginary parts, on which LAPACK's complex routines reduce to its
// real ones (izamax's |re|+|im| is |re|, zlarfg's reflector is dlarfg's),
// so one implementation serves f32, f64, c64 and c128. Results are
// rounded once into the output dtype.

// cmat is one dense row-major r×c matrix.
type cmat struct {
	r, c int64
	a    []complex128
}

func newCmat(r, c int64) *cmat { return &cmat{r: r, c: c, a: make([]complex128, r*c)} }

func (m *cmat) at(i, j int64) complex128     { return m.a[i*m.c+j] }
func (m *cmat) set(i, j int64, v complex128) { m.a[i*m.c+j] = v }

func (m *cmat) clone() *cmat { return &cmat{r: m.r, c: m.c, a: append([]complex128(nil), m.a...)} }

// eye is the n×n identity.
func eye(n int64) *cmat {
	m := newCmat(n, n)
	for i := int64(0); i < n; i++ {
		m.set(i, i, 1)
	}
	return m
}

// adjoint is the conjugate transpose.
func (m *cmat) adjoint() *cmat {
	out := newCmat(m.c, m.r)
	for i := int64(0); i < m.r; i++ {
		for j := int64(0); j < m.c; j++ {
			out.set(j, i, cmplx.Conj(m.at(i, j)))
		}
	}
	return out
}

// transpose is the plain transpose.
func (m *cmat) transpose() *cmat {
	out := newCmat(m.c, m.r)
	for i := int64(0); i < m.r; i++ {
		for j := int64(0); j < m.c; j++ {
			out.set(j, i, m.at(i, j))
		}
	}
	return out
}

// mul is m·o.
func (m *cmat) mul(o *cmat) *cmat {
	out := newCmat(m.r, o.c)
	for i := int64(0); i < m.r; i++ {
		for k := int64(0); k < m.c; k++ {
			x := m.at(i, k)
			if x == 0 {
				continue
			}
			for j := int64(0); j < o.c; j++ {
				out.a[i*o.c+j] += x * o.at(k, j)
			}
		}
	}
	return out
}

// cols is the first k columns.
func (m *cmat) cols(k int64) *cmat {
	out := newCmat(m.r, k)
	for i := int64(0); i < m.r; i++ {
		copy(out.a[i*k:(i+1)*k], m.a[i*m.c:i*m.c+k])
	}
	return out
}

// rows is the first k rows.
func (m *cmat) rows(k int64) *cmat {
	return &cmat{r: k, c: m.c, a: append([]complex128(nil), m.a[:k*m.c]...)}
}

// colNorm is the 2-norm of column j from row i0 down, scaled as dznrm2.
func (m *cmat) colNorm(j, i0 int64) float64 {
	s := 0.0
	for i := i0; i < m.r; i++ {
		v := m.at(i, j)
		s = math.Hypot(s, math.Hypot(real(v), imag(v)))
	}
	return s
}

// matBatch is a batch of matrices and the batch shape they came from.
type matBatch struct {
	batch []int64
	m, n  int64
	mats  []*cmat
}

func (b *matBatch) shape(dims ...int64) []int64 {
	return append(append([]int64{}, b.batch...), dims...)
}

// readMats reads a floating or complex tensor of at least 2 dims as its
// batch of matrices.
func readMats(t *Tensor, op string) (*matBatch, error) {
	if !t.DType.IsFloat() && !t.DType.IsComplex() || t.Dim() < 2 {
		return nil, fmt.Errorf("%s: expected a floating point or complex tensor with at least 2 dimensions, got %s%v", op, t.DType.Name(), t.Shape)
	}
	r := t.Dim()
	b := &matBatch{batch: clone64(t.Shape[:r-2]), m: t.Shape[r-2], n: t.Shape[r-1]}
	vals := readComplex(t)
	mn := b.m * b.n
	for i := int64(0); i < numel(b.batch); i++ {
		b.mats = append(b.mats, &cmat{r: b.m, c: b.n, a: vals[i*mn : (i+1)*mn]})
	}
	return b, nil
}

// readComplex is t's elements in logical order as complex128.
func readComplex(t *Tensor) []complex128 {
	offs := t.offsets()
	out := make([]complex128, len(offs))
	data := t.Storage.Data
	for i, o := range offs {
		if t.DType.IsComplex() {
			c := loadC(t.DType, data, o)
			out[i] = complex(c.re, c.im)
		} else {
			out[i] = complex(loadF(t.DType, data, o), 0)
		}
	}
	return out
}

// writeComplex is a new dt tensor of shape holding vals (logical order),
// column-major in its last two dims when colMajor, else row-major.
func writeComplex(dt ir.DType, shape []int64, vals []complex128, colMajor bool, dev ir.Device) (*Tensor, error) {
	st := ContiguousStrides(shape)
	if r := len(shape); colMajor && r >= 2 {
		st[r-2], st[r-1] = 1, max(shape[r-2], 1)
	}
	out, err := Empty(dt, shape, st, dev)
	if err != nil {
		return nil, err
	}
	data := out.Storage.Data
	for i, o := range out.offsets() {
		if dt.IsComplex() {
			storeC(dt, data, o, cplx{re: real(vals[i]), im: imag(vals[i])})
		} else {
			storeF(dt, data, o, real(vals[i]))
		}
	}
	return out, nil
}

// writeMats stores a batch of equally sized matrices.
func writeMats(dt ir.DType, batch []int64, mats []*cmat, r, c int64, colMajor bool, dev ir.Device) (*Tensor, error) {
	vals := make([]complex128, 0, int64(len(mats))*r*c)
	for _, m := range mats {
		vals = append(vals, m.a...)
	}
	return writeComplex(dt, append(clone64(batch), r, c), vals, colMajor, dev)
}

// writeVecs stores a batch of equally long vectors.
func writeVecs(dt ir.DType, batch []int64, vecs [][]complex128, k int64, dev ir.Device) (*Tensor, error) {
	vals := make([]complex128, 0, int64(len(vecs))*k)
	for _, v := range vecs {
		vals = append(vals, v...)
	}
	return writeComplex(dt, append(clone64(batch), k), vals, false, dev)
}

// realOf is the real dtype of a float or complex dtype (c64 → f32).
func realOf(dt ir.DType) ir.DType {
	if dt.IsComplex() {
		return dt.ComplexComponent()
	}
	return dt
}

// broadcastMats expands a and b to their common batch shape (the last two
// dims of each kept) and reads them.
func broadcastMats(a, b *Tensor, op string) (*matBatch, *matBatch, error) {
	if a.Dim() < 2 || b.Dim() < 2 {
		return nil, nil, fmt.Errorf("%s: expected matrices, got shapes %v and %v", op, a.Shape, b.Shape)
	}
	batch, err := broadcastShapes(a.Shape[:a.Dim()-2], b.Shape[:b.Dim()-2])
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	ea, err := expand(a, append(clone64(batch), a.Shape[a.Dim()-2:]...))
	if err != nil {
		return nil, nil, err
	}
	eb, err := expand(b, append(clone64(batch), b.Shape[b.Dim()-2:]...))
	if err != nil {
		return nil, nil, err
	}
	ma, err := readMats(ea, op)
	if err != nil {
		return nil, nil, err
	}
	mb, err := readMats(eb, op)
	return ma, mb, err
}

// int32Of is an int32 tensor of shape holding vals.
func int32Of(shape []int64, vals []int64, dev ir.Device) *Tensor {
	return int32Tensor(shape, vals, dev)
}
