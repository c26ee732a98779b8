package interp

import (
	"math"
	"math/cmplx"
	"sort"
)

// Singular value and Hermitian eigenvalue decompositions by Jacobi
// rotations in complex128. Singular values (descending) and eigenvalues
// (ascending) are what LAPACK's gesdd/syevd give, to working precision.
// The vectors are unique only up to a sign or phase per column (a unitary
// mix within a repeated value); PyTorch documents that, and the
// conformance harness compares them up to that freedom only.

const jacobiSweeps = 60

// svdJacobi is the thin SVD of the m×n a (m >= n) by one-sided Jacobi:
// u is m×n, s has n values, descending, v is n×n (A = U·diag(s)·Vᴴ).
func svdJacobi(a *cmat) (u *cmat, s []float64, v *cmat) {
	m, n := a.r, a.c
	w := a.clone()
	v = eye(n)
	for sweep := 0; sweep < jacobiSweeps; sweep++ {
		rotated := false
		for p := int64(0); p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				var alpha, beta float64
				var gamma complex128
				for i := int64(0); i < m; i++ {
					x, y := w.at(i, p), w.at(i, q)
					alpha += real(x)*real(x) + imag(x)*imag(x)
					beta += real(y)*real(y) + imag(y)*imag(y)
					gamma += cmplx.Conj(x) * y
				}
				g := cmplx.Abs(gamma)
				if g == 0 || g <= 1e-17*math.Sqrt(alpha*beta) {
					continue
				}
				rotated = true
				c, sn, e := jacobiRotation(alpha, beta, g, gamma)
				rotateCols(w, p, q, c, sn, e)
				rotateCols(v, p, q, c, sn, e)
			}
		}
		if !rotated {
			break
		}
	}
	s = make([]float64, n)
	for j := int64(0); j < n; j++ {
		s[j] = w.colNorm(j, 0)
	}
	order := make([]int64, n)
	for i := range order {
		order[i] = int64(i)
	}
	sort.SliceStable(order, func(i, j int) bool { return s[order[i]] > s[order[j]] })
	u, vs, ss := newCmat(m, n), newCmat(n, n), make([]float64, n)
	for k, j := range order {
		ss[k] = s[j]
		for i := int64(0); i < m; i++ {
			if s[j] != 0 {
				u.set(i, int64(k), w.at(i, j)/complex(s[j], 0))
			}
		}
		for i := int64(0); i < n; i++ {
			vs.set(i, int64(k), v.at(i, j))
		}
	}
	completeColumns(u, ss)
	return u, ss, vs
}

// jacobiRotation is the rotation that orthogonalizes two columns with
// squared norms alpha, beta and inner product gamma (|gamma| = g), as
// (c, s) and gamma's phase e; rotateCols applies it.
func jacobiRotation(alpha, beta, g float64, gamma complex128) (c, s float64, e complex128) {
	zeta := (beta - alpha) / (2 * g)
	t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
	c = 1 / math.Sqrt(1+t*t)
	return c, c * t, gamma / complex(g, 0)
}

// rotateCols applies the rotation to columns p, q: with b = ē·q (so that
// pᴴb is real), p' = c·p − s·b and q' = e·(s·p + c·b).
func rotateCols(w *cmat, p, q int64, c, s float64, e complex128) {
	ec := cmplx.Conj(e)
	for i := int64(0); i < w.r; i++ {
		x, b := w.at(i, p), ec*w.at(i, q)
		w.set(i, p, complex(c, 0)*x-complex(s, 0)*b)
		w.set(i, q, e*(complex(s, 0)*x+complex(c, 0)*b))
	}
}

// completeColumns replaces the zero columns of u (those whose singular
// value is 0) by an orthonormal completion, by Gram-Schmidt on the unit
// vectors.
func completeColumns(u *cmat, s []float64) {
	for j := int64(0); j < u.c; j++ {
		if s[j] != 0 {
			continue
		}
		for e := int64(0); e < u.r; e++ {
			col := make([]complex128, u.r)
			col[e] = 1
			if orthonormalize(u, j, col) {
				for i := int64(0); i < u.r; i++ {
					u.set(i, j, col[i])
				}
				break
			}
		}
	}
}

// orthonormalize removes from col its components along u's columns other
// than skip whose norm is 1 (twice, for stability) and normalizes it;
// false when nothing is left.
func orthonormalize(u *cmat, skip int64, col []complex128) bool {
	for pass := 0; pass < 2; pass++ {
		for k := int64(0); k < u.c; k++ {
			if k == skip || u.colNorm(k, 0) < 0.5 {
				continue
			}
			var d complex128
			for i := int64(0); i < u.r; i++ {
				d += cmplx.Conj(u.at(i, k)) * col[i]
			}
			for i := int64(0); i < u.r; i++ {
				col[i] -= d * u.at(i, k)
			}
		}
	}
	nrm := 0.0
	for _, x := range col {
		nrm = math.Hypot(nrm, cmplx.Abs(x))
	}
	if nrm < 1e-8 {
		return false
	}
	for i := range col {
		col[i] /= complex(nrm, 0)
	}
	return true
}

