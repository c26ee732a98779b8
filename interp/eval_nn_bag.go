package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// embedding_bag (sum 0, mean 1, max 2) and its backward, after
// aten/src/ATen/native/EmbeddingBag.cpp on the CPU: the fast sum path
// (float weight, no padding_idx) leaves offset2bag empty and bag_size and
// max_indices zero; otherwise offset2bag is each index's bag, bag_size the
// bag's count and max_indices bag_size (mean, sum) or the argmax rows (max).

func init() {
	register(kEmbeddingBag, "_embedding_bag", "_embedding_bag_forward_only")
	register(kEmbeddingBagBackward, "_embedding_bag_backward", "_embedding_bag_dense_backward")
	register(kEmbeddingBagPSWBackward, "_embedding_bag_per_sample_weights_backward")
}

// bagOf maps each index position to its bag from offsets (the last offset
// closing the last bag with include_last_offset).
func bagOf(offsets []int64, n int64, bags int64) ([]int64, error) {
	out := make([]int64, n)
	for b := int64(0); b < bags; b++ {
		lo, hi := offsets[b], n
		if b+1 < int64(len(offsets)) {
			hi = offsets[b+1]
		}
		if lo < 0 || hi > n || lo > hi {
			return nil, fmt.Errorf("embedding_bag: offsets %v do not fit %d indices", offsets, n)
		}
		for i := lo; i < hi; i++ {
			out[i] = b
		}
	}
	return out, nil
}

func kEmbeddingBag(c *call) ([]any, error) {
	w, idxT, err := c.tensor2("weight", "indices")
	if err != nil {
		return nil, err
	}
	offT, err := c.tensor("offsets")
	if err != nil {
		return nil, err
	}
	psw, err := c.optTensor("per_sample_weights")
	if err != nil {
		return nil, err
	}
	vals, err := c.ints("mode", "padding_idx")
	if err != nil {
		return nil, err
	}
	mode, pad := vals[0], vals[1]
	last, err := c.bool("include_last_offset")
	if err != nil {
		return nil, err
	}
	if w.Dim() != 2 {
		return nil, fmt.Errorf("embedding_bag: expected a 2D weight, got %v", w.Shape)
	}
	idx, offs := contiguous(idxT).Ints(), contiguous(offT).Ints()
	n, d := int64(len(idx)), w.Shape[1]
	bags := int64(len(offs))
	if last {
		bags--
	}
	bag, err := bagOf(offs, n, bags)
	if err != nil {
		return nil, err
	}
	ws, ps := contiguous(w).Floats(), floatsOrNil(psw)
	out := make([]float64, bags*d)
	count := make([]float64, bags)
	maxIdx := make([]float64, bags*d)
	seen := make([]bool, bags*d)
	for i, row := range idx {
		if _, err := ops.MustIndexBounds(c.op.QualifiedName()).Check(row, w.Shape[0], 0); err != nil {
			return nil, err
		}
		if row == pad {
			continue
		}
		b := bag[i]
		count[b]++
		for k := int64(0); k < d; k++ {
			v := ws[row*d+k]
			o := b*d + k
			switch mode {
			case 2:
				if !seen[o] || v > out[o] {
					out[o], maxIdx[o], seen[o] = v, float64(row), true
				}
			default:
				if ps != nil {
					v *= ps[i]
				}
				out[o] += v
			}
		}
	}
	if mode == 1 {
		for o := range out {
			if c := count[int64(o)/max(d, 1)]; c > 0 {
				out[o] /= c
			}
		}
	}
	fastSum := mode == 0 && (w.DType == ir.F32 || w.DType == ir.F16) && pad < 0
	dev := w.Device()
	o2b := make([]int64, 0, n)
	sizes := make([]int64, bags)
	if !fastSum {
		o2b = bag
	}
	if mode != 0 { // ATen zeroes bag_size in sum mode ("make bag_size output deterministic")
		for b, c := range count {
			sizes[b] = int64(c)
		}
	}
	if c.op.Schema.Name == "_embedding_bag_forward_only" {
		sizes = append(sizes, make([]int64, int64(len(offs))-bags)...)
	}
	maxes := append([]int64{}, sizes[:bags]...)
	maxShape := []int64{bags}
	if mode == 2 {
		maxShape = []int64{bags, d}
		maxes = make([]int64, bags*d)
		for i, v := range maxIdx {
			maxes[i] = int64(v)
		}
	}
	res := []any{FromFloatsOn(w.DType, []int64{bags, d}, out, dev)}
	for _, t := range []struct {
		shape []int64
		vals  []int64
	}{{[]int64{int64(len(o2b))}, o2b}, {[]int64{int64(len(sizes))}, sizes}, {maxShape, maxes}} {
		r := FromInts(offT.DType, t.shape, t.vals)
		r.Storage.Device = dev
		res = append(res, r)
	}
	return res, nil
}

