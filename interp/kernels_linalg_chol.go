package interp

import (
	"math"
	"math/cmplx"
)

// Cholesky factorization and triangular solves (LAPACK's potrf, potrs,
// potri, trtrs): each reads only the triangle it is told to, as LAPACK
// does, and returns column-major matrices as PyTorch's CPU kernels do.

func init() {
	register(kCholeskyEx, "linalg_cholesky_ex")
	register(kCholeskySolve, "cholesky_solve")
	register(kCholeskyInverse, "cholesky_inverse")
	register(kTriangularSolve, "triangular_solve")
}

// potrf factors the Hermitian matrix whose lower triangle is a (upper
// triangle when upper, read as its conjugate transpose) as L·Lᴴ. info is
// the order of the first leading minor that is not positive definite
// (0 when none); the columns from there on are left zero.
func potrf(a *cmat, upper bool) (*cmat, int64) {
	n := a.r
	low := func(i, j int64) complex128 { // element (i, j), i >= j, of the lower triangle
		if upper {
			return cmplx.Conj(a.at(j, i))
		}
		return a.at(i, j)
	}
	l := newCmat(n, n)
	for j := int64(0); j < n; j++ {
		d := real(low(j, j))
		for k := int64(0); k < j; k++ {
			x := l.at(j, k)
			d -= real(x)*real(x) + imag(x)*imag(x)
		}
		if !(d > 0) {
			return l, j + 1
		}
		djj := math.Sqrt(d)
		l.set(j, j, complex(djj, 0))
		for i := j + 1; i < n; i++ {
			s := low(i, j)
			for k := int64(0); k < j; k++ {
				s -= l.at(i, k) * cmplx.Conj(l.at(j, k))
			}
			l.set(i, j, s/complex(djj, 0))
		}
	}
	return l, 0
}

// trsm solves T·X = B for a triangular T, reading only T's lower (or
// upper) triangle, with a unit diagonal when unit.
func trsm(t, b *cmat, lower, unit bool) *cmat {
	n, r := t.r, b.c
	x := b.clone()
	for c := int64(0); c < r; c++ {
		if lower {
			for i := int64(0); i < n; i++ {
				s := x.at(i, c)
				for j := int64(0); j < i; j++ {
					s -= t.at(i, j) * x.at(j, c)
				}
				if !unit {
					s /= t.at(i, i)
				}
				x.set(i, c, s)
			}
			continue
		}
		for i := n - 1; i >= 0; i-- {
			s := x.at(i, c)
			for j := i + 1; j < n; j++ {
				s -= t.at(i, j) * x.at(j, c)
			}
			if !unit {
				s /= t.at(i, i)
			}
			x.set(i, c, s)
		}
	}
	return x
}

func kCholeskyEx(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	upper, err := c.bool("upper")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.cholesky")
	if err != nil {
		return nil, err
	}
	out := make([]*cmat, len(mb.mats))
	info := make([]int64, len(mb.mats))
	for i, m := range mb.mats {
		l, inf := potrf(m, upper)
		if upper {
			l = l.adjoint()
		}
		out[i], info[i] = l, inf
	}
	res, err := writeMats(a.DType, mb.batch, out, mb.n, mb.n, true, a.Device())
	if err != nil {
		return nil, err
	}
	return []any{res, int32Of(mb.batch, info, a.Device())}, nil
}

// cholFactor is the lower factor L of A = L·Lᴴ given a Cholesky factor
// of either triangle (upper: U with A = Uᴴ·U, so L = Uᴴ).
func cholFactor(f *cmat, upper bool) *cmat {
	l := newCmat(f.r, f.r)
	for i := int64(0); i < f.r; i++ {
		for j := int64(0); j <= i; j++ {
			if upper {
				l.set(i, j, cmplx.Conj(f.at(j, i)))
			} else {
				l.set(i, j, f.at(i, j))
			}
		}
	}
	return l
}

func kCholeskySolve(c *call) ([]any, error) {
	b, f, err := c.tensor2("self", "input2")
	if err != nil {
		return nil, err
	}
	upper, err := c.bool("upper")
	if err != nil {
		return nil, err
	}
	mf, mb, err := broadcastMats(f, b, "cholesky_solve")
	if err != nil {
		return nil, err
	}
	out := make([]*cmat, len(mb.mats))
	for i := range mb.mats {
		l := cholFactor(mf.mats[i], upper)
		out[i] = trsm(l.adjoint(), trsm(l, mb.mats[i], true, false), false, false)
	}
	return oneT(writeMats(b.DType, mb.batch, out, mb.m, mb.n, true, b.Device()))
}

func kCholeskyInverse(c *call) ([]any, error) {
	f, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	upper, err := c.bool("upper")
	if err != nil {
		return nil, err
	}
	mf, err := readMats(f, "cholesky_inverse")
	if err != nil {
		return nil, err
	}
	out := make([]*cmat, len(mf.mats))
	for i, m := range mf.mats {
		l := cholFactor(m, upper)
		out[i] = trsm(l.adjoint(), trsm(l, eye(mf.n), true, false), false, false)
	}
	return oneT(writeMats(f.DType, mf.batch, out, mf.n, mf.n, true, f.Device()))
}

// kTriangularSolve is torch.triangular_solve: op(A)·X = B with op the
// plain transpose when transpose (trtrs' 'T'), and A's broadcast copy.
func kTriangularSolve(c *call) ([]any, error) {
	b, a, err := c.tensor2("self", "A")
	if err != nil {
		return nil, err
	}
	upper, err := c.bool("upper")
	if err != nil {
		return nil, err
	}
	trans, err := c.bool("transpose")
	if err != nil {
		return nil, err
	}
	unit, err := c.bool("unitriangular")
	if err != nil {
		return nil, err
	}
	ma, mb, err := broadcastMats(a, b, "triangular_solve")
	if err != nil {
		return nil, err
	}
	out := make([]*cmat, len(mb.mats))
	for i := range mb.mats {
		t, lower := ma.mats[i], !upper
		if trans {
			t, lower = t.transpose(), upper
		}
		out[i] = trsm(t, mb.mats[i], lower, unit)
	}
	x, err := writeMats(b.DType, mb.batch, out, mb.m, mb.n, true, b.Device())
	if err != nil {
		return nil, err
	}
	ac, err := writeMats(a.DType, ma.batch, ma.mats, ma.m, ma.n, true, a.Device())
	if err != nil {
		return nil, err
	}
	return []any{x, ac}, nil
}
