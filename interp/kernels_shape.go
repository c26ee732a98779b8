package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/rt"
)

// Ops that build new tensors out of others' shapes: cat, stack, repeat,
// padding, flip, roll, tril/triu, sort/argsort/topk.

// catTensors is torch.cat: dtypes promote, legacy 1-d empty tensors are
// skipped, every other dim must match.
func catTensors(ts []*Tensor, dim int64) (*Tensor, error) {
	var parts []*Tensor
	var ps []ops.Operand
	for _, t := range ts {
		ps = append(ps, ops.Operand{DType: t.DType})
		if t.Dim() == 1 && t.Shape[0] == 0 {
			continue
		}
		parts = append(parts, t)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("torch.cat(): expected a non-empty list of Tensors")
	}
	dt, err := ops.ResultType(ps)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return Empty(dt, []int64{0}, nil, ts[0].Device())
	}
	ref := parts[0]
	d, err := wrapDim(dim, ref.Dim())
	if err != nil {
		return nil, err
	}
	if ref.Dim() == 0 {
		return nil, fmt.Errorf("zero-dimensional tensor (at position 0) cannot be concatenated")
	}
	shape := clone64(ref.Shape)
	shape[d] = 0
	for i, p := range parts {
		if p.Dim() != ref.Dim() {
			return nil, fmt.Errorf("Tensors must have same number of dimensions: got %d and %d", ref.Dim(), p.Dim())
		}
		for k := range p.Shape {
			if k != d && p.Shape[k] != ref.Shape[k] {
				return nil, fmt.Errorf("Sizes of tensors must match except in dimension %d. Expected size %d but got size %d for tensor number %d in the list.",
					d, ref.Shape[k], p.Shape[k], i)
			}
		}
		shape[d] += p.Shape[d]
	}
	out, err := Empty(dt, shape, nil, ref.Device())
	if err != nil {
		return nil, err
	}
	at := int64(0)
	for _, p := range parts {
		end := at + p.Shape[d]
		dst, _ := sliceView(out, int64(d), &at, &end, 1)
		if err := copyTensor(dst, p); err != nil {
			return nil, err
		}
		at = end
	}
	return out, nil
}

func kCat(c *call) ([]any, error) {
	ts, err := c.tensors("tensors")
	if err != nil {
		return nil, err
	}
	d, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	if c.op.Schema.Name == "stack" {
		for i, t := range ts {
			if i > 0 && !equal64(t.Shape, ts[0].Shape) {
				return nil, fmt.Errorf("stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d", ints(ts[0].Shape), ints(t.Shape), i)
			}
		}
		for i, t := range ts {
			if ts[i], err = unsqueeze(t, d); err != nil {
				return nil, err
			}
		}
	}
	return oneT(catTensors(ts, d))
}

