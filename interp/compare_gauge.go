package interp

import (
	"math"
	"math/cmplx"
)

// Gauge alignment for the outputs PyTorch documents as not unique: the
// singular vectors of linalg.svd and the eigenvectors of linalg.eigh are
// determined only up to a sign (real) or phase (complex) per column, up to
// a unitary mix within a repeated singular value or eigenvalue, and, for
// full_matrices=True, up to any orthonormal basis of the extra columns.
// Align rotates kiln's vectors into PyTorch's gauge, group by group of
// columns, by W = got_Cᴴ·want_C: got_C·W equals want_C exactly when got_C
// spans the same subspace, so the comparison that follows stays strict
// about everything but the gauge. For the SVD the same W turns U's and
// V's columns of a nonzero singular value (A = U·S·Vᴴ ties them), so a
// sign flipped in U and not in V still fails. Values (S, eigenvalues)
// are never aligned.

// colGroups splits the columns 0..len(vals)-1 into runs of equal values
// (sorted vals, relative tolerance 1e-4 of the largest magnitude).
func colGroups(vals []float64) [][]int64 {
	scale := 0.0
	for _, v := range vals {
		scale = max(scale, math.Abs(v))
	}
	var groups [][]int64
	for i, v := range vals {
		if i > 0 && math.Abs(v-vals[i-1]) <= 1e-4*scale {
			groups[len(groups)-1] = append(groups[len(groups)-1], int64(i))
			continue
		}
		groups = append(groups, []int64{int64(i)})
	}
	return groups
}

// gaugeOf is W = got_Cᴴ·want_C for the columns C.
func gaugeOf(got, want *cmat, cols []int64) *cmat {
	w := newCmat(int64(len(cols)), int64(len(cols)))
	for a, ca := range cols {
		for b, cb := range cols {
			var s complex128
			for i := int64(0); i < got.r; i++ {
				s += cmplx.Conj(got.at(i, ca)) * want.at(i, cb)
			}
			w.set(int64(a), int64(b), s)
		}
	}
	return w
}

// turn replaces got's columns C by got_C·W.
func turn(got *cmat, cols []int64, w *cmat) {
	row := make([]complex128, len(cols))
	for i := int64(0); i < got.r; i++ {
		for b := range cols {
			var s complex128
			for a, ca := range cols {
				s += got.at(i, ca) * w.at(int64(a), int64(b))
			}
			row[b] = s
		}
		for b, cb := range cols {
			got.set(i, cb, row[b])
		}
	}
}

func span(from, to int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func sameGeometry(a, b *Tensor) bool {
	return a != nil && b != nil && equal64(a.Shape, b.Shape) && a.DType == b.DType && a.Dim() >= 2
}

// AlignSVD returns kiln's U and Vh of _linalg_svd turned into the gauge
// of PyTorch's (wantU, wantS, wantVh). It returns got unchanged when the
// shapes differ (the comparison then reports that).
func AlignSVD(wantU, wantS, wantVh, gotU, gotVh *Tensor) (*Tensor, *Tensor) {
	if !sameGeometry(wantU, gotU) || !sameGeometry(wantVh, gotVh) || wantS == nil {
		return gotU, gotVh
	}
	wu, err1 := readMats(wantU, "svd")
	gu, err2 := readMats(gotU, "svd")
	wv, err3 := readMats(wantVh, "svd")
	gv, err4 := readMats(gotVh, "svd")
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return gotU, gotVh
	}
	k := min(wu.m, wv.n)
	s := wantS.Floats()
	for b := range gu.mats {
		sv := s[int64(b)*k : int64(b+1)*k]
		U, Ut := gu.mats[b], wu.mats[b]
		V, Vt := gv.mats[b].adjoint(), wv.mats[b].adjoint()
		tiny := 0.0
		if len(sv) > 0 {
			tiny = sv[0] * float64(max(wu.m, wv.n)) * 1e-5
		}
		for _, g := range colGroups(sv) {
			if sv[g[0]] > tiny { // U and V turn together
				w := gaugeOf(U, Ut, g)
				turn(U, g, w)
				turn(V, g, w)
				continue
			}
			turn(U, g, gaugeOf(U, Ut, g)) // a null space: each its own basis
			turn(V, g, gaugeOf(V, Vt, g))
		}
		if extra := span(k, U.c); len(extra) > 0 {
			turn(U, extra, gaugeOf(U, Ut, extra))
		}
		if extra := span(k, V.c); len(extra) > 0 {
			turn(V, extra, gaugeOf(V, Vt, extra))
		}
		gv.mats[b] = V.adjoint()
	}
	u, err := writeMats(gotU.DType, gu.batch, gu.mats, gu.m, gu.n, true, gotU.Device())
	if err != nil {
		return gotU, gotVh
	}
	vh, err := writeMats(gotVh.DType, gv.batch, gv.mats, gv.m, gv.n, true, gotVh.Device())
	if err != nil {
		return gotU, gotVh
	}
	return u, vh
}

