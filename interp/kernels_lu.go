package interp

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/kiln-compiler/kiln/ir"
)

// LU with partial pivoting as LAPACK's getrf: the pivot of column j is the
// first row of largest |re|+|im| (izamax) at or below j; pivots are
// 1-based int32; info is the first zero pivot's 1-based index (0 when
// none). The factorization, determinants, inverses and solves are built
// on it, in complex128 for real and complex dtypes alike.

func init() {
	register(kLUFactor, "linalg_lu_factor_ex")
	register(kLinalgLU, "linalg_lu")
	register(kLUUnpack, "lu_unpack")
	register(detKernel(false), "_linalg_det")
	register(detKernel(true), "_linalg_slogdet")
	register(kLUSolve, "linalg_lu_solve")
	register(kSolveEx, "_linalg_solve_ex")
	register(kInvEx, "linalg_inv_ex")
	register(kSolveTriangular, "linalg_solve_triangular")
}

func cabs1(x complex128) float64 { return math.Abs(real(x)) + math.Abs(imag(x)) }

// getrf factors a (m×n) in place; it returns the pivots and info.
func getrf(a *cmat) ([]int64, int64) {
	m, n := a.r, a.c
	k := min(m, n)
	piv := make([]int64, k)
	info := int64(0)
	for j := int64(0); j < k; j++ {
		p := j
		for i := j + 1; i < m; i++ {
			if cabs1(a.at(i, j)) > cabs1(a.at(p, j)) {
				p = i
			}
		}
		piv[j] = p + 1
		if a.at(p, j) == 0 {
			if info == 0 {
				info = j + 1
			}
			continue
		}
		if p != j {
			for c := int64(0); c < n; c++ {
				x, y := a.at(j, c), a.at(p, c)
				a.set(j, c, y)
				a.set(p, c, x)
			}
		}
		for i := j + 1; i < m; i++ {
			l := a.at(i, j) / a.at(j, j)
			a.set(i, j, l)
			for c := j + 1; c < n; c++ {
				a.set(i, c, a.at(i, c)-l*a.at(j, c))
			}
		}
	}
	return piv, info
}

// luBatch is the factorization of every matrix of a tensor.
type luBatch struct {
	*matBatch
	piv  [][]int64
	info []int64
}

func factor(a *Tensor, op string) (*luBatch, error) {
	mb, err := readMats(a, op)
	if err != nil {
		return nil, err
	}
	f := &luBatch{matBatch: mb}
	for _, m := range mb.mats {
		p, info := getrf(m)
		f.piv, f.info = append(f.piv, p), append(f.info, info)
	}
	return f, nil
}

func int32Tensor(shape []int64, vals []int64, dev ir.Device) *Tensor {
	t, _ := Empty(ir.I32, shape, nil, dev)
	for i, v := range vals {
		storeI(ir.I32, t.Storage.Data, int64(i), v)
	}
	return t
}

func (f *luBatch) pivots(dev ir.Device) *Tensor {
	var all []int64
	for _, p := range f.piv {
		all = append(all, p...)
	}
	return int32Tensor(f.shape(min(f.m, f.n)), all, dev)
}

func (f *luBatch) lu(dt ir.DType, dev ir.Device) (*Tensor, error) {
	return writeMats(dt, f.batch, f.mats, f.m, f.n, true, dev)
}

