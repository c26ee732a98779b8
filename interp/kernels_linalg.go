package interp

import (
	"fmt"
	"math"
)

// Linear algebra kernels that LAPACK defines up to a convention kiln can
// follow exactly: QR by Householder reflections as dgeqrf/dorgqr build
// them (R's diagonal takes the sign opposite to the column's leading
// element), and log_sigmoid_forward's CPU buffer.

func init() {
	register(kQR, "linalg_qr")
	register(kLogSigmoidForward, "log_sigmoid_forward")
}

// householderQR factors the m×n row-major a: q is m×qc, r is rr×n.
func householderQR(a []float64, m, n int64, complete bool) (q, r []float64, qc int64) {
	k := min(m, n)
	w := append([]float64(nil), a...)
	taus := make([]float64, k)
	for j := int64(0); j < k; j++ {
		alpha := w[j*n+j]
		xnorm := 0.0
		for i := j + 1; i < m; i++ {
			xnorm = math.Hypot(xnorm, w[i*n+j])
		}
		if xnorm == 0 {
			continue // H = I (dlarfg: tau = 0)
		}
		beta := -math.Copysign(math.Hypot(alpha, xnorm), alpha)
		taus[j] = (beta - alpha) / beta
		scale := 1 / (alpha - beta)
		for i := j + 1; i < m; i++ {
			w[i*n+j] *= scale
		}
		w[j*n+j] = beta
		// Apply H = I - tau·v·vᵀ (v = [1, w[j+1:, j]]) to the columns right of j.
		for col := j + 1; col < n; col++ {
			dot := w[j*n+col]
			for i := j + 1; i < m; i++ {
				dot += w[i*n+j] * w[i*n+col]
			}
			dot *= taus[j]
			w[j*n+col] -= dot
			for i := j + 1; i < m; i++ {
				w[i*n+col] -= dot * w[i*n+j]
			}
		}
	}
	qc = k
	if complete {
		qc = m
	}
	rr := qc
	if !complete {
		rr = k
	}
	r = make([]float64, rr*n)
	for i := int64(0); i < rr && i < m; i++ {
		for j := i; j < n; j++ {
			r[i*n+j] = w[i*n+j]
		}
	}
	// Q = H_0 H_1 ... H_{k-1} applied to the first qc columns of I.
	q = make([]float64, m*qc)
	for i := int64(0); i < min(m, qc); i++ {
		q[i*qc+i] = 1
	}
	for j := k - 1; j >= 0; j-- {
		if taus[j] == 0 {
			continue
		}
		for col := int64(0); col < qc; col++ {
			dot := q[j*qc+col]
			for i := j + 1; i < m; i++ {
				dot += w[i*n+j] * q[i*qc+col]
			}
			dot *= taus[j]
			q[j*qc+col] -= dot
			for i := j + 1; i < m; i++ {
				q[i*qc+col] -= dot * w[i*n+j]
			}
		}
	}
	return q, r, qc
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
	if !a.DType.IsFloat() || a.Dim() < 2 {
		return nil, fmt.Errorf("linalg.qr: only real floating matrices are modelled")
	}
	r := a.Dim()
	m, n := a.Shape[r-2], a.Shape[r-1]
	batch := a.Shape[:r-2]
	nb := numel(batch)
	vals := contiguous(a).Floats()
	complete := mode == "complete"
	var qs, rs []float64
	var qc, rr int64
	for b := int64(0); b < nb; b++ {
		q, rm, c := householderQR(vals[b*m*n:(b+1)*m*n], m, n, complete)
		qc, rr = c, int64(len(rm))/max(n, 1)
		qs, rs = append(qs, q...), append(rs, rm...)
	}
	colMajor := func(shape []int64, v []float64) (*Tensor, error) {
		t := FromFloatsOn(a.DType, shape, v, a.Device())
		st := ContiguousStrides(shape)
		st[len(shape)-2], st[len(shape)-1] = 1, max(shape[len(shape)-2], 1)
		out, err := Empty(a.DType, shape, st, a.Device())
		if err != nil {
			return nil, err
		}
		return out, copyTensor(out, t)
	}
	R, err := colMajor(append(append([]int64{}, batch...), rr, n), rs)
	if err != nil {
		return nil, err
	}
	if mode == "r" {
		empty, err := Empty(a.DType, []int64{0}, nil, a.Device())
		if err != nil {
			return nil, err
		}
		return []any{empty, R}, nil
	}
	Q, err := colMajor(append(append([]int64{}, batch...), m, qc), qs)
	if err != nil {
		return nil, err
	}
	return []any{Q, R}, nil
}

// kLogSigmoidForward is (log σ(x), exp(-|x|)): the CPU kernel keeps the
// exponential for the backward.
func kLogSigmoidForward(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if !self.DType.IsFloat() {
		return nil, fmt.Errorf("log_sigmoid_forward: %s is not supported", scalarTypeName(self.DType))
	}
	x := self.Floats()
	out, buf := make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		e := math.Exp(-math.Abs(v))
		buf[i] = e
		out[i] = math.Min(v, 0) - math.Log1p(e)
	}
	return []any{FromFloatsOn(self.DType, self.Shape, out, self.Device()), FromFloatsOn(self.DType, self.Shape, buf, self.Device())}, nil
}
