package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// rot90, _trilinear, the masked indexing ops of Inductor's decompositions
// (_unsafe_masked_index, _unsafe_masked_index_put_accumulate) and
// index_fill with a tensor value.

func init() {
	register(kRot90, "rot90")
	register(kTrilinear, "_trilinear")
	register(kMaskedIndex, "_unsafe_masked_index")
	register(kMaskedIndexPutAccumulate, "_unsafe_masked_index_put_accumulate")
	register(kIndexAddCopyFill, "index_fill.int_Tensor")
}

// kRot90 reads, for each output element, the input element the refs'
// flip + transpose composition puts there.
func kRot90(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	k, err := c.int("k")
	if err != nil {
		return nil, err
	}
	dims, err := c.intList("dims")
	if err != nil {
		return nil, err
	}
	if len(dims) != 2 || self.Dim() < 2 {
		return nil, fmt.Errorf("rot90: expected 2 rotation dims of a tensor of at least 2 dims, got dims %v of a %dD tensor", dims, self.Dim())
	}
	d0, d1, err := wrapDimPair(dims[0], dims[1], self.Dim())
	if err != nil {
		return nil, err
	}
	if d0 == d1 {
		return nil, fmt.Errorf("expected rotation dims to be different, but got dim0 = %d and dim1 = %d", d0, d1)
	}
	k = ((k % 4) + 4) % 4
	n0, n1 := self.Shape[d0], self.Shape[d1]
	shape := clone64(self.Shape)
	if k%2 == 1 {
		shape[d0], shape[d1] = n1, n0
	}
	return oneT(gatherBy(self, shape, func(out, in []int64) bool {
		copy(in, out)
		switch k {
		case 1:
			in[d0], in[d1] = out[d1], n1-1-out[d0]
		case 2:
			in[d0], in[d1] = n0-1-out[d0], n1-1-out[d1]
		case 3:
			in[d0], in[d1] = n0-1-out[d1], out[d0]
		}
		return true
	}))
}

// kTrilinear multiplies the three inputs, each unsqueezed at its expand
// dims and broadcast, and sums over sumdim.
func kTrilinear(c *call) ([]any, error) {
	var ins [3]*Tensor
	var err error
	for i, name := range []string{"i1", "i2", "i3"} {
		if ins[i], err = c.tensor(name); err != nil {
			return nil, err
		}
	}
	var exps [3][]int64
	for i, name := range []string{"expand1", "expand2", "expand3"} {
		if exps[i], err = c.intList(name); err != nil {
			return nil, err
		}
	}
	sum, err := c.intList("sumdim")
	if err != nil {
		return nil, err
	}
	total := ins[0].Dim() + len(exps[0])
	var shapes [3][]int64
	var vals [3][]float64
	for i := range ins {
		if ins[i].Dim()+len(exps[i]) != total {
			return nil, fmt.Errorf("_trilinear: input %d has %d dims and %d expanded dims, expected %d in all", i+1, ins[i].Dim(), len(exps[i]), total)
		}
		shapes[i] = unsqueezeAt(ins[i].Shape, exps[i], total)
		vals[i] = contiguous(ins[i]).Floats()
	}
	full, err := broadcastShapes(shapes[0], shapes[1], shapes[2])
	if err != nil {
		return nil, err
	}
	drop := make([]bool, total)
	var outShape []int64
	for _, d := range sum {
		drop[d] = true
	}
	for d, s := range full {
		if !drop[d] {
			outShape = append(outShape, s)
		}
	}
	var bstr [3][]int64
	for i := range ins {
		bstr[i] = broadcastStrides(shapes[i])
	}
	outStr := ContiguousStrides(outShape)
	acc := make([]float64, numel(outShape))
	err = eachIndex(full, func(idx []int64) error {
		p, o, j := 1.0, int64(0), 0
		for i := range ins {
			var off int64
			for d, x := range idx {
				off += x * bstr[i][d]
			}
			p *= vals[i][off]
		}
		for d, x := range idx {
			if !drop[d] {
				o += x * outStr[j]
				j++
			}
		}
		acc[o] += p
		return nil
	})
	if err != nil {
		return nil, err
	}
	return one(FromFloatsOn(ins[0].DType, outShape, acc, ins[0].Device()))
}

