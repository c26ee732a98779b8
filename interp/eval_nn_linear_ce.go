package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// torch_nn::_linear_cross_entropy_batch_chunked(_no_reduction): cross
// entropy of input @ linear_weightᵀ + linear_bias against target (class
// weights, ignore_index, label smoothing), and for the reduced form the
// gradients it precomputes for an upstream gradient of 1. Computed
// unchunked in float64: chunking only bounds PyTorch's memory.

func init() {
	register(kLinearCE, "torch_nn::_linear_cross_entropy_batch_chunked")
	register(kLinearCE, "torch_nn::_linear_cross_entropy_batch_chunked_no_reduction")
}

func kLinearCE(c *call) ([]any, error) {
	x, w, err := c.tensor2("input", "linear_weight")
	if err != nil {
		return nil, err
	}
	target, err := c.tensor("target")
	if err != nil {
		return nil, err
	}
	bias, err := c.optTensor("linear_bias")
	if err != nil {
		return nil, err
	}
	cw, err := c.optTensor("weight")
	if err != nil {
		return nil, err
	}
	ignore, err := c.int("ignore_index")
	if err != nil {
		return nil, err
	}
	reduced := c.op.Schema.Name == "_linear_cross_entropy_batch_chunked"
	eps, red := 0.0, "none"
	if reduced {
		if eps, err = c.float("label_smoothing"); err != nil {
			return nil, err
		}
		if red, err = c.str("reduction"); err != nil {
			return nil, err
		}
	}
	if x.Dim() != 2 || w.Dim() != 2 || x.Shape[1] != w.Shape[1] {
		return nil, fmt.Errorf("linear_cross_entropy: input %v and linear_weight %v do not multiply", x.Shape, w.Shape)
	}
	n, f, classes := x.Shape[0], x.Shape[1], w.Shape[0]
	xs, ws, ts := contiguous(x).Floats(), contiguous(w).Floats(), contiguous(target).Ints()
	bs, cws := floatsOrNil(bias), floatsOrNil(cw)
	classW := func(k int64) float64 {
		if cws == nil {
			return 1
		}
		return cws[k]
	}
	sumW := 0.0
	for k := int64(0); k < classes; k++ {
		sumW += classW(k)
	}
	losses, dz := make([]float64, n), make([]float64, n*classes)
	total := 0.0
	for r := int64(0); r < n; r++ {
		t := ts[r]
		if t == ignore {
			continue
		}
		if t < 0 || t >= classes {
			return nil, fmt.Errorf("Target %d is out of bounds.", t)
		}
		z := make([]float64, classes)
		for k := range z {
			for j := int64(0); j < f; j++ {
				z[k] += xs[r*f+j] * ws[int64(k)*f+j]
			}
			if bs != nil {
				z[k] += bs[k]
			}
		}
		logp := softmaxLane(true)(z)
		smooth := 0.0
		for k, lp := range logp {
			smooth -= classW(int64(k)) * lp
		}
		wt := classW(t)
		losses[r] = (1-eps)*(-wt*logp[t]) + eps/float64(classes)*smooth
		total += wt
		for k, lp := range logp {
			p := math.Exp(lp)
			g := (1 - eps) * wt * p
			if int64(k) == t {
				g -= (1 - eps) * wt
			}
			g += eps / float64(classes) * (sumW*p - classW(int64(k)))
			dz[r*classes+int64(k)] = g
		}
	}
	dev := x.Device()
	if !reduced {
		return one(FromFloatsOn(x.DType, []int64{n}, losses, dev))
	}
	loss, scale := 0.0, 1.0
	for _, l := range losses {
		loss += l
	}
	if red == "mean" {
		scale = 1 / total
		loss *= scale
	}
	return append([]any{FromFloatsOn(x.DType, []int64{}, []float64{loss}, dev)}, linearCEGrads(c, x.DType, dev, xs, ws, dz, scale, n, f, classes)...), nil
}

// linearCEGrads is (grad_input = dZ·W, grad_weight = dZᵀ·X, grad_bias =
// Σ dZ), each empty when its compute flag is off.
func linearCEGrads(c *call, dt ir.DType, dev ir.Device, xs, ws, dz []float64, scale float64, n, f, classes int64) []any {
	flags := make([]bool, 3)
	for i, name := range []string{"compute_input_grad", "compute_linear_weight_grad", "compute_linear_bias_grad"} {
		flags[i], _ = c.bool(name)
	}
	gi, gw, gb := make([]float64, n*f), make([]float64, classes*f), make([]float64, classes)
	for r := int64(0); r < n; r++ {
		for k := int64(0); k < classes; k++ {
			d := dz[r*classes+k] * scale
			gb[k] += d
			for j := int64(0); j < f; j++ {
				gi[r*f+j] += d * ws[k*f+j]
				gw[k*f+j] += d * xs[r*f+j]
			}
		}
	}
	out := []any{FromFloatsOn(dt, []int64{0, 0}, nil, dev), FromFloatsOn(dt, []int64{0, 0}, nil, dev), FromFloatsOn(dt, []int64{0}, nil, dev)}
	if flags[0] {
		out[0] = FromFloatsOn(dt, []int64{n, f}, gi, dev)
	}
	if flags[1] {
		out[1] = FromFloatsOn(dt, []int64{classes, f}, gw, dev)
	}
	if flags[2] {
		out[2] = FromFloatsOn(dt, []int64{classes}, gb, dev)
	}
	return out
}
