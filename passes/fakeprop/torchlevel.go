package fakeprop

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// pythonNode types a Dynamo-level node — a torch function, a Tensor method,
// a Python operator on tensors — with the meta rule of the ATen overload
// PyTorch's Python bindings route it to (ops.ResolvePython). It returns nil
// types when the target is not a callable kiln routes.
func (r *run) pythonNode(n *ir.Node) ([]ir.Type, error) {
	if n.Target == "operator.getitem" && len(n.Args) == 2 && isTensor(n.Args[0]) {
		t, err := r.indexTensor(n.Args[0].Value.Type.Tensor, n.Args[1])
		if err != nil {
			return nil, err
		}
		return []ir.Type{ir.TensorOf(t)}, nil
	}
	call, ok, err := r.reg.ResolvePython(n.Target, n.Args, n.Kwargs)
	if !ok || err != nil {
		return nil, err
	}
	if call.Rule != nil {
		return call.Rule(r.env)
	}
	if call.Op.Meta == nil {
		return nil, nil
	}
	c, err := call.Op.Bind(call.Args, call.Kwargs)
	if err != nil {
		return nil, err
	}
	c.Node = n
	types, err := call.Op.Meta(r.env, c)
	if err != nil {
		return nil, err
	}
	if len(n.Results) == 1 && (len(types) > 1 || call.Op.Schema.VarRet) {
		// torch.topk(x, 3) binds one name to the tuple; x[0] picks from it
		types = []ir.Type{{Kind: ir.KindList, Elems: types}}
	}
	return types, nil
}

func isTensor(a ir.Arg) bool { return a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor }

// indexTensor types x[index] as PyTorch's Python indexing does
// (torch/csrc/autograd/python_variable_indexing.cpp): Ellipsis stands for
// the dims no other part names; None inserts a dim; an int selects; a slice
// slices; tensors index the dims they stand at (aten::index.Tensor) after
// the basic parts are applied.
func (r *run) indexTensor(t *ir.TensorType, index ir.Arg) (*ir.TensorType, error) {
	steps, advanced, err := ops.PlanIndex(t.Rank(), index)
	if err != nil {
		return nil, err
	}
	for _, st := range steps {
		if t, err = r.applyMeta(st.Target, t, st.Args...); err != nil {
			return nil, err
		}
	}
	if advanced == nil {
		return t, nil
	}
	return r.applyMeta("aten::index.Tensor", t, *advanced)
}

// applyMeta runs one ATen op's meta rule on a tensor type and constant
// arguments, for ops a Python spelling stands for.
func (r *run) applyMeta(target string, self *ir.TensorType, args ...ir.Arg) (*ir.TensorType, error) {
	op := r.reg.Lookup(target)
	if op == nil || op.Meta == nil {
		return nil, fmt.Errorf("%s has no meta rule", target)
	}
	c, err := op.Bind(append([]ir.Arg{ir.ValueArg(&ir.Value{Name: "self", Type: ir.TensorOf(self)})}, args...), nil)
	if err != nil {
		return nil, err
	}
	types, err := op.Meta(r.env, c)
	if err != nil {
		return nil, err
	}
	if len(types) != 1 || types[0].Kind != ir.KindTensor {
		return nil, fmt.Errorf("%s did not return one tensor", target)
	}
	return types[0].Tensor, nil
}
