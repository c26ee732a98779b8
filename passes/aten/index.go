package aten

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// getitem is x[index] as torch/csrc/autograd/python_variable_indexing.cpp
// applies it (fakeprop's indexTensor types the same walk): the basic parts
// first — None unsqueezes, a slice slices, an int selects, Ellipsis skips
// the dims no other part names — then the tensors index the dims they
// stand at with one aten::index.Tensor.
func (r *rewriter) getitem(n *ir.Node) error {
	view, advanced, err := r.basicIndex(n.Args[0].Value, n.Args[1])
	if err != nil {
		return err
	}
	out := view
	switch {
	case advanced != nil:
		out, err = r.call("aten::index.Tensor", []ir.Arg{ir.ValueArg(view), *advanced})
	case view == n.Args[0].Value:
		// x[...] is a new view of x, never x itself (THPVariable_getitem's alias)
		out, err = r.call("aten::alias.default", []ir.Arg{ir.ValueArg(view)})
	}
	if err != nil {
		return err
	}
	if err := r.adopt(n, out); err != nil {
		return err
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: x[%s] → %s", n.Name, n.Args[1], r.emitted())
	return nil
}

// setitem is x[index] = value as THPVariable_setitem applies it: the view
// the basic parts make, then index_put_ into it when tensors index, else
// copy_ of a tensor value (copy_to; a 0-d value fills) or fill_ of a
// number. The write is in place; functionalize turns it into scatters.
func (r *rewriter) setitem(n *ir.Node) error {
	if v := n.Results; len(v) == 1 && v[0].NumUses() > 0 {
		return fmt.Errorf("the value of the assignment (%s) is read; kiln reads x after it instead", v[0].Name)
	}
	x, value := n.Args[0].Value, n.Args[2]
	view, advanced, err := r.basicIndex(x, n.Args[1])
	if err != nil {
		return err
	}
	switch {
	case advanced != nil:
		if !isTensor(value) {
			if value, err = r.scalarTensor(value, x.Type.Tensor); err != nil {
				return err
			}
		}
		_, err = r.call("aten::index_put_.default", []ir.Arg{ir.ValueArg(view), *advanced, value})
	case isTensor(value):
		_, err = r.call("aten::copy_.default", []ir.Arg{ir.ValueArg(view), value})
	case value.Kind == ir.ArgInt || value.Kind == ir.ArgFloat || value.Kind == ir.ArgBool || value.Kind == ir.ArgValue:
		_, err = r.call("aten::fill_.Scalar", []ir.Arg{ir.ValueArg(view), value})
	default:
		return fmt.Errorf("assigning %s to a tensor is not modelled", value)
	}
	if err != nil {
		return err
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: %s[%s] = %s → %s", n.Name, x.Name, n.Args[1], value, r.emitted())
	return nil
}

// scalarTensor is valueToTensor: a number as a 0-d tensor of like's dtype
// and device.
func (r *rewriter) scalarTensor(v ir.Arg, like *ir.TensorType) (ir.Arg, error) {
	t, err := r.call("aten::scalar_tensor.default", []ir.Arg{v},
		ir.Kwarg{Name: "dtype", Arg: ir.DTypeArg(like.DType)}, ir.Kwarg{Name: "device", Arg: ir.DeviceArg(like.Device)})
	if err != nil {
		return ir.Arg{}, err
	}
	return ir.ValueArg(t), nil
}

// basicIndex applies the basic parts of index to x and returns the view
// they make and, when tensors index, the index list for aten::index.Tensor
// (ops.PlanIndex).
func (r *rewriter) basicIndex(x *ir.Value, index ir.Arg) (*ir.Value, *ir.Arg, error) {
	steps, advanced, err := ops.PlanIndex(x.Type.Tensor.Rank(), index)
	if err != nil {
		return nil, nil, err
	}
	cur := x
	for _, st := range steps {
		if cur, err = r.call(st.Target, append([]ir.Arg{ir.ValueArg(cur)}, st.Args...)); err != nil {
			return nil, nil, err
		}
	}
	return cur, advanced, nil
}

// emitted names the ops built for the node being rewritten, in order:
// "aten::slice.Tensor → aten::select.int".
func (r *rewriter) emitted() string {
	s := ""
	for _, m := range r.b.Out[r.mark:] {
		if s != "" {
			s += " → "
		}
		s += m.Target
	}
	return s
}
