package interp

import (
	"fmt"
	"math"
)

// Pairwise distances (_cdist_forward/_backward, _pdist_forward/_backward)
// as ATen's CPU kernels (native/cpu/DistanceOpsKernel.cpp) define them:
// p = 0 counts differing coordinates, 1 sums |d|, 2 is Euclidean, ∞ takes
// the largest |d|; the backward of each is the kernel's own formula (0
// where the distance is 0). cdist with p = 2 in mm mode (compute_mode 1,
// or None with more than 25 rows) is ‖x1‖² + ‖x2‖² − 2·x1·x2ᵀ, clamped at
// 0, as _euclidean_dist computes it.

func init() {
	register(kCdistForward, "_cdist_forward")
	register(kCdistBackward, "_cdist_backward")
	register(kPdistForward, "_pdist_forward")
	register(kPdistBackward, "_pdist_backward")
}

// pnorm is ‖a − b‖_p over one pair of rows.
func pnorm(a, b []float64, p float64) float64 {
	s := 0.0
	for k := range a {
		d := math.Abs(a[k] - b[k])
		switch {
		case p == 0:
			if d != 0 {
				s++
			}
		case math.IsInf(p, 1):
			s = math.Max(s, d)
		case p == 1:
			s += d
		case p == 2:
			s += d * d
		default:
			s += math.Pow(d, p)
		}
	}
	switch {
	case p == 2:
		return math.Sqrt(s)
	case p == 0 || p == 1 || math.IsInf(p, 1):
		return s
	}
	return math.Pow(s, 1/p)
}