func kLUFactor(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	if pivot, err := c.bool("pivot"); err != nil || !pivot {
		return nil, fmt.Errorf("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
	}
	f, err := factor(a, "linalg.lu_factor")
	if err != nil {
		return nil, err
	}
	lu, err := f.lu(a.DType, a.Device())
	if err != nil {
		return nil, err
	}
	return []any{lu, f.pivots(a.Device()), int32Tensor(f.batch, f.info, a.Device())}, nil
}

// permutation is the row order getrf's swaps produce: row i of L·U is row
// perm[i] of A.
func permutation(piv []int64, m int64) []int64 {
	perm := make([]int64, m)
	for i := range perm {
		perm[i] = int64(i)
	}
	for j, p := range piv {
		perm[j], perm[p-1] = perm[p-1], perm[j]
	}
	return perm
}

// unpack is (P, L, U) with A = P·L·U of one factorization.
func unpack(a *cmat, piv []int64) (p, l, u *cmat) {
	m, n := a.r, a.c
	k := min(m, n)
	p = newCmat(m, m)
	for i, src := range permutation(piv, m) {
		p.set(src, int64(i), 1)
	}
	l, u = newCmat(m, k), newCmat(k, n)
	for i := int64(0); i < m; i++ {
		for j := int64(0); j < k && j <= i; j++ {
			if i == j {
				l.set(i, j, 1)
			} else {
				l.set(i, j, a.at(i, j))
			}
		}
	}
	for i := int64(0); i < k; i++ {
		for j := i; j < n; j++ {
			u.set(i, j, a.at(i, j))
		}
	}
	return p, l, u
}

// writePLU stores (P, L, U) row-major, each empty ([0]) where not wanted.
func writePLU(dt ir.DType, mb *matBatch, ps, ls, us []*cmat, wantP, wantLU bool, dev ir.Device) ([]any, error) {
	k := min(mb.m, mb.n)
	out := make([]any, 3)
	for i, spec := range []struct {
		ms   []*cmat
		r, c int64
		want bool
	}{{ps, mb.m, mb.m, wantP}, {ls, mb.m, k, wantLU}, {us, k, mb.n, wantLU}} {
		var t *Tensor
		var err error
		if spec.want {
			t, err = writeMats(dt, mb.batch, spec.ms, spec.r, spec.c, false, dev)
		} else {
			t, err = Empty(dt, []int64{0}, nil, dev)
		}
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func kLUUnpack(c *call) ([]any, error) {
	lu, pv, err := c.tensor2("LU_data", "LU_pivots")
	if err != nil {
		return nil, err
	}
	wantLU, err := c.bool("unpack_data")
	if err != nil {
		return nil, err
	}
	wantP, err := c.bool("unpack_pivots")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(lu, "torch.lu_unpack")
	if err != nil {
		return nil, err
	}
	k := min(mb.m, mb.n)
	pivs := contiguous(pv).Ints()
	if int64(len(pivs)) != int64(len(mb.mats))*k {
		return nil, fmt.Errorf("torch.lu_unpack: pivots of shape %v do not fit LU of shape %v", pv.Shape, lu.Shape)
	}
	ps, ls, us := make([]*cmat, len(mb.mats)), make([]*cmat, len(mb.mats)), make([]*cmat, len(mb.mats))
	for b, a := range mb.mats {
		ps[b], ls[b], us[b] = unpack(a, pivs[int64(b)*k:int64(b+1)*k])
	}
	return writePLU(lu.DType, mb, ps, ls, us, wantP, wantLU, lu.Device())
}

func kLinalgLU(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	if pivot, err := c.bool("pivot"); err != nil || !pivot {
		return nil, fmt.Errorf("linalg.lu: LU without pivoting is not implemented on the CPU")
	}
	f, err := factor(a, "linalg.lu")
	if err != nil {
		return nil, err
	}
	ps, ls, us := make([]*cmat, len(f.mats)), make([]*cmat, len(f.mats)), make([]*cmat, len(f.mats))
	for b, m := range f.mats {
		ps[b], ls[b], us[b] = unpack(m, f.piv[b])
	}
	return writePLU(a.DType, f.matBatch, ps, ls, us, true, true, a.Device())
}

// detKernel is det (or sign and log|det|, slog) from the LU
// factorization: the product of U's diagonal, negated per row swap.
func detKernel(slog bool) kernel {
	return func(c *call) ([]any, error) { return det(c, slog) }
}

func det(c *call, slog bool) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	// _linalg_det_out factors Aᴴ when A is contiguous and real (det(Aᵀ) =
	// det(A), and Aᵀ is then the column-major matrix getrf wants), so its
	// LU and pivots are those of Aᵀ.
	src := a
	if a.IsContiguous() && !a.DType.IsComplex() && a.Dim() >= 2 {
		if src, err = transposeLast(a); err != nil {
			return nil, err
		}
	}
	f, err := factor(src, "linalg.det")
	if err != nil {
		return nil, err
	}
	nb := len(f.mats)
	det, sign, logabs := make([]complex128, nb), make([]complex128, nb), make([]complex128, nb)
	for b, m := range f.mats {
		d, s, l := complex(1, 0), complex(1, 0), 0.0
		for j := int64(0); j < f.n; j++ {
			x := m.at(j, j)
			d *= x
			l += math.Log(cmplx.Abs(x))
			if x == 0 {
				s = 0
			} else {
				s *= x / complex(cmplx.Abs(x), 0)
			}
			if f.piv[b][j] != j+1 {
				d, s = -d, -s
			}
		}
		det[b], sign[b], logabs[b] = d, s, complex(l, 0)
	}
	dev := a.Device()
	lu, err := f.lu(a.DType, dev)
	if err != nil {
		return nil, err
	}
	piv := f.pivots(dev)
	if !slog {
		d, err := writeComplex(a.DType, f.batch, det, false, dev)
		return []any{d, lu, piv}, err
	}
	s, err := writeComplex(a.DType, f.batch, sign, false, dev)
	if err != nil {
		return nil, err
	}
	la, err := writeComplex(realOf(a.DType), f.batch, logabs, false, dev)
	return []any{s, la, lu, piv}, err
}

// luSolve solves op(A)·X = B for one factorization P·L·U of A, with
// op(A) = Aᴴ when adjoint.
func luSolve(lu *cmat, piv []int64, b *cmat, adjoint bool) *cmat {
	if adjoint { // Aᴴ = Uᴴ·Lᴴ·Pᵀ: Uᴴ·y = B, Lᴴ·z = y, X = P·z
		z := trsm(lu.adjoint(), b, true, false)
		z = trsm(lu.adjoint(), z, false, true)
		for j := int64(len(piv)) - 1; j >= 0; j-- {
			swapRows(z, j, piv[j]-1)
		}
		return z
	}
	x := b.clone()
	for j, p := range piv {
		swapRows(x, int64(j), p-1)
	}
	x = trsm(lu, x, true, true)
	return trsm(lu, x, false, false)
}

func swapRows(x *cmat, i, j int64) {
	if i == j {
		return
	}
	for c := int64(0); c < x.c; c++ {
		a, b := x.at(i, c), x.at(j, c)
		x.set(i, c, b)
		x.set(j, c, a)
	}
}

// solveFactored solves against each factorization (broadcast over B's
// batch): A·X = B, or X·A = B when !left (as Aᴴ·Xᴴ = Bᴴ), with Aᴴ for A
// when adjoint. The result is column-major for left, row-major otherwise.
func solveFactored(lu *Tensor, piv []int64, b *Tensor, left, adjoint bool, op string) (*Tensor, error) {
	ml, mb, err := broadcastMats(lu, b, op)
	if err != nil {
		return nil, err
	}
	n := ml.n
	lb := numel(lu.Shape[:lu.Dim()-2])
	out := make([]*cmat, len(mb.mats))
	for i := range mb.mats {
		// the broadcast batch index i maps back to lu's own batch index
		src := luIndex(i, mb.batch, lu.Shape[:lu.Dim()-2])
		if src >= lb {
			return nil, fmt.Errorf("%s: bad batch", op)
		}
		p := piv[src*n : (src+1)*n]
		if left {
			out[i] = luSolve(ml.mats[i], p, mb.mats[i], adjoint)
		} else {
			out[i] = luSolve(ml.mats[i], p, mb.mats[i].adjoint(), !adjoint).adjoint()
		}
	}
	return writeMats(b.DType, mb.batch, out, mb.m, mb.n, left, b.Device())
}

// luIndex is the row-major index, in a batch of shape own (broadcast to
// full), of element i of full.
func luIndex(i int, full, own []int64) int64 {
	idx := int64(0)
	rem := int64(i)
	stride := int64(1)
	lead := len(full) - len(own)
	for d := len(full) - 1; d >= 0; d-- {
		pos := rem % full[d]
		rem /= full[d]
		if od := d - lead; od >= 0 {
			if own[od] != 1 {
				idx += pos * stride
			}
			stride *= own[od]
		}
	}
	return idx
}

func kLUSolve(c *call) ([]any, error) {
	lu, pv, err := c.tensor2("LU", "pivots")
	if err != nil {
		return nil, err
	}
	b, err := c.tensor("B")
	if err != nil {
		return nil, err
	}
	left, err := c.bool("left")
	if err != nil {
		return nil, err
	}
	adj, err := c.bool("adjoint")
	if err != nil {
		return nil, err
	}
	return oneT(solveFactored(lu, contiguous(pv).Ints(), b, left, adj, "linalg.lu_solve"))
}

func kSolveEx(c *call) ([]any, error) {
	a, b, err := c.tensor2("A", "B")
	if err != nil {
		return nil, err
	}
	left, err := c.bool("left")
	if err != nil {
		return nil, err
	}
	f, err := factor(a, "linalg.solve")
	if err != nil {
		return nil, err
	}
	vector := b.Dim() == 1 || b.Dim() == a.Dim()-1 && equal64(b.Shape, a.Shape[:a.Dim()-1])
	if vector {
		if b, err = reshape(b, append(clone64(b.Shape), 1)); err != nil {
			return nil, err
		}
	}
	dev := a.Device()
	lu, err := f.lu(a.DType, dev)
	if err != nil {
		return nil, err
	}
	var piv []int64
	for _, p := range f.piv {
		piv = append(piv, p...)
	}
	res, err := solveFactored(lu, piv, b, left, false, "linalg.solve")
	if err != nil {
		return nil, err
	}
	if vector {
		if res, err = reshape(res, res.Shape[:res.Dim()-1]); err != nil {
			return nil, err
		}
	}
	return []any{res, lu, f.pivots(dev), int32Tensor(f.batch, f.info, dev)}, nil
}

func kInvEx(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	f, err := factor(a, "linalg.inv")
	if err != nil {
		return nil, err
	}
	inv := make([]*cmat, len(f.mats))
	for b, m := range f.mats {
		inv[b] = luSolve(m, f.piv[b], eye(f.n), false)
	}
	dev := a.Device()
	res, err := writeMats(a.DType, f.batch, inv, f.n, f.n, true, dev)
	if err != nil {
		return nil, err
	}
	return []any{res, int32Tensor(f.batch, f.info, dev)}, nil
}

// kSolveTriangular is A·X = B (X·A = B when !left, as Aᵀ·Xᵀ = Bᵀ) with
// only A's upper or lower triangle read; the result is column-major.
func kSolveTriangular(c *call) ([]any, error) {
	a, b, err := c.tensor2("self", "B")
	if err != nil {
		return nil, err
	}
	upper, err := c.bool("upper")
	if err != nil {
		return nil, err
	}
	left, err := c.bool("left")
	if err != nil {
		return nil, err
	}
	unit, err := c.bool("unitriangular")
	if err != nil {
		return nil, err
	}
	ma, mb, err := broadcastMats(a, b, "linalg.solve_triangular")
	if err != nil {
		return nil, err
	}
	out := make([]*cmat, len(mb.mats))
	for i := range mb.mats {
		if left {
			out[i] = trsm(ma.mats[i], mb.mats[i], !upper, unit)
		} else {
			out[i] = trsm(ma.mats[i].transpose(), mb.mats[i].transpose(), upper, unit).transpose()
		}
	}
	return oneT(writeMats(b.DType, mb.batch, out, mb.m, mb.n, true, b.Device()))
}

// transposeLast is the view of t with its last two dims swapped.
func transposeLast(t *Tensor) (*Tensor, error) {
	r := t.Dim()
	shape, strides := clone64(t.Shape), clone64(t.Strides)
	shape[r-2], shape[r-1] = shape[r-1], shape[r-2]
	strides[r-2], strides[r-1] = strides[r-1], strides[r-2]
	return t.View(shape, strides, t.Offset)
}
