package functionalize

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// keepWriteBack recognizes a copy_ that already is an input write-back (a
// graph that went through functionalization once: `copy_(arg0_1, new)`
// with new of the input's shape, dtype and device). The input's storage
// takes new as its value and the node is kept as the input's epilogue, so
// that functionalizing twice changes nothing. Other copy_s become copy.
func (f *fn) keepWriteBack(n *ir.Node, op *ops.Op, targets []target) (bool, error) {
	if len(targets) != 1 || len(n.Args) < 2 {
		return false, nil
	}
	a := targets[0].a
	if len(a.metas) != 0 || !a.st.root.IsInput() {
		return false, nil
	}
	if op.QualifiedName() == "aten::resize_.default" {
		return f.keepWriteBackResize(n, a), nil
	}
	dst := a.st.root // the input, or the input resized first
	if r := a.st.resize; r != nil {
		dst = r.Out()
	}
	if op.QualifiedName() != "aten::copy_.default" || n.Args[1].Kind != ir.ArgValue || n.Args[0].Value != dst {
		return false, nil
	}
	src, err := f.read(n.Args[1].Value)
	if err != nil {
		return true, err
	}
	it, st := dst.Type.Tensor, src.Type.Tensor
	if dst.Type.Kind != ir.KindTensor || src.Type.Kind != ir.KindTensor || it == nil || st == nil ||
		it.DType != st.DType || !ir.SameTensorType(&ir.TensorType{DType: it.DType, Shape: it.Shape}, &ir.TensorType{DType: st.DType, Shape: st.Shape}) ||
		it.Device.Known() && st.Device.Known() && it.Device != st.Device {
		return false, nil
	}
	f.b.Names.Take(n.Name)
	a.st.writeback = n
	f.ctx.Remark(n, RemarkMutation, "%s already writes %s back into input %s: kept as its epilogue", n.Name, src.Name, a.name)
	if err := f.commit(n, a, src); err != nil {
		return true, err
	}
	f.bindResults(n, a)
	return true, nil
}

// keepWriteBackResize recognizes the resize_ a write-back of a resized
// input starts with (resize_(x_1, [2]) whose one user is copy_(resize_,
// new), as functionalization writes it): kept for the epilogue with that
// copy_, so that functionalizing twice changes nothing.
func (f *fn) keepWriteBackResize(n *ir.Node, a *alias) bool {
	if a.st.root != n.Args[0].Value || a.st.resize != nil || len(n.Results) != 1 {
		return false
	}
	r := n.Results[0]
	users := r.Users()
	if r.NumUses() != 1 || len(users) != 1 || users[0].Target != "aten::copy_.default" ||
		len(users[0].Args) < 2 || users[0].Args[0].Kind != ir.ArgValue || users[0].Args[0].Value != r {
		return false
	}
	f.b.Names.Take(n.Name)
	a.st.resize = n
	f.bindResults(n, a)
	return true
}

// outputs reads every graph output up to date.
func (f *fn) outputs() ([]ir.Arg, error) {
	outs := make([]ir.Arg, len(f.g.Outputs))
	copy(outs, f.g.Outputs)
	for i := range outs {
		one := []ir.Arg{outs[i]}
		if _, err := f.rewriteArgs(one, false); err != nil {
			return nil, err
		}
		outs[i] = one[0]
	}
	return outs, nil
}

// epilogue writes every mutated input back once, in input order:
// copy_(input, final value), as AOTAutograd's functionalized graphs end.
// A mutated module attribute cannot be written back from inside the graph.
func (f *fn) epilogue() error {
	for _, a := range f.attrs {
		if a.st.mutated {
			f.ctx.Warn(a.st.root.Def, RemarkEpilogue, "lift the buffer into a graph input, as torch.export does",
				"module attribute %s is mutated; only graph inputs are written back", a.st.root.Def.Target)
		}
	}
	for i, a := range f.inputs {
		if a == nil || !a.st.mutated {
			continue
		}
		in := f.g.Inputs[i]
		if err := f.applyUpdates(a.st); err != nil {
			return err
		}
		final := a.st.base
		f.b.SetPos(in.Pos)
		if n := a.st.writeback; n != nil {
			dst := in
			if r := a.st.resize; r != nil {
				f.b.Keep(r)
				dst = r.Out()
			}
			f.b.Undo.Args(n)
			n.Args = []ir.Arg{ir.ValueArg(dst), ir.ValueArg(final)}
			f.b.Keep(n)
			f.ctx.Remark(n, RemarkEpilogue, "input %s is mutated: written back at the end by %s = copy_(%s, %s)", in.Name, n.Name, in.Name, final.Name)
			continue
		}
		dst, err := f.resizeInput(in, final)
		if err != nil {
			return err
		}
		n, err := f.b.Call("aten::copy_.default", []ir.Arg{ir.ValueArg(dst), ir.ValueArg(final)}, nil, 1, dst.Type)
		if err != nil {
			return err
		}
		n.Out().Type = dst.Type
		f.ctx.Remark(n, RemarkEpilogue, "input %s is mutated: written back at the end by %s = copy_(%s, %s)", in.Name, n.Name, dst.Name, final.Name)
	}
	return nil
}

// resizeInput is the input a write-back copies into: the input itself, or,
// when the graph resized it (resize_ from f32[0] to f32[2]), the input
// resized to the final value's shape first, as PyTorch's functionalization
// writes it: resize_ = resize_(x_1, [2]); copy_(resize_, resize).
func (f *fn) resizeInput(in, final *ir.Value) (*ir.Value, error) {
	it, ft := in.Type.Tensor, final.Type.Tensor
	if in.Type.Kind != ir.KindTensor || final.Type.Kind != ir.KindTensor || it == nil || ft == nil ||
		sym.EqualLists(it.Shape, ft.Shape) {
		return in, nil
	}
	n, err := f.b.Call("aten::resize_.default", []ir.Arg{ir.ValueArg(in), f.shapeArg(final, ft)}, nil, 1, in.Type)
	if err != nil {
		return nil, err
	}
	f.ctx.Remark(n, RemarkEpilogue, "input %s was resized from %v to %v: %s resizes it before the write-back", in.Name, it.Shape, ft.Shape, n.Name)
	return n.Out(), nil
}
