package interp

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// View ops, after aten/src/ATen/native/TensorShape.cpp: each returns a new
// tensor over its input's storage with its own sizes, strides and storage
// offset; nothing is copied. The *_copy variants are derived (eval.go).

// inferSize resolves one -1 in a view size and checks the element count.
func inferSize(size []int64, numel int64) ([]int64, error) {
	out := clone64(size)
	infer, known := -1, int64(1)
	for i, s := range size {
		switch {
		case s == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("only one dimension can be inferred")
			}
			infer = i
		case s < 0:
			return nil, fmt.Errorf("invalid shape dimension %d", s)
		default:
			known *= s
		}
	}
	if infer >= 0 {
		if known == 0 || numel%known != 0 {
			return nil, fmt.Errorf("shape '%s' is invalid for input of size %d", ints(size), numel)
		}
		out[infer] = numel / known
		known *= out[infer]
	}
	if known != numel {
		return nil, fmt.Errorf("shape '%s' is invalid for input of size %d", ints(size), numel)
	}
	return out, nil
}

// computeStride is ATen's computeStride: the strides that view a tensor of
// oldShape/oldStride as newShape without copying, or nil when the new
// shape splits a dimension that is not contiguous.
func computeStride(oldShape, oldStride, newShape []int64) []int64 {
	if numel(oldShape) == 0 {
		if equal64(oldShape, newShape) {
			return clone64(oldStride)
		}
		return ContiguousStrides(newShape)
	}
	newStride := make([]int64, len(newShape))
	if len(oldShape) == 0 {
		for i := range newStride {
			newStride[i] = 1
		}
		return newStride
	}
	viewD := len(newShape) - 1
	chunkBase := oldStride[len(oldStride)-1]
	tensorNumel, viewNumel := int64(1), int64(1)
	for d := len(oldShape) - 1; d >= 0; d-- {
		tensorNumel *= oldShape[d]
		if d == 0 || oldShape[d-1] != 1 && oldStride[d-1] != tensorNumel*chunkBase {
			for viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1) {
				newStride[viewD] = viewNumel * chunkBase
				viewNumel *= newShape[viewD]
				viewD--
			}
			if viewNumel != tensorNumel {
				return nil
			}
			if d > 0 {
				chunkBase = oldStride[d-1]
				tensorNumel, viewNumel = 1, 1
			}
		}
	}
	if viewD != -1 {
		return nil
	}
	return newStride
}

