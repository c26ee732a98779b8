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
		return inferred.Kind == ir.KindTensor && ir.SameTensorType(annot.Tensor, inferred.Tensor)
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

func anyTensor(args []ir.Arg) bool {
	for _, a := range args {
		if isTensor(a) {
			return true
		}
	}
	return false
}
