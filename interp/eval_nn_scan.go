package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Scans and softmax variants along one dim: logcumsumexp, cummax, cummin
// (values and the index each running extreme was taken from) and
// _safe_softmax (softmax whose all -inf rows are 0, not NaN).

func init() {
	register(kLogCumSumExp, "logcumsumexp")
	register(cumExtreme(true), "cummax")
	register(cumExtreme(false), "cummin")
	register(kSafeSoftmax, "_safe_softmax")
}

func kLogCumSumExp(c *call) ([]any, error) {
	t, d, err := c.selfInt("dim")
	if err != nil {
		return nil, err
	}
	if !t.DType.IsFloat() {
		return nil, fmt.Errorf("\"logcumsumexp_out_cpu\" not implemented for '%s'", scalarTypeName(t.DType))
	}
	return oneT(alongDim(t, d, t.DType, func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		acc := math.Inf(-1)
		for i, x := range xs {
			acc = logAddExp(acc, x) // ATen's _log_add_exp_helper
			out[i] = acc
		}
		return out
	}))
}

// cumExtreme is cummax/cummin: a tie or a NaN moves the index to the
// later element, and once NaN is seen it is the running value (ATen's
// cummax_cummin_helper compares with >= / <= and isnan).
func cumExtreme(max bool) kernel {
	scan := func(xs []float64) (vals, idx []float64) {
		vals, idx = make([]float64, len(xs)), make([]float64, len(xs))
		cur, at := 0.0, 0
		for i, x := range xs {
			if i == 0 || x != x || (cur == cur && ((max && x >= cur) || (!max && x <= cur))) {
				cur, at = x, i
			}
			vals[i], idx[i] = cur, float64(at)
		}
		return vals, idx
	}
	return func(c *call) ([]any, error) {
		t, d, err := c.selfInt("dim")
		if err != nil {
			return nil, err
		}
		if t.DType.IsComplex() {
			return nil, fmt.Errorf("%s: complex tensors are not supported", c.op.Schema.Name)
		}
		vals, err := alongDim(t, d, t.DType, func(xs []float64) []float64 { v, _ := scan(xs); return v })
		if err != nil {
			return nil, err
		}
		idx, err := alongDim(t, d, ir.I64, func(xs []float64) []float64 { _, i := scan(xs); return i })
		if err != nil {
			return nil, err
		}
		return []any{vals, idx}, nil
	}
}

// kSafeSoftmax is softmax(self, dim, dtype) with the rows whose every
// element is -inf set to 0 (ATen's _safe_softmax, used by SDPA's masks).
func kSafeSoftmax(c *call) ([]any, error) {
	t, d, err := c.selfInt("dim")
	if err != nil {
		return nil, err
	}
	dt := t.DType
	if want, ok, err := c.dtype("dtype"); err != nil {
		return nil, err
	} else if ok {
		dt = want
	}
	if !dt.IsFloat() {
		return nil, fmt.Errorf("\"softmax_lastdim_kernel_impl\" not implemented for '%s'", scalarTypeName(dt))
	}
	soft := softmaxLane(false)
	return oneT(alongDim(t, d, dt, func(xs []float64) []float64 {
		for _, x := range xs {
			if !math.IsInf(x, -1) {
				return soft(xs)
			}
		}
		return make([]float64, len(xs))
	}))
}
