package lowering

import (
	"cmp"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// resize(self, size) is what functionalization makes of resize_: a clone
// of self (same strides when self is dense) given the new size with
// contiguous (or channels-last) strides over the clone's storage. When
// the new size needs no more elements than self has and self is dense in
// its storage, the clone's storage holds exactly self's storage from its
// offset on, so the result is a view of self's buffer: no data moves.
// Growing exposes uninitialized memory, which kiln does not model.

func resizeRules() map[string]rule {
	return map[string]rule{"resize": lowerResize}
}

func lowerResize(l *lowerer, c *ops.Call) error {
	self, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	t, err := tensorType(c.Node.Out())
	if err != nil {
		return err
	}
	oldN, newN := numelOf(self.layout.Shape), numelOf(t.Shape)
	const growHint = "resize to at most as many elements as the tensor has; " +
		"the elements a bigger resize adds are uninitialized memory"
	switch d, ok := sym.Sub(oldN, newN).Const(); {
	case ok && d < 0:
		return noLowering(c.Node, growHint, "resize from %s to %s elements grows the tensor", oldN, newN)
	case !ok:
		return noLowering(c.Node, growHint, "resize from %s to %s elements: cannot show that the tensor does not grow", oldN, newN)
	}
	if !denseInStorage(self.layout) {
		return noLowering(c.Node, "call .contiguous() before resizing",
			"resize of a tensor that is not dense in its storage (strides %s)", joinExprs(self.layout.Strides))
	}
	strides := t.Strides
	if strides == nil {
		strides = ir.ContiguousStrides(t.Shape)
	}
	l.vals[c.Node.Out()] = tensorRef{self.buf, Layout{DType: self.layout.DType, Shape: t.Shape,
		Strides: strides, Offset: self.layout.Offset}}
	return nil
}

func numelOf(shape []sym.Expr) sym.Expr {
	n := sym.Const(1)
	for _, s := range shape {
		n = sym.Mul(n, s)
	}
	return n
}

// denseInStorage reports whether a layout's elements fill its storage
// from the offset on without gaps or overlap (PyTorch's
// is_non_overlapping_and_dense): row-major strides (sizes of 1 ignored),
// or, for constant strides, a permutation of them.
func denseInStorage(lay Layout) bool {
	want := ir.ContiguousStrides(lay.Shape)
	rowMajor := true
	for i, s := range lay.Shape {
		if !isOne(s) && !sym.Equal(lay.Strides[i], want[i]) {
			rowMajor = false
		}
	}
	if rowMajor {
		return true
	}
	type dim struct{ size, stride int64 }
	var dims []dim
	for i, s := range lay.Shape {
		size, ok1 := s.Const()
		stride, ok2 := lay.Strides[i].Const()
		switch {
		case !ok1 || !ok2:
			return false
		case size == 0:
			return true
		case size != 1:
			dims = append(dims, dim{size, stride})
		}
	}
	slices.SortFunc(dims, func(a, b dim) int { return cmp.Compare(a.stride, b.stride) })
	expect := int64(1)
	for _, d := range dims {
		if d.stride != expect {
			return false
		}
		expect *= d.size
	}
	return true
}
