package interp

import (
	"fmt"
	"math"
	"math/cmplx"
)

// QR by Householder reflections exactly as LAPACK's geqrf/ungqr/unmqr
// build and apply them (zlarfg's convention: β = −sign(Re α)·‖(α, x)‖,
// τ = (β − α)/β, v = x/(α − β) below a unit entry; H = I − τ·v·vᴴ and
// geqrf applies Hᴴ), in complex128 for real and complex dtypes alike.

func init() {
	register(kQR, "linalg_qr")
	register(kGeqrf, "geqrf")
	register(kHouseholderProduct, "linalg_householder_product")
	register(kOrmqr, "ormqr")
}

// larfg makes the reflector of column j from row j down of w in place:
// w[j][j] becomes β and the entries below it v; it returns τ.
func larfg(w *cmat, j int64) complex128 {
	alpha := w.at(j, j)
	xnorm := w.colNorm(j, j+1)
	alphr, alphi := real(alpha), imag(alpha)
	if xnorm == 0 && alphi == 0 {
		return 0 // H = I
	}
	beta := -math.Copysign(math.Hypot(math.Hypot(alphr, alphi), xnorm), alphr)
	tau := complex((beta-alphr)/beta, -alphi/beta)
	scale := 1 / (alpha - complex(beta, 0))
	for i := j + 1; i < w.r; i++ {
		w.set(i, j, w.at(i, j)*scale)
	}
	w.set(j, j, complex(beta, 0))
	return tau
}

// reflector is v of column j of a geqrf result: 1 at row j, below it the
// stored entries.
func reflector(w *cmat, j int64) []complex128 {
	v := make([]complex128, w.r)
	v[j] = 1
	for i := j + 1; i < w.r; i++ {
		v[i] = w.at(i, j)
	}
	return v
}

// applyLeft is C ← (I − τ·v·vᴴ)·C on the rows from j down.
func applyLeft(c *cmat, v []complex128, tau complex128, j int64) {
	if tau == 0 {
		return
	}
	for col := int64(0); col < c.c; col++ {
		var d complex128
		for i := j; i < c.r; i++ {
			d += cmplx.Conj(v[i]) * c.at(i, col)
		}
		d *= tau
		for i := j; i < c.r; i++ {
			c.set(i, col, c.at(i, col)-d*v[i])
		}
	}
}

// applyRight is C ← C·(I − τ·v·vᴴ) on the columns from j on.
func applyRight(c *cmat, v []complex128, tau complex128, j int64) {
	if tau == 0 {
		return
	}
	for row := int64(0); row < c.r; row++ {
		var d complex128
		for i := j; i < c.c; i++ {
			d += c.at(row, i) * v[i]
		}
		d *= tau
		for i := j; i < c.c; i++ {
			c.set(row, i, c.at(row, i)-d*cmplx.Conj(v[i]))
		}
	}
}

// geqrf factors a copy of a: the reflectors below the diagonal, R on and
// above it, and the k = min(m, n) τs.
func geqrf(a *cmat) (*cmat, []complex128) {
	w := a.clone()
	k := min(w.r, w.c)
	taus := make([]complex128, k)
	for j := int64(0); j < k; j++ {
		taus[j] = larfg(w, j)
		if j+1 < w.c { // Hᴴ on the columns right of j
			rest := &cmat{r: w.r, c: w.c - j - 1}
			rest.a = make([]complex128, rest.r*rest.c)
			for i := int64(0); i < w.r; i++ {
				copy(rest.a[i*rest.c:(i+1)*rest.c], w.a[i*w.c+j+1:(i+1)*w.c])
			}
			applyLeft(rest, reflector(w, j), cmplx.Conj(taus[j]), j)
			for i := int64(0); i < w.r; i++ {
				copy(w.a[i*w.c+j+1:(i+1)*w.c], rest.a[i*rest.c:(i+1)*rest.c])
			}
		}
	}
	return w, taus
}

// ungqr is the first qc columns of H_0·H_1·…·H_{k−1} (k = len(taus)).
func ungqr(w *cmat, taus []complex128, qc int64) *cmat {
	q := newCmat(w.r, qc)
	for i := int64(0); i < min(w.r, qc); i++ {
		q.set(i, i, 1)
	}
	for j := int64(len(taus)) - 1; j >= 0; j-- {
		applyLeft(q, reflector(w, j), taus[j], j)
	}
	return q
}

func kGeqrf(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "geqrf")
	if err != nil {
		return nil, err
	}
	k := min(mb.m, mb.n)
	ws, ts := make([]*cmat, len(mb.mats)), make([][]complex128, len(mb.mats))
	for i, m := range mb.mats {
		ws[i], ts[i] = geqrf(m)
	}
	dev := a.Device()
	A, err := writeMats(a.DType, mb.batch, ws, mb.m, mb.n, true, dev)
	if err != nil {
		return nil, err
	}
	T, err := writeVecs(a.DType, mb.batch, ts, k, dev)
	if err != nil {
		return nil, err
	}
	return []any{A, T}, nil
}

