package fakeprop

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Python-level nodes: operators on SymInts (`s0 + 9`, `u0 >= 0`),
// subscripts of sizes, and the tensor methods Dynamo graphs call.

// operatorNode types `a + b`, `-a`, `size[0]`.
func (r *run) operatorNode(n *ir.Node) ([]ir.Type, error) {
	if n.Target == "operator.getitem" && len(n.Args) == 2 {
		return getitem(n.Args[0], n.Args[1])
	}
	if !ops.IsPyOperator(n.Target) || anyTensor(n.Args) {
		return nil, nil // a tensor operand: pythonNode routes it to ATen
	}
	t, err := ops.EvalPyOperator(n.Target, n.Args)
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func getitem(base, index ir.Arg) ([]ir.Type, error) {
	if base.Kind != ir.ArgValue || index.Kind != ir.ArgInt {
		return nil, nil
	}
	t := base.Value.Type
	if !t.IsKnown() {
		return nil, &ops.UntypedError{Value: base.Value}
	}
	if t.Kind != ir.KindList {
		return nil, nil
	}
	i := int(index.Int)
	if i < 0 {
		i += len(t.Elems)
	}
	if i < 0 || i >= len(t.Elems) {
		return nil, ops.Errorf(ops.CodeDim, "", "tuple index out of range")
	}
	return []ir.Type{t.Elems[i]}, nil
}

// methodNode types x.size(), x.size(d), x.stride(), x.dim(), x.numel().
func (r *run) methodNode(n *ir.Node) ([]ir.Type, error) {
	if len(n.Args) == 0 || n.Args[0].Kind != ir.ArgValue || n.Args[0].Value.Type.Kind != ir.KindTensor {
		return nil, nil
	}
	t := n.Args[0].Value.Type.Tensor
	switch n.Target {
	case "method.size", "method.stride":
		es := t.Shape
		if n.Target == "method.stride" {
			es = t.Strides
		}
		if len(n.Args) == 2 && n.Args[1].Kind == ir.ArgInt {
			d, err := ops.WrapDim(n.Args[1].Int, t.Rank())
			if err != nil {
				return nil, err
			}
			return []ir.Type{ir.SymIntOf(es[d])}, nil
		}
		elems := make([]ir.Type, len(es))
		for i, e := range es {
			elems[i] = ir.SymIntOf(e)
		}
		return []ir.Type{{Kind: ir.KindList, Elems: elems}}, nil
	case "method.dim":
		return []ir.Type{ir.SymIntOf(sym.Const(int64(t.Rank())))}, nil
	case "method.numel":
		return []ir.Type{ir.SymIntOf(t.Numel())}, nil
	}
	return nil, nil
}

// Agrees reports whether an inferred type matches an annotation on every
// field the annotation shows (strides and device only when printed).
func Agrees(annot, inferred ir.Type) bool {
	switch annot.Kind {
	case ir.KindTensor:
		return inferred.Kind == ir.KindTensor && assertsSame(annot.Tensor, inferred.Tensor)
	case ir.KindSymInt, ir.KindSymBool, ir.KindSymFloat:
		if inferred.Kind != annot.Kind {
			return false
		}
		return sym.Equal(annot.Sym, inferred.Sym)
	case ir.KindList:
		if inferred.Kind != ir.KindList || len(inferred.Elems) != len(annot.Elems) {
			return false
		}
		for i := range annot.Elems {
			if !Agrees(annot.Elems[i], inferred.Elems[i]) {
				return false
			}
		}
		return true
	}
	return annot.Kind == inferred.Kind
}

// assertsSame is assert_size_stride's test (torch/csrc/dynamo/guards.cpp,
// checked against torch._C._dynamo.guards.assert_size_stride, torch 2.15):
// dtype, device and sizes equal, strides equal except along a dim of size
// 1, and not compared at all for a tensor with no elements (the aot graph
// of a training step prints expand(tangent, [1, 2, 4, 6]) with strides
// [1, 0, 0, 0] where eager gives [0, 0, 0, 0]; assert_size_stride
// accepts both).
func assertsSame(a, b *ir.TensorType) bool {
	if a.Strides == nil || b.Strides == nil || len(a.Strides) != len(a.Shape) || len(b.Strides) != len(a.Strides) {
		return ir.SameTensorType(a, b)
	}
	if a.DType != b.DType || !sym.EqualLists(a.Shape, b.Shape) || a.Device.Known() && b.Device.Known() && a.Device != b.Device {
		return false
	}
	if sym.EqualLists(a.Strides, b.Strides) {
		return true // every annotation of a generated graph: no per-dim walk
	}
	for _, n := range a.Shape {
		if c, ok := n.Const(); ok && c == 0 {
			return true
		}
	}
	for i, n := range a.Shape {
		if c, ok := n.Const(); ok && c == 1 {
			continue
		}
		if !sym.Equal(a.Strides[i], b.Strides[i]) {
			return false
		}
	}
	return true
}

func anyTensor(args []ir.Arg) bool {
	for _, a := range args {
		if isTensor(a) {
			return true
		}
	}
	return false
}
