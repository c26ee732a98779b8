package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// upsampleNearest is decompositions.py _upsample_nearest (upsample_nearest
// and _upsample_nearest_exact, 1d to 3d): per spatial dim d, the input
// index is ((arange(osize, f32) + offset) * scale).to(int64), offset 0.5
// when exact, scale isize / (isize * scales_d) when scales_d > 0 is given,
// else isize / osize (a Python float, so float32 after the multiply, as
// ATen's nearest_idx computes it); each index is unsqueezed to broadcast
// against the later dims, and the result is _unsafe_index(input, [None,
// None, idx_0, ...]). The decomposition then makes the result contiguous
// in the input's suggested memory format: a channels-last result stays
// whole.
func upsampleNearest(exact bool) buildFunc {
	return func(e *emitter, c *ops.Call) []*ir.Value {
		x := e.tensorArg(c, "self")
		t, out := tensor(x), e.outType(0)
		osize, err := c.Ints("output_size")
		switch {
		case e.err != nil || t == nil || out == nil:
			return nil
		case err != nil:
			e.whole("output_size is not constant: %v", err)
			return nil
		case t.Rank() != len(osize)+2:
			e.whole("input rank %d for %d spatial sizes", t.Rank(), len(osize))
			return nil
		case out.Strides != nil && !sym.EqualLists(out.Strides, ir.ContiguousStrides(out.Shape)):
			e.whole("the result is not contiguous (channels-last input)")
			return nil
		}
		scaleParams := c.Op.Schema.Params[2:] // scales, or scales_d/h/w
		indices := []ir.Arg{ir.NoneArg(), ir.NoneArg()}
		for d, o := range osize {
			isize, ok := t.Shape[2+d].Const()
			if !ok {
				e.whole("input size %s along spatial dim %d is symbolic", t.Shape[2+d], d)
				return nil
			}
			scale := float64(isize) / float64(o)
			if d < len(scaleParams) {
				if s := c.Arg(scaleParams[d].Name); s.Kind == ir.ArgFloat && s.Float > 0 {
					scale = float64(isize) / (float64(isize) * s.Float)
				}
			}
			idx := e.call("aten::arange.default", []ir.Arg{i64(o)},
				kw("dtype", ir.DTypeArg(ir.F32)), kw("device", ir.DeviceArg(t.Device)), kw("pin_memory", ir.BoolArg(false)))
			if exact {
				idx = e.add(idx, f64(0.5))
			}
			idx = e.cast(e.mul(idx, f64(scale)), ir.I64)
			for range len(osize) - 1 - d {
				idx = e.call("aten::unsqueeze.default", []ir.Arg{val(idx), i64(-1)})
			}
			indices = append(indices, val(idx))
		}
		return []*ir.Value{e.call("aten::_unsafe_index.Tensor", []ir.Arg{val(x), ir.ListArg(indices...)})}
	}
}
