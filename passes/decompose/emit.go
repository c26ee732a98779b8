package decompose

import (
	"errors"
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// emitter builds the nodes that replace one original node. Every node is
// typed by its op's meta rule as it is made, so a builder reads the types
// of what it built (the way a PyTorch decomposition runs on fake tensors).
// Errors are sticky: after the first failure every call returns nil and
// the builder's result is discarded, leaving the original node whole.
type emitter struct {
	d     *decomposer
	orig  *ir.Node
	nodes []*ir.Node
	taken []string // names handed out, released when the decomposition is dropped
	err   error
	casts map[castKey]*ir.Value // one cast of a value to a dtype per decomposition
}

type castKey struct {
	v  *ir.Value
	dt ir.DType
}

// keepWhole is a precondition a decomposition does not meet (a training
// batch norm, a non-float softmax): the node stays whole, with a remark.
type keepWhole struct{ why string }

func (k *keepWhole) Error() string { return k.why }

// whole stops the decomposition with the reason for a remark.
func (e *emitter) whole(format string, args ...any) {
	if e.err == nil {
		e.err = &keepWhole{why: fmt.Sprintf(format, args...)}
	}
}

func isKeepWhole(err error) (string, bool) {
	var k *keepWhole
	if errors.As(err, &k) {
		return k.why, true
	}
	return "", false
}

// name returns a fresh name derived from the original node's.
func (e *emitter) name(suffix string) string {
	n := e.d.names.Fresh(e.orig.Name + "_" + suffix)
	e.taken = append(e.taken, n)
	return n
}

// callN appends a call of target with len(resNames) results (one named like
// the node when resNames is empty) and types it.
func (e *emitter) callN(target string, args []ir.Arg, kwargs []ir.Kwarg, resNames ...string) *ir.Node {
	if e.err != nil {
		return nil
	}
	for _, a := range args {
		if a.Kind == ir.ArgValue && a.Value == nil {
			e.err = fmt.Errorf("internal: %s built with a missing operand", target)
			return nil
		}
	}
	op := ops.Lookup(target)
	if op == nil {
		e.err = fmt.Errorf("internal: op %s is not in the registry", target)
		return nil
	}
	nres := max(len(resNames), 1)
	n := e.d.g.NewNode(e.name(op.Schema.Name), op.QualifiedName(), ir.FormOp, args, kwargs, nres)
	n.Op, n.Pos, n.Stack = op, e.orig.Pos, e.orig.Stack
	if len(resNames) > 0 {
		for i, r := range n.Results {
			r.Name = e.name(resNames[i])
		}
	}
	if err := e.typeNode(n, op); err != nil {
		e.err = fmt.Errorf("%s(%s): %w", op.QualifiedName(), argText(args), err)
		return nil
	}
	e.nodes = append(e.nodes, n)
	return n
}

func (e *emitter) typeNode(n *ir.Node, op *ops.Op) error {
	return ops.TypeNode(e.d.env, op, n)
}

// call is callN for a one-result op.
func (e *emitter) call(target string, args []ir.Arg, kwargs ...ir.Kwarg) *ir.Value {
	n := e.callN(target, args, kwargs)
	if n == nil {
		return nil
	}
	return n.Results[0]
}

// try runs f and, when it fails, drops what it built and clears the error:
// for a cheap path that may not type-check (a view of an expanded tensor).
func (e *emitter) try(f func() *ir.Value) (*ir.Value, bool) {
	if e.err != nil {
		return nil, false
	}
	mark, names := len(e.nodes), len(e.taken)
	v := f()
	if e.err != nil {
		releaseNames(e.d.names, e.taken[names:])
		e.nodes, e.taken, e.err = e.nodes[:mark], e.taken[:names], nil
		clear(e.casts)
		return nil, false
	}
	return v, true
}

func argText(args []ir.Arg) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a.String()
	}
	return s
}

// Argument shorthands.
func val(v *ir.Value) ir.Arg { return ir.ValueArg(v) }
func i64(x int64) ir.Arg     { return ir.IntArg(x) }
func f64(x float64) ir.Arg   { return ir.FloatArg(x) }
func kw(name string, a ir.Arg) ir.Kwarg {
	return ir.Kwarg{Name: name, Arg: a}
}

func ints(xs ...int) ir.Arg {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return ir.IntList(out...)
}

