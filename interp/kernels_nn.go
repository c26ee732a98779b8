package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Neural-network ops: softmax family, layer and batch norm, pooling,
// dropout. Statistics are computed in float64 (PyTorch's CPU kernels use
// float or double accumulators) and rounded once into the result dtype.

// alongDim calls f on every 1-d lane of t along dim (values in, values out)
// and returns a fresh contiguous result of dt.
func alongDim(t *Tensor, dim int64, dt ir.DType, f func(xs []float64) []float64) (*Tensor, error) {
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	out, err := Empty(dt, t.Shape, nil, t.Device())
	if err != nil {
		return nil, err
	}
	if t.Dim() == 0 {
		res := f(t.Floats())
		storeF(dt, out.Storage.Data, 0, res[0])
		return out, nil
	}
	last := int64(t.Dim() - 1)
	src, _ := transposeDims(t, int64(d), last)
	dst, _ := transposeDims(out, int64(d), last)
	so, do := src.offsets(), dst.offsets()
	n := t.Shape[d]
	xs := make([]float64, n)
	for start := int64(0); start < int64(len(so)); start += n {
		gatherF(t.DType, t.Storage.Data, so[start:start+n], xs)
		scatterF(dt, out.Storage.Data, do[start:start+n], f(xs))
	}
	return out, nil
}

func softmaxLane(log bool) func([]float64) []float64 {
	return func(xs []float64) []float64 {
		m := math.Inf(-1)
		for _, x := range xs {
			if x != x {
				m = x
				break
			}
			m = math.Max(m, x)
		}
		out := make([]float64, len(xs))
		s := 0.0
		for i, x := range xs {
			out[i] = math.Exp(x - m)
			s += out[i]
		}
		for i, x := range xs {
			if log {
				out[i] = x - m - math.Log(s)
			} else {
				out[i] /= s
			}
		}
		return out
	}
}

// softmaxKernel covers _softmax(half_to_float) and softmax.int(dtype).
func softmaxKernel(log bool) kernel {
	return func(c *call) ([]any, error) {
		t, d, err := c.selfInt("dim")
		if err != nil {
			return nil, err
		}
		dt := t.DType
		if c.has("half_to_float") {
			h, err := c.bool("half_to_float")
			if err != nil {
				return nil, err
			}
			if h {
				dt = ir.F32
			}
		}
		if want, ok, err := c.dtype("dtype"); err != nil {
			return nil, err
		} else if ok {
			dt = want
		}
		if !dt.IsFloat() {
			return nil, fmt.Errorf("\"softmax_lastdim_kernel_impl\" not implemented for '%s'", scalarTypeName(dt))
		}
		return oneT(alongDim(t, d, dt, softmaxLane(log)))
	}
}

// softmaxBackward is _softmax_backward_data / _log_softmax_backward_data.
func softmaxBackward(log bool) kernel {
	return func(c *call) ([]any, error) {
		g, y, err := c.tensor2("grad_output", "output")
		if err != nil {
			return nil, err
		}
		d, err := c.int("dim")
		if err != nil {
			return nil, err
		}
		dt, _, err := c.dtype("input_dtype")
		if err != nil {
			return nil, err
		}
		// out = y·(g - Σ g·y) for softmax; g - exp(y)·Σ g for log_softmax.
		w, err := wrapDim(d, g.Dim())
		if err != nil {
			return nil, err
		}
		gv, yv := g.Floats(), y.Floats()
		res := make([]float64, len(gv))
		if g.Dim() == 0 {
			gv, yv, res = gv[:1], yv[:1], res[:1]
		}
		// lanes along w in a row-major layout: index = o·n·in + k·in + i
		n, in := int64(1), int64(1)
		if g.Dim() > 0 {
			n = g.Shape[w]
			in = numel(g.Shape[w+1:])
		}
		for base := int64(0); base < int64(len(gv)); base += n * in {
			for i := int64(0); i < in; i++ {
				sum := 0.0
				for k := int64(0); k < n; k++ {
					j := base + k*in + i
					if log {
						sum += gv[j]
					} else {
						sum += gv[j] * yv[j]
					}
				}
				for k := int64(0); k < n; k++ {
					j := base + k*in + i
					if log {
						res[j] = gv[j] - math.Exp(yv[j])*sum
					} else {
						res[j] = yv[j] * (gv[j] - sum)
					}
				}
			}
		}
		return one(FromFloatsOn(dt, g.Shape, res, g.Device()))
	}
}

