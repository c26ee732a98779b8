package interp

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/kiln-compiler/kiln/ir"
)

// The general eigendecomposition (linalg_eig): Householder reduction to
// Hessenberg form, implicit single-shift complex QR to the Schur form T
// (Wilkinson shifts), eigenvectors by back-substitution on T, back to A's
// basis, each normalized as zgeev does (unit 2-norm, largest component
// real and positive). Eigenvalues are exact to working precision; their
// order and the vectors' phases are what PyTorch documents as unspecified
// ("not guaranteed to be in any specific order"; eigenvectors are unique
// up to a phase): the conformance harness aligns those before comparing.

func init() {
	register(kEig, "linalg_eig")
}

// hessenberg reduces a copy of a to upper Hessenberg form H = Qᴴ·A·Q by
// Hermitian reflectors; it returns H and Q.
func hessenberg(a *cmat) (*cmat, *cmat) {
	n := a.r
	h, q := a.clone(), eye(n)
	for k := int64(0); k+2 < n; k++ {
		norm := h.colNorm(k, k+1)
		if norm == 0 {
			continue
		}
		x0 := h.at(k+1, k)
		phase := complex(1, 0)
		if x0 != 0 {
			phase = x0 / complex(cmplx.Abs(x0), 0)
		}
		v := make([]complex128, n)
		for i := k + 1; i < n; i++ {
			v[i] = h.at(i, k)
		}
		v[k+1] += phase * complex(norm, 0) // v = x + e^{iθ}‖x‖e₁
		vv := 0.0
		for _, x := range v {
			vv += real(x)*real(x) + imag(x)*imag(x)
		}
		if vv == 0 {
			continue
		}
		f := complex(2/vv, 0)
		for j := int64(0); j < n; j++ { // H ← P·H
			var d complex128
			for i := k + 1; i < n; i++ {
				d += cmplx.Conj(v[i]) * h.at(i, j)
			}
			d *= f
			for i := k + 1; i < n; i++ {
				h.set(i, j, h.at(i, j)-d*v[i])
			}
		}
		for _, m := range []*cmat{h, q} { // H ← H·P, Q ← Q·P
			for i := int64(0); i < n; i++ {
				var d complex128
				for j := k + 1; j < n; j++ {
					d += m.at(i, j) * v[j]
				}
				d *= f
				for j := k + 1; j < n; j++ {
					m.set(i, j, m.at(i, j)-d*cmplx.Conj(v[j]))
				}
			}
		}
		for i := k + 2; i < n; i++ {
			h.set(i, k, 0)
		}
	}
	return h, q
}

// givens is (c, s) with [[c, s], [−s̄, c]]·[x; y] = [r; 0].
func givens(x, y complex128) (float64, complex128) {
	ax, ay := cmplx.Abs(x), cmplx.Abs(y)
	if ay == 0 {
		return 1, 0
	}
	if ax == 0 {
		return 0, cmplx.Conj(y) / complex(ay, 0)
	}
	r := math.Hypot(ax, ay)
	return ax / r, x / complex(ax, 0) * cmplx.Conj(y) / complex(r, 0)
}

// rotate applies the rotation on the (k, k+1) plane: rows of h (columns
// from col0 on), then columns of h (rows up to row1) and of z.
func rotate(h, z *cmat, k, col0, row1 int64, c float64, s complex128) {
	cc, sc := complex(c, 0), cmplx.Conj(s)
	for j := col0; j < h.c; j++ {
		x, y := h.at(k, j), h.at(k+1, j)
		h.set(k, j, cc*x+s*y)
		h.set(k+1, j, -sc*x+cc*y)
	}
	for _, m := range []*cmat{h, z} {
		last := row1
		if m == z {
			last = m.r - 1
		}
		for i := int64(0); i <= last; i++ {
			x, y := m.at(i, k), m.at(i, k+1)
			m.set(i, k, x*cc+y*sc)
			m.set(i, k+1, -x*s+y*cc)
		}
	}
}

