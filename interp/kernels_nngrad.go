package interp

import (
	"fmt"
	"math"
)

// nll_loss, embedding_dense_backward and the layer/batch norm backward
// kernels, computed in float64 and rounded once, after the CPU kernels in
// aten/src/ATen/native (LossNLL.cpp, Embedding.cpp, layer_norm_kernel.cpp,
// batch_norm_kernel.cpp).

// nllArgs reads nll_loss's inputs as [N, C] rows (a 1-d self is one row).
func nllArgs(c *call) (x, target, weight *Tensor, n, classes, red, ignore int64, err error) {
	if x, target, err = c.tensor2("self", "target"); err != nil {
		return
	}
	if weight, err = c.optTensor("weight"); err != nil {
		return
	}
	if red, err = c.int("reduction"); err != nil {
		return
	}
	if ignore, err = c.int("ignore_index"); err != nil {
		return
	}
	if x.Dim() < 1 || x.Dim() > 2 {
		err = fmt.Errorf("input tensor should be 1D or 2D")
		return
	}
	n, classes = 1, x.Shape[x.Dim()-1]
	if x.Dim() == 2 {
		n = x.Shape[0]
	}
	if target.Numel() != n {
		err = fmt.Errorf("Expected input batch_size (%d) to match target batch_size (%d).", n, target.Numel())
	}
	return
}

// nllWeights is each row's class weight (0 where the target is ignored).
func nllWeights(target, weight *Tensor, classes, ignore int64) ([]int64, []float64, error) {
	ts := target.Ints()
	ws := make([]float64, len(ts))
	var wv []float64
	if weight != nil {
		wv = weight.Floats()
	}
	for i, t := range ts {
		if t == ignore {
			continue
		}
		if t < 0 || t >= classes {
			return nil, nil, fmt.Errorf("Target %d is out of bounds.", t)
		}
		ws[i] = 1
		if wv != nil {
			ws[i] = wv[t]
		}
	}
	return ts, ws, nil
}

func kNLLLossForward(c *call) ([]any, error) {
	x, target, weight, n, classes, red, ignore, err := nllArgs(c)
	if err != nil {
		return nil, err
	}
	ts, ws, err := nllWeights(target, weight, classes, ignore)
	if err != nil {
		return nil, err
	}
	xs := x.Floats()
	losses := make([]float64, n)
	sum, total := 0.0, 0.0
	for i := range losses {
		if ws[i] != 0 {
			losses[i] = -xs[int64(i)*classes+ts[i]] * ws[i]
		}
		sum += losses[i]
		total += ws[i]
	}
	dev := x.Device()
	if red == 0 {
		shape := []int64{n}
		if x.Dim() == 1 {
			shape = []int64{}
		}
		return []any{FromFloatsOn(x.DType, shape, losses, dev), FromFloatsOn(x.DType, []int64{}, []float64{0}, dev)}, nil
	}
	if red == 1 {
		sum /= total
	}
	return []any{FromFloatsOn(x.DType, []int64{}, []float64{sum}, dev), FromFloatsOn(x.DType, []int64{}, []float64{total}, dev)}, nil
}

func kNLLLossBackward(c *call) ([]any, error) {
	x, target, weight, n, classes, red, ignore, err := nllArgs(c)
	if err != nil {
		return nil, err
	}
	g, tw, err := c.tensor2("grad_output", "total_weight")
	if err != nil {
		return nil, err
	}
	ts, ws, err := nllWeights(target, weight, classes, ignore)
	if err != nil {
		return nil, err
	}
	gs, total := g.Floats(), tw.Floats()[0]
	out := make([]float64, x.Numel())
	for i := int64(0); i < n; i++ {
		if ws[i] == 0 {
			continue
		}
		gi := gs[0]
		if red == 0 && len(gs) == int(n) {
			gi = gs[i]
		}
		v := -ws[i] * gi
		if red == 1 {
			v /= total
		}
		out[i*classes+ts[i]] = v
	}
	return one(FromFloatsOn(x.DType, x.Shape, out, x.Device()))
}

func kEmbeddingDenseBackward(c *call) ([]any, error) {
	g, indices, err := c.tensor2("grad_output", "indices")
	if err != nil {
		return nil, err
	}
	nw, err := c.int("num_weights")
	if err != nil {
		return nil, err
	}
	pad, err := c.int("padding_idx")
	if err != nil {
		return nil, err
	}
	scale, err := c.bool("scale_grad_by_freq")
	if err != nil {
		return nil, err
	}
	if g.Dim() == 0 {
		return nil, fmt.Errorf("embedding_dense_backward: grad_output must have a dimension")
	}
	d := g.Shape[g.Dim()-1]
	ix, gs := indices.Ints(), g.Floats()
	count := map[int64]float64{}
	for _, i := range ix {
		count[i]++
	}
	out := make([]float64, nw*d)
	for k, i := range ix {
		if i == pad {
			continue
		}
		if i < 0 || i >= nw {
			return nil, fmt.Errorf("embedding_dense_backward: index %d is out of bounds for %d weights", i, nw)
		}
		f := 1.0
		if scale {
			f = 1 / count[i]
		}
		for j := int64(0); j < d; j++ {
			out[i*d+j] += gs[int64(k)*d+j] * f
		}
	}
	return one(FromFloatsOn(g.DType, []int64{nw, d}, out, g.Device()))
}

// floatsOrNil reads an optional tensor's values.
func floatsOrNil(t *Tensor) []float64 {
	if t == nil {
		return nil
	}
	return t.Floats()
}