// normArgs reads a normalization's input, optional affine weight and
// bias, and eps (layer norm, group norm).
func normArgs(c *call) (x, w, b *Tensor, eps float64, err error) {
	if x, err = c.tensor("input"); err != nil {
		return
	}
	if w, err = c.optTensor("weight"); err != nil {
		return
	}
	if b, err = c.optTensor("bias"); err != nil {
		return
	}
	eps, err = c.float("eps")
	return
}

// normalizeRows normalizes each of rows rows of size elements by its own mean and
// 1/sqrt(var + eps), then applies the affine weight and bias at
// affine(element index); it returns the result and each row's mean and
// rstd.
func normalizeRows(xs []float64, rows, size int64, eps float64, ws, bs []float64, affine func(int64) int64) (out, means, rstds []float64) {
	out, means, rstds = make([]float64, len(xs)), make([]float64, rows), make([]float64, rows)
	for r := int64(0); r < rows; r++ {
		row := xs[r*size : (r+1)*size]
		mean, vr := meanVar(row)
		rstd := 1 / math.Sqrt(vr+eps)
		means[r], rstds[r] = mean, rstd
		for i, v := range row {
			k := r*size + int64(i)
			out[k] = normalize(v, mean, rstd, ws, bs, affine(k))
		}
	}
	return out, means, rstds
}

// kLayerNorm is native_layer_norm (out, mean, rstd) and layer_norm (out).
func kLayerNorm(c *call) ([]any, error) {
	x, w, b, eps, err := normArgs(c)
	if err != nil {
		return nil, err
	}
	shape, err := c.intList("normalized_shape")
	if err != nil {
		return nil, err
	}
	k := len(shape)
	if k > x.Dim() || !equal64(x.Shape[x.Dim()-k:], shape) {
		return nil, fmt.Errorf("Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s",
			ints(shape), ints(shape)[1:len(ints(shape))-1], ints(x.Shape))
	}
	inner := numel(shape)
	outer := numel(x.Shape) / max(inner, 1)
	out, means, rstds := normalizeRows(x.Floats(), outer, inner, eps, floatsOrNil(w), floatsOrNil(b),
		func(k int64) int64 { return k % inner })
	res := FromFloatsOn(x.DType, x.Shape, out, x.Device())
	if c.op.Schema.Name == "layer_norm" {
		return one(res)
	}
	statShape := append(clone64(x.Shape[:x.Dim()-k]), make([]int64, k)...)
	for i := x.Dim() - k; i < x.Dim(); i++ {
		statShape[i] = 1
	}
	statDT := x.DType
	if statDT.IsReducedFloat() && !x.Device().IsCPU() { // CUDA keeps the stats in opmath (f32)
		statDT = ir.F32
	}
	return []any{res, FromFloatsOn(statDT, statShape, means, x.Device()), FromFloatsOn(statDT, statShape, rstds, x.Device())}, nil
}

// normalize is (v - mean)·rstd, scaled by w[i] and shifted by b[i] where
// those are given.
func normalize(v, mean, rstd float64, w, b []float64, i int64) float64 {
	y := (v - mean) * rstd
	if w != nil {
		y *= w[i]
	}
	if b != nil {
		y += b[i]
	}
	return y
}

// meanVar is the mean and biased variance.
func meanVar(xs []float64) (float64, float64) {
	mean := 0.0
	for _, v := range xs {
		mean += v
	}
	mean /= float64(max(len(xs), 1))
	vr := 0.0
	for _, v := range xs {
		vr += (v - mean) * (v - mean)
	}
	return mean, vr / float64(max(len(xs), 1))
}

