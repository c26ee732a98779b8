package rt

import (
	"fmt"
	"unsafe"
)

// Tensor is a strided view of little-endian bytes: element i of dim d is
// Strides[d]·i elements past Offset, in units of DType's item size (a kiln
// dtype spelling: "f32", "bf16", "i64", ...). Nil Strides mean row-major.
type Tensor struct {
	DType   string
	Shape   []int64
	Strides []int64
	Offset  int64
	Data    []byte
}

// NewTensor allocates a zeroed contiguous tensor.
func NewTensor(dtype string, shape []int64) *Tensor {
	return &Tensor{DType: dtype, Shape: append([]int64{}, shape...), Data: Alloc(Numel(shape) * int64(ItemSize(dtype)))}
}

// Numel is the product of the sizes.
func Numel(shape []int64) int64 {
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	return n
}

// RowMajor are the contiguous strides of shape (a size 0 counts as 1).
func RowMajor(shape []int64) []int64 {
	st := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= max(shape[i], 1)
	}
	return st
}

// strides are t's strides, row-major when unset.
func (t *Tensor) strides() []int64 {
	if t.Strides == nil {
		return RowMajor(t.Shape)
	}
	return t.Strides
}

// IsContiguous reports row-major elements from offset 0.
func (t *Tensor) IsContiguous() bool {
	if t.Offset != 0 {
		return false
	}
	st := t.strides()
	want := RowMajor(t.Shape)
	for i := range st {
		if t.Shape[i] > 1 && st[i] != want[i] {
			return false
		}
	}
	return true
}

// Bytes are t's elements, row-major, bit for bit (t.Data itself when
// contiguous).
func (t *Tensor) Bytes() ([]byte, error) {
	sz := int64(ItemSize(t.DType))
	n := Numel(t.Shape) * sz
	if t.IsContiguous() {
		if int64(len(t.Data)) < n {
			return nil, fmt.Errorf("tensor data holds %d bytes, shape %v of %s needs %d", len(t.Data), t.Shape, t.DType, n)
		}
		return t.Data[:n], nil
	}
	out := make([]byte, n)
	err := Copy(out, sz, t.Shape, RowMajor(t.Shape), 0, t.Data, t.strides(), t.Offset)
	return out, err
}

// Alloc returns n zeroed bytes whose first byte is 64-byte aligned.
func Alloc(n int64) []byte {
	if n <= 0 {
		return []byte{}
	}
	raw := make([]byte, n+63)
	skip := int((64 - uintptr(unsafe.Pointer(&raw[0]))%64) % 64)
	return raw[skip : int64(skip)+n : int64(skip)+n]
}

// Reuse returns the first n bytes of a dead buffer's memory (buffer
// planning's reuse), or a fresh allocation when it is too small.
func Reuse(dead []byte, n int64) []byte {
	if int64(cap(dead)) >= n && n > 0 {
		return dead[:n]
	}
	return Alloc(n)
}

// Copy copies the shape-sized strided elements (sz bytes each) of src into
// dst, both given by strides and offset in elements; every index is
// checked, so a bad layout is an error, never a crash.
func Copy(dst []byte, sz int64, shape, dstStrides []int64, dstOff int64, src []byte, srcStrides []int64, srcOff int64) error {
	if Numel(shape) == 0 {
		return nil
	}
	if err := checkSpan(len(dst), sz, shape, dstStrides, dstOff); err != nil {
		return fmt.Errorf("destination: %w", err)
	}
	if err := checkSpan(len(src), sz, shape, srcStrides, srcOff); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	idx := make([]int64, len(shape))
	d, s := dstOff, srcOff
	for {
		copy(dst[d*sz:(d+1)*sz], src[s*sz:(s+1)*sz])
		k := len(shape) - 1
		for ; k >= 0; k-- {
			idx[k]++
			d += dstStrides[k]
			s += srcStrides[k]
			if idx[k] < shape[k] {
				break
			}
			d -= dstStrides[k] * shape[k]
			s -= srcStrides[k] * shape[k]
			idx[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// checkSpan checks that every element of a layout lies in n bytes.
func checkSpan(n int, sz int64, shape, strides []int64, off int64) error {
	lo, hi := off, off
	for i, s := range shape {
		if s <= 0 {
			return nil
		}
		if st := strides[i]; st >= 0 {
			hi += st * (s - 1)
		} else {
			lo += st * (s - 1)
		}
	}
	if lo < 0 || (hi+1)*sz > int64(n) {
		return fmt.Errorf("elements [%d, %d] of %d bytes (item size %d) out of range", lo, hi, n, sz)
	}
	return nil
}

// Scatter copies a tensor's elements into buf at the layout (strides and
// offset in elements of the tensor's dtype).
func Scatter(buf []byte, t *Tensor, strides []int64, off int64) error {
	src, err := t.Bytes()
	if err != nil {
		return err
	}
	return Copy(buf, int64(ItemSize(t.DType)), t.Shape, strides, off, src, RowMajor(t.Shape), 0)
}

// Gather reads the layout's elements out of buf into a fresh contiguous
// tensor.
func Gather(buf []byte, dtype string, shape, strides []int64, off int64) (*Tensor, error) {
	t := NewTensor(dtype, shape)
	err := Copy(t.Data, int64(ItemSize(dtype)), shape, RowMajor(shape), 0, buf, strides, off)
	return t, err
}

// WriteBack copies a layout of buf into t's own elements (a mutated input).
func WriteBack(t *Tensor, buf []byte, strides []int64, off int64) error {
	return Copy(t.Data, int64(ItemSize(t.DType)), t.Shape, t.strides(), t.Offset, buf, strides, off)
}

// Typed views of a buffer: one per element type, built once per kernel.
// A zero-length buffer gives a nil slice.

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

func F32s(b []byte) []float32 { return view[float32](b) }
func F64s(b []byte) []float64 { return view[float64](b) }
func U8s(b []byte) []uint8    { return b }
func I8s(b []byte) []int8     { return view[int8](b) }
func U16s(b []byte) []uint16  { return view[uint16](b) }
func I16s(b []byte) []int16   { return view[int16](b) }
func U32s(b []byte) []uint32  { return view[uint32](b) }
func I32s(b []byte) []int32   { return view[int32](b) }
func U64s(b []byte) []uint64  { return view[uint64](b) }
func I64s(b []byte) []int64   { return view[int64](b) }
