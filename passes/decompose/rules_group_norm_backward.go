package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// nativeGroupNormBackward is native_group_norm_backward(grad_output,
// input, mean, rstd, weight, N, C, HxW, group, output_mask) after
// torch/_decomp decompositions.py native_group_norm_backward (Inductor's
// table keeps it), in opmath, with G groups of cpg = C/G channels:
//
//	ds = sum(g * x, HxW), db = sum(g, HxW)                      [N, C]
//	ds_val, db_val = sum(ds * w, cpg), sum(db * w, cpg)         [N, G]
//	c1 = rstd * w; c2 = (db_val * mean - ds_val) * rstd^3 * s; c3 = -c2 * mean - db_val * rstd * s
//	grad_input = g * c1 + x * c2 + c3 (in [N, G, cpg, HxW], viewed back)
//	grad_weight = sum((ds - db * mean) * rstd, N); grad_bias = sum(db, N)
//
// with s = 1 / (HxW * cpg) and w = 1 without a weight (the decomposition's
// ones: a product by 1 is exact). Constant channel counts and a contiguous
// input only (the decomposition's channels-last grad_input keeps it whole).
func nativeGroupNormBackward(e *emitter, c *ops.Call) []*ir.Value {
	g, x := e.tensorArg(c, "grad_out"), e.tensorArg(c, "input")
	mean, rstd, w := e.tensorArg(c, "mean"), e.tensorArg(c, "rstd"), e.tensorArg(c, "weight")
	e.requireFloat(x)
	channels, err := c.SymInt("C")
	e.fail(err)
	hxw, err := c.SymInt("HxW")
	e.fail(err)
	group, err := c.Int("group")
	e.fail(err)
	if e.err != nil {
		return nil
	}
	ch, ok1 := channels.Const()
	hw, ok2 := hxw.Const()
	switch {
	case !ok1 || !ok2:
		e.whole("a symbolic channel count or spatial size")
	case group <= 0 || ch%group != 0 || ch == 0 || hw == 0:
		e.whole("empty, or channels not divisible into groups (PyTorch's check fails)")
	case !ops.IsContiguous(tensor(x)):
		e.whole("a non-contiguous input: the decomposition's grad_input takes its memory format")
	}
	if e.err != nil {
		return nil
	}
	cpg, cdt := ch/group, computeDType(tensor(x).DType)
	gc, xc := e.cast(g, cdt), e.cast(x, cdt)
	mean, rstd = e.cast(mean, cdt), e.cast(rstd, cdt)
	n := c.Arg("N")
	shape := func(v *ir.Value, dims ...ir.Arg) *ir.Value {
		return e.call("aten::reshape.default", []ir.Arg{val(v), ir.ListArg(dims...)})
	}
	sum := func(v *ir.Value, dims ...int) *ir.Value {
		return e.call("aten::sum.dim_IntList", []ir.Arg{val(v), ints(dims...)})
	}
	last := func(v *ir.Value) *ir.Value { return e.call("aten::unsqueeze.default", []ir.Arg{val(v), i64(-1)}) }
	// The per-channel sums run over the input's own spatial dims (the
	// decomposition's reshape to [N, C, HxW] then sum(2) adds the same
	// elements in the same order): a reduction over the dims g * x is
	// computed in takes it as its prologue, and ds and db share a kernel.
	var spatial []int
	for d := 2; d < tensor(x).Rank(); d++ {
		spatial = append(spatial, d)
	}
	perChannel := func(v *ir.Value) *ir.Value {
		if len(spatial) == 0 {
			return v // [N, C]: HxW is 1
		}
		return sum(v, spatial...)
	}
	ds, db := perChannel(e.mul(gc, val(xc))), perChannel(gc)
	res := []*ir.Value{nil, nil, nil}
	if e.used(0) {
		s := 1.0 / float64(hw*cpg)
		// ds * w and db * w are taken in the grouped space [N, G, cpg] (the
		// same products): they are then the prologues of their sums over
		// cpg, which share w and so one kernel.
		dsW, dbW, c1 := shape(ds, n, i64(group), i64(cpg)), shape(db, n, i64(group), i64(cpg)), last(rstd)
		if w != nil {
			wg := shape(e.cast(w, cdt), i64(1), i64(group), i64(cpg))
			dsW, dbW = e.mul(dsW, val(wg)), e.mul(dbW, val(wg))
			c1 = e.mul(c1, val(wg))
		}
		dsVal, dbVal := sum(dsW, 2), sum(dbW, 2)
		c2 := e.add(e.unary("neg", dsVal), val(e.mul(dbVal, val(mean))))
		c2 = e.mul(e.mul(e.mul(e.mul(c2, val(rstd)), val(rstd)), val(rstd)), f64(s))
		c3 := e.sub(val(e.mul(e.unary("neg", c2), val(mean))), val(e.mul(e.mul(dbVal, val(rstd)), f64(s))))
		grouped := func(v *ir.Value) *ir.Value { return shape(v, n, i64(group), i64(cpg), i64(hw)) }
		in := e.add(e.mul(grouped(gc), val(last(c1))), val(e.mul(grouped(xc), val(last(last(c2))))))
		in = e.add(in, val(last(last(c3))))
		res[0] = e.castOut(e.call("aten::view.default", []ir.Arg{val(in), e.shapeOf(x)}), 0)
	}
	if e.used(1) {
		grp := func(v *ir.Value) *ir.Value {
			return e.call("aten::view.default", []ir.Arg{val(v), ir.ListArg(n, i64(group), i64(cpg))})
		}
		dw := e.mul(e.sub(val(grp(ds)), val(e.mul(grp(db), val(last(mean))))), val(last(rstd)))
		res[1] = e.castOut(shape(sum(dw, 0), i64(ch)), 1)
	}
	if e.used(2) {
		res[2] = e.castOut(sum(db, 0), 2)
	}
	return res
}