// unsqueezeAt inserts size-1 dims at the expand positions.
func unsqueezeAt(shape, expand []int64, total int) []int64 {
	at := make([]bool, total)
	for _, e := range expand {
		at[e] = true
	}
	out, j := make([]int64, total), 0
	for i := range out {
		out[i] = 1
		if !at[i] && j < len(shape) {
			out[i] = shape[j]
			j++
		}
	}
	return out
}

// broadcastStrides are row-major strides with 0 for size-1 dims.
func broadcastStrides(shape []int64) []int64 {
	st := ContiguousStrides(shape)
	for d, s := range shape {
		if s == 1 {
			st[d] = 0
		}
	}
	return st
}

// clampIndices clamps each index tensor to [lo(size), size-1] of the dim
// it indexes, as the decompositions do before the unchecked index.
func clampIndices(self *Tensor, indices []*Tensor, lo func(size int64) int64) []any {
	out := make([]any, len(indices))
	for i, ix := range indices {
		if ix == nil || i >= self.Dim() {
			if ix != nil {
				out[i] = ix
			}
			continue
		}
		vs := ix.Ints()
		for j, v := range vs {
			vs[j] = max(lo(self.Shape[i]), min(v, self.Shape[i]-1))
		}
		out[i] = FromInts(ix.DType, clone64(ix.Shape), vs)
	}
	return out
}

// notMask is ~mask of a bool tensor.
func notMask(mask *Tensor) (*Tensor, error) {
	if mask.DType != ir.Bool {
		return nil, fmt.Errorf("tensors used as masks must be bool tensors")
	}
	vs := mask.Ints()
	for i, v := range vs {
		vs[i] = 1 - v
	}
	return FromInts(ir.Bool, clone64(mask.Shape), vs), nil
}

// kMaskedIndex is self[clamp(indices, 0, size-1)].masked_fill(~mask, fill).
func kMaskedIndex(c *call) ([]any, error) {
	self, indices, err := selfAnd(c, c.tensors, "indices")
	if err != nil {
		return nil, err
	}
	mask, err := c.tensor("mask")
	if err != nil {
		return nil, err
	}
	inv, err := notMask(mask)
	if err != nil {
		return nil, err
	}
	fill, err := c.val("fill")
	if err != nil {
		return nil, err
	}
	var picked any
	if self.Numel() == 0 {
		// the decomposition's new_full of the indexed shape: no index is
		// read, so none is checked (eager returns the fill there too)
		shape, err := indexedShape(self, indices)
		if err != nil {
			return nil, err
		}
		if picked, err = Empty(self.DType, shape, nil, self.Device()); err != nil {
			return nil, err
		}
		inv = FromInts(ir.Bool, nil, []int64{1})
	} else {
		res, err := kIndex(c.with(map[string]any{"indices": clampIndices(self, indices, func(int64) int64 { return 0 })}))
		if err != nil {
			return nil, err
		}
		picked = res[0]
	}
	return kMaskedFill(c.with(map[string]any{"self": picked, "mask": inv, "value": fill}))
}

// kMaskedIndexPutAccumulate adds values.masked_fill(~mask, 0) into a
// clone of self at clamp(indices, -size, size-1).
func kMaskedIndexPutAccumulate(c *call) ([]any, error) {
	self, indices, err := selfAnd(c, c.tensors, "indices")
	if err != nil {
		return nil, err
	}
	mask, values, err := c.tensor2("mask", "values")
	if err != nil {
		return nil, err
	}
	inv, err := notMask(mask)
	if err != nil {
		return nil, err
	}
	if self.Numel() == 0 {
		return oneT(cloneAs(self, ""))
	}
	masked, err := kMaskedFill(c.with(map[string]any{"self": values, "mask": inv, "value": int64(0)}))
	if err != nil {
		return nil, err
	}
	clamped := clampIndices(self, indices, func(n int64) int64 { return -n })
	return kIndexPut(c.with(map[string]any{"indices": clamped, "values": masked[0], "accumulate": true}))
}

// indexedShape is the shape self[indices] has, without checking the
// indices' values.
func indexedShape(self *Tensor, indices []*Tensor) ([]int64, error) {
	expanded, err := expandMasks(self, indices)
	if err != nil {
		return nil, err
	}
	lay, err := layoutIndex(self, expanded)
	if err != nil || lay == nil {
		return clone64(self.Shape), err
	}
	return lay.shape, nil
}
