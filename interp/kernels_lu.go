package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// LU with partial pivoting as LAPACK's getrf: the pivot of column j is the
// first row of largest magnitude at or below j; pivots are 1-based int32;
// info is the first zero pivot's 1-based index (0 when none). The
// factorization, determinants, inverses and solves are built on it.

func init() {
	register(kLUFactor, "linalg_lu_factor_ex")
	register(kLUUnpack, "lu_unpack")
	register(kDet, "_linalg_det", "_linalg_slogdet")
	register(kLUSolve, "linalg_lu_solve")
	register(kSolveEx, "_linalg_solve_ex")
	register(kInvEx, "linalg_inv_ex")
}

// getrf factors the m×n row-major a in place; it returns the pivots and info.
func getrf(a []float64, m, n int64) ([]int64, int64) {
	k := min(m, n)
	piv := make([]int64, k)
	info := int64(0)
	for j := int64(0); j < k; j++ {
		p := j
		for i := j + 1; i < m; i++ {
			if math.Abs(a[i*n+j]) > math.Abs(a[p*n+j]) {
				p = i
			}
		}
		piv[j] = p + 1
		if a[p*n+j] == 0 {
			if info == 0 {
				info = j + 1
			}
			continue
		}
		if p != j {
			for c := int64(0); c < n; c++ {
				a[j*n+c], a[p*n+c] = a[p*n+c], a[j*n+c]
			}
		}
		for i := j + 1; i < m; i++ {
			a[i*n+j] /= a[j*n+j]
			for c := j + 1; c < n; c++ {
				a[i*n+c] -= a[i*n+j] * a[j*n+c]
			}
		}
	}
	return piv, info
}

// luBatch factors every matrix of a real floating tensor.
type luBatch struct {
	batch []int64
	m, n  int64
	lu    []float64 // row-major, batch after batch
	piv   [][]int64
	info  []int64
}

func factor(a *Tensor, op string) (*luBatch, error) {
	if !a.DType.IsFloat() || a.Dim() < 2 {
		return nil, fmt.Errorf("%s: only real floating matrices are modelled", op)
	}
	r := a.Dim()
	f := &luBatch{batch: a.Shape[:r-2], m: a.Shape[r-2], n: a.Shape[r-1], lu: contiguous(a).Floats()}
	mn := f.m * f.n
	for b := int64(0); b < numel(f.batch); b++ {
		p, info := getrf(f.lu[b*mn:(b+1)*mn], f.m, f.n)
		f.piv, f.info = append(f.piv, p), append(f.info, info)
	}
	return f, nil
}

func (f *luBatch) shape(dims ...int64) []int64 { return append(append([]int64{}, f.batch...), dims...) }

