package interp

import (
	"fmt"
	"github.com/kiln-compiler/kiln/limits"
	"strings"
	"sync/atomic"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/rt"
)

// Storage is a flat byte buffer that a base tensor and all its views share,
// as a PyTorch StorageImpl. Data is little-endian; a view of another dtype
// (view.dtype) reads the same bytes.
type Storage struct {
	Data   []byte
	Device ir.Device
}

// Tensor is a strided view of a storage: element i of dimension d is
// Strides[d]·i elements past Offset, in units of DType's item size.
type Tensor struct {
	DType   ir.DType
	Shape   []int64
	Strides []int64
	Offset  int64 // storage offset, in elements
	Storage *Storage
	// Conj is PyTorch's conjugate bit (complex dtypes): the tensor reads as
	// the conjugate of what its storage holds. Views keep it; other ops see
	// the tensor resolved (eval_conj.go), as PyTorch's conjugate fallback
	// materializes it.
	Conj bool
	// Neg is PyTorch's negative bit (_neg_view, which x.conj().imag traces
	// to): the tensor reads as the negation of what its storage holds.
	Neg bool
}

// Device is the storage's device.
func (t *Tensor) Device() ir.Device { return t.Storage.Device }

// Dim is the number of dimensions.
func (t *Tensor) Dim() int { return len(t.Shape) }

// Numel is the number of elements.
func (t *Tensor) Numel() int64 { return rt.Numel(t.Shape) }

// numel is the product of the sizes.
func numel(shape []int64) int64 { return rt.Numel(shape) }

// ContiguousStrides are row-major strides (a size 0 counts as 1).
func ContiguousStrides(shape []int64) []int64 { return rt.RowMajor(shape) }

// maxElems bounds one tensor, so that a bad size in the input fails
// cleanly instead of exhausting memory.
const maxElems = 1 << 31

// safeNumel multiplies sizes, reporting false past maxElems (or overflow).
func safeNumel(shape []int64) (int64, bool) {
	n := int64(1)
	for _, s := range shape {
		if s < 0 || s > 0 && n > maxElems/s {
			return 0, s >= 0 && n == 0
		}
		n *= s
	}
	return n, n <= maxElems
}

// Empty allocates a zero-filled tensor with the given strides (row-major
// when strides is nil) and storage offset 0.
func Empty(dt ir.DType, shape, strides []int64, dev ir.Device) (*Tensor, error) {
	if !dt.Valid() {
		return nil, fmt.Errorf("invalid dtype %v", dt)
	}
	for _, s := range shape {
		if s < 0 {
			return nil, fmt.Errorf("Trying to create tensor with negative dimension %d: %v", s, shape)
		}
	}
	if _, ok := safeNumel(shape); !ok {
		return nil, fmt.Errorf("tensor of shape %v is too large for the interpreter", shape)
	}
	if strides == nil {
		strides = ContiguousStrides(shape)
	}
	if len(strides) != len(shape) {
		return nil, fmt.Errorf("sizes %v and strides %v differ in length", shape, strides)
	}
	n := storageElems(shape, strides, 0)
	if n > maxElems || n < 0 {
		return nil, fmt.Errorf("tensor of shape %v and strides %v is too large for the interpreter", shape, strides)
	}
	if bytes := n * int64(dt.ItemSize()); bytes > limits.TensorBytes {
		return nil, &limits.Error{What: fmt.Sprintf("tensor of shape %v (%s): storage size in bytes", shape, dt.Name()),
			Got: bytes, Limit: limits.TensorBytes, Flag: "kiln run -max-tensor-bytes"}
	}
	if err := charge(n * int64(dt.ItemSize())); err != nil {
		return nil, err
	}
	st := &Storage{Data: make([]byte, n*int64(dt.ItemSize())), Device: dev}
	return &Tensor{DType: dt, Shape: clone64(shape), Strides: clone64(strides), Storage: st}, nil
}

// allocated counts the bytes Empty gave out since ResetAllocated. Freed
// tensors are not credited back: the bound is on what one run asks for,
// which is what a hostile graph (a chain of 1 GiB tensors) drives up.
var allocated atomic.Int64

// ResetAllocated starts a new run's count for limits.RunBytes.
func ResetAllocated() { allocated.Store(0) }

func charge(bytes int64) error {
	if limits.RunBytes <= 0 {
		return nil
	}
	if total := allocated.Add(bytes); total > limits.RunBytes {
		return &limits.Error{What: "bytes allocated by this run", Got: total, Limit: limits.RunBytes, Flag: "kiln run -max-run-bytes"}
	}
	return nil
}

// MustEmpty is Empty for shapes known to be valid (tests, internal temporaries).
func MustEmpty(dt ir.DType, shape ...int64) *Tensor {
	t, err := Empty(dt, shape, nil, ir.CPU)
	if err != nil {
		panic(err)
	}
	return t
}

// storageElems is the number of elements a storage needs to hold a tensor
// with this geometry: one past its highest element (0 when it is empty).
func storageElems(shape, strides []int64, offset int64) int64 {
	if numel(shape) == 0 {
		return 0
	}
	end := offset + 1
	for i, s := range shape {
		if strides[i] > 0 {
			end += (s - 1) * strides[i]
		}
	}
	return end
}

// checkBounds is setStorage's check: the geometry must fit in the storage.
func (t *Tensor) checkBounds() error {
	if numel(t.Shape) == 0 {
		return nil
	}
	lo := t.Offset
	for i, s := range t.Shape {
		if t.Strides[i] < 0 {
			lo += (s - 1) * t.Strides[i]
		}
	}
	need := storageElems(t.Shape, t.Strides, t.Offset) * int64(t.DType.ItemSize())
	have := int64(len(t.Storage.Data))
	if lo < 0 || need > have {
		return fmt.Errorf("setStorage: sizes %v, strides %v, storage offset %d, and itemsize %d requiring a storage size of %d are out of bounds for storage of size %d",
			t.Shape, t.Strides, t.Offset, t.DType.ItemSize(), need, have)
	}
	return nil
}