// Pointwise shorthands; b is a value or a Python scalar, as PyTorch's
// decompositions pass scalars straight to the Tensor overloads.
func (e *emitter) add(a *ir.Value, b ir.Arg) *ir.Value {
	return e.call("aten::add.Tensor", []ir.Arg{val(a), b})
}
func (e *emitter) sub(a, b ir.Arg) *ir.Value { return e.call("aten::sub.Tensor", []ir.Arg{a, b}) }
func (e *emitter) mul(a *ir.Value, b ir.Arg) *ir.Value {
	return e.call("aten::mul.Tensor", []ir.Arg{val(a), b})
}
func (e *emitter) div(a *ir.Value, b ir.Arg) *ir.Value {
	return e.call("aten::div.Tensor", []ir.Arg{val(a), b})
}
func (e *emitter) unary(name string, a *ir.Value) *ir.Value {
	return e.call("aten::"+name+".default", []ir.Arg{val(a)})
}
func (e *emitter) where(cond, a, b *ir.Value) *ir.Value {
	return e.call("aten::where.self", []ir.Arg{val(cond), val(a), val(b)})
}

// tensor returns the type of a tensor value (nil when v is nil or untyped).
func tensor(v *ir.Value) *ir.TensorType {
	if v == nil || v.Type.Kind != ir.KindTensor {
		return nil
	}
	return v.Type.Tensor
}

// cast converts x to dt (prims.convert_element_type, as PyTorch's
// _maybe_convert_to_dtype does); a no-op when x already has dt.
func (e *emitter) cast(x *ir.Value, dt ir.DType) *ir.Value {
	if t := tensor(x); t == nil || t.DType == dt {
		return x
	}
	if c := e.casts[castKey{x, dt}]; c != nil {
		return c
	}
	c := e.call("prims::convert_element_type.default", []ir.Arg{val(x), ir.DTypeArg(dt)})
	if c != nil {
		if e.casts == nil {
			e.casts = map[castKey]*ir.Value{}
		}
		e.casts[castKey{x, dt}] = c
	}
	return c
}

// computeDType is utils.get_computation_dtype: reduced floats compute in
// float32 (complex32 in complex64).
func computeDType(dt ir.DType) ir.DType {
	switch dt {
	case ir.F16, ir.BF16:
		return ir.F32
	case ir.C32:
		return ir.C64
	}
	return dt
}

// scalarTensor is a 0-d tensor holding s (scalar_tensor with dtype, layout
// and device keywords, as PyTorch's graphs print it).
func (e *emitter) scalarTensor(s ir.Arg, dt ir.DType, dev ir.Device) *ir.Value {
	kws := []ir.Kwarg{kw("dtype", ir.DTypeArg(dt)), kw("layout", ir.EnumArg("strided"))}
	if dev.Known() {
		kws = append(kws, kw("device", ir.DeviceArg(dev)))
	}
	return e.call("aten::scalar_tensor.default", []ir.Arg{s}, kws...)
}

// arange is aten::arange over args (end, or start, end, step) in dt (no
// dtype keyword when dt is ir.Invalid: arange's own inference), on dev,
// pin_memory=False, as the decompositions' Python calls print; an unknown
// device is left out (it would print as an empty device type, which does
// not parse).
func (e *emitter) arange(args []ir.Arg, dt ir.DType, dev ir.Device) *ir.Value {
	target := "aten::arange.default"
	if len(args) == 3 {
		target = "aten::arange.start_step"
	}
	var kws []ir.Kwarg
	if dt != ir.Invalid {
		kws = append(kws, kw("dtype", ir.DTypeArg(dt)))
	}
	if dev.Known() {
		kws = append(kws, kw("device", ir.DeviceArg(dev)))
	}
	return e.call(target, args, append(kws, kw("pin_memory", ir.BoolArg(false)))...)
}

// size is dim d of x as an argument: the constant, or a sym_size.int node.
func (e *emitter) size(x *ir.Value, d int) ir.Arg {
	t := tensor(x)
	if t == nil || e.err != nil {
		return ir.NoneArg()
	}
	if c, ok := t.Shape[d].Const(); ok {
		return i64(c)
	}
	s := e.call("aten::sym_size.int", []ir.Arg{val(x), i64(int64(d))})
	if s == nil {
		return ir.NoneArg()
	}
	return val(s)
}

// sizeOf spells size want as an argument: the constant, or sym_size.int
// of the first candidate dim that has that size; with none, the node
// stays whole.
func (e *emitter) sizeOf(want sym.Expr, cands ...sizeRef) ir.Arg {
	if c, ok := want.Const(); ok {
		return i64(c)
	}
	for _, r := range cands {
		if t := tensor(r.v); t != nil && r.dim >= 0 && r.dim < t.Rank() && sym.Equal(t.Shape[r.dim], want) {
			return e.size(r.v, r.dim)
		}
	}
	e.whole("no value holds the symbolic size %s", want)
	return ir.NoneArg()
}

// sizeRef is dim dim of value v.
type sizeRef struct {
	v   *ir.Value
	dim int
}

// releaseNames frees the names a failed decomposition took.
func releaseNames(nm *ir.Namer, names []string) {
	for _, n := range names {
		nm.Release(n)
	}
}
