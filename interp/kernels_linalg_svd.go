package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Kernels built on the SVD and the Hermitian eigendecomposition
// (linalg_jacobi.go): the decompositions themselves, and the functions of
// them that are unique (pinv, polar, matrix_sqrth) and so compared as is.

func init() {
	register(kSVD, "_linalg_svd")
	register(kEigh, "_linalg_eigh")
	register(kPinv, "linalg_pinv.atol_rtol_tensor")
	register(kPolar, "linalg_polar")
	register(kMatrixSqrth, "linalg_matrix_sqrth")
}

func realVec(x []float64) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = complex(v, 0)
	}
	return out
}

func emptyVec(t *Tensor) (*Tensor, error) { return Empty(t.DType, []int64{0}, nil, t.Device()) }

func kSVD(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	full, err := c.bool("full_matrices")
	if err != nil {
		return nil, err
	}
	uv, err := c.bool("compute_uv")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.svd")
	if err != nil {
		return nil, err
	}
	k := min(mb.m, mb.n)
	us, vhs, ss := make([]*cmat, len(mb.mats)), make([]*cmat, len(mb.mats)), make([][]complex128, len(mb.mats))
	for i, m := range mb.mats {
		u, s, vh := svd(m, full)
		us[i], vhs[i], ss[i] = u, vh, realVec(s)
	}
	dev := a.Device()
	S, err := writeVecs(realOf(a.DType), mb.batch, ss, k, dev)
	if err != nil {
		return nil, err
	}
	if !uv {
		e1, err := emptyVec(a)
		if err != nil {
			return nil, err
		}
		e2, err := emptyVec(a)
		return []any{e1, S, e2}, err
	}
	uc, vr := k, k
	if full {
		uc, vr = mb.m, mb.n
	}
	U, err := writeMats(a.DType, mb.batch, us, mb.m, uc, true, dev)
	if err != nil {
		return nil, err
	}
	Vh, err := writeMats(a.DType, mb.batch, vhs, vr, mb.n, true, dev)
	if err != nil {
		return nil, err
	}
	return []any{U, S, Vh}, nil
}

func kEigh(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	uplo, err := c.str("UPLO")
	if err != nil {
		return nil, err
	}
	computeV, err := c.bool("compute_v")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.eigh")
	if err != nil {
		return nil, err
	}
	if mb.m != mb.n {
		return nil, fmt.Errorf("linalg.eigh: A must be batches of square matrices, but they are %d by %d matrices", mb.m, mb.n)
	}
	ws, vs := make([][]complex128, len(mb.mats)), make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		w, v := eighJacobi(m, uplo != "U")
		ws[i], vs[i] = realVec(w), v
	}
	dev := a.Device()
	W, err := writeVecs(realOf(a.DType), mb.batch, ws, mb.n, dev)
	if err != nil {
		return nil, err
	}
	if !computeV {
		e, err := emptyVec(a)
		return []any{W, e}, err
	}
	V, err := writeMats(a.DType, mb.batch, vs, mb.n, mb.n, true, dev)
	if err != nil {
		return nil, err
	}
	return []any{W, V}, nil
}

// epsilon is the machine epsilon of a real floating dtype
// (at::native::_get_epsilon).
func epsilon(dt ir.DType) float64 {
	switch dt {
	case ir.F64:
		return 0x1p-52
	case ir.F16:
		return 0x1p-10
	case ir.BF16:
		return 0x1p-7
	}
	return 0x1p-23
}

// pinvTolerances are atol and rtol per batch entry, as linalg_pinv's
// get_atol_rtol gives them: atol defaults to 0; rtol to eps·max(m, n),
// or to 0 where an atol > 0 was given.
func pinvTolerances(atol, rtol *Tensor, mb *matBatch, dt ir.DType) ([]float64, []float64, error) {
	nb := int64(len(mb.mats))
	per := func(t *Tensor) ([]float64, error) {
		if t.Dim() > 0 { // unsqueeze(-1), then broadcast against S
			var err error
			if t, err = reshape(t, append(clone64(t.Shape), 1)); err != nil {
				return nil, err
			}
		}
		shape := mb.shape(1)
		bs, err := broadcastShapes(t.Shape, shape)
		if err != nil || !equal64(bs, shape) {
			return nil, fmt.Errorf("linalg.pinv: tolerance of shape %v does not broadcast to the batch %v", t.Shape, mb.batch)
		}
		e, err := expand(t, shape)
		if err != nil {
			return nil, err
		}
		return e.Floats(), nil
	}
	a := make([]float64, nb)
	if atol != nil {
		var err error
		if a, err = per(atol); err != nil {
			return nil, nil, err
		}
	}
	def := epsilon(realOf(dt)) * float64(max(mb.m, mb.n))
	r := make([]float64, nb)
	switch {
	case rtol != nil:
		var err error
		if r, err = per(rtol); err != nil {
			return nil, nil, err
		}
	default:
		for i := range r {
			r[i] = def
			if atol != nil && a[i] > 0 {
				r[i] = 0
			}
		}
	}
	return a, r, nil
}

