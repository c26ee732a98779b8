package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Python-level nodes: operators on symbolic scalars and tuples
// (`getitem = split[1]`, `add = s0 + 1`), torch.sym_* functions, tensor
// methods Dynamo records (`size = x.size()`), and get_attr.

// evalOperator evaluates an operator.* or torch.sym_* node.
func (m *machine) evalOperator(n *ir.Node) ([]any, error) {
	args, err := mapErr(n.Args, m.evalArg)
	if err != nil {
		return nil, err
	}
	if n.Target == "operator.getitem" {
		if len(args) != 2 {
			return nil, fmt.Errorf("getitem takes 2 operands")
		}
		return getitem(args[0], args[1])
	}
	for _, a := range args {
		if _, ok := a.(*Tensor); ok {
			return m.tensorOperator(n, args)
		}
	}
	f, ok := pyScalarOps[n.Target]
	if !ok {
		return nil, noEval(n, "is a Python operator the interpreter does not know")
	}
	if len(args) != f.arity {
		return nil, fmt.Errorf("%s takes %d operands, got %d", n.Target, f.arity, len(args))
	}
	v, err := f.fn(args)
	if err != nil {
		return nil, err
	}
	return one(v)
}

// getitem indexes a list, tuple or tensor by an int.
func getitem(seq, idx any) ([]any, error) {
	i, err := asInt(idx, "index")
	if err != nil {
		return nil, err
	}
	switch s := seq.(type) {
	case []any:
		if i < 0 {
			i += int64(len(s))
		}
		if i < 0 || i >= int64(len(s)) {
			return nil, fmt.Errorf("tuple index %d out of range for %d elements", i, len(s))
		}
		return one(s[i])
	case *Tensor:
		return oneT(selectView(s, 0, i))
	}
	return nil, fmt.Errorf("'%s' object is not subscriptable", describe(seq))
}

// tensorOperator evaluates `a + b` on tensors as the ATen op it stands for.
func (m *machine) tensorOperator(n *ir.Node, args []any) ([]any, error) {
	binary := map[string]ewOpFunc{
		"operator.add": addOp, "operator.sub": subOp, "operator.mul": mulOp, "operator.truediv": divOp,
	}
	if f, ok := binary[n.Target]; ok && len(args) == 2 {
		return oneT(f(args[0], args[1]))
	}
	if n.Target == "operator.neg" && len(args) == 1 {
		return oneT(unaryNamed("neg", args[0]))
	}
	return nil, noEval(n, "on tensors is not supported by the interpreter")
}

// pyScalarOp is a Python operator on ints, floats and bools.
type pyScalarOp struct {
	arity int
	fn    func(a []any) (any, error)
}

var pyScalarOps = map[string]pyScalarOp{
	"operator.add":      {2, arith(func(a, b int64) int64 { return a + b }, func(a, b float64) float64 { return a + b })},
	"operator.sub":      {2, arith(func(a, b int64) int64 { return a - b }, func(a, b float64) float64 { return a - b })},
	"operator.mul":      {2, arith(func(a, b int64) int64 { return a * b }, func(a, b float64) float64 { return a * b })},
	"operator.floordiv": {2, pyFloorDiv},
	"operator.mod":      {2, pyMod},
	"operator.truediv":  {2, pyTrueDiv},
	"operator.pow":      {2, pyPow},
	"operator.neg": {1, func(a []any) (any, error) {
		return arith1(a[0], func(x int64) int64 { return -x }, func(x float64) float64 { return -x })
	}},
	"operator.pos":    {1, func(a []any) (any, error) { return a[0], nil }},
	"operator.eq":     {2, compare(func(c int) bool { return c == 0 })},
	"operator.ne":     {2, compare(func(c int) bool { return c != 0 })},
	"operator.lt":     {2, compare(func(c int) bool { return c < 0 })},
	"operator.le":     {2, compare(func(c int) bool { return c <= 0 })},
	"operator.gt":     {2, compare(func(c int) bool { return c > 0 })},
	"operator.ge":     {2, compare(func(c int) bool { return c >= 0 })},
	"operator.and_":   {2, logic(func(a, b bool) bool { return a && b })},
	"operator.or_":    {2, logic(func(a, b bool) bool { return a || b })},
	"operator.not_":   {1, func(a []any) (any, error) { b, err := truth(a[0]); return !b, err }},
	"torch.sym_not":   {1, func(a []any) (any, error) { b, err := truth(a[0]); return !b, err }},
	"torch.sym_max":   {2, extremum(1)},
	"torch.sym_min":   {2, extremum(-1)},
	"torch.sym_float": {1, func(a []any) (any, error) { f, ok := num(a[0]); return f, boolErr(ok, a[0]) }},
	"torch.sym_int":   {1, func(a []any) (any, error) { f, ok := num(a[0]); return int64(f), boolErr(ok, a[0]) }},
}

