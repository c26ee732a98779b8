package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Single-rank collectives and a few remaining shape ops (random prims
// live in kernels_random.go).
//
// Collectives run as on a world of one rank: every reduction, gather and
// all-to-all returns its input. A group size other than 1 is refused.

// kCollective is a collective on a world of one rank.
func kCollective(c *call) ([]any, error) {
	name := c.op.Schema.Params[0].Name
	t, err := c.tensor(name)
	if err != nil {
		return nil, err
	}
	if c.has("group_size") {
		n, err := c.int("group_size")
		if err != nil {
			return nil, err
		}
		if n != 1 {
			return nil, fmt.Errorf("%s over %d ranks: the interpreter runs a single rank", c.op.Schema.Name, n)
		}
	}
	if c.has("output_split_sizes") { // all_to_all_single: one split per rank
		for _, name := range []string{"output_split_sizes", "input_split_sizes"} {
			sizes, err := c.intList(name)
			if err != nil {
				return nil, err
			}
			if len(sizes) > 1 {
				return nil, fmt.Errorf("%s over %d ranks: the interpreter runs a single rank", c.op.Schema.Name, len(sizes))
			}
		}
	}
	if c.op.Schema.Name == "wait_tensor" {
		return one(t)
	}
	return oneT(cloneAs(t, ""))
}

func kAminmax(c *call) ([]any, error) {
	t, d, hasDim, keepdim, err := optDimArgs(c)
	if err != nil {
		return nil, err
	}
	var dims []int64
	if hasDim {
		dims = []int64{d}
	}
	r, err := plan(t, dims, keepdim)
	if err != nil {
		return nil, err
	}
	if r.size == 0 {
		return nil, fmt.Errorf("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
	}
	lo, err := r.reduceTo(t.DType, true, nanExtreme(-1), nil)
	if err != nil {
		return nil, err
	}
	hi, err := r.reduceTo(t.DType, true, nanExtreme(1), nil)
	return []any{lo, hi}, err
}

// kRepeatInterleave covers repeat_interleave.self_int and .Tensor.
func kRepeatInterleave(c *call) ([]any, error) {
	if c.op.Schema.Overload == "Tensor" {
		reps, err := c.tensor("repeats")
		if err != nil {
			return nil, err
		}
		var out []int64
		for i, r := range reps.Ints() {
			if r < 0 {
				return nil, fmt.Errorf("repeats can not be negative")
			}
			for k := int64(0); k < r; k++ {
				out = append(out, int64(i))
			}
		}
		return one(FromInts(ir.I64, []int64{int64(len(out))}, out))
	}
	t, reps, err := c.selfInt("repeats")
	if err != nil {
		return nil, err
	}
	d, hasDim, err := c.optInt("dim")
	if err != nil {
		return nil, err
	}
	src := t
	if !hasDim {
		src = contiguous(t)
		src = src.view([]int64{src.Numel()}, []int64{1}, 0)
		d = 0
	}
	w, err := wrapDim(d, src.Dim())
	if err != nil {
		return nil, err
	}
	u, _ := unsqueeze(src, int64(w+1))
	shape := clone64(u.Shape)
	shape[w+1] = reps
	e, err := expand(u, shape)
	if err != nil {
		return nil, err
	}
	return oneT(reshape(e, append(append(clone64(src.Shape[:w]), src.Shape[w]*reps), src.Shape[w+1:]...)))
}

func kBincount(c *call) ([]any, error) {
	t, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	weights, err := c.optTensor("weights")
	if err != nil {
		return nil, err
	}
	minlength, err := c.int("minlength")
	if err != nil {
		return nil, err
	}
	if t.Dim() != 1 || t.DType.IsFloat() {
		return nil, fmt.Errorf("bincount only supports 1-d non-negative integral inputs.")
	}
	vals := t.Ints()
	n := minlength
	for _, v := range vals {
		if v < 0 {
			return nil, fmt.Errorf("bincount only supports 1-d non-negative integral inputs.")
		}
		n = max(n, v+1)
	}
	if weights == nil {
		counts := make([]int64, n)
		for _, v := range vals {
			counts[v]++
		}
		return one(FromInts(ir.I64, []int64{n}, counts))
	}
	w := weights.Floats()
	sums := make([]float64, n)
	for i, v := range vals {
		sums[v] += w[i]
	}
	dt := ir.F64
	if weights.DType == ir.F32 {
		dt = ir.F32
	}
	return one(FromFloats(dt, []int64{n}, sums))
}

// kUpsampleNearest2d is nearest-neighbour resizing of the last two dims:
// source index floor(dst · in / out) (or · 1/scale when a scale is given).
func kUpsampleNearest2d(c *call) ([]any, error) {
	name := c.op.Schema.Params[0].Name
	t, err := c.tensor(name)
	if err != nil {
		return nil, err
	}
	if t.Dim() != 4 {
		return nil, fmt.Errorf("upsample_nearest2d: expected a 4-d input, got %d-d", t.Dim())
	}
	h, w := t.Shape[2], t.Shape[3]
	var oh, ow int64
	var sh, sw float64
	if size, ok, err := c.optIntList("output_size"); err != nil {
		return nil, err
	} else if ok && len(size) == 2 {
		oh, ow = size[0], size[1]
	}
	if c.has("scale_factors") && !c.isNone("scale_factors") {
		x, _ := c.val("scale_factors")
		list, _ := x.([]any)
		if len(list) == 2 {
			sh, _ = num(list[0])
			sw, _ = num(list[1])
			oh, ow = int64(math.Floor(float64(h)*sh)), int64(math.Floor(float64(w)*sw))
		}
	}
	if oh <= 0 || ow <= 0 {
		return nil, fmt.Errorf("upsample_nearest2d: output size must be positive")
	}
	scale := func(in, out int64, s float64) float64 {
		if s > 0 {
			return 1 / s
		}
		return float64(in) / float64(out)
	}
	fh, fw := scale(h, oh, sh), scale(w, ow, sw)
	src := t.Floats()
	planes := t.Shape[0] * t.Shape[1]
	out := make([]float64, planes*oh*ow)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			si := min(int64(math.Floor(float64(i)*fh)), h-1)
			for j := int64(0); j < ow; j++ {
				sj := min(int64(math.Floor(float64(j)*fw)), w-1)
				out[p*oh*ow+i*ow+j] = src[p*h*w+si*w+sj]
			}
		}
	}
	return one(FromFloatsOn(t.DType, []int64{t.Shape[0], t.Shape[1], oh, ow}, out, t.Device()))
}

func init() {
	register(kCollective, "_c10d_functional::all_reduce", "_c10d_functional::all_to_all_single",
		"_c10d_functional::all_gather_into_tensor", "_c10d_functional::reduce_scatter_tensor",
		"_c10d_functional::broadcast", "_c10d_functional::wait_tensor")
	register(kAminmax, "aminmax")
	register(kRepeatInterleave, "repeat_interleave.self_int", "repeat_interleave.Tensor")
	register(kBincount, "bincount")
	register(kUpsampleNearest2d, "upsample_nearest2d", "upsample_nearest2d.vec")
}
