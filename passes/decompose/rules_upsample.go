package decompose

import (
	"math"
	"slices"

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
		t := tensor(x)
		osize, ok := e.upsampleSizes(c, t)
		if !ok {
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
			idx := e.arange([]ir.Arg{i64(o)}, ir.F32, t.Device)
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

// upsampleNearestBackward is upsample_nearest{1,2,3}d_backward and the
// _upsample_nearest_exact ones where every output size is a multiple r_d
// of the input's: each input element's gradient is the sum of the r_1 ×
// ... × r_k block of grad_output its value was copied to, as Inductor
// 2.15's lowering computes it (lowering.py upsample_nearest2d_backward:
// avg_pool2d with the block as kernel and divisor_override=1). Here the
// block sum is grad_output viewed as [N, C, I_1, r_1, ..., I_k, r_k] and
// summed over the r dims: the same elements in the same (row-major)
// order as ATen's CPU kernel adds them, with no divisor. Given scales
// must map output index o to o / r_d as ATen's nearest_idx computes it
// in float (checked per index); other sizes stay whole.
func upsampleNearestBackward(exact bool) buildFunc {
	return func(e *emitter, c *ops.Call) []*ir.Value {
		g := e.tensorArg(c, "grad_output")
		t := tensor(g)
		osize, err1 := c.Ints("output_size")
		isize, err2 := c.Ints("input_size")
		switch {
		case e.err != nil || t == nil:
			return nil
		case err1 != nil || err2 != nil:
			e.whole("output_size or input_size is not constant")
			return nil
		case t.Rank() != len(osize)+2 || len(isize) != t.Rank():
			e.whole("grad_output rank %d for %d spatial sizes", t.Rank(), len(osize))
			return nil
		}
		scaleParams := c.Op.Schema.Params[3:] // scales, or scales_d/h/w
		view := []ir.Arg{e.size(g, 0), e.size(g, 1)}
		var blocks []int
		for d, o := range osize {
			in := isize[2+d]
			if in <= 0 || o%in != 0 {
				e.whole("output size %d is not a multiple of input size %d along spatial dim %d", o, in, d)
				return nil
			}
			scale := float32(float64(in) / float64(o))
			if d < len(scaleParams) {
				if s := c.Arg(scaleParams[d].Name); s.Kind == ir.ArgFloat && s.Float > 0 {
					scale = float32(1 / s.Float)
				}
			}
			if !nearestIsBlock(o, in, scale, exact) {
				e.whole("scale %v does not map output index o to o / %d", scale, o/in)
				return nil
			}
			view = append(view, i64(in), i64(o/in))
			blocks = append(blocks, 3+2*d)
		}
		v := e.call("aten::reshape.default", []ir.Arg{val(g), ir.ListArg(view...)})
		return []*ir.Value{e.castOut(e.call("aten::sum.dim_IntList", []ir.Arg{val(v), ints(blocks...)}))}
	}
}

// nearestIsBlock reports whether ATen's nearest index (upsample.h
// nearest_idx / nearest_neighbor_exact_compute_source_index, in float)
// sends every output index o < out to o / (out / in).
func nearestIsBlock(out, in int64, scale float32, exact bool) bool {
	r := out / in
	for o := range out {
		var src int64
		switch {
		case out == in:
			src = o
		case out == 2*in && !exact:
			src = o >> 1
		case exact:
			src = min(int64(math.Floor(float64((float32(o)+0.5)*scale))), in-1)
		default:
			src = min(int64(math.Floor(float64(float32(o)*scale))), in-1)
		}
		if src != o/r {
			return false
		}
	}
	return true
}

// pixelShuffle is refs pixel_shuffle (shuffle) and pixel_unshuffle: the
// input viewed with the factor split out of C (or out of H and W),
// permuted, reshaped to the result and cloned contiguous, a pointwise
// copy. A non-contiguous input (the refs' clone keeps its memory
// format), symbolic C, H, W or a factor that does not divide stay whole.
func pixelShuffle(shuffle bool) buildFunc {
	return func(e *emitter, c *ops.Call) []*ir.Value {
		name := "downscale_factor"
		if shuffle {
			name = "upscale_factor"
		}
		x := e.tensorArg(c, "self")
		r := e.intArg(c, name)
		t := tensor(x)
		if e.err != nil || t == nil {
			return nil
		}
		rank := t.Rank()
		if rank < 3 || r <= 0 || !ops.IsContiguous(t) {
			e.whole("input of rank %d, factor %d, or a non-contiguous input", rank, r)
			return nil
		}
		var chw [3]int64
		for i := range chw {
			v, ok := t.Shape[rank-3+i].Const()
			if !ok {
				e.whole("symbolic channel or spatial sizes")
				return nil
			}
			chw[i] = v
		}
		ch, h, w := chw[0], chw[1], chw[2]
		var batch, split, out []ir.Arg
		var perm []int
		for d := range rank - 3 {
			batch = append(batch, e.size(x, d))
			perm = append(perm, d)
		}
		n := rank - 3
		if shuffle {
			if ch%(r*r) != 0 {
				e.whole("channels %d not divisible by %d", ch, r*r)
				return nil
			}
			split = []ir.Arg{i64(ch / (r * r)), i64(r), i64(r), i64(h), i64(w)}
			perm = append(perm, n, n+3, n+1, n+4, n+2)
			out = []ir.Arg{i64(ch / (r * r)), i64(h * r), i64(w * r)}
		} else {
			if h%r != 0 || w%r != 0 {
				e.whole("spatial sizes %dx%d not divisible by %d", h, w, r)
				return nil
			}
			split = []ir.Arg{i64(ch), i64(h / r), i64(r), i64(w / r), i64(r)}
			perm = append(perm, n, n+2, n+4, n+1, n+3)
			out = []ir.Arg{i64(ch * r * r), i64(h / r), i64(w / r)}
		}
		v := e.call("aten::view.default", []ir.Arg{val(x), ir.ListArg(append(slices.Clone(batch), split...)...)})
		v = e.call("aten::permute.default", []ir.Arg{val(v), ints(perm...)})
		v = e.call("aten::reshape.default", []ir.Arg{val(v), ir.ListArg(append(batch, out...)...)})
		return []*ir.Value{e.call("aten::clone.default", []ir.Arg{val(v)}, kw("memory_format", ir.EnumArg("contiguous_format")))}
	}
}

// upsampleSizes reads an upsample's constant output_size, whose spatial
// dims t's rank must match; a channels-last result stays whole.
func (e *emitter) upsampleSizes(c *ops.Call, t *ir.TensorType) ([]int64, bool) {
	out := e.outType(0)
	osize, err := c.Ints("output_size")
	switch {
	case e.err != nil || t == nil || out == nil:
		return nil, false
	case err != nil:
		e.whole("output_size is not constant: %v", err)
		return nil, false
	case t.Rank() != len(osize)+2:
		e.whole("input rank %d for %d spatial sizes", t.Rank(), len(osize))
		return nil, false
	case out.Strides != nil && !sym.EqualLists(out.Strides, ir.ContiguousStrides(out.Shape)):
		e.whole("the result is not contiguous (channels-last input)")
		return nil, false
	}
	return osize, true
}