func kQR(c *call) ([]any, error) {
	a, err := c.tensor("A")
	if err != nil {
		return nil, err
	}
	mode, err := c.str("mode")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.qr")
	if err != nil {
		return nil, err
	}
	k := min(mb.m, mb.n)
	qc, rr := k, k
	if mode == "complete" {
		qc, rr = mb.m, mb.m
	}
	qs, rs := make([]*cmat, len(mb.mats)), make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		w, taus := geqrf(m)
		r := newCmat(rr, mb.n)
		for row := int64(0); row < min(rr, mb.m); row++ {
			for col := row; col < mb.n; col++ {
				r.set(row, col, w.at(row, col))
			}
		}
		rs[i] = r
		if mode != "r" {
			qs[i] = ungqr(w, taus, qc)
		}
	}
	dev := a.Device()
	R, err := writeMats(a.DType, mb.batch, rs, rr, mb.n, true, dev)
	if err != nil {
		return nil, err
	}
	if mode == "r" {
		empty, err := emptyVec(a)
		return []any{empty, R}, err
	}
	Q, err := writeMats(a.DType, mb.batch, qs, mb.m, qc, true, dev)
	if err != nil {
		return nil, err
	}
	return []any{Q, R}, nil
}

// reflectors reads geqrf's output (input, tau) as per-batch (w, τs).
func reflectors(in, tau *Tensor, op string) (*matBatch, [][]complex128, error) {
	mb, err := readMats(in, op)
	if err != nil {
		return nil, nil, err
	}
	if tau.Dim() != in.Dim()-1 || !equal64(tau.Shape[:tau.Dim()-1], mb.batch) {
		return nil, nil, fmt.Errorf("%s: expected tau of shape %v + [k], got %v", op, mb.batch, tau.Shape)
	}
	k := tau.Shape[tau.Dim()-1]
	if k > min(mb.m, mb.n) && op != "torch.ormqr" || k > mb.m {
		return nil, nil, fmt.Errorf("%s: input.shape[-1] must be greater than or equal to tau.shape[-1]", op)
	}
	tv := readComplex(tau)
	ts := make([][]complex128, len(mb.mats))
	for i := range ts {
		ts[i] = tv[int64(i)*k : int64(i+1)*k]
	}
	return mb, ts, nil
}

// kHouseholderProduct is the first n columns of H_0·…·H_{k−1} (ungqr).
func kHouseholderProduct(c *call) ([]any, error) {
	in, tau, err := c.tensor2("input", "tau")
	if err != nil {
		return nil, err
	}
	mb, ts, err := reflectors(in, tau, "torch.linalg.householder_product")
	if err != nil {
		return nil, err
	}
	out := make([]*cmat, len(mb.mats))
	for i, w := range mb.mats {
		out[i] = ungqr(w, ts[i], mb.n)
	}
	return oneT(writeMats(in.DType, mb.batch, out, mb.m, mb.n, true, in.Device()))
}

// kOrmqr is Q·C, Qᴴ·C, C·Q or C·Qᴴ for Q = H_0·…·H_{k−1} (unmqr),
// applying the reflectors one by one in the order that product needs.
func kOrmqr(c *call) ([]any, error) {
	in, tau, err := c.tensor2("self", "input2")
	if err != nil {
		return nil, err
	}
	other, err := c.tensor("input3")
	if err != nil {
		return nil, err
	}
	left, err := c.bool("left")
	if err != nil {
		return nil, err
	}
	trans, err := c.bool("transpose")
	if err != nil {
		return nil, err
	}
	mb, ts, err := reflectors(in, tau, "torch.ormqr")
	if err != nil {
		return nil, err
	}
	cb, err := readMats(other, "torch.ormqr")
	if err != nil {
		return nil, err
	}
	if !equal64(cb.batch, mb.batch) {
		return nil, fmt.Errorf("torch.ormqr: batch dimensions of input %v and other %v differ", mb.batch, cb.batch)
	}
	out := make([]*cmat, len(cb.mats))
	for i, w := range mb.mats {
		x := cb.mats[i].clone()
		k := int64(len(ts[i]))
		// Q·C applies H_{k−1} first; Qᴴ·C applies H_0ᴴ first; C·Q applies
		// H_0 first; C·Qᴴ applies H_{k−1}ᴴ first.
		forward := left == trans
		for s := int64(0); s < k; s++ {
			j := s
			if !forward {
				j = k - 1 - s
			}
			t := ts[i][j]
			if trans {
				t = cmplx.Conj(t)
			}
			if left {
				applyLeft(x, reflector(w, j), t, j)
			} else {
				applyRight(x, reflector(w, j), t, j)
			}
		}
		out[i] = x
	}
	return oneT(writeMats(other.DType, cb.batch, out, cb.m, cb.n, true, other.Device()))
}
