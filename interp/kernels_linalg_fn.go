package interp

import (
	"fmt"
	"math"
	"math/cmplx"
)

// Matrix functions: the exponential, computed to double precision (the
// result is unique, so any accurate method gives PyTorch's value within
// its tolerance): scaling by 2^-s until the 1-norm is below 1/2, the
// Taylor series to convergence, then s squarings.

func init() {
	register(kMatrixExp, "linalg_matrix_exp")
}

func norm1(m *cmat) float64 {
	best := 0.0
	for j := int64(0); j < m.c; j++ {
		s := 0.0
		for i := int64(0); i < m.r; i++ {
			s += cmplx.Abs(m.at(i, j))
		}
		best = max(best, s)
	}
	return best
}

func expm(a *cmat) *cmat {
	n := a.r
	nrm := norm1(a)
	if math.IsNaN(nrm) || math.IsInf(nrm, 0) {
		out := newCmat(n, n)
		for i := range out.a {
			out.a[i] = cmplx.NaN()
		}
		return out
	}
	s := 0
	if nrm > 0.5 {
		s = int(math.Ceil(math.Log2(nrm / 0.5)))
	}
	x := a.clone()
	scale := complex(math.Ldexp(1, -s), 0)
	for i := range x.a {
		x.a[i] *= scale
	}
	sum, term := eye(n), eye(n)
	for k := 1; k < 40; k++ {
		term = term.mul(x)
		f := complex(1/float64(k), 0)
		small := true
		for i := range term.a {
			term.a[i] *= f
			sum.a[i] += term.a[i]
			if cmplx.Abs(term.a[i]) > 1e-18*cmplx.Abs(sum.a[i]) {
				small = false
			}
		}
		if small {
			break
		}
	}
	for ; s > 0; s-- {
		sum = sum.mul(sum)
	}
	return sum
}

func kMatrixExp(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.matrix_exp")
	if err != nil {
		return nil, err
	}
	if mb.m != mb.n {
		return nil, fmt.Errorf("linalg.matrix_exp: A must be batches of square matrices, but they are %d by %d matrices", mb.m, mb.n)
	}
	out := make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		out[i] = expm(m)
	}
	return oneT(writeMats(a.DType, mb.batch, out, mb.n, mb.n, false, a.Device()))
}
