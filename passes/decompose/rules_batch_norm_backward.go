package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// batchNormBackward is native_batch_norm_backward after torch/_decomp
// decompositions.py native_batch_norm_backward (which Inductor's table
// keeps): in the computation dtype, with C the channel dim (1), N the
// element count per channel, and mean/invstd the saved statistics (train)
// or running_mean and rsqrt(running_var + eps):
//
//	grad_output_sum = sum(g, not C); dot_p = sum(g * (x - mean), not C)
//	train: grad_input = ((g - (x-mean) * dot_p/N * invstd^2) - grad_output_sum/N) * invstd*w
//	eval:  grad_input = g * invstd*w
//	grad_weight = dot_p * invstd; grad_bias = grad_output_sum
//
// each result cast back (grad_input to the input's dtype, the others to
// the weight's). Per-channel vectors broadcast as [1, C, 1, ..]
// (_broadcast_batch_norm_backward's unsqueezes).
func batchNormBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.tensorArg(c, "grad_out"), e.tensorArg(c, "input")
	w := e.tensorArg(c, "weight")
	train, eps := e.boolArg(c, "train"), 0.0
	if !train {
		eps, _ = e.number(c, "eps")
	}
	e.requireFloat(x)
	if e.err != nil {
		return nil
	}
	t := tensor(x)
	if t.Rank() < 2 {
		e.whole("input of rank %d (PyTorch requires at least 2)", t.Rank())
		return nil
	}
	numel, ok1 := t.Numel().Const()
	ch, ok2 := t.Shape[1].Const()
	if !ok1 || !ok2 || ch == 0 || numel == 0 {
		e.whole("a symbolic or empty input: the decomposition divides by its element count per channel")
		return nil
	}
	cdt := computeDType(t.DType)
	gc, xc := e.cast(g, cdt), e.cast(x, cdt)
	mean, invstd := e.batchNormStats(c, train, eps, cdt)
	if e.err != nil {
		return nil
	}
	var reduce []int
	for d := range t.Rank() {
		if d != 1 {
			reduce = append(reduce, d)
		}
	}
	norm := 1.0 / (float64(numel) / float64(ch)) // Python's num_features is a float
	bcast := func(v *ir.Value) *ir.Value { return e.bnBroadcast(v, t.Rank(), ch) }
	centered := e.sub(val(xc), val(bcast(mean)))
	gSum := e.call("aten::sum.dim_IntList", []ir.Arg{val(gc), ints(reduce...)})
	dotP := e.call("aten::sum.dim_IntList", []ir.Arg{val(e.mul(gc, val(centered))), ints(reduce...)})
	scale := invstd
	if w != nil {
		scale = e.mul(invstd, val(e.cast(w, cdt)))
	}
	res := []*ir.Value{nil, nil, nil}
	if e.used(0) {
		var in *ir.Value
		if train {
			proj := e.mul(centered, val(bcast(e.mul(e.mul(dotP, f64(norm)), val(e.mul(invstd, val(invstd)))))))
			in = e.sub(val(e.sub(val(gc), val(proj))), val(bcast(e.mul(gSum, f64(norm)))))
			in = e.mul(in, val(bcast(scale)))
		} else {
			in = e.mul(gc, val(bcast(scale)))
		}
		res[0] = e.castOut(in, 0)
	}
	if e.used(1) {
		res[1] = e.castOut(e.mul(dotP, val(invstd)), 1)
	}
	if e.used(2) {
		res[2] = e.castOut(gSum, 2)
	}
	return res
}

// batchNormStats are mean and invstd in cdt: the saved ones in training,
// running_mean and rsqrt(running_var + eps) in eval.
func (e *emitter) batchNormStats(c *ops.Call, train bool, eps float64, cdt ir.DType) (mean, invstd *ir.Value) {
	if train {
		mean, invstd = e.tensorArg(c, "save_mean"), e.tensorArg(c, "save_invstd")
	} else {
		mean, invstd = e.tensorArg(c, "running_mean"), e.tensorArg(c, "running_var")
	}
	if e.err == nil && (mean == nil || invstd == nil) {
		e.whole("the statistics for train=%v are missing", train)
	}
	if e.err != nil {
		return nil, nil
	}
	mean, invstd = e.cast(mean, cdt), e.cast(invstd, cdt)
	if !train {
		invstd = e.unary("rsqrt", e.add(invstd, f64(eps)))
	}
	return mean, invstd
}

// bnBroadcast is _broadcast_batch_norm_backward: a [C] vector unsqueezed
// to [1, C, 1, ..] of the given rank (a leading 1 stays when C is 1).
func (e *emitter) bnBroadcast(v *ir.Value, rank int, ch int64) *ir.Value {
	for axis := range rank {
		if axis == 1 && ch != 1 {
			continue // mask[1] is C: never unsqueezed there
		}
		t := tensor(v)
		if t == nil {
			return v
		}
		if axis < t.Rank() {
			if n, ok := t.Shape[axis].Const(); ok && n == 1 {
				continue
			}
		}
		v = e.call("aten::unsqueeze.default", []ir.Arg{val(v), i64(int64(axis))})
	}
	return v
}
