package lowering

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// viewOfCopy returns the view op whose functional copy op is
// (aten::diagonal_copy.default → aten::diagonal.default), or nil when op
// is not a *_copy form of a registered view.
func viewOfCopy(op *ops.Op) *ops.Op {
	name := op.QualifiedName()
	ns, rest, ok := strings.Cut(name, "::")
	if !ok {
		return nil
	}
	base, overload, _ := strings.Cut(rest, ".")
	if !strings.HasSuffix(base, "_copy") {
		return nil
	}
	view := ops.Lookup(ns + "::" + strings.TrimSuffix(base, "_copy") + "." + overload)
	if view == nil || view.Kind != ops.KindView {
		return nil
	}
	return view
}

// copyView materializes a *_copy op (diagonal_copy, slice_copy,
// transpose_copy, ...): the view's own meta rule, applied to the base's
// layout, says where each element lives; the kernel copies them into a
// fresh contiguous buffer. (Reshape-like copies unravel instead: see
// copyReshape.)
func copyView(l *lowerer, c *ops.Call, view *ops.Op, base tensorRef, v *ir.Value) error {
	types, err := viewTypes(c, view, base)
	if err != nil || len(types) != 1 || types[0].Kind != ir.KindTensor {
		if view.RowMajor {
			return copyReshape(l, base, v) // view_copy of a layout view cannot express: a reshape
		}
		return noLowering(c.Node, "", "%s: its layout over the input could not be computed: %v", c.Op, err)
	}
	out, err := l.fresh(v)
	if err != nil {
		return err
	}
	src := tensorRef{base.buf, layoutOf(types[0].Tensor)}
	vars := outerVars(len(out.layout.Shape))
	b := l.newKernel(out.layout.Shape)
	b.store(out, vars, b.cast(b.load(src, vars), out.layout.DType))
	return nil
}

// viewTypes runs view's meta rule on c's arguments with the first one
// replaced by a tensor laid out as base: the results' layouts over base's
// buffer.
func viewTypes(c *ops.Call, view *ops.Op, base tensorRef) ([]ir.Type, error) {
	self := &ir.Value{Name: c.Args[0].Value.Name, Type: ir.TensorOf(&ir.TensorType{
		DType: base.layout.DType, Shape: base.layout.Shape, Strides: base.layout.Strides,
		Offset: base.layout.Offset, Device: c.Args[0].Value.Type.Tensor.Device})}
	args := append([]ir.Arg{ir.ValueArg(self)}, c.Node.Args[1:]...)
	vc, err := view.Bind(args, c.Node.Kwargs)
	if err != nil {
		return nil, fmt.Errorf("%s as %s: %w", c.Op, view, err)
	}
	return view.Meta(ops.NewEnv(nil), vc)
}