// View returns a tensor over t's storage with new geometry, checked against
// the storage's size.
func (t *Tensor) View(shape, strides []int64, offset int64) (*Tensor, error) {
	v := &Tensor{DType: t.DType, Shape: clone64(shape), Strides: clone64(strides), Offset: offset, Storage: t.Storage, Conj: t.Conj, Neg: t.Neg}
	if err := v.checkBounds(); err != nil {
		return nil, err
	}
	return v, nil
}

// view is View for geometry derived from t's own, which always fits.
func (t *Tensor) view(shape, strides []int64, offset int64) *Tensor {
	return &Tensor{DType: t.DType, Shape: shape, Strides: strides, Offset: offset, Storage: t.Storage, Conj: t.Conj, Neg: t.Neg}
}

// Alias returns a new tensor object for the same view (aten::alias).
func (t *Tensor) Alias() *Tensor { return t.view(clone64(t.Shape), clone64(t.Strides), t.Offset) }

// IsContiguous is PyTorch's is_contiguous: row-major, ignoring size-1 dims.
func (t *Tensor) IsContiguous() bool {
	expected := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if t.Shape[i] == 0 {
			return true
		}
		if t.Shape[i] != 1 && t.Strides[i] != expected {
			return false
		}
		expected *= t.Shape[i]
	}
	return true
}

// isNonOverlappingAndDense is PyTorch's is_non_overlapping_and_dense: some
// permutation of the dims is contiguous.
func (t *Tensor) isNonOverlappingAndDense() bool {
	perm := sortedDims(t.Shape, t.Strides)
	expected := int64(1)
	for _, d := range perm {
		if t.Shape[d] == 1 {
			continue
		}
		if t.Strides[d] != expected {
			return false
		}
		expected *= t.Shape[d]
	}
	return true
}

// hasInternalOverlap reports a written tensor in which two elements share
// memory: a stride 0 over a size > 1 (PyTorch's has_internal_overlap YES).
func (t *Tensor) hasInternalOverlap() bool {
	if t.isNonOverlappingAndDense() {
		return false
	}
	for i, s := range t.Shape {
		if s > 1 && t.Strides[i] == 0 {
			return true
		}
	}
	return false
}

// sortedDims orders dims from innermost (smallest stride) to outermost;
// ties keep the later dim inner.
func sortedDims(shape, strides []int64) []int {
	perm := make([]int, len(shape))
	for i := range perm {
		perm[i] = len(shape) - 1 - i
	}
	for i := 1; i < len(perm); i++ {
		for j := i; j > 0 && strides[perm[j]] < strides[perm[j-1]]; j-- {
			perm[j], perm[j-1] = perm[j-1], perm[j]
		}
	}
	return perm
}

// byteRange is the half-open byte interval t's elements occupy.
func (t *Tensor) byteRange() (lo, hi int64) {
	lo, hi = t.Offset, t.Offset
	for i, s := range t.Shape {
		if s == 0 {
			return 0, 0
		}
		if t.Strides[i] < 0 {
			lo += (s - 1) * t.Strides[i]
		} else {
			hi += (s - 1) * t.Strides[i]
		}
	}
	sz := int64(t.DType.ItemSize())
	return lo * sz, (hi + 1) * sz
}

// partialOverlap is PyTorch's get_overlap_status == PARTIAL for two dense
// tensors over one storage whose memory intersects without being equal.
func partialOverlap(a, b *Tensor) bool {
	if a.Storage != b.Storage || a.Numel() == 0 || b.Numel() == 0 {
		return false
	}
	if !a.isNonOverlappingAndDense() || !b.isNonOverlappingAndDense() {
		return false
	}
	alo, ahi := a.byteRange()
	blo, bhi := b.byteRange()
	if alo == blo && ahi == bhi && equal64(a.Strides, b.Strides) && a.DType.ItemSize() == b.DType.ItemSize() {
		return false // full overlap: elementwise in place is fine
	}
	return alo < bhi && blo < ahi
}

// String is a short description: "f32[4, 3][3, 1]+2 cpu".
func (t *Tensor) String() string {
	var b strings.Builder
	b.WriteString(t.DType.Abbr())
	b.WriteString(ints(t.Shape))
	b.WriteString(ints(t.Strides))
	if t.Offset != 0 {
		fmt.Fprintf(&b, "+%d", t.Offset)
	}
	if d := t.Storage.Device.String(); d != "" {
		b.WriteString(" " + d)
	}
	return b.String()
}

// ints prints a size list as PyTorch's messages do: [4, 3].
func ints(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func clone64(xs []int64) []int64 { return append([]int64{}, xs...) }

func equal64(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// wrapDim is maybe_wrap_dim: a negative dim counts from the end; a 0-dim
// tensor accepts dims -1 and 0.
func wrapDim(dim int64, rank int) (int, error) {
	r := int64(max(rank, 1))
	if dim < -r || dim >= r {
		return 0, fmt.Errorf("Dimension out of range (expected to be in range of [%d, %d], but got %d)", -r, r-1, dim)
	}
	if dim < 0 {
		dim += r
	}
	return int(dim), nil
}

// wrapDimPair wraps two dims of the same tensor (transpose, diagonal).
func wrapDimPair(d0, d1 int64, rank int) (int, int, error) {
	a, err := wrapDim(d0, rank)
	if err != nil {
		return 0, 0, err
	}
	b, err := wrapDim(d1, rank)
	return a, b, err
}