func kLayerNormBackward(c *call) ([]any, error) {
	dy, x, err := c.tensor2("grad_out", "input")
	if err != nil {
		return nil, err
	}
	mean, rstd, err := c.tensor2("mean", "rstd")
	if err != nil {
		return nil, err
	}
	w, err := c.optTensor("weight")
	if err != nil {
		return nil, err
	}
	b, err := c.optTensor("bias")
	if err != nil {
		return nil, err
	}
	norm, err := c.intList("normalized_shape")
	if err != nil {
		return nil, err
	}
	mask, err := boolArgs(c, "output_mask")
	if err != nil {
		return nil, err
	}
	inner := numel(norm)
	rows := x.Numel() / max(inner, 1)
	xs, gs, ms, rs, ws := x.Floats(), dy.Floats(), mean.Floats(), rstd.Floats(), floatsOrNil(w)
	dx, dw, db := make([]float64, len(xs)), make([]float64, inner), make([]float64, inner)
	for r := int64(0); r < rows; r++ {
		sumG, sumGX := 0.0, 0.0
		for j := int64(0); j < inner; j++ {
			i := r*inner + j
			xh := (xs[i] - ms[r]) * rs[r]
			gw := gs[i]
			if ws != nil {
				gw *= ws[j]
			}
			sumG += gw
			sumGX += gw * xh
			dw[j] += gs[i] * xh
			db[j] += gs[i]
		}
		for j := int64(0); j < inner; j++ {
			i := r*inner + j
			xh := (xs[i] - ms[r]) * rs[r]
			gw := gs[i]
			if ws != nil {
				gw *= ws[j]
			}
			dx[i] = rs[r] / float64(inner) * (float64(inner)*gw - sumG - xh*sumGX)
		}
	}
	res := []any{nil, nil, nil}
	if len(mask) > 0 && mask[0] {
		res[0] = FromFloatsOn(x.DType, x.Shape, dx, x.Device())
	}
	if len(mask) > 1 && mask[1] && w != nil {
		res[1] = FromFloatsOn(w.DType, w.Shape, dw, w.Device())
	}
	if len(mask) > 2 && mask[2] && b != nil {
		res[2] = FromFloatsOn(b.DType, b.Shape, db, b.Device())
	}
	return res, nil
}

func kBatchNormBackward(c *call) ([]any, error) {
	dy, x, err := c.tensor2("grad_out", "input")
	if err != nil {
		return nil, err
	}
	var ts [5]*Tensor
	for i, name := range []string{"weight", "running_mean", "running_var", "save_mean", "save_invstd"} {
		if ts[i], err = c.optTensor(name); err != nil {
			return nil, err
		}
	}
	train, err := c.bool("train")
	if err != nil {
		return nil, err
	}
	eps, err := c.float("eps")
	if err != nil {
		return nil, err
	}
	mask, err := boolArgs(c, "output_mask")
	if err != nil {
		return nil, err
	}
	if x.Dim() < 2 {
		return nil, fmt.Errorf("Expected 2D or more input (got %dD input)", x.Dim())
	}
	ch := x.Shape[1]
	inner := numel(x.Shape[2:])
	count := float64(x.Numel() / max(ch, 1))
	mean, invstd := make([]float64, ch), make([]float64, ch)
	switch {
	case train && ts[3] != nil && ts[4] != nil:
		mean, invstd = ts[3].Floats(), ts[4].Floats()
	case !train && ts[1] != nil && ts[2] != nil:
		mean = ts[1].Floats()
		for i, v := range ts[2].Floats() {
			invstd[i] = 1 / math.Sqrt(v+eps)
		}
	default:
		return nil, fmt.Errorf("native_batch_norm_backward: the statistics for train=%v are missing", train)
	}
	ws := floatsOrNil(ts[0])
	xs, gs := x.Floats(), dy.Floats()
	sumG, dot := make([]float64, ch), make([]float64, ch)
	at := func(i int64) int64 { return (i / inner) % ch }
	for i := range xs {
		k := at(int64(i))
		sumG[k] += gs[i]
		dot[k] += gs[i] * (xs[i] - mean[k])
	}
	dx := make([]float64, len(xs))
	for i := range xs {
		k := at(int64(i))
		w := 1.0
		if ws != nil {
			w = ws[k]
		}
		if train {
			proj := dot[k] * invstd[k] * invstd[k] / count
			dx[i] = (gs[i] - sumG[k]/count - (xs[i]-mean[k])*proj) * invstd[k] * w
		} else {
			dx[i] = gs[i] * invstd[k] * w
		}
	}
	dw := make([]float64, ch)
	for k := range dw {
		dw[k] = dot[k] * invstd[k]
	}
	wdt := x.DType
	if ts[0] != nil {
		wdt = ts[0].DType
	}
	res := []any{nil, nil, nil}
	if len(mask) > 0 && mask[0] {
		res[0] = FromFloatsOn(x.DType, x.Shape, dx, x.Device())
	}
	if len(mask) > 1 && mask[1] {
		res[1] = FromFloatsOn(wdt, []int64{ch}, dw, x.Device())
	}
	if len(mask) > 2 && mask[2] {
		res[2] = FromFloatsOn(wdt, []int64{ch}, sumG, x.Device())
	}
	return res, nil
}

func init() {
	register(kNLLLossForward, "nll_loss_forward")
	register(kNLLLossBackward, "nll_loss_backward")
	register(kEmbeddingDenseBackward, "embedding_dense_backward")
	register(kLayerNormBackward, "native_layer_norm_backward")
	register(kBatchNormBackward, "native_batch_norm_backward")
}
