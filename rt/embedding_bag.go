package rt

import (
	"encoding/binary"
	"fmt"
)

// embedding_bag on the CPU, as aten/src/ATen/native/EmbeddingBag.cpp
// computes it (modes sum 0, mean 1, max 2), which Inductor runs as
// fallbacks (torch 2.15 lowering.py: make_fallback):
//
//   - forward: each bag's rows in index order, added in T (a per-sample
//     weight multiplies and adds as one fused step on fbgemm's fast path,
//     float32 without padding_idx; as two elsewhere), the mean divided by
//     max(bag_size, 1) at the end;
//     max keeps the first row and replaces on a strictly greater value.
//   - backward (sum, mean): index positions in the order of ATen's index
//     sort (std::sort, not stable), each adding axpy(scale, grad row) to its
//     weight row, scale = per-sample weight / bag_size computed in double and
//     rounded to T; max: each output element's gradient to its argmax row.
//
// The index outputs follow ATen's bookkeeping: offset2bag is empty on the
// fast sum path (float32 weight, no padding_idx; the meta type says so),
// bag_size counts the non-padding indices of each bag (zero in sum mode),
// and max_indices repeats bag_size except in max mode.

// msgBagIndex is ATen's message for an index past the table (ops'
// IndexBounds of _embedding_bag; interp and the CUDA kernels say the same).
const msgBagIndex = "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {index}"

type bagParams struct {
	mode, pad int64
	last      bool
}

func embeddingBagParams(op string, params map[string][]int64) (bagParams, error) {
	get := func(name string, def int64) (int64, error) { return intParam(op, params, name, def) }
	mode, err := get("mode", 0)
	if err != nil {
		return bagParams{}, err
	}
	pad, err := get("padding_idx", -1)
	if err != nil {
		return bagParams{}, err
	}
	last, err := get("include_last_offset", 0)
	if mode < 0 || mode > 2 {
		return bagParams{}, fmt.Errorf("%s: mode %d is not sum (0), mean (1) or max (2)", op, mode)
	}
	return bagParams{mode, pad, last != 0}, err
}

// loadInts gathers an integer tensor's elements (row-major) as int64.
func loadInts(t *Tensor) ([]int64, error) {
	b, err := t.Bytes()
	if err != nil {
		return nil, err
	}
	out := make([]int64, Numel(t.Shape))
	for i := range out {
		switch t.DType {
		case "i64":
			out[i] = int64(binary.LittleEndian.Uint64(b[i*8:]))
		case "i32":
			out[i] = int64(int32(binary.LittleEndian.Uint32(b[i*4:])))
		default:
			return nil, fmt.Errorf("indices of dtype %s, want i64 or i32", t.DType)
		}
	}
	return out, nil
}

// optFloats loads an optional float operand (nil when absent).
func optFloats[T float32 | float64](op, name string, t *Tensor) ([]T, error) {
	if t == nil {
		return nil, nil
	}
	v, err := loadAs[T](t)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, name, err)
	}
	return v, nil
}

// bagIndices loads indices and offsets (args 1 and 2).
func bagIndices(op string, args []*Tensor) (idx, offs []int64, err error) {
	if idx, err = loadInts(args[1]); err != nil {
		return nil, nil, fmt.Errorf("%s: indices: %w", op, err)
	}
	if offs, err = loadInts(args[2]); err != nil {
		return nil, nil, fmt.Errorf("%s: offsets: %w", op, err)
	}
	return idx, offs, nil
}

// storeInts writes row-major int64 values into an integer tensor's layout.
func storeInts(out *Tensor, vals []int64) error {
	sz := int64(ItemSize(out.DType))
	tmp := make([]byte, int64(len(vals))*sz)
	for i, v := range vals {
		switch out.DType {
		case "i64":
			binary.LittleEndian.PutUint64(tmp[int64(i)*8:], uint64(v))
		case "i32":
			binary.LittleEndian.PutUint32(tmp[int64(i)*4:], uint32(v))
		default:
			return fmt.Errorf("output of dtype %s, want i64 or i32", out.DType)
		}
	}
	return Copy(out.Data, sz, out.Shape, out.strides(), out.Offset, tmp, RowMajor(out.Shape), 0)
}