// bagGradArgs reads what both backward kernels need.
func bagGradArgs(c *call) (g *Tensor, idx, bag []int64, err error) {
	g, err = c.tensor("grad")
	if err != nil {
		return nil, nil, nil, err
	}
	idxT, err := c.tensor("indices")
	if err != nil {
		return nil, nil, nil, err
	}
	idx = contiguous(idxT).Ints()
	if c.has("offsets") {
		offT, err := c.tensor("offsets")
		if err != nil {
			return nil, nil, nil, err
		}
		bag, err = bagOf(contiguous(offT).Ints(), int64(len(idx)), g.Shape[0])
		return g, idx, bag, err
	}
	o2b, err := c.tensor("offset2bag")
	if err != nil {
		return nil, nil, nil, err
	}
	return g, idx, contiguous(o2b).Ints(), nil
}

func kEmbeddingBagBackward(c *call) ([]any, error) {
	g, idx, bag, err := bagGradArgs(c)
	if err != nil {
		return nil, err
	}
	vals, err := c.ints("num_weights", "mode", "padding_idx")
	if err != nil {
		return nil, err
	}
	nw, mode, pad := vals[0], vals[1], vals[2]
	if scale, err := c.bool("scale_grad_by_freq"); err != nil || scale {
		return nil, fmt.Errorf("embedding_bag_backward: scale_grad_by_freq is not supported by the interpreter")
	}
	psw, err := c.optTensor("per_sample_weights")
	if err != nil {
		return nil, err
	}
	if g.Dim() != 2 {
		return nil, fmt.Errorf("embedding_bag_backward: expected a 2D grad, got %v", g.Shape)
	}
	d := g.Shape[1]
	gs, ps := contiguous(g).Floats(), floatsOrNil(psw)
	out := make([]float64, nw*d)
	if mode == 2 {
		mi, err := c.tensor("maximum_indices")
		if err != nil {
			return nil, err
		}
		bs, err := c.tensor("bag_size")
		if err != nil {
			return nil, err
		}
		sizes := contiguous(bs).Ints()
		for o, row := range contiguous(mi).Ints() {
			// an empty bag's max_indices is 0, not a row: ATen skips it
			if b := int64(o) / max(d, 1); b < int64(len(sizes)) && sizes[b] == 0 {
				continue
			}
			if row >= 0 && row < nw && int64(o) < int64(len(gs)) {
				out[row*d+int64(o)%d] += gs[o]
			}
		}
		return one(FromFloatsOn(g.DType, []int64{nw, d}, out, g.Device()))
	}
	count := make([]float64, g.Shape[0])
	for i, row := range idx {
		if row != pad {
			count[bag[i]]++
		}
	}
	for i, row := range idx {
		if row == pad || row < 0 || row >= nw {
			continue
		}
		scale := 1.0
		if ps != nil {
			scale = ps[i]
		}
		if mode == 1 {
			scale /= math.Max(count[bag[i]], 1)
		}
		for k := int64(0); k < d; k++ {
			out[row*d+k] += gs[bag[i]*d+k] * scale
		}
	}
	return one(FromFloatsOn(g.DType, []int64{nw, d}, out, g.Device()))
}

// kEmbeddingBagPSWBackward is each index's grad row · weight row (sum mode).
func kEmbeddingBagPSWBackward(c *call) ([]any, error) {
	g, idx, bag, err := bagGradArgs(c)
	if err != nil {
		return nil, err
	}
	w, err := c.tensor("weight")
	if err != nil {
		return nil, err
	}
	pad, err := c.int("padding_idx")
	if err != nil {
		return nil, err
	}
	d := g.Shape[1]
	gs, ws := contiguous(g).Floats(), contiguous(w).Floats()
	out := make([]float64, len(idx))
	for i, row := range idx {
		if row == pad {
			continue
		}
		for k := int64(0); k < d; k++ {
			out[i] += gs[bag[i]*d+k] * ws[row*d+k]
		}
	}
	return one(FromFloatsOn(g.DType, []int64{int64(len(idx))}, out, g.Device()))
}
