package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// nativeGroupNorm is native_group_norm(input, weight, bias, N, C, HxW,
// group, eps) -> (out, mean, rstd), as torch/_refs native_group_norm
// writes it off the CPU: upcast, reshape to [N, group, C/group, HxW],
// var_mean over the last two dims (correction=0, keepdim), rsqrt(var +
// eps), (x - mean) * rstd, weight and bias, viewed back; out, mean and
// rstd in the input dtype, the statistics squeezed to [N, group]. The refs
// apply weight and bias as [1, C, 1, ...] after the view back; here they
// apply before it, as [1, group, C/group, 1]: the same operations per
// element. (On the CPU the refs fold weight into a scale first: the same
// values up to rounding.) A symbolic channel count stays whole.
func nativeGroupNorm(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "input")
	w, b := e.tensorArg(c, "weight"), e.tensorArg(c, "bias")
	eps, _ := e.number(c, "eps")
	e.requireFloat(x)
	channels, err := c.SymInt("C")
	e.fail(err)
	group, err := c.Int("group")
	e.fail(err)
	if e.err != nil {
		return nil
	}
	ch, ok := channels.Const()
	switch {
	case !ok:
		e.whole("a symbolic channel count")
	case group <= 0 || ch%group != 0:
		e.whole("channels not divisible into groups (PyTorch's check fails)")
	case tensor(x).Rank() < 2:
		e.whole("input of rank below 2")
	}
	if e.err != nil {
		return nil
	}
	t := tensor(x)
	xa := e.cast(x, computeDType(t.DType))
	grouped := e.call("aten::reshape.default", []ir.Arg{val(xa), ir.ListArg(c.Arg("N"), i64(group), i64(ch/group), c.Arg("HxW"))})
	vm := e.callN("aten::var_mean.correction", []ir.Arg{val(grouped), ints(2, 3)},
		[]ir.Kwarg{kw("correction", i64(0)), kw("keepdim", ir.BoolArg(true))}, "var", "mean")
	if vm == nil {
		return nil
	}
	variance, mean := vm.Results[0], vm.Results[1]
	rstd := e.unary("rsqrt", e.add(variance, f64(eps)))
	out := e.mul(e.sub(val(grouped), val(mean)), val(rstd))
	// Weight and bias apply in the grouped space, viewed as [1, group,
	// C/group, 1] (the same products and sums per element as the refs'
	// [1, C, 1, ...] after the view back): the whole normalization then
	// runs over the statistics' outer space [N, group] and fuses into their
	// kernel as one more stage (Inductor's own CPU lowering keeps three
	// kernels).
	if w != nil {
		out = e.mul(out, val(e.groupVector(w, group, ch/group)))
	}
	if b != nil {
		out = e.add(out, val(e.groupVector(b, group, ch/group)))
	}
	out = e.call("aten::view.default", []ir.Arg{val(out), e.shapeOf(x)})
	res := []*ir.Value{e.cast(out, t.DType), nil, nil}
	for i, s := range []*ir.Value{mean, rstd} {
		if e.used(i + 1) {
			res[i+1] = e.call("aten::squeeze.dims", []ir.Arg{val(e.cast(s, t.DType)), ints(2, 3)})
		}
	}
	return res
}

// groupVector is a [C] weight viewed as [1, group, C/group, 1].
func (e *emitter) groupVector(v *ir.Value, group, per int64) *ir.Value {
	return e.call("aten::view.default", []ir.Arg{val(v), ir.ListArg(i64(1), i64(group), i64(per), i64(1))})
}
