package rt

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
)

// topk is aten::topk(self, k, dim, largest, sorted) into outs (values,
// indices; either may be nil: not computed). Rows are ordered as PyTorch's
// CPU kernel orders them (topk_stl.go): NaN counts as larger than every
// number, and sorted=False returns what that kernel leaves, which is
// sorted too except for nth_element's partition order.
func topk(outs, args []*Tensor, params map[string][]int64) error {
	k, dim, largest, sorted, err := topkParams(params)
	if err != nil {
		return err
	}
	order := orderTopk
	if !sorted {
		order = orderTopkUnsorted
	}
	return selectRows("aten::topk", outs, args, k, dim, largest, order)
}

// rowOrder is how selectRows orders a row, as PyTorch's CPU kernels do.
type rowOrder int

const (
	orderTopk         rowOrder = iota // topk_impl_loop, sorted=True
	orderTopkUnsorted                 // topk_impl_loop, sorted=False
	orderSort                         // sort_kernel, stable=False: std::sort
	orderStable                       // sort_kernel, stable=True: std::stable_sort
)

// orderRow leaves q's first k elements as order puts them.
func orderRow[T any](q []stlElem[T], k int, order rowOrder, less stlLess[T]) {
	switch order {
	case orderTopk, orderTopkUnsorted:
		topkSelect(q, k, order == orderTopk, less)
	case orderSort:
		stlSort(q, less)
	case orderStable:
		sort.SliceStable(q, func(i, j int) bool { return less(q[i], q[j]) })
	}
}

// selectRows writes the first k elements of each row along dim of
// args[0], ordered by order (largest first when largest), into outs
// (values, indices; either may be nil).
func selectRows(op string, outs, args []*Tensor, k, dim int64, largest bool, order rowOrder) error {
	if len(args) != 1 || args[0] == nil || len(outs) != 2 {
		return fmt.Errorf("%s: want self and two outputs, got %d operands and %d outputs", op, len(args), len(outs))
	}
	x := args[0]
	rank := len(x.Shape)
	n := int64(1)
	if rank > 0 {
		if dim < 0 || dim >= int64(rank) {
			return fmt.Errorf("%s: dim %d out of range for a %d-d tensor", op, dim, rank)
		}
		n = x.Shape[dim]
	} else if dim != 0 {
		return fmt.Errorf("%s: dim %d out of range for a 0-d tensor", op, dim)
	}
	if k < 0 || k > n {
		return fmt.Errorf("%s: selected index k out of range", op)
	}
	// rows × n row-major elements, the topk dim innermost
	outer, inner := int64(1), int64(1)
	for d := 0; d < rank; d++ {
		switch {
		case int64(d) < dim:
			outer *= x.Shape[d]
		case int64(d) > dim:
			inner *= x.Shape[d]
		}
	}
	want := append([]int64(nil), x.Shape...)
	if rank > 0 {
		want[dim] = k
	}
	for i, o := range outs {
		if o != nil && !slices.Equal(o.Shape, want) {
			return fmt.Errorf("%s: output %d has shape %v, want %v", op, i, o.Shape, want)
		}
	}
	if outs[1] != nil && outs[1].DType != "i64" {
		return fmt.Errorf("%s: indices are %s, want i64", op, outs[1].DType)
	}
	if outs[0] != nil && outs[0].DType != x.DType {
		return fmt.Errorf("%s: values are %s, self is %s", op, outs[0].DType, x.DType)
	}
	src, err := x.Bytes()
	if err != nil {
		return fmt.Errorf("%s: self: %w", op, err)
	}
	sz := int64(ItemSize(x.DType))
	fkey, ikey, err := topkKey(x.DType)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	rows := outer * inner
	vals := make([]byte, rows*k*sz)
	idx := make([]int64, rows*k)
	if k > 0 {
		if ikey != nil {
			err = topkRows(rows, n, k, inner, largest, order, intLess, func(j int64) int64 { return ikey(src, j) }, idx)
		} else {
			err = topkRows(rows, n, k, inner, largest, order, floatLess, func(j int64) float64 { return fkey(src, j) }, idx)
		}
		if err != nil {
			return err
		}
	}
	// idx holds, per output element (row-major over want), the row's index
	for o := range rows * k {
		r, j := o/k, o%k
		oo, ii := r/inner, r%inner
		pos := (oo*k+j)*inner + ii
		copy(vals[pos*sz:(pos+1)*sz], src[((oo*n+idx[o])*inner+ii)*sz:][:sz])
	}
	return topkStore(op, outs, vals, idx, rows, k, inner)
}

func topkParams(params map[string][]int64) (k, dim int64, largest, sorted bool, err error) {
	one := func(name string, def int64) int64 {
		if v := params[name]; len(v) == 1 {
			return v[0]
		} else if len(v) > 1 && err == nil {
			err = fmt.Errorf("aten::topk: %s has %d values, want one", name, len(v))
		}
		return def
	}
	k, dim = one("k", -1), one("dim", -1)
	largest, sorted = one("largest", 1) != 0, one("sorted", 1) != 0
	if k < 0 && err == nil {
		err = fmt.Errorf("aten::topk: k is missing or negative")
	}
	return
}