// colMajorOf is vals (row-major of shape) laid out column-major, as LAPACK
// returns matrices.
func colMajorOf(dt ir.DType, shape []int64, vals []float64, dev ir.Device) (*Tensor, error) {
	st := ContiguousStrides(shape)
	if r := len(shape); r >= 2 {
		st[r-2], st[r-1] = 1, max(shape[r-2], 1)
	}
	out, err := Empty(dt, shape, st, dev)
	if err != nil {
		return nil, err
	}
	return out, copyTensor(out, FromFloatsOn(dt, shape, vals, dev))
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

func kLUFactor(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	f, err := factor(a, "linalg.lu_factor")
	if err != nil {
		return nil, err
	}
	lu, err := colMajorOf(a.DType, f.shape(f.m, f.n), f.lu, a.Device())
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

// kLUUnpack is (P, L, U) with A = P·L·U, row-major.
func kLUUnpack(c *call) ([]any, error) {
	lu, pv, err := c.tensor2("LU_data", "LU_pivots")
	if err != nil {
		return nil, err
	}
	if !lu.DType.IsFloat() || lu.Dim() < 2 {
		return nil, fmt.Errorf("lu_unpack: only real floating matrices are modelled")
	}
	r := lu.Dim()
	batch, m, n := lu.Shape[:r-2], lu.Shape[r-2], lu.Shape[r-1]
	k := min(m, n)
	vals, pivs := contiguous(lu).Floats(), contiguous(pv).Ints()
	var P, L, U []float64
	for b := int64(0); b < numel(batch); b++ {
		a := vals[b*m*n : (b+1)*m*n]
		perm := permutation(pivs[b*k:(b+1)*k], m)
		p := make([]float64, m*m)
		for i, src := range perm {
			p[src*m+int64(i)] = 1
		}
		l, u := make([]float64, m*k), make([]float64, k*n)
		for i := int64(0); i < m; i++ {
			for j := int64(0); j < k; j++ {
				switch {
				case i == j:
					l[i*k+j] = 1
				case i > j:
					l[i*k+j] = a[i*n+j]
				}
			}
		}
		for i := int64(0); i < k; i++ {
			for j := i; j < n; j++ {
				u[i*n+j] = a[i*n+j]
			}
		}
		P, L, U = append(P, p...), append(L, l...), append(U, u...)
	}
	sh := func(d ...int64) []int64 { return append(append([]int64{}, batch...), d...) }
	dev := lu.Device()
	return []any{FromFloatsOn(lu.DType, sh(m, m), P, dev), FromFloatsOn(lu.DType, sh(m, k), L, dev), FromFloatsOn(lu.DType, sh(k, n), U, dev)}, nil
}

// kDet is det (or sign and log|det|) from the LU factorization.
func kDet(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	f, err := factor(a, c.op.Schema.Name)
	if err != nil {
		return nil, err
	}
	nb, n := numel(f.batch), f.n
	det, sign, logabs := make([]float64, nb), make([]float64, nb), make([]float64, nb)
	for b := int64(0); b < nb; b++ {
		d, s, l := 1.0, 1.0, 0.0
		for j := int64(0); j < n; j++ {
			x := f.lu[b*n*n+j*n+j]
			d *= x
			l += math.Log(math.Abs(x))
			if x < 0 {
				s = -s
			}
			if x == 0 {
				s = 0
			}
			if f.piv[b][j] != j+1 {
				d, s = -d, -s
			}
		}
		det[b], sign[b], logabs[b] = d, s, l
	}
	dev := a.Device()
	lu, err := colMajorOf(a.DType, f.shape(n, n), f.lu, dev)
	if err != nil {
		return nil, err
	}
	piv := f.pivots(dev)
	if c.op.Schema.Name == "_linalg_det" {
		return []any{FromFloatsOn(a.DType, f.batch, det, dev), lu, piv}, nil
	}
	return []any{FromFloatsOn(a.DType, f.batch, sign, dev), FromFloatsOn(a.DType, f.batch, logabs, dev), lu, piv}, nil
}

// luSolve solves A·X = B for one n×n factorization and an n×r B (row-major).
func luSolve(lu []float64, piv []int64, b []float64, n, r int64) []float64 {
	x := append([]float64(nil), b...)
	for j, p := range piv { // apply the row swaps to B
		if p-1 != int64(j) {
			for c := int64(0); c < r; c++ {
				x[int64(j)*r+c], x[(p-1)*r+c] = x[(p-1)*r+c], x[int64(j)*r+c]
			}
		}
	}
	for c := int64(0); c < r; c++ {
		for i := int64(0); i < n; i++ { // L·y = Pb, unit diagonal
			for j := int64(0); j < i; j++ {
				x[i*r+c] -= lu[i*n+j] * x[j*r+c]
			}
		}
		for i := n - 1; i >= 0; i-- { // U·x = y
			for j := i + 1; j < n; j++ {
				x[i*r+c] -= lu[i*n+j] * x[j*r+c]
			}
			x[i*r+c] /= lu[i*n+i]
		}
	}
	return x
}

// solveWith solves every batch of B (left, matrix B) against f.
func solveWith(f *luBatch, b *Tensor) ([]int64, []float64, error) {
	br := b.Dim()
	if br < 2 || !b.DType.IsFloat() {
		return nil, nil, fmt.Errorf("only matrix right-hand sides of a real floating dtype are modelled")
	}
	batch, err := broadcastShapes(f.batch, b.Shape[:br-2])
	if err != nil {
		return nil, nil, err
	}
	if !equal64(batch, f.batch) {
		return nil, nil, fmt.Errorf("broadcasting the factorization's batch is not modelled")
	}
	shape := append(append([]int64{}, batch...), b.Shape[br-2:]...)
	eb, err := expand(b, shape)
	if err != nil {
		return nil, nil, err
	}
	n, r := f.n, b.Shape[br-1]
	bv := eb.Floats()
	var out []float64
	for i := int64(0); i < numel(batch); i++ {
		out = append(out, luSolve(f.lu[i*n*n:(i+1)*n*n], f.piv[i], bv[i*n*r:(i+1)*n*r], n, r)...)
	}
	return shape, out, nil
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
	if !left || adj || !lu.DType.IsFloat() || lu.Dim() < 2 {
		return nil, fmt.Errorf("linalg.lu_solve: only left, non-adjoint solves with real matrices are modelled")
	}
	r := lu.Dim()
	f := &luBatch{batch: lu.Shape[:r-2], m: lu.Shape[r-2], n: lu.Shape[r-1], lu: contiguous(lu).Floats()}
	pivs := contiguous(pv).Ints()
	for i := int64(0); i < numel(f.batch); i++ {
		f.piv = append(f.piv, pivs[i*f.n:(i+1)*f.n])
	}
	shape, x, err := solveWith(f, b)
	if err != nil {
		return nil, err
	}
	return oneT(colMajorOf(b.DType, shape, x, b.Device()))
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
	if !left {
		return nil, fmt.Errorf("linalg.solve: left=False is not modelled")
	}
	f, err := factor(a, "linalg.solve")
	if err != nil {
		return nil, err
	}
	vector := b.Dim() == 1 || b.Dim() == a.Dim()-1 && equal64(b.Shape, a.Shape[:a.Dim()-1])
	if vector {
		if b, err = reshape(b, append(append([]int64{}, b.Shape...), 1)); err != nil {
			return nil, err
		}
	}
	shape, x, err := solveWith(f, b)
	if err != nil {
		return nil, err
	}
	if vector {
		shape = shape[:len(shape)-1]
	}
	dev := a.Device()
	res, err := colMajorOf(a.DType, shape, x, dev)
	if err != nil {
		return nil, err
	}
	lu, err := colMajorOf(a.DType, f.shape(f.n, f.n), f.lu, dev)
	if err != nil {
		return nil, err
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
	n := f.n
	eye := make([]float64, n*n)
	for i := int64(0); i < n; i++ {
		eye[i*n+i] = 1
	}
	var inv []float64
	for b := int64(0); b < numel(f.batch); b++ {
		inv = append(inv, luSolve(f.lu[b*n*n:(b+1)*n*n], f.piv[b], eye, n, n)...)
	}
	dev := a.Device()
	res, err := colMajorOf(a.DType, f.shape(n, n), inv, dev)
	if err != nil {
		return nil, err
	}
	return []any{res, int32Tensor(f.batch, f.info, dev)}, nil
}
