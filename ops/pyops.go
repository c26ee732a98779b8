package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Python operators on symbolic ints and bools, as Dynamo and make_fx graphs
// spell them (`add_31 = primals_6 + 9`, `ge = u0 >= 0`, torch.sym_max(a, b)).
// They are not ATen ops and have no schema; this table is their meta rule.

type pyOp struct {
	arity int
	fn    func(a []sym.Expr) sym.Expr
}

var pyOperators = map[string]pyOp{
	"operator.add":       {2, func(a []sym.Expr) sym.Expr { return sym.Add(a[0], a[1]) }},
	"operator.sub":       {2, func(a []sym.Expr) sym.Expr { return sym.Sub(a[0], a[1]) }},
	"operator.mul":       {2, func(a []sym.Expr) sym.Expr { return sym.Mul(a[0], a[1]) }},
	"operator.floordiv":  {2, func(a []sym.Expr) sym.Expr { return sym.FloorDiv(a[0], a[1]) }},
	"operator.mod":       {2, func(a []sym.Expr) sym.Expr { return sym.Mod(a[0], a[1]) }},
	"operator.neg":       {1, func(a []sym.Expr) sym.Expr { return sym.Sub(c0, a[0]) }},
	"operator.pos":       {1, func(a []sym.Expr) sym.Expr { return a[0] }},
	"operator.eq":        {2, func(a []sym.Expr) sym.Expr { return sym.Eq(a[0], a[1]) }},
	"operator.ne":        {2, func(a []sym.Expr) sym.Expr { return sym.Ne(a[0], a[1]) }},
	"operator.lt":        {2, func(a []sym.Expr) sym.Expr { return sym.Lt(a[0], a[1]) }},
	"operator.le":        {2, func(a []sym.Expr) sym.Expr { return sym.Le(a[0], a[1]) }},
	"operator.gt":        {2, func(a []sym.Expr) sym.Expr { return sym.Gt(a[0], a[1]) }},
	"operator.ge":        {2, func(a []sym.Expr) sym.Expr { return sym.Ge(a[0], a[1]) }},
	"operator.and_":      {2, func(a []sym.Expr) sym.Expr { return sym.And(a[0], a[1]) }},
	"operator.or_":       {2, func(a []sym.Expr) sym.Expr { return sym.Or(a[0], a[1]) }},
	"operator.not_":      {1, func(a []sym.Expr) sym.Expr { return sym.Not(a[0]) }},
	"operator.iadd":      {2, func(a []sym.Expr) sym.Expr { return sym.Add(a[0], a[1]) }},
	"operator.isub":      {2, func(a []sym.Expr) sym.Expr { return sym.Sub(a[0], a[1]) }},
	"operator.imul":      {2, func(a []sym.Expr) sym.Expr { return sym.Mul(a[0], a[1]) }},
	"operator.ifloordiv": {2, func(a []sym.Expr) sym.Expr { return sym.FloorDiv(a[0], a[1]) }},
	"operator.imod":      {2, func(a []sym.Expr) sym.Expr { return sym.Mod(a[0], a[1]) }},
	"torch.sym_not":      {1, func(a []sym.Expr) sym.Expr { return sym.Not(a[0]) }},
	"torch.sym_max":      {2, func(a []sym.Expr) sym.Expr { return sym.Max(a[0], a[1]) }},
	"torch.sym_min":      {2, func(a []sym.Expr) sym.Expr { return sym.Min(a[0], a[1]) }},
}

// IsPyOperator reports whether target is a Python operator kiln types.
func IsPyOperator(target string) bool {
	_, ok := pyOperators[target]
	return ok
}

// PyOperators lists the Python operator targets kiln types, for coverage.
func PyOperators() []string {
	out := make([]string, 0, len(pyOperators))
	for k := range pyOperators {
		out = append(out, k)
	}
	return out
}

// EvalPyOperator types a Python operator over symbolic ints and bools.
// Operands that are not symbolic scalars (tensors, floats) give an error:
// the node stays untyped.
func EvalPyOperator(target string, args []ir.Arg) (ir.Type, error) {
	op, ok := pyOperators[target]
	if !ok {
		return ir.Type{}, fmt.Errorf("operator %s is not modelled", target)
	}
	if len(args) != op.arity {
		return ir.Type{}, fmt.Errorf("%s takes %d operands, got %d", target, op.arity, len(args))
	}
	xs := make([]sym.Expr, len(args))
	for i, a := range args {
		e, err := symOperand(a)
		if err != nil {
			return ir.Type{}, fmt.Errorf("%s: %w", target, err)
		}
		xs[i] = e
	}
	r := op.fn(xs)
	if r.IsBool() {
		return ir.SymBoolOf(r), nil
	}
	if _, ok := r.BoolConst(); ok {
		return ir.SymBoolOf(r), nil
	}
	return ir.SymIntOf(r), nil
}

func symOperand(a ir.Arg) (sym.Expr, error) {
	switch a.Kind {
	case ir.ArgInt:
		return sym.Const(a.Int), nil
	case ir.ArgBool:
		if a.Bool {
			return sym.True(), nil
		}
		return sym.False(), nil
	case ir.ArgValue:
		t := a.Value.Type
		switch t.Kind {
		case ir.KindSymInt, ir.KindSymBool:
			return t.Sym, nil
		case ir.KindUnknown:
			return sym.Expr{}, &UntypedError{Value: a.Value}
		}
		return sym.Expr{}, fmt.Errorf("operand %s is %s, not a symbolic int", a.Value.Name, t)
	}
	return sym.Expr{}, fmt.Errorf("operand %s is not a symbolic int", a.String())
}