func kRepeat(c *call) ([]any, error) {
	t, reps, err := c.selfIntList("repeats")
	if err != nil {
		return nil, err
	}
	if len(reps) < t.Dim() {
		return nil, fmt.Errorf("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
	}
	lead := len(reps) - t.Dim()
	src := t
	for i := 0; i < lead; i++ {
		src, _ = unsqueeze(src, 0)
	}
	// view src as [1, s0, 1, s1, ...] expanded to [r0, s0, r1, s1, ...]
	var shape, strides []int64
	outShape := make([]int64, len(reps))
	for i, r := range reps {
		shape = append(shape, r, src.Shape[i])
		strides = append(strides, 0, src.Strides[i])
		outShape[i] = r * src.Shape[i]
	}
	ex := src.view(shape, strides, src.Offset)
	out, err := Empty(t.DType, shape, nil, t.Device())
	if err != nil {
		return nil, err
	}
	if err := copyTensor(out, ex); err != nil {
		return nil, err
	}
	return one(out.view(outShape, ContiguousStrides(outShape), 0))
}

// constantPad pads the last dims (pairs from the last dim back); negative
// pads crop.
func constantPad(t *Tensor, pad []int64, value any) (*Tensor, error) {
	if len(pad)%2 != 0 || len(pad)/2 > t.Dim() {
		return nil, fmt.Errorf("Length of pad must be even but instead it equals %d", len(pad))
	}
	shape := clone64(t.Shape)
	src := t
	dstLo := make([]int64, t.Dim())
	for i := 0; i < len(pad)/2; i++ {
		d := t.Dim() - 1 - i
		lo, hi := pad[2*i], pad[2*i+1]
		shape[d] = t.Shape[d] + lo + hi
		if shape[d] < 0 {
			return nil, fmt.Errorf("The input size %d, plus negative padding %d and %d resulted in a negative output size, which is invalid. Check dimension %d of your input.", t.Shape[d], lo, hi, d)
		}
		s, e := max(-lo, 0), t.Shape[d]-max(-hi, 0)
		src, _ = sliceView(src, int64(d), &s, &e, 1)
		dstLo[d] = max(lo, 0)
	}
	out, err := filled(t.DType, shape, nil, t.Device(), value)
	if err != nil {
		return nil, err
	}
	dst := out
	for d := range shape {
		s, e := dstLo[d], dstLo[d]+src.Shape[d]
		dst, _ = sliceView(dst, int64(d), &s, &e, 1)
	}
	return out, copyTensor(dst, src)
}

func kPad(c *call) ([]any, error) {
	t, pad, err := c.selfIntList("pad")
	if err != nil {
		return nil, err
	}
	if c.has("mode") {
		mode, err := c.str("mode")
		if err != nil {
			return nil, err
		}
		if mode != "" && mode != "constant" {
			return nil, fmt.Errorf("pad mode %q is not supported by the interpreter", mode)
		}
	}
	var value any = int64(0)
	if !c.isNone("value") {
		if value, err = c.scalar("value"); err != nil {
			return nil, err
		}
	}
	return oneT(constantPad(t, pad, value))
}

func kFlip(c *call) ([]any, error) {
	t, dims, err := c.selfIntList("dims")
	if err != nil {
		return nil, err
	}
	v := t.Alias()
	for _, d := range dims {
		w, err := wrapDim(d, t.Dim())
		if err != nil {
			return nil, err
		}
		if v.Shape[w] > 0 {
			v.Offset += (v.Shape[w] - 1) * v.Strides[w]
			v.Strides[w] = -v.Strides[w]
		}
	}
	return one(contiguous(v))
}

func kRoll(c *call) ([]any, error) {
	t, shifts, err := c.selfIntList("shifts")
	if err != nil {
		return nil, err
	}
	dims, err := c.intList("dims")
	if err != nil {
		return nil, err
	}
	cur := contiguous(t)
	if len(dims) == 0 {
		flat := cur.view([]int64{cur.Numel()}, []int64{1}, 0)
		r, err := rollDim(flat, shifts[0], 0)
		if err != nil {
			return nil, err
		}
		return one(r.view(clone64(t.Shape), ContiguousStrides(t.Shape), 0))
	}
	if len(shifts) != len(dims) {
		return nil, fmt.Errorf("shifts and dimensions must align. shifts: %d, dims:%d", len(shifts), len(dims))
	}
	for i, d := range dims {
		if cur, err = rollDim(cur, shifts[i], d); err != nil {
			return nil, err
		}
	}
	return one(cur)
}

func rollDim(t *Tensor, shift, dim int64) (*Tensor, error) {
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	n := t.Shape[d]
	if n == 0 {
		return t, nil
	}
	s := ((shift % n) + n) % n
	cut := n - s
	a, _ := sliceView(t, int64(d), &cut, nil, 1)
	zero := int64(0)
	b, _ := sliceView(t, int64(d), &zero, &cut, 1)
	return catTensors([]*Tensor{a, b}, int64(d))
}

// triangle is tril/triu over the last two dims.
func triangle(upper bool) kernel {
	return func(c *call) ([]any, error) {
		t, k, err := c.selfInt("diagonal")
		if err != nil {
			return nil, err
		}
		if t.Dim() < 2 {
			return nil, fmt.Errorf("tril/triu: input tensor must have at least 2 dimensions")
		}
		out := contiguous(t)
		rows, cols := t.Shape[t.Dim()-2], t.Shape[t.Dim()-1]
		zero := MustEmpty(t.DType)
		for i, o := range out.offsets() {
			r, col := (int64(i)/cols)%rows, int64(i)%cols
			keep := col-r <= k
			if upper {
				keep = col-r >= k
			}
			if !keep {
				sz := int64(t.DType.ItemSize())
				copy(out.Storage.Data[o*sz:(o+1)*sz], zero.Storage.Data)
			}
		}
		return one(out)
	}
}

// kSort is sort/argsort/topk: a stable sort along dim (NaN sorts as the
// largest value, as PyTorch does).
func kSort(c *call) ([]any, error) {
	t, d, err := c.selfInt("dim")
	if err != nil {
		return nil, err
	}
	desc := false
	if c.has("descending") {
		if desc, err = c.bool("descending"); err != nil {
			return nil, err
		}
	}
	k, sorted := int64(-1), true
	if c.has("k") {
		if k, err = c.int("k"); err != nil {
			return nil, err
		}
		largest, err := c.bool("largest")
		if err != nil {
			return nil, err
		}
		desc = largest
		if sorted, err = c.bool("sorted"); err != nil {
			return nil, err
		}
	}
	w, err := wrapDim(d, t.Dim())
	if err != nil {
		return nil, err
	}
	n := int64(1)
	if t.Dim() > 0 {
		n = t.Shape[w]
	}
	if k > n {
		return nil, fmt.Errorf("selected index k out of range")
	}
	stable := false // sort.stable's and argsort.stable's flag (None: False)
	if c.has("stable") {
		if v, err := c.val("stable"); err == nil {
			stable, _ = v.(bool)
		}
	}
	var idxLanes [][]int64
	vals, err := alongDim(t, d, ir.F64, func(xs []float64) []float64 {
		// PyTorch's CPU order, ties included: std::sort (std::stable_sort
		// when stable) for sort, topk_impl_loop's selection for topk, whose
		// first k are kept (the rest is sliced off below)
		var ix []int64
		if k >= 0 {
			ix = make([]int64, len(xs))
			copy(ix, rt.TopkRow(xs, int(k), desc, sorted))
		} else {
			ix = rt.SortRow(xs, desc, stable)
		}
		out := make([]float64, len(xs))
		for i, j := range ix {
			out[i] = xs[j]
		}
		idxLanes = append(idxLanes, ix)
		return out
	})
	if err != nil {
		return nil, err
	}
	idx, _ := alongDim(t, d, ir.I64, func(xs []float64) []float64 {
		ix := idxLanes[0]
		idxLanes = idxLanes[1:]
		out := make([]float64, len(ix))
		for i, v := range ix {
			out[i] = float64(v)
		}
		return out
	})
	values, err := toCopy(vals, t.DType, t.Device(), "")
	if err != nil {
		return nil, err
	}
	if k >= 0 && t.Dim() > 0 {
		zero := int64(0)
		values, _ = sliceView(values, int64(w), &zero, &k, 1)
		idx, _ = sliceView(idx, int64(w), &zero, &k, 1)
		values, idx = contiguous(values), contiguous(idx)
	}
	if c.op.Schema.Name == "argsort" {
		return one(idx)
	}
	return []any{values, idx}, nil
}

func init() {
	register(kCat, "cat", "stack")
	register(kRepeat, "repeat")
	register(kPad, "constant_pad_nd", "pad")
	register(kFlip, "flip")
	register(kRoll, "roll")
	register(triangle(false), "tril")
	register(triangle(true), "triu")
	register(kSort, "sort", "sort.stable", "argsort", "argsort.stable", "topk")
}
