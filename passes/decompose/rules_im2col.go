package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// im2col and col2im (F.unfold, F.fold, and each other's backward) after
// torch/_decomp decompositions.py im2col / col2im, which Inductor 2.15 runs
// (its decomposition table includes the core ATen ones).

// foldParams are the two-element kernel_size, dilation, padding, stride.
type foldParams struct{ k, d, p, s [2]int64 }

func (e *emitter) foldParams(c *ops.Call) (fp foldParams, ok bool) {
	for _, f := range []struct {
		name string
		dst  *[2]int64
		min  int64
	}{{"kernel_size", &fp.k, 1}, {"dilation", &fp.d, 1}, {"padding", &fp.p, 0}, {"stride", &fp.s, 1}} {
		v, err := c.Ints(f.name)
		if err != nil || len(v) != 2 || v[0] < f.min || v[1] < f.min {
			e.whole("%s is %v, not two constants >= %d", f.name, v, f.min)
			return fp, false
		}
		*f.dst = [2]int64{v[0], v[1]}
	}
	return fp, true
}

// blockIndices is _im2col_col2im_indices_along_dim for dim i of a padded
// size of in + 2p: arange(0, blocks, stride)[None, :] + arange(0, k·d,
// d)[:, None], [k, blocks]. blocks is the count of block positions.
func (e *emitter) blockIndices(fp foldParams, i int, in int64, dev ir.Device) (idx *ir.Value, blocks int64) {
	span := in + 2*fp.p[i] - fp.d[i]*(fp.k[i]-1)
	arange := func(end, step int64) *ir.Value {
		return e.arange([]ir.Arg{i64(0), i64(end), i64(step)}, ir.I64, dev)
	}
	starts := e.unsqueeze(arange(span, fp.s[i]), 0)
	taps := e.unsqueeze(arange(fp.k[i]*fp.d[i], fp.d[i]), 1)
	return e.both("add", starts, taps), (span + fp.s[i] - 1) / fp.s[i]
}

// im2col gathers x[:, :, rows, cols] into [N, C, k_h, k_w, n_h, n_w],
// reshaped (a view) to [N, C·k_h·k_w, n_h·n_w]; an unbatched input is
// unsqueezed and squeezed back. The decomposition pads x, gathers
// [N, C, k_h, n_h, k_w, n_w] and permutes; here the index tensors are
// laid out in the result's order (rows [k_h, 1, n_h, 1], cols [1, k_w, 1,
// n_w]) and padding is a mask (indices shifted by the padding, clamped,
// and where(in range, x[..], 0)), as Inductor computes a pad inside its
// consumer: the same values, one gather kernel and no copies.
func im2col(e *emitter, c *ops.Call) []*ir.Value {
	x := e.tensorArg(c, "self")
	fp, ok := e.foldParams(c)
	t := tensor(x)
	if !ok || e.err != nil || t == nil {
		return nil
	}
	unbatched := t.Rank() == 3
	if unbatched {
		x = e.unsqueeze(x, 0)
	}
	sizes, ok := constSizes(tensor(x))
	if !ok || len(sizes) != 4 {
		e.whole("a symbolic or non-4-d (batched) input")
		return nil
	}
	rows, nh := e.blockIndices(fp, 0, sizes[2], t.Device)
	cols, nw := e.blockIndices(fp, 1, sizes[3], t.Device)
	if nh <= 0 || nw <= 0 {
		e.whole("no sliding block fits")
		return nil
	}
	rows = e.unsqueeze(e.unsqueeze(rows, 1), 3) // [k_h, 1, n_h, 1]
	cols = e.unsqueeze(e.unsqueeze(cols, 0), 2) // [1, k_w, 1, n_w]
	rows, rowIn := e.unpad(rows, fp.p[0], sizes[2])
	cols, colIn := e.unpad(cols, fp.p[1], sizes[3])
	out := e.call("aten::_unsafe_index.Tensor", []ir.Arg{val(x), ir.ListArg(ir.NoneArg(), ir.NoneArg(), val(rows), val(cols))})
	if rowIn != nil || colIn != nil {
		out = e.where(e.and(rowIn, colIn), out, e.zeroLike(out))
	}
	out = e.call("aten::reshape.default", []ir.Arg{val(out), ir.ListArg(i64(sizes[0]), i64(sizes[1]*fp.k[0]*fp.k[1]), i64(nh*nw))})
	if unbatched {
		out = e.call("aten::squeeze.dim", []ir.Arg{val(out), i64(0)})
	}
	return []*ir.Value{out}
}