func sgn(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// pnormGrad is ∂‖d‖_p/∂d_k · grad for d = a − b (DistanceOpsKernel's
// backward of each norm).
func pnormGrad(diff, grad, dist, p float64) float64 {
	switch {
	case p == 0:
		return 0
	case p == 1:
		return grad * sgn(diff)
	case math.IsInf(p, 1):
		return grad * sgn(diff) * (1 - math.Min(1, math.Ceil(math.Abs(math.Abs(diff)-dist))))
	case dist == 0:
		return 0
	case p < 1 && diff == 0:
		return 0
	case p < 2:
		return sgn(diff) * math.Pow(math.Abs(diff), p-1) * grad / math.Pow(dist, p-1)
	case p == 2:
		return grad * diff / dist
	}
	return diff * math.Pow(math.Abs(diff), p-2) * grad / math.Pow(dist, p-1)
}

// cdistBatch expands x1, x2 to their broadcast batch and reads them as
// row-major floats.
func cdistBatch(x1, x2 *Tensor) (batch []int64, a, b []float64, r1, r2, c int64, err error) {
	if x1.Dim() < 2 || x2.Dim() < 2 {
		return nil, nil, nil, 0, 0, 0, fmt.Errorf("cdist only supports at least 2D tensors, X1 got: %dD", x1.Dim())
	}
	r1, r2, c = x1.Shape[x1.Dim()-2], x2.Shape[x2.Dim()-2], x1.Shape[x1.Dim()-1]
	if x2.Shape[x2.Dim()-1] != c {
		return nil, nil, nil, 0, 0, 0, fmt.Errorf("X1 and X2 must have the same number of columns. X1: %d X2: %d", c, x2.Shape[x2.Dim()-1])
	}
	if batch, err = broadcastShapes(x1.Shape[:x1.Dim()-2], x2.Shape[:x2.Dim()-2]); err != nil {
		return nil, nil, nil, 0, 0, 0, err
	}
	e1, err := expand(x1, append(clone64(batch), r1, c))
	if err != nil {
		return nil, nil, nil, 0, 0, 0, err
	}
	e2, err := expand(x2, append(clone64(batch), r2, c))
	if err != nil {
		return nil, nil, nil, 0, 0, 0, err
	}
	return batch, e1.Floats(), e2.Floats(), r1, r2, c, nil
}

func kCdistForward(c *call) ([]any, error) {
	x1, x2, err := c.tensor2("x1", "x2")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	mode, hasMode, err := c.optInt("compute_mode")
	if err != nil {
		return nil, err
	}
	if !x1.DType.IsFloat() || !x2.DType.IsFloat() {
		return nil, fmt.Errorf("cdist only supports floating-point dtypes, X1 got: %s", scalarTypeName(x1.DType))
	}
	if p < 0 {
		return nil, fmt.Errorf("cdist only supports non-negative p values")
	}
	batch, a, b, r1, r2, cols, err := cdistBatch(x1, x2)
	if err != nil {
		return nil, err
	}
	useMM := p == 2 && (hasMode && mode == 1 || (!hasMode || mode == 0) && (r1 > 25 || r2 > 25))
	round := func(x float64) float64 { return roundTo(x1.DType, x) }
	out := make([]float64, numel(batch)*r1*r2)
	for bi := int64(0); bi < numel(batch); bi++ {
		for i := int64(0); i < r1; i++ {
			ra := a[(bi*r1+i)*cols : (bi*r1+i+1)*cols]
			for j := int64(0); j < r2; j++ {
				rb := b[(bi*r2+j)*cols : (bi*r2+j+1)*cols]
				if !useMM {
					out[(bi*r1+i)*r2+j] = pnorm(ra, rb, p)
					continue
				}
				na, nb, dot := 0.0, 0.0, 0.0
				for k := range ra {
					na, nb, dot = na+ra[k]*ra[k], nb+rb[k]*rb[k], dot+ra[k]*rb[k]
				}
				out[(bi*r1+i)*r2+j] = math.Sqrt(math.Max(round(round(na)+round(nb)-2*dot), 0))
			}
		}
	}
	return one(FromFloatsOn(x1.DType, append(clone64(batch), r1, r2), out, x1.Device()))
}

func kCdistBackward(c *call) ([]any, error) {
	g, x1, err := c.tensor2("grad_output", "x1")
	if err != nil {
		return nil, err
	}
	x2, dist, err := c.tensor2("x2", "cdist")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	batch, a, b, r1, r2, cols, err := cdistBatch(x1, x2)
	if err != nil {
		return nil, err
	}
	shape := append(clone64(batch), r1, cols)
	if r1 == 0 || r2 == 0 || cols == 0 || numel(batch) == 0 {
		return oneT(zerosLike(x1))
	}
	eg, err := expand(g, append(clone64(batch), r1, r2))
	if err != nil {
		return nil, err
	}
	ed, err := expand(dist, append(clone64(batch), r1, r2))
	if err != nil {
		return nil, err
	}
	gv, dv := eg.Floats(), ed.Floats()
	out := make([]float64, numel(shape))
	for bi := int64(0); bi < numel(batch); bi++ {
		for i := int64(0); i < r1; i++ {
			for j := int64(0); j < r2; j++ {
				gij, dij := gv[(bi*r1+i)*r2+j], dv[(bi*r1+i)*r2+j]
				for k := int64(0); k < cols; k++ {
					// in the input dtype, as the kernel: ∞'s |d| == dist test is exact
					diff := roundTo(x1.DType, a[(bi*r1+i)*cols+k]-b[(bi*r2+j)*cols+k])
					out[(bi*r1+i)*cols+k] += pnormGrad(diff, gij, dij, p)
				}
			}
		}
	}
	return one(FromFloatsOn(x1.DType, shape, out, x1.Device()))
}

// zerosLike is torch.zeros_like(t): t's strides when dense, else row-major.
func zerosLike(t *Tensor) (*Tensor, error) {
	var st []int64
	if t.isNonOverlappingAndDense() {
		st = t.Strides
	}
	return Empty(t.DType, t.Shape, st, t.Device())
}

func kPdistForward(c *call) ([]any, error) {
	x, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	if x.Dim() != 2 {
		return nil, fmt.Errorf("pdist only supports 2D tensors, got: %dD", x.Dim())
	}
	n, m := x.Shape[0], x.Shape[1]
	v := x.Floats()
	var out []float64
	for i := int64(0); i < n; i++ {
		for j := i + 1; j < n; j++ {
			out = append(out, pnorm(v[i*m:(i+1)*m], v[j*m:(j+1)*m], p))
		}
	}
	return one(FromFloatsOn(x.DType, []int64{n * (n - 1) / 2}, out, x.Device()))
}

func kPdistBackward(c *call) ([]any, error) {
	g, x, err := c.tensor2("grad_output", "self")
	if err != nil {
		return nil, err
	}
	dist, err := c.tensor("pdist")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	if x.Dim() != 2 {
		return nil, fmt.Errorf("_pdist_backward: self must be 2D, got %dD", x.Dim())
	}
	n, m := x.Shape[0], x.Shape[1]
	v, gv, dv := x.Floats(), g.Floats(), dist.Floats()
	out := make([]float64, n*m)
	k := 0
	for i := int64(0); i < n; i++ {
		for j := i + 1; j < n; j++ {
			for c := int64(0); c < m; c++ {
				d := pnormGrad(roundTo(x.DType, v[i*m+c]-v[j*m+c]), gv[k], dv[k], p)
				out[i*m+c] += d
				out[j*m+c] -= d
			}
			k++
		}
	}
	return one(FromFloatsOn(x.DType, x.Shape, out, x.Device()))
}