// viewShape is aten::view.
func viewShape(t *Tensor, size []int64) (*Tensor, error) {
	shape, err := inferSize(size, t.Numel())
	if err != nil {
		return nil, err
	}
	st := computeStride(t.Shape, t.Strides, shape)
	if st == nil {
		return nil, fmt.Errorf("view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
	}
	return t.view(shape, st, t.Offset), nil
}

// reshape is a view when the strides allow one, else a contiguous copy.
func reshape(t *Tensor, size []int64) (*Tensor, error) {
	shape, err := inferSize(size, t.Numel())
	if err != nil {
		return nil, err
	}
	if st := computeStride(t.Shape, t.Strides, shape); st != nil {
		return t.view(shape, st, t.Offset), nil
	}
	c := contiguous(t)
	return c.view(shape, ContiguousStrides(shape), 0), nil
}

// viewDType is aten::view.dtype: the same bytes read as another dtype. For
// different item sizes the last dim must be contiguous, and its size, the
// other strides and the storage offset scale by the size ratio.
func viewDType(t *Tensor, dt ir.DType) (*Tensor, error) {
	old, nw := int64(t.DType.ItemSize()), int64(dt.ItemSize())
	if old == nw {
		v := t.Alias()
		v.DType = dt
		return v, nil
	}
	desc := fmt.Sprintf("to view %s as %s (different element sizes)", scalarTypeName(t.DType), scalarTypeName(dt))
	if t.Dim() == 0 {
		return nil, fmt.Errorf("self.dim() cannot be 0 %s", desc)
	}
	last := t.Dim() - 1
	if t.Strides[last] != 1 {
		return nil, fmt.Errorf("self.stride(-1) must be 1 %s, but got %d", desc, t.Strides[last])
	}
	shape, strides := clone64(t.Shape), clone64(t.Strides)
	offset := t.Offset
	if nw > old {
		ratio := nw / old
		if shape[last]%ratio != 0 {
			return nil, fmt.Errorf("self.size(-1) must be divisible by %d %s, but got %d", ratio, desc, shape[last])
		}
		if offset%ratio != 0 {
			return nil, fmt.Errorf("self.storage_offset() must be divisible by %d %s, but got %d", ratio, desc, offset)
		}
		for i := 0; i < last; i++ {
			if strides[i]%ratio != 0 {
				return nil, fmt.Errorf("self.stride(%d) must be divisible by %d %s, but got %d", i, ratio, desc, strides[i])
			}
			strides[i] /= ratio
		}
		shape[last] /= ratio
		offset /= ratio
	} else {
		ratio := old / nw
		for i := 0; i < last; i++ {
			strides[i] *= ratio
		}
		shape[last] *= ratio
		offset *= ratio
	}
	return &Tensor{DType: dt, Shape: shape, Strides: strides, Offset: offset, Storage: t.Storage}, nil
}

// permute reorders dims.
func permute(t *Tensor, dims []int64) (*Tensor, error) {
	if len(dims) != t.Dim() {
		return nil, fmt.Errorf("permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", t.Dim(), len(dims))
	}
	shape, strides := make([]int64, len(dims)), make([]int64, len(dims))
	seen := make([]bool, len(dims))
	for i, d := range dims {
		w, err := wrapDim(d, t.Dim())
		if err != nil {
			return nil, err
		}
		if seen[w] {
			return nil, fmt.Errorf("permute(): duplicate dims are not allowed.")
		}
		seen[w] = true
		shape[i], strides[i] = t.Shape[w], t.Strides[w]
	}
	return t.view(shape, strides, t.Offset), nil
}

// transposeDims swaps two dims (a 0-dim tensor accepts 0 and -1).
func transposeDims(t *Tensor, d0, d1 int64) (*Tensor, error) {
	a, b, err := wrapDimPair(d0, d1, t.Dim())
	if err != nil {
		return nil, err
	}
	shape, strides := clone64(t.Shape), clone64(t.Strides)
	if t.Dim() > 0 {
		shape[a], shape[b] = shape[b], shape[a]
		strides[a], strides[b] = strides[b], strides[a]
	}
	return t.view(shape, strides, t.Offset), nil
}

// expand broadcasts size-1 dims (stride 0) and prepends new ones.
func expand(t *Tensor, size []int64) (*Tensor, error) {
	if len(size) < t.Dim() {
		return nil, fmt.Errorf("expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
			"torch.FloatTensor", strings.Trim(ints(t.Shape), "[]"), ints(size), len(size), t.Dim())
	}
	lead := len(size) - t.Dim()
	shape, strides := make([]int64, len(size)), make([]int64, len(size))
	for i, s := range size {
		j := i - lead
		if j < 0 {
			if s < 0 {
				return nil, fmt.Errorf("The expanded size of the tensor (%d) isn't allowed in a leading, non-existing dimension %d", s, i)
			}
			shape[i] = s
			continue
		}
		switch {
		case s == -1 || s == t.Shape[j]:
			shape[i], strides[i] = t.Shape[j], t.Strides[j]
		case t.Shape[j] == 1 && s >= 0:
			shape[i] = s
		default:
			return nil, fmt.Errorf("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
				s, t.Shape[j], i, ints(size), ints(t.Shape))
		}
	}
	return t.view(shape, strides, t.Offset), nil
}

// sliceView is aten::slice: start and end clamp into [0, size].
func sliceView(t *Tensor, dim int64, start, end *int64, step int64) (*Tensor, error) {
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	if t.Dim() == 0 {
		return nil, fmt.Errorf("slice() cannot be applied to a 0-dim tensor.")
	}
	if step <= 0 {
		return nil, fmt.Errorf("slice step must be positive")
	}
	size := t.Shape[d]
	s, e := int64(0), size
	if start != nil {
		s = *start
	}
	if end != nil {
		e = *end
	}
	if s < 0 {
		s += size
	}
	if e < 0 {
		e += size
	}
	s = min(max(s, 0), size)
	e = min(max(e, s), size)
	shape, strides := clone64(t.Shape), clone64(t.Strides)
	shape[d] = (e - s + step - 1) / step
	strides[d] *= step
	return t.view(shape, strides, t.Offset+s*t.Strides[d]), nil
}

// selectView is aten::select.int.
func selectView(t *Tensor, dim, index int64) (*Tensor, error) {
	if t.Dim() == 0 {
		return nil, fmt.Errorf("select() cannot be applied to a 0-dim tensor.")
	}
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	size := t.Shape[d]
	if index < -size || index >= size {
		return nil, fmt.Errorf("select(): index %d out of range for tensor of size %s at dimension %d", index, ints(t.Shape), d)
	}
	if index < 0 {
		index += size
	}
	shape := append(clone64(t.Shape[:d]), t.Shape[d+1:]...)
	strides := append(clone64(t.Strides[:d]), t.Strides[d+1:]...)
	return t.view(shape, strides, t.Offset+index*t.Strides[d]), nil
}

// squeezeDims drops the listed size-1 dims (all size-1 dims when nil).
func squeezeDims(t *Tensor, dims []int64) (*Tensor, error) {
	drop := make([]bool, t.Dim())
	if dims == nil {
		for i, s := range t.Shape {
			drop[i] = s == 1
		}
	}
	for _, d := range dims {
		w, err := wrapDim(d, t.Dim())
		if err != nil {
			return nil, err
		}
		if t.Dim() > 0 && t.Shape[w] == 1 {
			drop[w] = true
		}
	}
	var shape, strides []int64
	for i := range t.Shape {
		if !drop[i] {
			shape = append(shape, t.Shape[i])
			strides = append(strides, t.Strides[i])
		}
	}
	return t.view(nz(shape), nz(strides), t.Offset), nil
}

func nz(xs []int64) []int64 {
	if xs == nil {
		return []int64{}
	}
	return xs
}

// unsqueeze inserts a size-1 dim.
func unsqueeze(t *Tensor, dim int64) (*Tensor, error) {
	d, err := wrapDim(dim, t.Dim()+1)
	if err != nil {
		return nil, err
	}
	st := int64(1)
	if d < t.Dim() {
		st = t.Shape[d] * t.Strides[d]
	}
	shape := append(append(clone64(t.Shape[:d]), 1), t.Shape[d:]...)
	strides := append(append(clone64(t.Strides[:d]), st), t.Strides[d:]...)
	return t.view(shape, strides, t.Offset), nil
}

// diagonal is aten::diagonal: dims dim1 and dim2 become one trailing dim
// with stride stride1+stride2.
func diagonal(t *Tensor, offset, dim1, dim2 int64) (*Tensor, error) {
	a, b, err := wrapDimPair(dim1, dim2, t.Dim())
	if err != nil {
		return nil, err
	}
	if a == b {
		return nil, fmt.Errorf("diagonal dimensions cannot be identical %d, %d", dim1, dim2)
	}
	var size int64
	off := t.Offset
	if offset >= 0 {
		size = max(min(t.Shape[a], t.Shape[b]-offset), 0)
	} else {
		size = max(min(t.Shape[a]+offset, t.Shape[b]), 0)
	}
	if size > 0 {
		if offset >= 0 {
			off += offset * t.Strides[b]
		} else {
			off -= offset * t.Strides[a]
		}
	}
	var shape, strides []int64
	for i := range t.Shape {
		if i != a && i != b {
			shape = append(shape, t.Shape[i])
			strides = append(strides, t.Strides[i])
		}
	}
	shape = append(shape, size)
	strides = append(strides, t.Strides[a]+t.Strides[b])
	return t.view(shape, strides, off), nil
}

// unfold is Tensor.unfold: windows of size along dim, every step.
func unfold(t *Tensor, dim, size, step int64) (*Tensor, error) {
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	if step <= 0 {
		return nil, fmt.Errorf("step is %d but must be > 0", step)
	}
	dimSize := int64(1)
	if t.Dim() > 0 {
		dimSize = t.Shape[d]
	}
	if size > dimSize {
		return nil, fmt.Errorf("maximum size for tensor at dimension %d is %d but size is %d", d, dimSize, size)
	}
	shape, strides := clone64(t.Shape), clone64(t.Strides)
	stride := int64(1)
	if t.Dim() > 0 {
		stride = t.Strides[d]
		shape[d] = (dimSize-size)/step + 1
		strides[d] *= step
	}
	return t.view(append(shape, size), append(strides, stride), t.Offset), nil
}

// splitSizes cuts dim into pieces of the given sizes.
func splitSizes(t *Tensor, sizes []int64, dim int64) ([]any, error) {
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	var sum int64
	for _, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%s", ints(sizes))
		}
		sum += s
	}
	if sum != t.Shape[d] {
		return nil, fmt.Errorf("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%s",
			t.Shape[d], d, ints(sizes))
	}
	out := make([]any, len(sizes))
	start := int64(0)
	for i, s := range sizes {
		shape := clone64(t.Shape)
		shape[d] = s
		out[i] = t.view(shape, clone64(t.Strides), t.Offset+start*t.Strides[d])
		start += s
	}
	return out, nil
}

// splitEven cuts dim into pieces of size (the last may be smaller).
func splitEven(t *Tensor, size, dim int64) ([]any, error) {
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	n := t.Shape[d]
	if size < 0 || size == 0 && n != 0 {
		return nil, fmt.Errorf("split_size can only be 0 if dimension size is 0, but got dimension size of %d", n)
	}
	pieces := int64(1)
	if size > 0 {
		pieces = max((n+size-1)/size, 1)
	}
	sizes := make([]int64, pieces)
	for i := range sizes {
		sizes[i] = min(size, n-int64(i)*size)
	}
	return splitSizes(t, sizes, dim)
}
