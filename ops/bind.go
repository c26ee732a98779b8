package ops

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Call is a node's arguments bound to its op's schema: one argument per
// schema parameter, in schema order, with defaults filled in.
type Call struct {
	Op   *Op
	Node *ir.Node // nil when bound from bare arguments
	Args []ir.Arg
	// Given says which parameters the call passed explicitly.
	Given []bool
	// assume is the device Tensor and Tensors give a tensor printed
	// without one (AssumeDevice).
	assume ir.Device
}

// AssumeDevice has Tensor and Tensors read a tensor whose type names no
// device as on d (the zero Device: as printed). fakeprop asks for it when
// a graph printed without devices must have run on the CPU.
func (c *Call) AssumeDevice(d ir.Device) { c.assume = d }

func (c *Call) onAssumedDevice(t *ir.TensorType) *ir.TensorType {
	if t == nil || !c.assume.Known() || t.Device.Known() {
		return t
	}
	t = t.Clone()
	t.Device = c.assume
	return t
}

// Bind binds n's positional and keyword arguments to n.Op's schema. It fails
// when n has no registry op or the arguments do not fit the schema.
func Bind(n *ir.Node) (*Call, error) {
	op, ok := n.Op.(*Op)
	if !ok || op == nil {
		return nil, fmt.Errorf("%s: op %s is not in the registry", n.Name, n.Target)
	}
	c, err := op.Bind(n.Args, n.Kwargs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.Name, err)
	}
	c.Node = n
	return c, nil
}

// Bind maps positional and keyword arguments onto the schema's parameters.
func (o *Op) Bind(args []ir.Arg, kwargs []ir.Kwarg) (*Call, error) {
	kw := make([]string, len(kwargs))
	for i, k := range kwargs {
		kw[i] = k.Name
	}
	if err := o.CheckCall(len(args), kw); err != nil {
		return nil, err
	}
	ps := o.Schema.Params
	c := newCall(o, len(ps))
	copy(c.Args, args)
	for i := range args {
		c.Given[i] = true
	}
	for _, k := range kwargs {
		i := o.paramIndex(k.Name)
		c.Args[i], c.Given[i] = k.Arg, true
	}
	for i, p := range ps {
		if c.Given[i] {
			continue
		}
		d, err := DefaultArg(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.QualifiedName(), err)
		}
		c.Args[i] = d
	}
	return c, nil
}

// newCall returns a call of o with n parameters, the call and its lists
// in one allocation for the usual few parameters (fakeprop binds every
// node).
func newCall(o *Op, n int) *Call {
	switch {
	case n <= 2:
		b := &struct {
			call  Call
			args  [2]ir.Arg
			given [2]bool
		}{}
		b.call = Call{Op: o, Args: b.args[:n:n], Given: b.given[:n:n]}
		return &b.call
	case n <= 4:
		b := &struct {
			call  Call
			args  [4]ir.Arg
			given [4]bool
		}{}
		b.call = Call{Op: o, Args: b.args[:n:n], Given: b.given[:n:n]}
		return &b.call
	case n <= 6:
		b := &struct {
			call  Call
			args  [6]ir.Arg
			given [6]bool
		}{}
		b.call = Call{Op: o, Args: b.args[:n:n], Given: b.given[:n:n]}
		return &b.call
	}
	return &Call{Op: o, Args: make([]ir.Arg, n), Given: make([]bool, n)}
}

// DefaultArg turns a parameter's default text into an argument.
func DefaultArg(p Param) (ir.Arg, error) {
	text := p.Default
	switch {
	case text == "None":
		return ir.NoneArg(), nil
	case text == "True" || text == "False":
		return ir.BoolArg(text == "True"), nil
	case strings.HasPrefix(text, "["):
		return defaultList(p, text)
	case strings.HasPrefix(text, "\"") || strings.HasPrefix(text, "'"):
		return ir.StringArg(strings.Trim(text, "\"'")), nil
	}
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		if d, ok := scalarTypeCodes[i]; ok && p.Type.Base == TScalarType {
			return ir.DTypeArg(d), nil // `ScalarType? dtype=4`: c10::ScalarType's number
		}
		if p.Type.Base == TFloat {
			return ir.FloatArg(float64(i)), nil
		}
		if p.Type.List { // int[2] stride=1 means [1, 1]
			n := max(p.Type.ListLen, 1)
			elems := make([]ir.Arg, n)
			for k := range elems {
				elems[k] = ir.IntArg(i)
			}
			return ir.ListArg(elems...), nil
		}
		return ir.IntArg(i), nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return ir.FloatArg(f), nil
	}
	switch text {
	case "inf":
		return ir.FloatArg(math.Inf(1)), nil
	case "-inf":
		return ir.FloatArg(math.Inf(-1)), nil
	}
	if p.Type.Base == TScalarType {
		if d, ok := ir.DTypeFromName(text); ok {
			return ir.DTypeArg(d), nil
		}
	}
	if isIdentText(text) { // contiguous_format, strided, Mean, ...
		return ir.EnumArg(text), nil
	}
	return ir.Arg{}, fmt.Errorf("cannot read default %q of %s", text, p.Name)
}

