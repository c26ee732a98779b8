package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// upsampleLinear is decompositions.py _upsample_linear (upsample_linear1d,
// upsample_bilinear2d; not yet upsample_trilinear3d, which interp cannot
// run to validate it), in opmath: per spatial dim
// d, the source coordinate s = scale*i (align_corners) or scale*(i+0.5) -
// 0.5, clamped at 0, over i = arange(osize) shaped to broadcast against
// the later dims; its floor x = int64(s) and x+1 clamped to isize-1 index
// the input (_unsafe_index) at every corner, and the corners blend dim by
// dim from the last, v1 + (v2 - v1) * clamp(s - x, 0, 1). scale is
// (isize-1)/(osize-1) (0 for osize 1) with align_corners, else 1/scales_d
// when given and positive, else isize/osize. Integer inputs, a
// channels-last result or symbolic sizes stay whole.
func upsampleLinear(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	t := tensor(x)
	osize, ok := e.upsampleSizes(c, t)
	align := e.boolArg(c, "align_corners")
	if !ok || e.err != nil {
		return nil
	}
	if !t.DType.IsFloat() {
		e.whole("an integer input (the decomposition rounds its result)")
		return nil
	}
	xc := e.opmath(x)
	dt := tensor(xc).DType
	scaleParams := c.Op.Schema.Params[3:] // scales_w, or scales_h/w
	var coord, lo, hi []*ir.Value
	for d, o := range osize {
		in, ok := t.Shape[2+d].Const()
		if !ok {
			e.whole("input size %s along spatial dim %d is symbolic", t.Shape[2+d], d)
			return nil
		}
		var given *float64
		if d < len(scaleParams) {
			if s := c.Arg(scaleParams[d].Name); s.Kind == ir.ArgFloat {
				given = &s.Float
			}
		}
		s, x0, x1 := e.linearIndex(in, o, align, given, dt, t.Device, len(osize)-1-d)
		coord, lo, hi = append(coord, s), append(lo, x0), append(hi, x1)
	}
	// the corners in product([0, 1], ...) order: the first dim slowest
	n := len(osize)
	vs := make([]*ir.Value, 0, 1<<n)
	for corner := range 1 << n {
		idx := []ir.Arg{ir.NoneArg(), ir.NoneArg()}
		for d := range n {
			pick := lo[d]
			if corner>>(n-1-d)&1 == 1 {
				pick = hi[d]
			}
			idx = append(idx, val(pick))
		}
		vs = append(vs, e.call("aten::_unsafe_index.Tensor", []ir.Arg{val(xc), ir.ListArg(idx...)}))
	}
	for d := n - 1; d >= 0; d-- {
		frac := e.call("aten::clamp.default", []ir.Arg{val(e.sub(val(coord[d]), val(lo[d]))), f64(0), f64(1)})
		frac = e.cast(frac, dt)
		next := make([]*ir.Value, 0, len(vs)/2)
		for i := 0; i < len(vs); i += 2 {
			next = append(next, e.add(vs[i], val(e.mul(e.sub(val(vs[i+1]), val(vs[i])), val(frac)))))
		}
		vs = next
	}
	return []*ir.Value{e.castOut(vs[0])}
}

// linearIndex is _upsample_linear's get_values for one spatial dim: the
// clamped source coordinate (dtype dt, shaped [osize, 1 × trailing]), its
// floor as int64, and floor+1 clamped to isize-1.
func (e *emitter) linearIndex(in, o int64, align bool, given *float64, dt ir.DType, dev ir.Device, trailing int) (s, x0, x1 *ir.Value) {
	var scale float64
	switch {
	case align && o > 1:
		scale = (float64(in) - 1) / (float64(o) - 1)
	case align:
		scale = 0
	case given != nil && *given > 0:
		scale = 1 / *given
	default:
		scale = float64(in) / float64(o)
	}
	i := e.arange([]ir.Arg{i64(o)}, ir.Invalid, dev)
	i = e.cast(i, dt)
	if align {
		s = e.mul(i, f64(scale))
	} else {
		s = e.sub(val(e.mul(e.add(i, f64(0.5)), f64(scale))), f64(0.5))
	}
	s = e.call("aten::clamp_min.default", []ir.Arg{val(s), f64(0)})
	shape := []ir.Arg{i64(o)}
	for range trailing {
		shape = append(shape, i64(1))
	}
	s = e.call("aten::reshape.default", []ir.Arg{val(s), ir.ListArg(shape...)})
	x0 = e.cast(s, ir.I64)
	x1 = e.call("aten::clamp_max.default", []ir.Arg{val(e.add(x0, i64(1))), i64(in - 1)})
	return s, x0, x1
}