// AlignEigh returns kiln's eigenvectors of _linalg_eigh turned into the
// gauge of PyTorch's (wantVals, wantVecs).
func AlignEigh(wantVals, wantVecs, gotVecs *Tensor) *Tensor {
	if !sameGeometry(wantVecs, gotVecs) || wantVals == nil {
		return gotVecs
	}
	wv, err1 := readMats(wantVecs, "eigh")
	gv, err2 := readMats(gotVecs, "eigh")
	if err1 != nil || err2 != nil {
		return gotVecs
	}
	vals := wantVals.Floats()
	n := wv.n
	for b := range gv.mats {
		for _, g := range colGroups(vals[int64(b)*n : int64(b+1)*n]) {
			turn(gv.mats[b], g, gaugeOf(gv.mats[b], wv.mats[b], g))
		}
	}
	out, err := writeMats(gotVecs.DType, gv.batch, gv.mats, gv.m, gv.n, true, gotVecs.Device())
	if err != nil {
		return gotVecs
	}
	return out
}

// AlignEig returns kiln's eigenvalues and eigenvectors of linalg_eig put
// in PyTorch's order and gauge: PyTorch documents that the eigenvalues
// are "not guaranteed to be in any specific order" and that eigenvectors
// are unique only up to a phase. Each of PyTorch's eigenvalues takes the
// nearest of kiln's not yet taken (a pure permutation: the values stay
// kiln's and are compared strictly), and the vectors then turn by
// gaugeOf within each group of equal eigenvalues.
func AlignEig(wantVals, wantVecs, gotVals, gotVecs *Tensor) (*Tensor, *Tensor) {
	if wantVals == nil || gotVals == nil || !equal64(wantVals.Shape, gotVals.Shape) || wantVals.Dim() < 1 {
		return gotVals, gotVecs
	}
	n := wantVals.Shape[wantVals.Dim()-1]
	wv, gv := readComplex(wantVals), readComplex(gotVals)
	nb := int64(len(wv)) / max(n, 1)
	perms := make([][]int64, nb)
	out := make([]complex128, len(gv))
	for b := int64(0); b < nb; b++ {
		used := make([]bool, n)
		perm := make([]int64, n)
		for i := int64(0); i < n; i++ {
			best := int64(-1)
			for j := int64(0); j < n; j++ {
				if !used[j] && (best < 0 || cmplx.Abs(gv[b*n+j]-wv[b*n+i]) < cmplx.Abs(gv[b*n+best]-wv[b*n+i])) {
					best = j
				}
			}
			used[best], perm[i] = true, best
			out[b*n+i] = gv[b*n+best]
		}
		perms[b] = perm
	}
	vals, err := writeComplex(gotVals.DType, gotVals.Shape, out, false, gotVals.Device())
	if err != nil {
		return gotVals, gotVecs
	}
	if !sameGeometry(wantVecs, gotVecs) {
		return vals, gotVecs
	}
	wm, err1 := readMats(wantVecs, "eig")
	gm, err2 := readMats(gotVecs, "eig")
	if err1 != nil || err2 != nil || int64(len(gm.mats)) != nb {
		return vals, gotVecs
	}
	for b, g := range gm.mats {
		p := newCmat(g.r, g.c)
		for i := int64(0); i < g.r; i++ {
			for k, j := range perms[b] {
				p.set(i, int64(k), g.at(i, j))
			}
		}
		for _, grp := range eigGroups(wv[int64(b)*n : int64(b+1)*n]) {
			turn(p, grp, gaugeOf(p, wm.mats[b], grp))
		}
		gm.mats[b] = p
	}
	vecs, err := writeMats(gotVecs.DType, gm.batch, gm.mats, gm.m, gm.n, true, gotVecs.Device())
	if err != nil {
		return vals, gotVecs
	}
	return vals, vecs
}

// eigGroups groups the indices of equal complex eigenvalues (relative
// tolerance 1e-4 of the largest magnitude), in order of first appearance.
func eigGroups(w []complex128) [][]int64 {
	scale := 0.0
	for _, x := range w {
		scale = max(scale, cmplx.Abs(x))
	}
	var groups [][]int64
	taken := make([]bool, len(w))
	for i := range w {
		if taken[i] {
			continue
		}
		g := []int64{int64(i)}
		for j := i + 1; j < len(w); j++ {
			if !taken[j] && cmplx.Abs(w[j]-w[i]) <= 1e-4*scale {
				g, taken[j] = append(g, int64(j)), true
			}
		}
		groups = append(groups, g)
	}
	return groups
}
