package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// Index maps shared by the structural nn kernels (padding, upsampling,
// rot90, im2col, masked indexing): each output element is one input
// element, copied as bytes so every dtype (complex included) is exact;
// their backward sums the gradient over the same map.

// gatherBy builds a contiguous tensor of src's dtype and the given shape;
// the element at out is src's element at the index from writes into in,
// or zero when from returns false.
func gatherBy(src *Tensor, shape []int64, from func(out, in []int64) bool) (*Tensor, error) {
	res, err := Empty(src.DType, shape, nil, src.Device())
	if err != nil {
		return nil, err
	}
	sz := int64(src.DType.ItemSize())
	in := make([]int64, src.Dim())
	var lin int64
	err = eachIndex(shape, func(out []int64) error {
		defer func() { lin++ }()
		if !from(out, in) {
			return nil
		}
		off := src.Offset
		for d, i := range in {
			if i < 0 || i >= src.Shape[d] {
				return fmt.Errorf("index %d is out of bounds for dimension %d with size %d", i, d, src.Shape[d])
			}
			off += i * src.Strides[d]
		}
		copy(res.Storage.Data[lin*sz:(lin+1)*sz], src.Storage.Data[off*sz:(off+1)*sz])
		return nil
	})
	return res, err
}

// scatterAddBy sums grad's elements into a zero tensor of the given shape
// and dtype: grad's element at g goes to the index to writes into out
// (nowhere when to returns false). Accumulation is in float64.
func scatterAddBy(grad *Tensor, dt ir.DType, shape []int64, to func(g, out []int64) bool) (*Tensor, error) {
	if grad.DType.IsComplex() {
		return nil, fmt.Errorf("complex gradients are not supported by this kernel")
	}
	strides := ContiguousStrides(shape)
	acc := make([]float64, numel(shape))
	vals := contiguous(grad).Floats()
	out := make([]int64, len(shape))
	var lin int64
	err := eachIndex(grad.Shape, func(g []int64) error {
		defer func() { lin++ }()
		if !to(g, out) {
			return nil
		}
		var o int64
		for d, i := range out {
			if i < 0 || i >= shape[d] {
				return fmt.Errorf("index %d is out of bounds for dimension %d with size %d", i, d, shape[d])
			}
			o += i * strides[d]
		}
		acc[o] += vals[lin]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return FromFloatsOn(dt, shape, acc, grad.Device()), nil
}

// eachIndex calls f with every index of shape in row-major order (the
// slice is reused between calls).
func eachIndex(shape []int64, f func(idx []int64) error) error {
	if numel(shape) == 0 {
		return nil
	}
	idx := make([]int64, len(shape))
	for {
		if err := f(idx); err != nil {
			return err
		}
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}
