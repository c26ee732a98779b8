package driver

import (
	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
)

// checkStridedBounds is eager PyTorch's setStorage check for as_strided on
// a graph input, made before code is generated: fake tensors (and so
// fakeprop) do not check that the view fits its storage, but generated code
// that reads past an input's storage reads garbage (Go: panics), and
// `kiln run` reports the same call with eager's message. Inputs are taken
// to own exactly the storage their annotation spans. Sizes that are not
// constants leave the question open.
func checkStridedBounds(g *ir.Graph) *diag.Diagnostic {
	for _, n := range g.Nodes {
		if n.Target != "aten::as_strided.default" || len(n.Args) < 3 {
			continue
		}
		self := n.Args[0]
		if self.Kind != ir.ArgValue || !self.Value.IsInput() || self.Value.Type.Tensor == nil {
			continue
		}
		size, ok1 := constInts(n.Args[1])
		stride, ok2 := constInts(n.Args[2])
		if !ok1 || !ok2 || len(size) != len(stride) {
			continue
		}
		offset := int64(0)
		if len(n.Args) > 3 && n.Args[3].Kind == ir.ArgInt {
			offset = n.Args[3].Int
		}
		for _, s := range stride {
			if s < 0 {
				return diag.Errorf(n.Pos, "out-of-bounds", "as_strided takes strides >= 0; flip or index the tensor instead",
					"as_strided: Negative strides are not supported at the moment, got strides: %v", stride)
			}
		}
		have, ok := storageBytes(self.Value.Type.Tensor)
		if !ok {
			continue
		}
		item := int64(self.Value.Type.Tensor.DType.ItemSize())
		need := extent(size, stride, offset) * item
		if need > have {
			return diag.Errorf(n.Pos, "out-of-bounds", "the view reads past its input's storage: eager PyTorch raises the same error at this call; kiln would generate code that reads out of bounds",
				"setStorage: sizes %v, strides %v, storage offset %d, and itemsize %d requiring a storage size of %d are out of bounds for storage of size %d",
				size, stride, offset, item, need, have)
		}
	}
	return nil
}

func constInts(a ir.Arg) ([]int64, bool) {
	if !a.IsSequence() {
		return nil, false
	}
	out := make([]int64, len(a.Elems))
	for i, e := range a.Elems {
		if e.Kind != ir.ArgInt {
			return nil, false
		}
		out[i] = e.Int
	}
	return out, true
}

// extent is one past the highest element the geometry touches (0 if empty).
func extent(size, stride []int64, offset int64) int64 {
	end := offset + 1
	for i, s := range size {
		if s == 0 {
			return 0
		}
		end += (s - 1) * stride[i]
	}
	return end
}

// storageBytes is the storage a typed input spans, when its geometry is constant.
func storageBytes(t *ir.TensorType) (int64, bool) {
	var size, stride []int64
	for i, s := range t.Shape {
		c, ok := s.Const()
		if !ok || t.Strides == nil {
			return 0, false
		}
		st, ok := t.Strides[i].Const()
		if !ok {
			return 0, false
		}
		size, stride = append(size, c), append(stride, st)
	}
	off, ok := t.Offset.Const()
	if !ok {
		return 0, false
	}
	return extent(size, stride, off) * int64(t.DType.ItemSize()), true
}