// svd is A = U·diag(S)·Vh for any m×n a; full extends U to m×m and Vh
// to n×n.
func svd(a *cmat, full bool) (u *cmat, s []float64, vh *cmat) {
	m, n := a.r, a.c
	if m < n { // Aᴴ = U'·S·Vh' gives U = Vh'ᴴ, Vh = U'ᴴ
		u2, s2, vh2 := svd(a.adjoint(), full)
		return vh2.adjoint(), s2, u2.adjoint()
	}
	u, s, v := svdJacobi(a)
	if full {
		u = extendColumns(u, m)
	}
	return u, s, v.adjoint()
}

// extendColumns is u (m×k, orthonormal columns) completed to m×m.
func extendColumns(u *cmat, m int64) *cmat {
	out := newCmat(m, m)
	for i := int64(0); i < u.r; i++ {
		copy(out.a[i*m:i*m+u.c], u.a[i*u.c:(i+1)*u.c])
	}
	s := make([]float64, m)
	for j := range s {
		if int64(j) < u.c {
			s[j] = 1
		}
	}
	completeColumns(out, s)
	return out
}

// eighJacobi is the eigendecomposition of the Hermitian matrix whose lower
// (or upper) triangle is a: eigenvalues ascending, eigenvectors as columns.
func eighJacobi(a *cmat, lower bool) ([]float64, *cmat) {
	n := a.r
	h := newCmat(n, n)
	for i := int64(0); i < n; i++ {
		for j := int64(0); j <= i; j++ {
			x := a.at(i, j)
			if !lower {
				x = cmplx.Conj(a.at(j, i))
			}
			if i == j {
				x = complex(real(x), 0)
			}
			h.set(i, j, x)
			h.set(j, i, cmplx.Conj(x))
		}
	}
	v := eye(n)
	for sweep := 0; sweep < jacobiSweeps; sweep++ {
		off, diag := 0.0, 0.0
		for i := int64(0); i < n; i++ {
			for j := int64(0); j < n; j++ {
				if i != j {
					off += sq(cmplx.Abs(h.at(i, j)))
				} else {
					diag += sq(real(h.at(i, i)))
				}
			}
		}
		if off <= 1e-32*diag || off == 0 {
			break
		}
		for p := int64(0); p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				hermitianRotation(h, v, p, q)
			}
		}
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = real(h.at(int64(i), int64(i)))
	}
	order := make([]int64, n)
	for i := range order {
		order[i] = int64(i)
	}
	sort.SliceStable(order, func(i, j int) bool { return w[order[i]] < w[order[j]] })
	ws, vs := make([]float64, n), newCmat(n, n)
	for k, j := range order {
		ws[k] = w[j]
		for i := int64(0); i < n; i++ {
			vs.set(i, int64(k), v.at(i, j))
		}
	}
	return ws, vs
}

func sq(x float64) float64 { return x * x }

// hermitianRotation zeroes h[p][q] by h ← Gᴴ·h·G and accumulates v ← v·G,
// where G = diag(1, ē)·[[c, s], [−s, c]] on the (p, q) plane and e is the
// phase of h[p][q].
func hermitianRotation(h, v *cmat, p, q int64) {
	b := h.at(p, q)
	g := cmplx.Abs(b)
	if g == 0 {
		return
	}
	e := b / complex(g, 0)
	ec := cmplx.Conj(e)
	app, aqq := real(h.at(p, p)), real(h.at(q, q))
	tau := (aqq - app) / (2 * g)
	t := math.Copysign(1, tau) / (math.Abs(tau) + math.Sqrt(1+tau*tau))
	c := 1 / math.Sqrt(1+t*t)
	s := c * t
	cc, ss := complex(c, 0), complex(s, 0)
	// G's columns: p = (c, −s·ē), q = (s, c·ē).
	gpp, gqp, gpq, gqq := cc, -ss*ec, ss, cc*ec
	for i := int64(0); i < h.r; i++ { // columns: h ← h·G
		x, y := h.at(i, p), h.at(i, q)
		h.set(i, p, x*gpp+y*gqp)
		h.set(i, q, x*gpq+y*gqq)
	}
	for j := int64(0); j < h.c; j++ { // rows: h ← Gᴴ·h
		x, y := h.at(p, j), h.at(q, j)
		h.set(p, j, cmplx.Conj(gpp)*x+cmplx.Conj(gqp)*y)
		h.set(q, j, cmplx.Conj(gpq)*x+cmplx.Conj(gqq)*y)
	}
	h.set(p, q, 0)
	h.set(q, p, 0)
	h.set(p, p, complex(real(h.at(p, p)), 0))
	h.set(q, q, complex(real(h.at(q, q)), 0))
	for i := int64(0); i < v.r; i++ {
		x, y := v.at(i, p), v.at(i, q)
		v.set(i, p, x*gpp+y*gqp)
		v.set(i, q, x*gpq+y*gqq)
	}
}
