package ops

import "github.com/kiln-compiler/kiln/ir/sym"

// Fake tensors view with torch/_refs' _reshape_view_helper (fake_impls'
// _view_meta), not ATen's computeStride: they differ on size-1 dims, e.g.
// [2, 1, 1, 4][25, 25, 1, 5] viewed as [2, 1, 4] is [25, 25, 5] under fake
// tensors and [25, 20, 5] in eager. refViewStrides ports that algorithm
// for constant sizes and strides (tensors with elements; rank >= 1 on both
// sides): dims of the right length are kept, others are made by
// collapsing (prims._collapse_view_helper) and splitting (prims.split_dim)
// left to right, then tail dims of size 1 are squeezed.
func refViewStrides(oldShape, oldStride, newShape []int64) ([]int64, bool) {
	if refContiguous(oldShape, oldStride) {
		switch {
		case len(newShape) == 1 && len(oldShape) > 1:
			return []int64{1}, true
		case len(newShape) == 2 && len(oldShape) == 1:
			return []int64{newShape[1], 1}, true
		}
	}
	shape, strides := append([]int64{}, oldShape...), append([]int64{}, oldStride...)
	idx := 0
	for _, length := range newShape {
		if idx >= len(shape) { // tail unsqueeze: split_dim(last, its length)
			if length != 1 {
				return nil, false
			}
			shape, strides = append(shape, 1), append(strides, strides[len(strides)-1])
			idx++
			continue
		}
		if length == shape[idx] {
			idx++
			continue
		}
		accum, end := shape[idx], idx
		for length != 0 && accum%length != 0 {
			end++
			if end >= len(shape) {
				return nil, false
			}
			accum *= shape[end]
		}
		if end != idx {
			l, s, ok := collapseView(shape, strides, idx, end)
			if !ok {
				return nil, false
			}
			shape = append(append(shape[:idx:idx], l), shape[end+1:]...)
			strides = append(append(strides[:idx:idx], s), strides[end+1:]...)
		}
		if accum != length { // split_dim(idx, length)
			inner := shape[idx] / length
			shape = append(append(shape[:idx:idx], length, inner), shape[idx+1:]...)
			strides = append(append(strides[:idx:idx], strides[idx]*inner, strides[idx]), strides[idx+1:]...)
		}
		idx++
	}
	for idx < len(shape) { // squeeze the tail
		if shape[idx] != 1 {
			return nil, false
		}
		shape, strides = append(shape[:idx:idx], shape[idx+1:]...), append(strides[:idx:idx], strides[idx+1:]...)
	}
	return strides, true
}

// collapseView is prims._collapse_view_helper for a tensor with elements:
// dims start..end merge when each adjacent pair is size 1 or contiguous;
// the stride is the smallest of the non-size-1 dims' and end's.
func collapseView(shape, strides []int64, start, end int) (length, stride int64, ok bool) {
	for i := end - 1; i >= start; i-- {
		if shape[i] != 1 && shape[i+1] != 1 && strides[i] != strides[i+1]*shape[i+1] {
			return 0, 0, false
		}
	}
	stride, length = strides[end], shape[end]
	for i := end - 1; i >= start; i-- {
		if shape[i] != 1 {
			stride = min(stride, strides[i])
		}
		length *= shape[i]
	}
	return length, stride, true
}

// refContiguous is is_contiguous: size-1 dims' strides do not count.
func refContiguous(shape, strides []int64) bool {
	expected := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] == 1 {
			continue
		}
		if strides[i] != expected {
			return false
		}
		expected *= shape[i]
	}
	return true
}

// constInts reads a list of constant sizes; ok is false when one is
// symbolic.
func constInts(es []sym.Expr) ([]int64, bool) {
	out := make([]int64, len(es))
	for i, e := range es {
		v, ok := e.Const()
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}