// batchNorm normalizes over every dim but 1. In training it uses the batch
// statistics and returns updated running stats; otherwise the running ones.
func batchNorm(x, w, b, rm, rv *Tensor, training bool, momentum, eps float64) (out, saveMean, saveRstd, newRM, newRV *Tensor, err error) {
	if x.Dim() < 2 {
		return nil, nil, nil, nil, nil, fmt.Errorf("batch_norm expects at least 2-d input, got %d-d", x.Dim())
	}
	ch := x.Shape[1]
	perm := []int64{1, 0}
	for d := 2; d < x.Dim(); d++ {
		perm = append(perm, int64(d))
	}
	xp, _ := permute(x, perm)
	vals := xp.Floats()
	per := numel(x.Shape) / max(ch, 1)
	get := func(t *Tensor) []float64 {
		if t == nil {
			return nil
		}
		return t.Floats()
	}
	ws, bs, rms, rvs := get(w), get(b), get(rm), get(rv)
	means, rstds := make([]float64, ch), make([]float64, ch)
	nrm, nrv := make([]float64, ch), make([]float64, ch)
	res := make([]float64, len(vals))
	for k := int64(0); k < ch; k++ {
		lane := vals[k*per : (k+1)*per]
		var mean, vr float64
		if training || rms == nil {
			mean, vr = meanVar(lane)
		} else {
			mean, vr = rms[k], rvs[k]
		}
		rstd := 1 / math.Sqrt(vr+eps)
		means[k], rstds[k] = mean, rstd
		if rms != nil {
			nrm[k], nrv[k] = rms[k], rvs[k]
			if training {
				unbiased := vr * float64(per) / float64(max(per-1, 1))
				nrm[k] = momentum*mean + (1-momentum)*rms[k]
				nrv[k] = momentum*unbiased + (1-momentum)*rvs[k]
			}
		}
		for i, v := range lane {
			res[k*per+int64(i)] = normalize(v, mean, rstd, ws, bs, k)
		}
	}
	tmp := FromFloatsOn(x.DType, xp.Shape, res, x.Device())
	inv := make([]int64, len(perm))
	for i, p := range perm {
		inv[p] = int64(i)
	}
	back, _ := permute(tmp, inv)
	out = contiguous(back)
	statDT := x.DType
	if statDT.IsReducedFloat() {
		statDT = ir.F32
	}
	mk := func(v []float64, like *Tensor) *Tensor {
		dt := statDT
		if like != nil {
			dt = like.DType
		}
		return FromFloatsOn(dt, []int64{ch}, v, x.Device())
	}
	if !training && x.Device().IsCPU() {
		// inference on the CPU returns empty stats; elsewhere the running
		// mean and 1/sqrt(running_var + eps) (native_batch_norm_helper).
		means, rstds = []float64{}, []float64{}
		saveMean, saveRstd = FromFloatsOn(statDT, []int64{0}, means, x.Device()), FromFloatsOn(statDT, []int64{0}, rstds, x.Device())
	} else {
		saveMean, saveRstd = mk(means, nil), mk(rstds, nil)
	}
	if rm != nil {
		newRM, newRV = mk(nrm, rm), mk(nrv, rv)
	}
	return out, saveMean, saveRstd, newRM, newRV, nil
}

// kBatchNorm covers native_batch_norm, batch_norm and the
// _native_batch_norm_legit variants (the plain one updates the running
// stats in place, the functional one returns them).
func kBatchNorm(c *call) ([]any, error) {
	x, err := c.tensor("input")
	if err != nil {
		return nil, err
	}
	var ts [4]*Tensor
	for i, name := range []string{"weight", "bias", "running_mean", "running_var"} {
		if c.has(name) {
			if ts[i], err = c.optTensor(name); err != nil {
				return nil, err
			}
		}
	}
	training := c.op.Schema.Overload != "no_training" && c.op.Schema.Name != "_native_batch_norm_legit_no_training"
	if c.has("training") {
		if training, err = c.bool("training"); err != nil {
			return nil, err
		}
	}
	momentum, err := c.float("momentum")
	if err != nil {
		return nil, err
	}
	eps, err := c.float("eps")
	if err != nil {
		return nil, err
	}
	out, sm, sr, nrm, nrv, err := batchNorm(x, ts[0], ts[1], ts[2], ts[3], training, momentum, eps)
	if err != nil {
		return nil, err
	}
	switch c.op.Schema.Name {
	case "_native_batch_norm_legit_functional":
		return []any{out, sm, sr, nrm, nrv}, nil
	}
	if training && ts[2] != nil { // update running stats in place
		if err := copyTensor(ts[2], nrm); err != nil {
			return nil, err
		}
		if err := copyTensor(ts[3], nrv); err != nil {
			return nil, err
		}
	}
	if c.op.Schema.Name == "batch_norm" { // updates running stats like the others, returns out only
		return one(out)
	}
	return []any{out, sm, sr}, nil
}

func init() {
	register(softmaxKernel(false), "_softmax", "softmax.int")
	register(softmaxKernel(true), "_log_softmax", "log_softmax.int")
	register(softmaxBackward(false), "_softmax_backward_data")
	register(softmaxBackward(true), "_log_softmax_backward_data")
	register(kLayerNorm, "native_layer_norm", "layer_norm")
	register(kBatchNorm, "native_batch_norm", "batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_functional",
		"_native_batch_norm_legit_no_training", "_native_batch_norm_legit.no_stats")
}