// unpad shifts padded positions by -p into a dim of size n: the index
// clamped to [0, n-1], and whether it was in range (nil without padding).
func (e *emitter) unpad(idx *ir.Value, p, n int64) (clamped, in *ir.Value) {
	if p == 0 {
		return idx, nil
	}
	idx = e.sub(val(idx), i64(p))
	in = e.and(e.cmp("ge", idx, i64(0)), e.cmp("lt", idx, i64(n)))
	clamped = e.call("aten::clamp.default", []ir.Arg{val(idx), i64(0), i64(n - 1)})
	return clamped, in
}

// col2im, in opmath: the columns reshaped to [N, C, k_h, k_w, n_h, n_w]
// and permuted to [N, C, k_h, n_h, k_w, n_w], added into zeros at [rows,
// cols] (_unsafe_index_put, accumulate: a serial scatter-add); an
// unbatched input is unsqueezed and squeezed back. The decomposition adds
// into zeros of the padded size and cuts the padding off; here the
// indices are shifted by the padding and clamped and the columns that
// fall in the padding add 0 (where), so the scatter writes the result
// itself: the same sums (an added 0 changes no value but -0), no slice
// copy.
func col2im(e *emitter, c *ops.Call) []*ir.Value {
	x := e.floatInput(c, "self")
	fp, ok := e.foldParams(c)
	osize, err := c.Ints("output_size")
	t := tensor(x)
	if !ok || e.err != nil || t == nil {
		return nil
	}
	if err != nil || len(osize) != 2 {
		e.whole("output_size is not two constants")
		return nil
	}
	unbatched := t.Rank() == 2
	if unbatched {
		x = e.unsqueeze(x, 0)
	}
	sizes, ok := constSizes(tensor(x))
	kk := fp.k[0] * fp.k[1]
	if !ok || len(sizes) != 3 || sizes[1]%kk != 0 {
		e.whole("a symbolic or non-3-d (batched) input, or channels not a multiple of the kernel's size")
		return nil
	}
	rows, nh := e.blockIndices(fp, 0, osize[0], t.Device)
	cols, nw := e.blockIndices(fp, 1, osize[1], t.Device)
	if nh*nw != sizes[2] {
		e.whole("%d columns for %dx%d blocks", sizes[2], nh, nw)
		return nil
	}
	n, ch := sizes[0], sizes[1]/kk
	vals := e.call("aten::reshape.default", []ir.Arg{val(x), ir.ListArg(i64(n), i64(ch), i64(fp.k[0]), i64(fp.k[1]), i64(nh), i64(nw))})
	vals = e.call("aten::permute.default", []ir.Arg{val(vals), ints(0, 1, 2, 4, 3, 5)})
	rows = e.unsqueeze(e.unsqueeze(rows, 2), 3) // [k_h, n_h, 1, 1]
	rows, rowIn := e.unpad(rows, fp.p[0], osize[0])
	cols, colIn := e.unpad(cols, fp.p[1], osize[1])
	if rowIn != nil || colIn != nil {
		vals = e.where(e.and(rowIn, colIn), vals, e.zeroLike(vals))
	}
	zeros := e.call("aten::new_zeros.default", []ir.Arg{val(x), ir.ListArg(i64(n), i64(ch), i64(osize[0]), i64(osize[1]))})
	out := e.call("aten::_unsafe_index_put.default", []ir.Arg{val(zeros), ir.ListArg(ir.NoneArg(), ir.NoneArg(), val(rows), val(cols)), val(vals), ir.BoolArg(true)})
	if unbatched {
		out = e.call("aten::squeeze.dim", []ir.Arg{val(out), i64(0)})
	}
	return []*ir.Value{e.castOut(out)}
}

// constSizes is t's shape as constants.
func constSizes(t *ir.TensorType) ([]int64, bool) {
	if t == nil {
		return nil, false
	}
	out := make([]int64, t.Rank())
	for i, s := range t.Shape {
		v, ok := s.Const()
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// and is logical_and of two masks (either may be nil: no condition), the
// form fusion recomputes at any ratio (bitwise_and it does not).
func (e *emitter) and(a, b *ir.Value) *ir.Value {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return e.call("aten::logical_and.default", []ir.Arg{val(a), val(b)})
}
