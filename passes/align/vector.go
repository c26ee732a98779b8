package align

import (
	"strconv"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

var notAlignedWhy = "not " + strconv.Itoa(GPUAlignBytes) + "-byte aligned"

// vectorWidth is the widest safe vector access to t, in elements, for a
// pointer aligned to align bytes, with the reason for it.
func vectorWidth(t *ir.TensorType, align int64) (int64, string) {
	isz := itemSize(t)
	maxW := MaxVectorBytes / isz
	switch {
	case align < GPUAlignBytes:
		return 1, notAlignedWhy
	case maxW <= 1:
		return 1, "one " + strconv.FormatInt(isz, 10) + "-byte element fills a vector"
	case t.Strides == nil || len(t.Strides) != len(t.Shape):
		return 1, "strides unknown"
	}
	dims := nonUnitDims(t)
	if len(dims) == 0 {
		return 1, "a single element"
	}
	last := dims[len(dims)-1]
	if c, ok := t.Strides[last].Const(); !ok || c != 1 {
		return 1, "innermost stride is " + t.Strides[last].String() + ", not 1"
	}
	run, outer := innermostRun(t, dims)
	w := maxW
	for w > 1 && !divides(run, w) {
		w /= 2
	}
	why := strconv.FormatInt(align, 10) + "-byte aligned, innermost run of " + run.String() + " elements"
	if w < maxW {
		why += " (a multiple of " + strconv.FormatInt(w, 10) + " only)"
	}
	for _, d := range outer {
		narrowed := false
		for w > 1 && !divides(t.Strides[d], w) {
			w, narrowed = w/2, true
		}
		if narrowed {
			why += ", outer stride " + t.Strides[d].String()
		}
	}
	if w == 1 {
		return 1, why
	}
	return w, why
}

// nonUnitDims lists the dimensions whose size is not the constant 1 (their
// strides do not matter).
func nonUnitDims(t *ir.TensorType) []int {
	var dims []int
	for d, s := range t.Shape {
		if c, ok := s.Const(); !ok || c != 1 {
			dims = append(dims, d)
		}
	}
	return dims
}

// innermostRun collapses the innermost dimensions that are contiguous with
// each other into one run and returns its length and the outer dimensions.
func innermostRun(t *ir.TensorType, dims []int) (sym.Expr, []int) {
	i := len(dims) - 1
	run := t.Shape[dims[i]]
	for i--; i >= 0; i-- {
		d := dims[i]
		if !sym.Equal(t.Strides[d], run) {
			break
		}
		run = sym.Mul(run, t.Shape[d])
	}
	return run, dims[:i+1]
}

// divides reports that w divides every value e can take.
func divides(e sym.Expr, w int64) bool {
	d := e.Divisor()
	return d == 0 || d%w == 0
}
