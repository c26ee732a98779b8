package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Readers of bound arguments; a failure stops the decomposition (sticky,
// like every emitter call).

// tensorArg is a Tensor parameter's value; nil for None. A Tensor
// parameter holding anything else but a typed tensor value keeps the node
// whole.
func (e *emitter) tensorArg(c *ops.Call, name string) *ir.Value {
	a := c.Arg(name)
	if a.Kind == ir.ArgNone || e.err != nil {
		return nil
	}
	if a.Kind != ir.ArgValue || tensor(a.Value) == nil {
		e.whole("argument %s is %s, not a tensor", name, a)
		return nil
	}
	return a.Value
}

func (e *emitter) intArg(c *ops.Call, name string) int64 {
	v, err := c.Int(name)
	e.fail(err)
	return v
}

func (e *emitter) boolArg(c *ops.Call, name string) bool {
	v, err := c.Bool(name)
	e.fail(err)
	return v
}

// number reads a Scalar or float parameter as a constant; a symbolic
// scalar keeps the node whole (the decomposition does arithmetic on it).
func (e *emitter) number(c *ops.Call, name string) (x float64, isInt bool) {
	a := c.Arg(name)
	switch a.Kind {
	case ir.ArgInt:
		return float64(a.Int), true
	case ir.ArgFloat:
		return a.Float, false
	case ir.ArgBool:
		if a.Bool {
			return 1, true
		}
		return 0, true
	}
	e.whole("argument %s is %s, not a constant number", name, a)
	return 0, false
}

// numArg turns a number back into the argument PyTorch would print: an
// int when the inputs were ints, else a float.
func numArg(x float64, isInt bool) ir.Arg {
	if isInt {
		return i64(int64(x))
	}
	return f64(x)
}

func (e *emitter) fail(err error) {
	if err != nil && e.err == nil {
		e.err = err
	}
}

// used reports whether result i of the original node has users.
func (e *emitter) used(i int) bool {
	return i < len(e.orig.Results) && e.orig.Results[i].NumUses() > 0
}

// outType is the type fakeprop gave result i of the original node.
func (e *emitter) outType(i int) *ir.TensorType {
	if i >= len(e.orig.Results) {
		return nil
	}
	return tensor(e.orig.Results[i])
}

// requireFloat keeps the node whole unless x is a floating tensor (the
// decompositions below are for float math; PyTorch rejects most of these
// ops on integers anyway).
func (e *emitter) requireFloat(x *ir.Value) {
	if t := tensor(x); e.err == nil && t != nil && !t.DType.IsFloat() {
		e.whole("%s is %s, not a floating dtype", x.Name, t.DType.Name())
	}
}