// schur reduces the Hessenberg h to upper triangular form in place,
// accumulating the rotations into z; false when it did not converge.
func schur(h, z *cmat) bool {
	n := h.r
	const eps = 0x1p-52
	iter := 0
	for hi := n - 1; hi > 0; {
		l := hi
		for ; l > 0; l-- {
			if cmplx.Abs(h.at(l, l-1)) <= eps*(cmplx.Abs(h.at(l-1, l-1))+cmplx.Abs(h.at(l, l))) {
				h.set(l, l-1, 0)
				break
			}
		}
		if l == hi {
			hi, iter = hi-1, 0
			continue
		}
		if iter++; iter > 100*int(n) {
			return false
		}
		a, b, c, d := h.at(hi-1, hi-1), h.at(hi-1, hi), h.at(hi, hi-1), h.at(hi, hi)
		mu := d
		if iter%11 == 10 { // exceptional shift
			mu += complex(cmplx.Abs(c), 0)
		} else {
			tr, det := a+d, a*d-b*c
			disc := cmplx.Sqrt(tr*tr/4 - det)
			m1, m2 := tr/2+disc, tr/2-disc
			mu = m1
			if cmplx.Abs(m2-d) < cmplx.Abs(m1-d) {
				mu = m2
			}
		}
		x, y := h.at(l, l)-mu, h.at(l+1, l)
		for k := l; k < hi; k++ {
			if k > l {
				x, y = h.at(k, k-1), h.at(k+1, k-1)
			}
			cs, sn := givens(x, y)
			rotate(h, z, k, max(k-1, 0), min(k+2, hi), cs, sn)
			if k > l {
				h.set(k+1, k-1, 0)
			}
		}
	}
	return true
}

// eig is the eigenvalues of a and its unit eigenvectors as columns.
func eig(a *cmat) ([]complex128, *cmat, error) {
	n := a.r
	h, z := hessenberg(a)
	if !schur(h, z) {
		return nil, nil, fmt.Errorf("linalg.eig: the QR algorithm did not converge")
	}
	w := make([]complex128, n)
	for i := range w {
		w[i] = h.at(int64(i), int64(i))
	}
	smlnum := 0x1p-1022 * float64(n) / 0x1p-52
	x := newCmat(n, n)
	for k := int64(0); k < n; k++ {
		x.set(k, k, 1)
		smin := max(0x1p-52*cmplx.Abs(w[k]), smlnum)
		for j := k - 1; j >= 0; j-- {
			var s complex128
			for l := j + 1; l <= k; l++ {
				s += h.at(j, l) * x.at(l, k)
			}
			d := h.at(j, j) - w[k]
			if cmplx.Abs(d) < smin {
				d = complex(smin, 0)
			}
			x.set(j, k, -s/d)
		}
	}
	v := z.mul(x)
	for k := int64(0); k < n; k++ {
		nrm := v.colNorm(k, 0)
		big, bi := -1.0, int64(0)
		for i := int64(0); i < n; i++ {
			if m := cmplx.Abs(v.at(i, k)); m > big {
				big, bi = m, i
			}
		}
		if nrm == 0 || big == 0 {
			continue
		}
		rot := cmplx.Conj(v.at(bi, k)) / complex(big*nrm, 0)
		for i := int64(0); i < n; i++ {
			v.set(i, k, v.at(i, k)*rot)
		}
		v.set(bi, k, complex(real(v.at(bi, k)), 0))
	}
	return w, v, nil
}

func complexDTypeOf(dt ir.DType) ir.DType {
	switch dt {
	case ir.F64:
		return ir.C128
	case ir.F16:
		return ir.C32
	case ir.F32, ir.BF16:
		return ir.C64
	}
	return dt
}

func kEig(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.eig")
	if err != nil {
		return nil, err
	}
	if mb.m != mb.n {
		return nil, fmt.Errorf("linalg.eig: A must be batches of square matrices, but they are %d by %d matrices", mb.m, mb.n)
	}
	ws, vs := make([][]complex128, len(mb.mats)), make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		if ws[i], vs[i], err = eig(m); err != nil {
			return nil, err
		}
	}
	dt, dev := complexDTypeOf(a.DType), a.Device()
	W, err := writeVecs(dt, mb.batch, ws, mb.n, dev)
	if err != nil {
		return nil, err
	}
	V, err := writeMats(dt, mb.batch, vs, mb.n, mb.n, true, dev)
	if err != nil {
		return nil, err
	}
	return []any{W, V}, nil
}