// scalarTypeCodes are c10::ScalarType's numbers, as schema defaults spell a
// dtype (`ScalarType? dtype=4`). Checked against PyTorch 2.15: the int
// constant torch.jit.trace records for x.to(dtype) is this number for each.
var scalarTypeCodes = map[int64]ir.DType{0: ir.U8, 1: ir.I8, 2: ir.I16, 3: ir.I32, 4: ir.I64, 5: ir.F16, 6: ir.F32,
	7: ir.F64, 8: ir.C32, 9: ir.C64, 10: ir.C128, 11: ir.Bool, 15: ir.BF16}

func defaultList(p Param, text string) (ir.Arg, error) {
	body := strings.TrimSpace(text[1 : len(text)-1])
	if body == "" {
		return ir.ListArg(), nil
	}
	var elems []ir.Arg
	for _, part := range strings.Split(body, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "True" || part == "False":
			elems = append(elems, ir.BoolArg(part == "True"))
		default:
			i, err := strconv.ParseInt(part, 10, 64)
			if err != nil {
				f, ferr := strconv.ParseFloat(part, 64)
				if ferr != nil {
					return ir.Arg{}, fmt.Errorf("cannot read default %q of %s", text, p.Name)
				}
				elems = append(elems, ir.FloatArg(f))
				continue
			}
			elems = append(elems, ir.IntArg(i))
		}
	}
	return ir.ListArg(elems...), nil
}