// bagsOf maps each index position to its bag (offsets[b] <= i <
// offsets[b+1], the last bag running to the end), checking the offsets.
func bagsOf(op string, offsets []int64, n, bags int64) ([]int64, error) {
	if bags < 0 || bags > int64(len(offsets)) || (len(offsets) > 0 && offsets[0] != 0) {
		return nil, fmt.Errorf("%s: offsets %v do not start bags at 0 for %d bags", op, offsets, bags)
	}
	out := make([]int64, n)
	for b := range bags {
		lo, hi := offsets[b], n
		if b+1 < int64(len(offsets)) {
			hi = offsets[b+1]
		}
		if lo < 0 || hi > n || lo > hi {
			return nil, fmt.Errorf("%s: offsets %v do not fit %d indices", op, offsets, n)
		}
		for i := lo; i < hi; i++ {
			out[i] = b
		}
	}
	return out, nil
}

// embeddingBag is aten::_embedding_bag and _embedding_bag_forward_only:
// args weight, indices, offsets, per_sample_weights (nil when absent);
// outs output, offset2bag, bag_size, max_indices (nil when unread).
func embeddingBag[T float32 | float64](op string, outs, args []*Tensor, params map[string][]int64) error {
	p, err := embeddingBagParams(op, params)
	if err != nil {
		return err
	}
	if len(args) != 4 || args[0] == nil || args[1] == nil || args[2] == nil || len(outs) != 4 {
		return fmt.Errorf("%s: want weight, indices, offsets, per_sample_weights and four outputs", op)
	}
	w := args[0]
	if len(w.Shape) != 2 {
		return fmt.Errorf("%s: weight %v is not 2-d", op, w.Shape)
	}
	nw, d := w.Shape[0], w.Shape[1]
	wv, err := loadAs[T](w)
	if err != nil {
		return fmt.Errorf("%s: weight: %w", op, err)
	}
	idx, offs, err := bagIndices(op, args)
	if err != nil {
		return err
	}
	psw, err := optFloats[T](op, "per_sample_weights", args[3])
	if err != nil {
		return err
	}
	bags := int64(len(offs))
	if p.last {
		bags--
	}
	bag, err := bagsOf(op, offs, int64(len(idx)), bags)
	if err != nil {
		return err
	}
	// fbgemm's fast path multiplies and adds in one step; ATen's own
	// loop (padding_idx, float64) multiplies, then adds
	_, f32 := any(T(0)).(float32)
	fastSum := f32 && p.pad < 0
	out := make([]T, bags*d)
	maxRows := make([]int64, bags*d)
	count := make([]int64, bags)
	for i, row := range idx {
		if row < 0 || row >= nw {
			return IndexError(msgBagIndex, row, nw)
		}
		if row == p.pad {
			continue
		}
		b := bag[i]
		first := count[b] == 0
		count[b]++
		for k := range d {
			v, o := wv[row*d+k], b*d+k
			switch {
			case p.mode == 2:
				if first || v > out[o] {
					out[o], maxRows[o] = v, row
				}
			case psw != nil && fastSum:
				out[o] = fmaT(psw[i], v, out[o])
			case psw != nil:
				out[o] += v * psw[i]
			default:
				out[o] += v
			}
		}
	}
	if p.mode == 1 {
		for o := range out {
			out[o] /= T(max(count[int64(o)/max(d, 1)], 1))
		}
	}
	if outs[0] != nil {
		if err := storeAs(outs[0], out); err != nil {
			return fmt.Errorf("%s: output: %w", op, err)
		}
	}
	return embeddingBagIndexOutputs(op, outs, p, bag, count, maxRows)
}

// embeddingBagIndexOutputs writes offset2bag, bag_size and max_indices at
// the sizes the outputs were given (their meta types).
func embeddingBagIndexOutputs(op string, outs []*Tensor, p bagParams, bag, count, maxRows []int64) error {
	sizes := make([]int64, 0, len(count))
	for _, c := range count {
		sizes = append(sizes, c*min(p.mode, 1)) // zero in sum mode
	}
	maxes := sizes
	if p.mode == 2 {
		maxes = maxRows
	}
	for i, vals := range [][]int64{bag, sizes, maxes} {
		o := outs[i+1]
		if o == nil {
			continue
		}
		// the meta type decides: offset2bag is empty on the fast path,
		// forward_only's bag_size has a zero for the closing offset
		n := Numel(o.Shape)
		v := make([]int64, n)
		copy(v, vals)
		if err := storeInts(o, v); err != nil {
			return fmt.Errorf("%s: output %d: %w", op, i+1, err)
		}
	}
	return nil
}

