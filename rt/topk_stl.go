package rt

import "math/bits"

// PyTorch's CPU topk (aten/src/ATen/native/TopKImpl.h, topk_impl_loop)
// orders a row with libstdc++'s std::partial_sort when k·64 <= n, else
// std::nth_element then std::sort of the first k-1. Neither is stable, so
// which of several equal elements comes first (and so the indices topk
// returns on ties) is whatever those algorithms leave. The functions below
// are libstdc++'s (bits/stl_algo.h, bits/stl_heap.h), step for step, so
// that kiln's indices are PyTorch's on ties too; rt/testdata/topk.json
// checks them against PyTorch on tie-heavy rows.

// stlElem is one (value, index) pair of a row, as topk_impl_loop's queue.
type stlElem[T any] struct {
	v T
	i int64
}

type stlLess[T any] func(a, b stlElem[T]) bool

// stlLg is std::__lg: floor(log2(n)), n > 0.
func stlLg(n int) int { return bits.Len(uint(n)) - 1 }

// stlNthElement is std::nth_element(q, q+nth, q+len(q), less).
func stlNthElement[T any](q []stlElem[T], nth int, less stlLess[T]) {
	if len(q) == 0 || nth == len(q) {
		return
	}
	first, last := 0, len(q)
	depth := stlLg(last-first) * 2
	for last-first > 3 {
		if depth == 0 {
			stlHeapSelect(q[first:last], nth+1-first, less)
			q[first], q[nth] = q[nth], q[first]
			return
		}
		depth--
		cut := first + stlPartitionPivot(q[first:last], less)
		if cut <= nth {
			first = cut
		} else {
			last = cut
		}
	}
	stlInsertionSort(q[first:last], less)
}

// stlSort is std::sort (introsort, then a final insertion sort).
func stlSort[T any](q []stlElem[T], less stlLess[T]) {
	if len(q) == 0 {
		return
	}
	stlIntrosortLoop(q, stlLg(len(q))*2, less)
	if len(q) > 16 {
		stlInsertionSort(q[:16], less)
		for i := 16; i < len(q); i++ {
			stlUnguardedLinearInsert(q, i, less)
		}
		return
	}
	stlInsertionSort(q, less)
}

func stlIntrosortLoop[T any](q []stlElem[T], depth int, less stlLess[T]) {
	for len(q) > 16 {
		if depth == 0 {
			stlPartialSort(q, len(q), less)
			return
		}
		depth--
		cut := stlPartitionPivot(q, less)
		stlIntrosortLoop(q[cut:], depth, less)
		q = q[:cut]
	}
}

// stlPartialSort is std::partial_sort(q, q+middle, q+len(q), less).
func stlPartialSort[T any](q []stlElem[T], middle int, less stlLess[T]) {
	stlHeapSelect(q, middle, less)
	for last := middle; last > 1; {
		last--
		stlPopHeap(q[:last], last, q, less)
	}
}

// stlPartitionPivot is std::__unguarded_partition_pivot: the median of
// q[1], q[mid], q[last-1] moved to q[0], then a Hoare partition around it.
func stlPartitionPivot[T any](q []stlElem[T], less stlLess[T]) int {
	mid := len(q) / 2
	stlMoveMedianToFirst(q, 0, 1, mid, len(q)-1, less)
	first, last := 1, len(q)
	for {
		for less(q[first], q[0]) {
			first++
		}
		last--
		for less(q[0], q[last]) {
			last--
		}
		if first >= last {
			return first
		}
		q[first], q[last] = q[last], q[first]
		first++
	}
}

func stlMoveMedianToFirst[T any](q []stlElem[T], result, a, b, c int, less stlLess[T]) {
	swap := func(i int) { q[result], q[i] = q[i], q[result] }
	switch {
	case less(q[a], q[b]):
		switch {
		case less(q[b], q[c]):
			swap(b)
		case less(q[a], q[c]):
			swap(c)
		default:
			swap(a)
		}
	case less(q[a], q[c]):
		swap(a)
	case less(q[b], q[c]):
		swap(c)
	default:
		swap(b)
	}
}

func stlInsertionSort[T any](q []stlElem[T], less stlLess[T]) {
	for i := 1; i < len(q); i++ {
		if less(q[i], q[0]) {
			v := q[i]
			copy(q[1:i+1], q[:i])
			q[0] = v
			continue
		}
		stlUnguardedLinearInsert(q, i, less)
	}
}

func stlUnguardedLinearInsert[T any](q []stlElem[T], last int, less stlLess[T]) {
	v := q[last]
	next := last - 1
	for less(v, q[next]) {
		q[last] = q[next]
		last = next
		next--
	}
	q[last] = v
}

// stlHeapSelect is std::__heap_select: a max-heap (by less) of the first
// middle elements, each later element smaller than its top swapped in.
func stlHeapSelect[T any](q []stlElem[T], middle int, less stlLess[T]) {
	stlMakeHeap(q[:middle], less)
	for i := middle; i < len(q); i++ {
		if less(q[i], q[0]) {
			stlPopHeap(q[:middle], i, q, less)
		}
	}
}

func stlMakeHeap[T any](h []stlElem[T], less stlLess[T]) {
	n := len(h)
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		stlAdjustHeap(h, parent, n, h[parent], less)
		if parent == 0 {
			return
		}
	}
}

// stlPopHeap is std::__pop_heap(first, last, result): result's element
// takes the top's place in the heap h and the top moves to all[result].
func stlPopHeap[T any](h []stlElem[T], result int, all []stlElem[T], less stlLess[T]) {
	v := all[result]
	all[result] = h[0]
	stlAdjustHeap(h, 0, len(h), v, less)
}

func stlAdjustHeap[T any](h []stlElem[T], hole, n int, v stlElem[T], less stlLess[T]) {
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(h[child], h[child-1]) {
			child--
		}
		h[hole] = h[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		h[hole] = h[child-1]
		hole = child - 1
	}
	parent := (hole - 1) / 2
	for hole > top && less(h[parent], v) {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = v
}
