package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// kernel evaluates one op call. It returns one value per schema return;
// an op returning a list (split) returns the list as its only value.
type kernel func(c *call) ([]any, error)

// call is a node's arguments bound to its op's schema, read by parameter
// name and evaluated into runtime values.
type call struct {
	m    *machine
	n    *ir.Node
	op   *ops.Op
	args []ir.Arg
	// over replaces parameters by name (derived kernels: foreach, in-place).
	over map[string]any
}

// val evaluates parameter name.
func (c *call) val(name string) (any, error) {
	if x, ok := c.over[name]; ok {
		return x, nil
	}
	i := c.index(name)
	if i < 0 || i >= len(c.args) {
		return nil, fmt.Errorf("%s has no parameter %q", c.op.QualifiedName(), name)
	}
	x, err := c.m.evalArg(c.args[i])
	if err != nil || !resolvesBits(c.op, i) {
		return x, err
	}
	return resolveValue(x)
}

// raw evaluates parameter name as it is, conjugate bit included (the
// tensor an in-place or out= kernel writes to).
func (c *call) raw(name string) (any, error) {
	if x, ok := c.over[name]; ok {
		return x, nil
	}
	i := c.index(name)
	if i < 0 || i >= len(c.args) {
		return nil, fmt.Errorf("%s has no parameter %q", c.op.QualifiedName(), name)
	}
	return c.m.evalArg(c.args[i])
}

