package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Family rules for the overloads kiln takes from PyTorch's table: an
// in-place variant (`lerp_.Tensor`) or an out= variant (`mul.out`) of an
// op kiln has a meta rule for is typed by that rule, as PyTorch's
// structured kernels compute the functional result's metadata first.

// familyMeta returns the family rule for op, or nil when op is in no family.
func familyMeta(op *Op) MetaFunc {
	s := op.Schema
	switch {
	case op.IsInplace():
		return metaInplaceFamily
	case len(s.Mutated()) > 0 && len(outParams(s)) > 0:
		return metaOutFamily
	}
	return nil
}

// outParams lists the keyword-only parameters an out= variant writes.
func outParams(s *Schema) []int {
	var out []int
	for i, p := range s.Params {
		if p.KwOnly && p.Alias != nil && p.Alias.Write && p.Type.IsTensor() {
			out = append(out, i)
		}
	}
	return out
}

// metaInplaceFamily checks the call with the functional op's rule (it
// raises what PyTorch raises: broadcasting, dtype) and returns self's type,
// which an in-place op leaves as it was.
func metaInplaceFamily(env *Env, c *Call) ([]ir.Type, error) {
	fop := Lookup(c.Op.Functional)
	if fop == nil || fop.Meta == nil {
		return nil, fmt.Errorf("%s: no rule for its functional form %q", c.Op.QualifiedName(), c.Op.Functional)
	}
	fc, err := rebind(fop, c)
	if err != nil {
		return nil, err
	}
	res, err := fop.Meta(env, fc)
	if err != nil {
		return nil, err
	}
	self, err := c.Tensor(c.Op.Schema.Params[0].Name)
	if err != nil {
		return nil, err
	}
	if len(res) > 0 && res[0].Kind == ir.KindTensor {
		if r := res[0].Tensor; !sym.EqualLists(r.Shape, self.Shape) {
			return nil, Errorf(CodeShape, "", "output with shape %s doesn't match the broadcast shape %s", shapeString(self.Shape), shapeString(r.Shape))
		}
		if !CanCast(res[0].Tensor.DType, self.DType) {
			return nil, Errorf(CodeDType, "", "result type %s can't be cast to the desired output type %s", res[0].Tensor.DType.Name(), self.DType.Name())
		}
	}
	return one(self.Clone()), nil
}

// metaOutFamily types an out= variant: the results are its out tensors,
// resized (row-major) when their shape is not the functional result's.
func metaOutFamily(env *Env, c *Call) ([]ir.Type, error) {
	fop := functionalOfOut(c.Op)
	if fop == nil || fop.Meta == nil {
		return nil, fmt.Errorf("%s: no functional op with a rule", c.Op.QualifiedName())
	}
	fc, err := rebind(fop, c)
	if err != nil {
		return nil, err
	}
	res, err := fop.Meta(env, fc)
	if err != nil {
		return nil, err
	}
	outs := outParams(c.Op.Schema)
	if len(res) != len(outs) {
		return nil, fmt.Errorf("%s: %d out tensors, %d results", c.Op.QualifiedName(), len(outs), len(res))
	}
	types := make([]ir.Type, len(outs))
	for i, pi := range outs {
		out, err := c.Tensor(c.Op.Schema.Params[pi].Name)
		if err != nil {
			return nil, err
		}
		t := out.Clone()
		if r := res[i].Tensor; res[i].Kind == ir.KindTensor && !sym.EqualLists(r.Shape, out.Shape) {
			t.Shape, t.Strides, t.Offset = copyExprs(r.Shape), ir.ContiguousStrides(r.Shape), sym.Const(0)
		}
		types[i] = ir.TensorOf(t)
	}
	return types, nil
}

// functionalOfOut finds the functional overload whose parameters are the
// out= variant's less its out tensors (`mul.out` -> `mul.Tensor`).
func functionalOfOut(op *Op) *Op {
	s := op.Schema
	want := map[string]bool{}
	for i, p := range s.Params {
		if !containsInt(outParams(s), i) {
			want[p.Name+":"+p.Type.String()] = true
		}
	}
	ix := pytorchIndex()
	for _, q := range ix.packets[s.Namespace+"::"+s.Name] {
		f := Lookup(q)
		if f == nil || f.Mutates() || len(f.Schema.Params) != len(want) {
			continue
		}
		match := true
		for _, p := range f.Schema.Params {
			match = match && want[p.Name+":"+p.Type.String()]
		}
		if match {
			return f
		}
	}
	return nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// rebind binds c's arguments, by parameter name, to fop's schema.
func rebind(fop *Op, c *Call) (*Call, error) {
	args := make([]ir.Arg, len(fop.Schema.Params))
	for i, p := range fop.Schema.Params {
		j := c.Index(p.Name)
		if j < 0 {
			return nil, fmt.Errorf("%s: no argument %q for %s", c.Op.QualifiedName(), p.Name, fop.QualifiedName())
		}
		args[i] = c.Args[j]
	}
	return &Call{Op: fop, Node: c.Node, Args: args, Given: make([]bool, len(args))}, nil
}

// FunctionalOfOut is the functional op an out= variant computes, nil when
// op is none or has none.
func FunctionalOfOut(op *Op) *Op {
	if len(outParams(op.Schema)) == 0 || !op.Mutates() {
		return nil
	}
	return functionalOfOut(op)
}

// OutParams names the tensors an out= variant writes, in result order.
func OutParams(op *Op) []string {
	var names []string
	for _, i := range outParams(op.Schema) {
		names = append(names, op.Schema.Params[i].Name)
	}
	return names
}