func isIdentText(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// Index returns the position of the parameter called name; it panics when
// the schema has none, which is a bug in a meta rule, not an input error.
func (c *Call) Index(name string) int {
	i := c.Op.paramIndex(name)
	if i < 0 {
		panic(fmt.Sprintf("ops: %s has no parameter %q", c.Op.QualifiedName(), name))
	}
	return i
}

// Has reports whether the schema has a parameter called name.
func (c *Call) Has(name string) bool { return c.Op.paramIndex(name) >= 0 }

// Arg returns the bound argument for parameter name.
func (c *Call) Arg(name string) ir.Arg { return c.Args[c.Index(name)] }

// IsNone reports whether parameter name is None (given or by default).
func (c *Call) IsNone(name string) bool {
	return !c.Has(name) || c.Args[c.Index(name)].Kind == ir.ArgNone
}

// Tensor returns the tensor type of parameter name; nil when None.
func (c *Call) Tensor(name string) (*ir.TensorType, error) {
	t, err := argTensor(c.Arg(name), name)
	return c.onAssumedDevice(t), err
}

func argTensor(a ir.Arg, name string) (*ir.TensorType, error) {
	switch a.Kind {
	case ir.ArgNone:
		return nil, nil
	case ir.ArgValue:
		t := a.Value.Type
		if t.Kind == ir.KindTensor && t.Tensor != nil {
			return t.Tensor, nil
		}
		if !t.IsKnown() {
			return nil, &UntypedError{Value: a.Value}
		}
		return nil, fmt.Errorf("argument %s: expected a Tensor, got %s (%s)", name, a.Value.Name, t)
	}
	return nil, fmt.Errorf("argument %s: expected a Tensor, got %s", name, a.String())
}

// Tensors returns the tensor types of a Tensor[] / Tensor?[] parameter; None
// elements are nil.
func (c *Call) Tensors(name string) ([]*ir.TensorType, error) {
	a := c.Arg(name)
	if a.Kind == ir.ArgNone {
		return nil, nil
	}
	if !a.IsSequence() {
		return nil, fmt.Errorf("argument %s: expected a list of tensors, got %s", name, a.String())
	}
	out := make([]*ir.TensorType, len(a.Elems))
	for i, e := range a.Elems {
		t, err := argTensor(e, name)
		if err != nil {
			return nil, err
		}
		out[i] = c.onAssumedDevice(t)
	}
	return out, nil
}

// UntypedError says an argument's value has no type yet (its producer is an
// opaque op); meta rules give up on such calls.
type UntypedError struct{ Value *ir.Value }

func (e *UntypedError) Error() string {
	return fmt.Sprintf("value %s has no type (its producer has no meta rule)", e.Value.Name)
}

// SymInt reads an int / SymInt parameter as an expression.
func (c *Call) SymInt(name string) (sym.Expr, error) {
	return ArgSymInt(c.Arg(name))
}

// Int reads an int parameter that must be a constant.
func (c *Call) Int(name string) (int64, error) {
	e, err := c.SymInt(name)
	if err != nil {
		return 0, fmt.Errorf("argument %s: %w", name, err)
	}
	v, ok := e.Const()
	if !ok {
		return 0, fmt.Errorf("argument %s: expected a constant int, got %s", name, e)
	}
	return v, nil
}

// Dim reads the int parameter name as a dim of a rank-rank tensor,
// wrapped into [0, rank) with PyTorch's out-of-range error.
func (c *Call) Dim(name string, rank int) (int, error) {
	d, err := c.Int(name)
	if err != nil {
		return 0, err
	}
	return WrapDim(d, rank)
}

// IntArgs reads several constant int parameters, in order; the first
// failure is the error.
func (c *Call) IntArgs(names ...string) ([]int64, error) { return readEach(names, c.Int) }

// SymIntArgs reads several int / SymInt parameters, in order.
func (c *Call) SymIntArgs(names ...string) ([]sym.Expr, error) { return readEach(names, c.SymInt) }

func readEach[T any](names []string, read func(string) (T, error)) ([]T, error) {
	out := make([]T, len(names))
	for i, name := range names {
		v, err := read(name)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// OptInt reads an int? parameter: ok is false for None.
func (c *Call) OptInt(name string) (v int64, ok bool, err error) {
	if c.IsNone(name) {
		return 0, false, nil
	}
	v, err = c.Int(name)
	return v, err == nil, err
}

// SymInts reads an int[] / SymInt[] parameter. A bare int where a list is
// expected (`dim=1` for `int[1] dim`) reads as a one-element list.
func (c *Call) SymInts(name string) ([]sym.Expr, error) {
	a := c.Arg(name)
	if !a.IsSequence() {
		if a.Kind == ir.ArgNone {
			return nil, nil
		}
		e, err := ArgSymInt(a)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", name, err)
		}
		return []sym.Expr{e}, nil
	}
	out := make([]sym.Expr, len(a.Elems))
	for i, el := range a.Elems {
		e, err := ArgSymInt(el)
		if err != nil {
			return nil, fmt.Errorf("argument %s[%d]: %w", name, i, err)
		}
		out[i] = e
	}
	return out, nil
}

// Ints reads an int[] parameter of constants.
func (c *Call) Ints(name string) ([]int64, error) {
	es, err := c.SymInts(name)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(es))
	for i, e := range es {
		v, ok := e.Const()
		if !ok {
			return nil, fmt.Errorf("argument %s[%d]: expected a constant int, got %s", name, i, e)
		}
		out[i] = v
	}
	return out, nil
}

// ArgSymInt reads an int constant or a SymInt-typed value.
func ArgSymInt(a ir.Arg) (sym.Expr, error) {
	switch a.Kind {
	case ir.ArgInt:
		return sym.Const(a.Int), nil
	case ir.ArgBool:
		if a.Bool {
			return sym.Const(1), nil
		}
		return sym.Const(0), nil
	case ir.ArgValue:
		t := a.Value.Type
		switch t.Kind {
		case ir.KindSymInt:
			return t.Sym, nil
		case ir.KindUnknown:
			return sym.Expr{}, &UntypedError{Value: a.Value}
		}
		return sym.Expr{}, fmt.Errorf("expected an int, got %s (%s)", a.Value.Name, t)
	}
	return sym.Expr{}, fmt.Errorf("expected an int, got %s", a.String())
}

// Bool reads a bool parameter (None reads as false).
func (c *Call) Bool(name string) (bool, error) {
	a := c.Arg(name)
	switch a.Kind {
	case ir.ArgBool:
		return a.Bool, nil
	case ir.ArgNone:
		return false, nil
	case ir.ArgInt:
		return a.Int != 0, nil
	}
	return false, fmt.Errorf("argument %s: expected a bool, got %s", name, a.String())
}

// Float reads a float parameter.
func (c *Call) Float(name string) (float64, error) {
	a := c.Arg(name)
	switch a.Kind {
	case ir.ArgFloat:
		return a.Float, nil
	case ir.ArgInt:
		return float64(a.Int), nil
	}
	return 0, fmt.Errorf("argument %s: expected a float, got %s", name, a.String())
}

// DType reads a ScalarType? parameter; ok is false for None.
func (c *Call) DType(name string) (d ir.DType, ok bool, err error) {
	if !c.Has(name) {
		return ir.Invalid, false, nil
	}
	a := c.Arg(name)
	switch a.Kind {
	case ir.ArgNone:
		return ir.Invalid, false, nil
	case ir.ArgDType:
		return a.DType, true, nil
	}
	return ir.Invalid, false, fmt.Errorf("argument %s: expected a dtype, got %s", name, a.String())
}

// Device reads a Device? parameter; ok is false for None.
func (c *Call) Device(name string) (d ir.Device, ok bool, err error) {
	if !c.Has(name) {
		return ir.Device{}, false, nil
	}
	a := c.Arg(name)
	switch a.Kind {
	case ir.ArgNone:
		return ir.Device{}, false, nil
	case ir.ArgDevice:
		return a.Device, true, nil
	case ir.ArgString:
		dev, err := ir.ParseDevice(a.Str)
		return dev, err == nil, err
	}
	return ir.Device{}, false, fmt.Errorf("argument %s: expected a device, got %s", name, a.String())
}

// Enum reads an enum-like parameter (memory_format, layout) by attribute
// name; "" for None.
func (c *Call) Enum(name string) string {
	if !c.Has(name) {
		return ""
	}
	a := c.Arg(name)
	if a.Kind == ir.ArgEnum || a.Kind == ir.ArgString {
		return a.Str
	}
	return ""
}