// kPinv is linalg_pinv's CPU path: V·diag(1/σ where σ > tol)·Uᴴ from the
// SVD, or from the eigendecomposition (σ = |λ|) when hermitian; tol =
// max(atol, rtol·σ_max).
func kPinv(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	atol, err := c.optTensor("atol")
	if err != nil {
		return nil, err
	}
	rtol, err := c.optTensor("rtol")
	if err != nil {
		return nil, err
	}
	herm, err := c.bool("hermitian")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.pinv")
	if err != nil {
		return nil, err
	}
	at, rt, err := pinvTolerances(atol, rtol, mb, a.DType)
	if err != nil {
		return nil, err
	}
	out := make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		var left, right *cmat // pinv = left·diag(inv)·right
		var sv, inv []float64
		if herm {
			w, v := eighJacobi(m, true)
			left, right, sv = v, v.adjoint(), make([]float64, len(w))
			for j, x := range w {
				sv[j] = math.Abs(x)
			}
			inv = w
		} else {
			u, s, vh := svd(m, false)
			left, right, sv, inv = vh.adjoint(), u.adjoint(), s, s
		}
		smax := 0.0
		for _, x := range sv {
			smax = max(smax, x)
		}
		tol := max(at[i], rt[i]*smax)
		scaled := left.clone()
		for j := int64(0); j < scaled.c; j++ {
			d := complex(0, 0)
			if sv[j] > tol {
				d = complex(1/inv[j], 0)
			}
			for r := int64(0); r < scaled.r; r++ {
				scaled.set(r, j, scaled.at(r, j)*d)
			}
		}
		out[i] = scaled.mul(right)
	}
	return oneT(writeMats(a.DType, mb.batch, out, mb.n, mb.m, false, a.Device()))
}

// kPolar is A = U·H from the thin SVD A = W·S·Vᴴ: U = W·Vᴴ, H = V·S·Vᴴ
// (the CPU path PyTorch documents), both row-major.
func kPolar(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.polar")
	if err != nil {
		return nil, err
	}
	if mb.m < mb.n {
		return nil, fmt.Errorf("linalg.polar: input must have at least as many rows as columns, but got %d by %d matrices", mb.m, mb.n)
	}
	us, hs := make([]*cmat, len(mb.mats)), make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		w, s, vh := svd(m, false)
		v := vh.adjoint()
		vs := v.clone()
		for r := int64(0); r < vs.r; r++ {
			for j := int64(0); j < vs.c; j++ {
				vs.set(r, j, vs.at(r, j)*complex(s[j], 0))
			}
		}
		us[i], hs[i] = w.mul(vh), vs.mul(vh)
	}
	dev := a.Device()
	U, err := writeMats(a.DType, mb.batch, us, mb.m, mb.n, false, dev)
	if err != nil {
		return nil, err
	}
	H, err := writeMats(a.DType, mb.batch, hs, mb.n, mb.n, false, dev)
	if err != nil {
		return nil, err
	}
	return []any{U, H}, nil
}

// kMatrixSqrth is V·diag(√λ)·Vᴴ from the eigendecomposition of A's lower
// triangle.
func kMatrixSqrth(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.matrix_sqrth")
	if err != nil {
		return nil, err
	}
	if mb.m != mb.n {
		return nil, fmt.Errorf("linalg.matrix_sqrth: A must be batches of square matrices, but they are %d by %d matrices", mb.m, mb.n)
	}
	out := make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		w, v := eighJacobi(m, true)
		vs := v.clone()
		for r := int64(0); r < vs.r; r++ {
			for j := int64(0); j < vs.c; j++ {
				vs.set(r, j, vs.at(r, j)*complex(math.Sqrt(w[j]), 0))
			}
		}
		out[i] = vs.mul(v.adjoint())
	}
	return oneT(writeMats(a.DType, mb.batch, out, mb.n, mb.n, false, a.Device()))
}