// topkKey reads element j of a dtype's bytes as a number: floats exactly
// as float64 (fkey), integers as int64 (ikey, so that large i64 values
// keep their order); the other is nil.
func topkKey(dt string) (fkey func(b []byte, j int64) float64, ikey func(b []byte, j int64) int64, err error) {
	switch dt {
	case "i64":
		return nil, func(b []byte, j int64) int64 { return int64(binary.LittleEndian.Uint64(b[j*8:])) }, nil
	case "i32":
		return nil, func(b []byte, j int64) int64 { return int64(int32(binary.LittleEndian.Uint32(b[j*4:]))) }, nil
	case "i16":
		return nil, func(b []byte, j int64) int64 { return int64(int16(binary.LittleEndian.Uint16(b[j*2:]))) }, nil
	case "i8":
		return nil, func(b []byte, j int64) int64 { return int64(int8(b[j])) }, nil
	case "u8", "b8": // a bool is one byte, 0 or 1: false sorts before true
		return nil, func(b []byte, j int64) int64 { return int64(b[j]) }, nil
	}
	if !isFloat(dt) {
		return nil, nil, fmt.Errorf("dtype %s is not supported by the Go backend", dt)
	}
	return func(b []byte, j int64) float64 { return decodeFloat(dt, b, j) }, nil, nil
}

// The comparators of topk_impl_loop: NaN is larger than any number.
func floatLess(largest bool) stlLess[float64] {
	if largest {
		return func(a, b stlElem[float64]) bool { return a.v != a.v && b.v == b.v || a.v > b.v }
	}
	return func(a, b stlElem[float64]) bool { return a.v == a.v && b.v != b.v || a.v < b.v }
}

func intLess(largest bool) stlLess[int64] {
	if largest {
		return func(a, b stlElem[int64]) bool { return a.v > b.v }
	}
	return func(a, b stlElem[int64]) bool { return a.v < b.v }
}

// topkRows selects each row's k elements into idx (rows × k), as
// topk_impl_loop does; at(j) is element j of the row-major input.
func topkRows[T float64 | int64](rows, n, k, inner int64, largest bool, order rowOrder, mk func(bool) stlLess[T], at func(int64) T, idx []int64) error {
	less := mk(largest)
	return ParallelFor(rows, n*8, func(lo, hi int64) error {
		q := make([]stlElem[T], n)
		for r := lo; r < hi; r++ {
			oo, ii := r/inner, r%inner
			for j := range n {
				q[j] = stlElem[T]{at((oo*n+j)*inner + ii), j}
			}
			orderRow(q, int(k), order, less)
			for j := range k {
				idx[r*k+j] = q[j].i
			}
		}
		return nil
	})
}

// topkStore writes the row-major values (bytes of self's dtype) and the
// indices (rows × k with the row's element order: outer, k, inner) into
// the outputs' layouts.
func topkStore(op string, outs []*Tensor, vals []byte, idx []int64, rows, k, inner int64) error {
	if v := outs[0]; v != nil {
		sz := int64(ItemSize(v.DType))
		if err := Copy(v.Data, sz, v.Shape, v.strides(), v.Offset, vals, RowMajor(v.Shape), 0); err != nil {
			return fmt.Errorf("%s: values: %w", op, err)
		}
	}
	if ix := outs[1]; ix != nil {
		tmp := make([]byte, rows*k*8)
		for o := range rows * k {
			r, j := o/k, o%k
			oo, ii := r/inner, r%inner
			binary.LittleEndian.PutUint64(tmp[((oo*k+j)*inner+ii)*8:], uint64(idx[o]))
		}
		if err := Copy(ix.Data, 8, ix.Shape, ix.strides(), ix.Offset, tmp, RowMajor(ix.Shape), 0); err != nil {
			return fmt.Errorf("%s: indices: %w", op, err)
		}
	}
	return nil
}

// topkSelect leaves q's k selected elements first, as topk_impl_loop does
// (k > 0).
func topkSelect[T any](q []stlElem[T], k int, sorted bool, less stlLess[T]) {
	if k*64 <= len(q) {
		stlPartialSort(q, k, less)
		return
	}
	stlNthElement(q, k-1, less)
	if sorted {
		stlSort(q[:k-1], less)
	}
}

// SortRow is the order PyTorch's CPU sort leaves row in: std::sort, or
// std::stable_sort when stable, NaN largest (interp's sort uses it).
func SortRow(row []float64, descending, stable bool) []int64 {
	q := make([]stlElem[float64], len(row))
	for j, v := range row {
		q[j] = stlElem[float64]{v, int64(j)}
	}
	order := orderSort
	if stable {
		order = orderStable
	}
	orderRow(q, len(q), order, floatLess(descending))
	out := make([]int64, len(q))
	for j := range out {
		out[j] = q[j].i
	}
	return out
}

// TopkRow is the indices of the k elements PyTorch's CPU topk picks from
// row, in the order it returns them (interp's topk uses it, so that both
// agree with PyTorch on ties).
func TopkRow(row []float64, k int, largest, sorted bool) []int64 {
	if k <= 0 || k > len(row) {
		return nil
	}
	q := make([]stlElem[float64], len(row))
	for j, v := range row {
		q[j] = stlElem[float64]{v, int64(j)}
	}
	topkSelect(q, k, sorted, floatLess(largest))
	out := make([]int64, k)
	for j := range out {
		out[j] = q[j].i
	}
	return out
}
