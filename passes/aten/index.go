package aten

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
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
// (one entry per dim of the view, None where no tensor stands, trailing
// Nones dropped).
func (r *rewriter) basicIndex(x *ir.Value, index ir.Arg) (*ir.Value, *ir.Arg, error) {
	parts := []ir.Arg{index}
	if index.Kind == ir.ArgTuple || index.Kind == ir.ArgList && !tensorList(index) {
		parts = index.Elems
	}
	rank := x.Type.Tensor.Rank()
	named := 0
	for _, p := range parts {
		if p.Kind != ir.ArgNone && p.Kind != ir.ArgEllipsis {
			named++
			if isTensor(p) && p.Value.Type.Tensor.DType == ir.Bool {
				named += p.Value.Type.Tensor.Rank() - 1 // a mask names as many dims as it has
			}
		}
	}
	cur, dim := x, 0
	var advanced []ir.Arg
	var err error
	for _, p := range parts {
		switch {
		case p.Kind == ir.ArgEllipsis:
			for k := 0; k < rank-named; k++ {
				advanced = append(advanced, ir.NoneArg())
			}
			dim += max(rank-named, 0)
		case p.Kind == ir.ArgNone:
			cur, err = r.call("aten::unsqueeze.default", []ir.Arg{ir.ValueArg(cur), ir.IntArg(int64(dim))})
			advanced = append(advanced, ir.NoneArg())
			dim++
		case p.Kind == ir.ArgSlice:
			start, stop, step := unpackSlice(p)
			cur, err = r.call("aten::slice.Tensor", []ir.Arg{ir.ValueArg(cur), ir.IntArg(int64(dim)), start, stop, step})
			advanced = append(advanced, ir.NoneArg())
			dim++
		case isTensor(p):
			advanced = append(advanced, p)
			k := 1
			if p.Value.Type.Tensor.DType == ir.Bool {
				k = max(p.Value.Type.Tensor.Rank(), 1)
				for j := 1; j < k; j++ {
					advanced = append(advanced, ir.NoneArg())
				}
			}
			dim += k
		case p.Kind == ir.ArgInt || p.Kind == ir.ArgValue && p.Value.Type.Kind == ir.KindSymInt:
			cur, err = r.call("aten::select.int", []ir.Arg{ir.ValueArg(cur), ir.IntArg(int64(dim)), p})
		default:
			return nil, nil, fmt.Errorf("indexing a tensor with %s is not modelled", p)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	for len(advanced) > 0 && !isTensor(advanced[len(advanced)-1]) {
		advanced = advanced[:len(advanced)-1]
	}
	if len(advanced) == 0 {
		return cur, nil, nil
	}
	list := ir.ListArg(advanced...)
	return cur, &list, nil
}

// unpackSlice is THPUtils_unpackSlice: a missing start is 0, a missing
// stop PY_SSIZE_T_MAX, a missing step 1, so the slice prints as an AOT
// graph's does (slice.Tensor(x, 0, 0, 9223372036854775807)).
func unpackSlice(p ir.Arg) (start, stop, step ir.Arg) {
	start, stop, step = p.Elems[0], p.Elems[1], p.Elems[2]
	if start.Kind == ir.ArgNone {
		start = ir.IntArg(0)
	}
	if stop.Kind == ir.ArgNone {
		stop = ir.IntArg(math.MaxInt64)
	}
	if step.Kind == ir.ArgNone {
		step = ir.IntArg(1)
	}
	return start, stop, step
}

func tensorList(a ir.Arg) bool {
	for _, e := range a.Elems {
		if !isTensor(e) {
			return false
		}
	}
	return len(a.Elems) > 0
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