func (c *call) index(name string) int {
	for i, p := range c.op.Schema.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// has reports whether the schema has parameter name.
func (c *call) has(name string) bool {
	_, over := c.over[name]
	return over || c.index(name) >= 0
}

// isNone reports whether parameter name is missing or None.
func (c *call) isNone(name string) bool {
	if !c.has(name) {
		return true
	}
	x, err := c.val(name)
	return err == nil && x == nil
}

// tensor reads a Tensor parameter.
func (c *call) tensor(name string) (*Tensor, error) {
	x, err := c.val(name)
	if err != nil {
		return nil, err
	}
	t, ok := x.(*Tensor)
	if !ok {
		return nil, fmt.Errorf("argument '%s' must be a Tensor, not %s", name, describe(x))
	}
	return t, nil
}

// tensor2 reads two Tensor parameters, a first.
func (c *call) tensor2(a, b string) (*Tensor, *Tensor, error) {
	x, err := c.tensor(a)
	if err != nil {
		return nil, nil, err
	}
	y, err := c.tensor(b)
	return x, y, err
}

// optTensor reads a Tensor? parameter: nil for None.
func (c *call) optTensor(name string) (*Tensor, error) {
	if c.isNone(name) {
		return nil, nil
	}
	return c.tensor(name)
}

// tensors reads a Tensor[] or Tensor?[] parameter (None elements are nil).
func (c *call) tensors(name string) ([]*Tensor, error) {
	x, err := c.val(name)
	if err != nil {
		return nil, err
	}
	list, ok := x.([]any)
	if !ok {
		return nil, fmt.Errorf("argument '%s' must be a list of tensors, not %s", name, describe(x))
	}
	out := make([]*Tensor, len(list))
	for i, e := range list {
		if e == nil {
			continue
		}
		t, ok := e.(*Tensor)
		if !ok {
			return nil, fmt.Errorf("argument '%s'[%d] must be a Tensor, not %s", name, i, describe(e))
		}
		out[i] = t
	}
	return out, nil
}

// int reads an int / SymInt parameter.
func (c *call) int(name string) (int64, error) {
	x, err := c.val(name)
	if err != nil {
		return 0, err
	}
	return asInt(x, name)
}

func asInt(x any, name string) (int64, error) {
	switch v := x.(type) {
	case int64:
		return v, nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	case *Tensor:
		if v.Numel() == 1 && !v.DType.IsFloat() {
			return v.Ints()[0], nil
		}
	}
	return 0, fmt.Errorf("argument '%s' must be an int, not %s", name, describe(x))
}

// ints reads several int parameters, in order; the first failure is the
// error.
func (c *call) ints(names ...string) ([]int64, error) { return mapErr(names, c.int) }

// mapErr applies f to each of xs in order; the first failure is the error.
func mapErr[S, T any](xs []S, f func(S) (T, error)) ([]T, error) {
	out := make([]T, len(xs))
	for i, x := range xs {
		v, err := f(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// selfAnd reads self and then parameter name with read: the head of many
// (Tensor self, int dim, ...) kernels.
func selfAnd[T any](c *call, read func(string) (T, error), name string) (*Tensor, T, error) {
	t, err := c.tensor("self")
	if err != nil {
		var zero T
		return nil, zero, err
	}
	v, err := read(name)
	return t, v, err
}

func (c *call) selfInt(name string) (*Tensor, int64, error)       { return selfAnd(c, c.int, name) }
func (c *call) selfIntList(name string) (*Tensor, []int64, error) { return selfAnd(c, c.intList, name) }

// optInt reads an int? parameter: ok is false for None.
func (c *call) optInt(name string) (v int64, ok bool, err error) {
	if c.isNone(name) {
		return 0, false, nil
	}
	v, err = c.int(name)
	return v, err == nil, err
}

// intList reads an int[] / SymInt[] parameter; a bare int reads as a
// one-element list (`int[1] dim=1`).
func (c *call) intList(name string) ([]int64, error) {
	x, err := c.val(name)
	if err != nil {
		return nil, err
	}
	list, ok := x.([]any)
	if !ok {
		v, err := asInt(x, name)
		if err != nil {
			return nil, err
		}
		return []int64{v}, nil
	}
	out := make([]int64, len(list))
	for i, e := range list {
		if out[i], err = asInt(e, fmt.Sprintf("%s[%d]", name, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// optIntList reads an int[]? parameter: nil for None.
func (c *call) optIntList(name string) ([]int64, bool, error) {
	if c.isNone(name) {
		return nil, false, nil
	}
	v, err := c.intList(name)
	return v, err == nil, err
}

// float reads a float parameter (an int is accepted).
func (c *call) float(name string) (float64, error) {
	x, err := c.val(name)
	if err != nil {
		return 0, err
	}
	switch v := x.(type) {
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("argument '%s' must be a float, not %s", name, describe(x))
}

// scalar reads a Scalar parameter: int64, float64 or bool (a one-element
// tensor reads as its value, as PyTorch's Scalar conversion does).
func (c *call) scalar(name string) (any, error) {
	x, err := c.val(name)
	if err != nil {
		return nil, err
	}
	return asScalar(x, name)
}

func asScalar(x any, name string) (any, error) {
	switch v := x.(type) {
	case int64, float64, bool:
		return v, nil
	case *Tensor:
		if v.Numel() == 1 {
			return tensorItem(v), nil
		}
	}
	return nil, fmt.Errorf("argument '%s' must be a Number, not %s", name, describe(x))
}

// tensorItem is Tensor.item(): the element as int64, float64 or bool.
func tensorItem(t *Tensor) any {
	switch {
	case t.DType == ir.Bool:
		return t.Ints()[0] != 0
	case t.DType.IsFloat():
		return t.Floats()[0]
	}
	return t.Ints()[0]
}

// bool reads a bool parameter (None reads as false).
func (c *call) bool(name string) (bool, error) {
	x, err := c.val(name)
	if err != nil {
		return false, err
	}
	switch v := x.(type) {
	case bool:
		return v, nil
	case nil:
		return false, nil
	case int64:
		return v != 0, nil
	}
	return false, fmt.Errorf("argument '%s' must be a bool, not %s", name, describe(x))
}

// dtype reads a ScalarType? parameter; ok is false for None.
func (c *call) dtype(name string) (ir.DType, bool, error) {
	if c.isNone(name) {
		return ir.Invalid, false, nil
	}
	x, err := c.val(name)
	if err != nil {
		return ir.Invalid, false, err
	}
	switch v := x.(type) {
	case ir.DType:
		return v, true, nil
	case int64: // a ScalarType spelled as its enum number
		if d, ok := dtypeFromEnum(v); ok {
			return d, true, nil
		}
	}
	return ir.Invalid, false, fmt.Errorf("argument '%s' must be a dtype, not %s", name, describe(x))
}

// device reads a Device? parameter; ok is false for None.
func (c *call) device(name string) (ir.Device, bool, error) {
	if c.isNone(name) {
		return ir.Device{}, false, nil
	}
	x, err := c.val(name)
	if err != nil {
		return ir.Device{}, false, err
	}
	switch v := x.(type) {
	case ir.Device:
		return v, true, nil
	case string:
		d, err := ir.ParseDevice(v)
		return d, err == nil, err
	}
	return ir.Device{}, false, fmt.Errorf("argument '%s' must be a device, not %s", name, describe(x))
}

// str reads a str? parameter ("" for None).
func (c *call) str(name string) (string, error) {
	if c.isNone(name) {
		return "", nil
	}
	x, err := c.val(name)
	if err != nil {
		return "", err
	}
	switch v := x.(type) {
	case string:
		return v, nil
	case enum:
		return string(v), nil
	}
	return "", fmt.Errorf("argument '%s' must be a str, not %s", name, describe(x))
}

// dtypeFromEnum maps c10::ScalarType numbers (as some traces print dtypes).
func dtypeFromEnum(v int64) (ir.DType, bool) {
	table := []ir.DType{ir.U8, ir.I8, ir.I16, ir.I32, ir.I64, ir.F16, ir.F32, ir.F64, ir.C32, ir.C64, ir.C128, ir.Bool, ir.Invalid, ir.Invalid, ir.Invalid, ir.BF16}
	if v >= 0 && int(v) < len(table) && table[v].Valid() {
		return table[v], true
	}
	return ir.Invalid, false
}

// with returns a call that reads the given parameters from over first.
func (c *call) with(over map[string]any) *call {
	merged := map[string]any{}
	for k, v := range c.over {
		merged[k] = v
	}
	for k, v := range over {
		merged[k] = v
	}
	return &call{m: c.m, n: c.n, op: c.op, args: c.args, over: merged}
}

// one wraps a single result.
func one(x any) ([]any, error) { return []any{x}, nil }

// oneT wraps a single tensor result, passing an error through.
func oneT(t *Tensor, err error) ([]any, error) {
	if err != nil {
		return nil, err
	}
	return []any{t}, nil
}