// embeddingBagBackward is aten::_embedding_bag_backward's dense gradient:
// args grad, indices, offsets, offset2bag, bag_size, maximum_indices,
// per_sample_weights (nil when absent); params num_weights, mode,
// padding_idx.
func embeddingBagBackward[T float32 | float64](op string, out *Tensor, args []*Tensor, params map[string][]int64) error {
	p, err := embeddingBagParams(op, params)
	if err != nil {
		return err
	}
	if len(args) != 7 || args[0] == nil || args[1] == nil || args[2] == nil {
		return fmt.Errorf("%s: want grad, indices, offsets, offset2bag, bag_size, maximum_indices and per_sample_weights", op)
	}
	g := args[0]
	if len(g.Shape) != 2 || len(out.Shape) != 2 || out.Shape[1] != g.Shape[1] {
		return fmt.Errorf("%s: grad %v and output %v are not [bags, D] and [num_weights, D]", op, g.Shape, out.Shape)
	}
	nw, d := out.Shape[0], g.Shape[1]
	gv, err := loadAs[T](g)
	if err != nil {
		return fmt.Errorf("%s: grad: %w", op, err)
	}
	gw := make([]T, nw*d)
	var sizes []int64
	if p.mode != 0 {
		if args[4] == nil {
			return fmt.Errorf("%s: mean and max modes need bag_size", op)
		}
		if sizes, err = loadInts(args[4]); err != nil || int64(len(sizes)) < g.Shape[0] {
			return fmt.Errorf("%s: bag_size %v does not fit %d bags (%v)", op, args[4].Shape, g.Shape[0], err)
		}
	}
	if p.mode == 2 {
		if err := maxBagBackward(op, gw, gv, args[5], sizes, nw, d); err != nil {
			return err
		}
		return storeAs(out, gw)
	}
	idx, offs, err := bagIndices(op, args)
	if err != nil {
		return err
	}
	bag, err := bagsOf(op, offs, int64(len(idx)), g.Shape[0])
	if err != nil {
		return err
	}
	psw, err := optFloats[T](op, "per_sample_weights", args[6])
	if err != nil {
		return err
	}
	keys := make([]float64, len(idx))
	for i, r := range idx {
		keys[i] = float64(r)
	}
	for _, i := range SortRow(keys, false, false) {
		row := idx[i]
		if row == p.pad {
			continue
		}
		if row < 0 || row >= nw {
			return IndexError(msgBagIndex, row, nw)
		}
		scale := 1.0
		if psw != nil {
			scale = float64(psw[i])
		}
		if p.mode == 1 && sizes[bag[i]] != 0 {
			scale /= float64(sizes[bag[i]])
		}
		a, src, dst := T(scale), gv[bag[i]*d:(bag[i]+1)*d], gw[row*d:(row+1)*d]
		for k := range dst {
			dst[k] = fmaT(a, src[k], dst[k])
		}
	}
	return storeAs(out, gw)
}

// maxBagBackward adds each output element's gradient to its argmax row,
// bag by bag, skipping empty bags (their max_indices are 0, not a row).
func maxBagBackward[T float32 | float64](op string, gw, gv []T, maxIdx *Tensor, sizes []int64, nw, d int64) error {
	if maxIdx == nil {
		return fmt.Errorf("%s: max mode needs maximum_indices", op)
	}
	rows, err := loadInts(maxIdx)
	if err != nil || len(rows) != len(gv) {
		return fmt.Errorf("%s: maximum_indices %v does not fit grad (%v)", op, maxIdx.Shape, err)
	}
	for o, row := range rows {
		if sizes[int64(o)/max(d, 1)] == 0 {
			continue
		}
		if row < 0 || row >= nw {
			return fmt.Errorf("%s: maximum index %d out of range for %d rows", op, row, nw)
		}
		gw[row*d+int64(o)%d] += gv[o]
	}
	return nil
}