func boolErr(ok bool, x any) error {
	if ok {
		return nil
	}
	return fmt.Errorf("expected a number, got %s", describe(x))
}

// num reads an int, float or bool as a float64.
func num(x any) (float64, bool) {
	if v, ok := x.(float64); ok {
		return v, true
	}
	i, ok := intOrBool(x)
	return float64(i), ok
}

// intOrBool reads an int or bool as an int64.
func intOrBool(x any) (int64, bool) {
	switch v := x.(type) {
	case int64:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func arith(fi func(a, b int64) int64, ff func(a, b float64) float64) func([]any) (any, error) {
	return func(a []any) (any, error) {
		x, xok := intOrBool(a[0])
		y, yok := intOrBool(a[1])
		if xok && yok {
			return fi(x, y), nil
		}
		fx, ok1 := num(a[0])
		fy, ok2 := num(a[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("unsupported operand types: %s and %s", describe(a[0]), describe(a[1]))
		}
		return ff(fx, fy), nil
	}
}

func arith1(x any, fi func(int64) int64, ff func(float64) float64) (any, error) {
	if v, ok := intOrBool(x); ok {
		return fi(v), nil
	}
	if f, ok := num(x); ok {
		return ff(f), nil
	}
	return nil, fmt.Errorf("bad operand type: %s", describe(x))
}

// pyFloorDiv is Python's //: floor division, ZeroDivisionError on 0.
func pyFloorDiv(a []any) (any, error) {
	x, xok := intOrBool(a[0])
	y, yok := intOrBool(a[1])
	if xok && yok {
		if y == 0 {
			return nil, fmt.Errorf("ZeroDivisionError: integer division or modulo by zero")
		}
		return floorDivInt(x, y), nil
	}
	fx, ok1 := num(a[0])
	fy, ok2 := num(a[1])
	if !ok1 || !ok2 || fy == 0 {
		return nil, fmt.Errorf("ZeroDivisionError: float floor division by zero")
	}
	return math.Floor(fx / fy), nil
}

// pyMod is Python's %: the result has the divisor's sign.
func pyMod(a []any) (any, error) {
	x, xok := intOrBool(a[0])
	y, yok := intOrBool(a[1])
	if xok && yok {
		if y == 0 {
			return nil, fmt.Errorf("ZeroDivisionError: integer division or modulo by zero")
		}
		return x - floorDivInt(x, y)*y, nil
	}
	fx, ok1 := num(a[0])
	fy, ok2 := num(a[1])
	if !ok1 || !ok2 || fy == 0 {
		return nil, fmt.Errorf("ZeroDivisionError: float modulo")
	}
	return pyFmod(fx, fy), nil
}

func pyTrueDiv(a []any) (any, error) {
	fx, ok1 := num(a[0])
	fy, ok2 := num(a[1])
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("unsupported operand types for /")
	}
	if fy == 0 {
		return nil, fmt.Errorf("ZeroDivisionError: division by zero")
	}
	return fx / fy, nil
}

func pyPow(a []any) (any, error) {
	x, xok := intOrBool(a[0])
	y, yok := intOrBool(a[1])
	if xok && yok && y >= 0 {
		r := int64(1)
		for i := int64(0); i < y; i++ {
			r *= x
		}
		return r, nil
	}
	fx, ok1 := num(a[0])
	fy, ok2 := num(a[1])
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("unsupported operand types for **")
	}
	return math.Pow(fx, fy), nil
}

func compare(pred func(int) bool) func([]any) (any, error) {
	return func(a []any) (any, error) {
		fx, ok1 := num(a[0])
		fy, ok2 := num(a[1])
		if !ok1 || !ok2 {
			return a[0] == a[1] && pred(0), nil
		}
		c := 0
		switch {
		case fx < fy:
			c = -1
		case fx > fy:
			c = 1
		case fx != fy: // NaN: only != holds
			return pred(1) && pred(-1), nil
		}
		return pred(c), nil
	}
}

func logic(f func(a, b bool) bool) func([]any) (any, error) {
	return func(a []any) (any, error) {
		x, err := truth(a[0])
		if err != nil {
			return nil, err
		}
		y, err := truth(a[1])
		if err != nil {
			return nil, err
		}
		return f(x, y), nil
	}
}

func truth(x any) (bool, error) {
	f, ok := num(x)
	if !ok {
		return false, fmt.Errorf("expected a bool, got %s", describe(x))
	}
	return f != 0, nil
}

func extremum(sign int) func([]any) (any, error) {
	return func(a []any) (any, error) {
		fx, ok1 := num(a[0])
		fy, ok2 := num(a[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("expected numbers")
		}
		if (fy > fx) == (sign > 0) && fy != fx {
			return a[1], nil
		}
		return a[0], nil
	}
}

// evalMethod evaluates the tensor methods Dynamo graphs record.
func (m *machine) evalMethod(n *ir.Node) ([]any, error) {
	args, err := mapErr(n.Args, m.evalArg)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, noEval(n, "has no receiver")
	}
	t, ok := args[0].(*Tensor)
	if !ok {
		return nil, noEval(n, "on a non-tensor is not supported")
	}
	dimArg := func() (int, bool, error) {
		if len(args) < 2 {
			return 0, false, nil
		}
		d, err := asInt(args[1], "dim")
		if err != nil {
			return 0, false, err
		}
		w, err := wrapDim(d, t.Dim())
		return w, true, err
	}
	switch n.Target {
	case "method.size", "method.stride":
		src := t.Shape
		if n.Target == "method.stride" {
			src = t.Strides
		}
		d, ok, err := dimArg()
		if err != nil {
			return nil, err
		}
		if ok {
			return one(src[d])
		}
		list := make([]any, len(src))
		for i, s := range src {
			list[i] = s
		}
		return one(list)
	case "method.dim":
		return one(int64(t.Dim()))
	case "method.numel":
		return one(t.Numel())
	case "method.storage_offset":
		return one(t.Offset)
	case "method.item":
		return itemOf(t)
	}
	return nil, noEval(n, "is a tensor method the interpreter does not know")
}

// evalGetAttr makes a module attribute (self.weight): the value
// Options.Attrs gives it, or random data of its annotated type, seeded by
// its name, like an input.
func (m *machine) evalGetAttr(n *ir.Node) ([]any, error) {
	if v, ok := m.opts.Attrs[n.Name]; ok {
		return one(v)
	}
	if len(n.Results) == 0 || !n.Results[0].Type.IsKnown() {
		return nil, noEval(n, "is an untyped module attribute; annotate it so the interpreter can make a value")
	}
	x, err := m.randomValue(n.Results[0].Type, n.Name)
	if err != nil {
		return nil, err
	}
	return one(x)
}
