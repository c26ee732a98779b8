package ops

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// Python-level callables in Dynamo graphs (TORCH_LOGS=graph_code):
// torch.softmax(x, dim=-1), torch.nn.functional.layer_norm(...),
// torch._C._nn.linear(...), x.view(-1, 2, 8), x + y, x[:, 0]. PyTorch's
// Python bindings route each to an ATen overload; this file is that routing
// as data, so fakeprop types a Dynamo graph with the ATen meta rules.

// pyCallable says how one Python callable reaches its ATen packet.
type pyCallable struct {
	packet string
	// also: another packet whose overloads compete (torch.split(x, [3, 5])
	// is aten::split_with_sizes, torch.split(x, 4) aten::split.Tensor).
	also string
	// sig names the Python parameters in order, when they differ from the
	// ATen schema's (F.embedding(input, weight) is aten::embedding(weight,
	// indices)); positional arguments become keywords by these names.
	sig []string
	// rename maps Python keyword names to schema names.
	rename map[string]string
	// fixed keywords the Python spelling implies: x.float() is
	// x.to(dtype=torch.float32).
	fixed []ir.Kwarg
	// enums maps a Python string argument to the integer ATen takes
	// (reduction='mean' is Reduction::Mean, 1).
	enums map[string]map[string]int64
	// adapt rewrites arguments Python's binding reads differently from every
	// ATen schema (x.to(device) fills dtype from x).
	adapt func(args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg)
}

// toDevice is x.to(device[, dtype, non_blocking, copy]): Python's binding
// calls to.device with x's own dtype when none is given; the keyword-only
// to.dtype_layout says the same without a dtype.
func toDevice(args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg) {
	if len(args) < 2 || args[1].Kind != ir.ArgDevice {
		return args, kwargs
	}
	names := []string{"device", "dtype", "non_blocking", "copy"}
	kw := append([]ir.Kwarg(nil), kwargs...)
	for i, a := range args[1:] {
		if i < len(names) {
			kw = append(kw, ir.Kwarg{Name: names[i], Arg: a})
		}
	}
	return args[:1], kw
}

// pythonOnly are keywords of the Python wrappers that ATen has no
// parameter for. Those that leave the result's type as it is may take any
// value; the others only their default (None, or False), since
// reduce=False or return_indices=True change what the call returns.
var pythonOnly = map[string]func(ir.Arg) bool{
	"inplace": anyValue, "_stacklevel": anyValue, "max_norm": anyValue, "norm_type": anyValue,
	"size_average": isNone, "reduce": isNone, "return_indices": isFalse,
}

func anyValue(ir.Arg) bool  { return true }
func isNone(a ir.Arg) bool  { return a.Kind == ir.ArgNone }
func isFalse(a ir.Arg) bool { return a.Kind == ir.ArgBool && !a.Bool }

var reductionEnum = map[string]map[string]int64{"reduction": {"none": 0, "mean": 1, "sum": 2}}

func dtypeKw(d ir.DType) []ir.Kwarg { return []ir.Kwarg{{Name: "dtype", Arg: ir.DTypeArg(d)}} }

// pyCallables are the callables whose routing is not "the ATen packet of
// the same name" (see pyPrefixes for that default).
var pyCallables = map[string]pyCallable{
	"torch.nn.functional.embedding": {packet: "aten::embedding",
		sig: []string{"indices", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"}},
	"torch.nn.functional.batch_norm": {packet: "aten::batch_norm",
		sig:   []string{"input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps"},
		fixed: []ir.Kwarg{{Name: "cudnn_enabled", Arg: ir.BoolArg(true)}}},
	"torch.nn.functional.dropout": {packet: "aten::dropout",
		sig: []string{"input", "p", "train", "inplace"}, rename: map[string]string{"training": "train"}},
	"torch.nn.functional.cross_entropy": {packet: "aten::cross_entropy_loss",
		sig:   []string{"self", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"},
		enums: reductionEnum},
	"torch.nn.functional.nll_loss": {packet: "aten::nll_loss_nd",
		sig:   []string{"self", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"},
		enums: reductionEnum},
	"torch.nn.functional.mse_loss": {packet: "aten::mse_loss",
		sig: []string{"self", "target", "size_average", "reduce", "reduction"}, enums: reductionEnum},
	"torch.nn.functional.max_pool2d": {packet: "aten::max_pool2d",
		sig: []string{"self", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"}},
	"torch.nn.functional.softmax":     {packet: "aten::softmax", sig: []string{"self", "dim", "_stacklevel", "dtype"}},
	"torch.nn.functional.log_softmax": {packet: "aten::log_softmax", sig: []string{"self", "dim", "_stacklevel", "dtype"}},
	"method.norm": {packet: "aten::linalg_vector_norm",
		sig: []string{"self", "ord", "dim", "keepdim", "dtype"}, rename: map[string]string{"p": "ord"}},
	"torch.functional.split": {packet: "aten::split", also: "aten::split_with_sizes"},
	"torch.split":            {packet: "aten::split", also: "aten::split_with_sizes"},
	"method.split":           {packet: "aten::split", also: "aten::split_with_sizes"},
	"method.to":              {packet: "aten::to", adapt: toDevice},
	"method.float":           {packet: "aten::to", fixed: dtypeKw(ir.F32)},
	"method.double":          {packet: "aten::to", fixed: dtypeKw(ir.F64)},
	"method.half":            {packet: "aten::to", fixed: dtypeKw(ir.F16)},
	"method.bfloat16":        {packet: "aten::to", fixed: dtypeKw(ir.BF16)},
	"method.long":            {packet: "aten::to", fixed: dtypeKw(ir.I64)},
	"method.int":             {packet: "aten::to", fixed: dtypeKw(ir.I32)},
	"method.short":           {packet: "aten::to", fixed: dtypeKw(ir.I16)},
	"method.char":            {packet: "aten::to", fixed: dtypeKw(ir.I8)},
	"method.byte":            {packet: "aten::to", fixed: dtypeKw(ir.U8)},
	"method.bool":            {packet: "aten::to", fixed: dtypeKw(ir.Bool)},
	"method.type_as":         {packet: "aten::to", sig: []string{"self", "other"}},
}

// pyPrefixes route a callable to the ATen packet named by its last part,
// with a prefix for the namespaces ATen flattens (torch.linalg.solve is
// aten::linalg_solve).
var pyPrefixes = []struct{ prefix, aten string }{
	{"method.", ""},
	{"torch.Tensor.", ""},
	{"torch.nn.functional.", ""},
	{"torch._C._nn.", ""},
	{"torch.functional.", ""},
	{"torch._C._VariableFunctions.", ""},
	{"torch._C._linalg.", ""},
	{"torch._C._special.", ""},
	{"torch._C._fft.", ""},
	{"torch.linalg.", "linalg_"},
	{"torch.special.", "special_"},
	{"torch.fft.", "fft_"},
	{"torch.", ""},
}

// pyOperatorPackets routes Python operators on tensors (x + y, x @ w, -x).
var pyOperatorPackets = map[string]string{
	"operator.add": "aten::add", "operator.sub": "aten::sub", "operator.mul": "aten::mul",
	"operator.truediv": "aten::div", "operator.floordiv": "aten::floor_divide", "operator.mod": "aten::remainder",
	"operator.pow": "aten::pow", "operator.matmul": "aten::matmul", "operator.neg": "aten::neg",
	"operator.pos": "aten::positive", "operator.invert": "aten::bitwise_not", "operator.abs": "aten::abs",
	"operator.and_": "aten::bitwise_and", "operator.or_": "aten::bitwise_or", "operator.xor": "aten::bitwise_xor",
	"operator.lshift": "aten::bitwise_left_shift", "operator.rshift": "aten::bitwise_right_shift",
	"operator.eq": "aten::eq", "operator.ne": "aten::ne", "operator.lt": "aten::lt", "operator.le": "aten::le",
	"operator.gt": "aten::gt", "operator.ge": "aten::ge",
	// x += y on a tensor is Tensor.__iadd__: the in-place op
	"operator.iadd": "aten::add_", "operator.isub": "aten::sub_", "operator.imul": "aten::mul_",
	"operator.itruediv": "aten::div_", "operator.ifloordiv": "aten::floor_divide_", "operator.imod": "aten::remainder_",
	"operator.ipow": "aten::pow_", "operator.iand": "aten::bitwise_and_", "operator.ior": "aten::bitwise_or_",
	"operator.ixor": "aten::bitwise_xor_", "operator.ilshift": "aten::bitwise_left_shift_",
	"operator.irshift": "aten::bitwise_right_shift_", "operator.imatmul": "aten::matmul",
}

// reflected is how `2 - x` reaches ATen when the left operand is a number:
// Tensor.__rsub__ is aten::rsub; comparisons flip; the other operators
// type as their mirror image (promotion and broadcasting are symmetric).
var reflected = map[string]string{"operator.sub": "aten::rsub", "operator.lt": "aten::gt", "operator.le": "aten::ge",
	"operator.gt": "aten::lt", "operator.ge": "aten::le"}

// swapsOperands are the operators whose reflected form (`2 * x`) reaches
// ATen with the tensor first: the commutative ones, the reflected ones
// above, and truediv, which types as x / 2 (Tensor.__rtruediv__ is
// x.reciprocal() * 2: the aten pass builds that). `2 ** x`, `2 % x`,
// `2 << x` keep their order: torch.pow(2, x) is aten::pow.Scalar,
// torch.remainder(2, x) remainder.Scalar_Tensor.
var swapsOperands = map[string]bool{
	"operator.add": true, "operator.mul": true, "operator.and_": true, "operator.or_": true, "operator.xor": true,
	"operator.eq": true, "operator.ne": true, "operator.sub": true, "operator.lt": true, "operator.le": true,
	"operator.gt": true, "operator.ge": true, "operator.truediv": true,
}

// PyCall is a Python-level call routed to an ATen overload, its arguments
// rewritten for the overload's schema.
type PyCall struct {
	Op     *Op
	Args   []ir.Arg
	Kwargs []ir.Kwarg
	// Rule types a Python function that has no ATen op (F.interpolate):
	// Op is nil then.
	Rule func(env *Env) ([]ir.Type, error)
}

// ResolvePython routes a Dynamo-level call (a torch function, a Tensor
// method "method.view", or a Python operator with a tensor operand) to the
// ATen overload PyTorch's Python bindings would pick for these arguments.
// ok is false when target is not a Python callable kiln routes; an error
// means it is, but no overload accepts the arguments.
func (r *Registry) ResolvePython(target string, args []ir.Arg, kwargs []ir.Kwarg) (call PyCall, ok bool, err error) {
	if rule, ok := pyRules[target]; ok {
		a, err := bindPy(target, rule.sig, args, kwargs)
		if err != nil {
			return PyCall{}, true, err
		}
		return PyCall{Rule: func(env *Env) ([]ir.Type, error) { return rule.meta(env, a) }}, true, nil
	}
	c, ok := r.pyCallableFor(target, args)
	if !ok {
		return PyCall{}, false, nil
	}
	if packet, rev := reflected[target]; rev && len(args) == 2 && !isTensorArg(args[0]) {
		c.packet = packet
	}
	if swapsOperands[target] && len(args) == 2 && !isTensorArg(args[0]) && isTensorArg(args[1]) {
		args = []ir.Arg{args[1], args[0]}
	}
	args, kwargs, err = c.normalize(args, kwargs)
	if err != nil {
		return PyCall{}, true, fmt.Errorf("%s: %w", target, err)
	}
	best, bestScore := PyCall{}, -1
	var firstErr error
	for _, name := range append(r.Overloads(c.packet), r.Overloads(c.also)...) {
		op := r.Lookup(name)
		if op == nil {
			continue
		}
		a, kw, score, err := fitOverload(op, args, kwargs)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if score > bestScore || score == bestScore && best.Op.Meta == nil && op.Meta != nil {
			best, bestScore = PyCall{Op: op, Args: a, Kwargs: kw}, score
		}
	}
	if best.Op == nil {
		if firstErr == nil {
			firstErr = fmt.Errorf("PyTorch has no op %s", c.packet)
		}
		return PyCall{}, true, fmt.Errorf("%s: no overload of %s takes these arguments: %w", target, c.packet, firstErr)
	}
	return best, true, nil
}

func (r *Registry) pyCallableFor(target string, args []ir.Arg) (pyCallable, bool) {
	if c, ok := pyCallables[target]; ok {
		return c, true
	}
	if packet, ok := pyOperatorPackets[target]; ok {
		for _, a := range args {
			if isTensorArg(a) {
				return pyCallable{packet: packet}, true
			}
		}
		return pyCallable{}, false
	}
	for _, p := range pyPrefixes {
		if rest, ok := strings.CutPrefix(target, p.prefix); ok && !strings.Contains(rest, ".") {
			packet := "aten::" + p.aten + rest
			if len(r.Overloads(packet)) > 0 {
				return pyCallable{packet: packet}, true
			}
			return pyCallable{}, false
		}
	}
	return pyCallable{}, false
}

// normalize applies the callable's Python signature: positional arguments
// named by sig become keywords, Python-only keywords go, None for an ATen
// default is left to the default, enum strings become their integers.
func (c pyCallable) normalize(args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg, error) {
	if c.adapt != nil {
		args, kwargs = c.adapt(args, kwargs)
	}
	var kw []ir.Kwarg
	if c.sig != nil {
		if len(args) > len(c.sig) {
			return nil, nil, fmt.Errorf("takes at most %d positional arguments but %d were given", len(c.sig), len(args))
		}
		for i, a := range args {
			kw = append(kw, ir.Kwarg{Name: c.sig[i], Arg: a})
		}
		args = nil
	}
	kw = append(kw, kwargs...)
	out := make([]ir.Kwarg, 0, len(kw)+len(c.fixed))
	for _, k := range kw {
		if to, ok := c.rename[k.Name]; ok {
			k.Name = to
		}
		if drop, ok := pythonOnly[k.Name]; ok {
			if !drop(k.Arg) {
				return nil, nil, fmt.Errorf("%s=%s is not modelled", k.Name, k.Arg)
			}
			continue
		}
		if m, ok := c.enums[k.Name]; ok && k.Arg.Kind == ir.ArgString {
			v, known := m[k.Arg.Str]
			if !known {
				return nil, nil, fmt.Errorf("%s=%q is not a valid value", k.Name, k.Arg.Str)
			}
			k.Arg = ir.IntArg(v)
		}
		out = append(out, k)
	}
	return args, append(out, c.fixed...), nil
}

// fitOverload binds the arguments to one overload and scores how well their
// kinds match its parameters (an exact kind scores 2, a conversion PyTorch's
// argument parser makes scores 1); an error means the overload does not
// accept them.
func fitOverload(op *Op, args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg, int, error) {
	args = packVarargs(op, args)
	var kw []ir.Kwarg
	for _, k := range kwargs {
		i := op.paramIndex(k.Name)
		if i < 0 && k.Name == "input" {
			k.Name, i = "self", op.paramIndex("self")
		}
		if i >= 0 && k.Arg.Kind == ir.ArgNone && !op.Schema.Params[i].Type.Optional && op.Schema.Params[i].HasDef {
			continue // F.max_pool2d(stride=None): ATen's default
		}
		kw = append(kw, k)
	}
	names := make([]string, len(kw))
	for i, k := range kw {
		names[i] = k.Name
	}
	if err := op.CheckCall(len(args), names); err != nil {
		return nil, nil, 0, err
	}
	score := 0
	check := func(a ir.Arg, p Param) error {
		s := argFits(a, p.Type)
		if s == 0 {
			return fmt.Errorf("%s: argument '%s' must be %s, not %s", op.QualifiedName(), p.Name, p.Type, a)
		}
		score += s
		return nil
	}
	for i, a := range args {
		if err := check(a, op.Schema.Params[i]); err != nil {
			return nil, nil, 0, err
		}
	}
	if len(args) > 0 && op.Schema.Params[0].Type.Base == TScalar && isNumberArg(args[0]) {
		score++ // torch.pow(2, x) is pow.Scalar, not pow.Tensor_Tensor with 2 wrapped
	}
	for _, k := range kw {
		if err := check(k.Arg, op.Schema.Params[op.paramIndex(k.Name)]); err != nil {
			return nil, nil, 0, err
		}
	}
	return args, kw, score, nil
}

// packVarargs turns x.view(2, 3) into x.view([2, 3]) and
// torch.einsum('ij,j', a, b) into einsum('ij,j', [a, b]): Python's
// bindings accept a list parameter spread over the trailing arguments.
func packVarargs(op *Op, args []ir.Arg) []ir.Arg {
	ps := op.Schema.Params
	for i, p := range ps {
		if i >= len(args) || p.KwOnly {
			break
		}
		if !p.Type.List || args[i].IsSequence() {
			continue
		}
		if len(args) == i+1 && p.Type.Base != TTensor {
			return args // x.sum(1): an int for int[1] is one element
		}
		rest := args[i:]
		for _, a := range rest {
			if argFits(a, ParamType{Base: p.Type.Base}) != 2 {
				return args
			}
		}
		return append(append([]ir.Arg(nil), args[:i]...), ir.ListArg(rest...))
	}
	return args
}

func isNumberArg(a ir.Arg) bool {
	return a.Kind == ir.ArgInt || a.Kind == ir.ArgFloat || a.Kind == ir.ArgBool
}

func isTensorArg(a ir.Arg) bool {
	return a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor
}

// argFits scores argument a against a parameter type: 2 for its own kind,
// 1 for a conversion Python's argument parser makes (a number for a Tensor,
// an int for an int list), 0 when the parameter cannot take it.
func argFits(a ir.Arg, t ParamType) int {
	if t.Base == TAny {
		return 1
	}
	if a.Kind == ir.ArgNone {
		if t.Optional {
			return 2
		}
		return 0
	}
	if t.List {
		if !a.IsSequence() {
			if s := argFits(a, ParamType{Base: t.Base}); s > 0 && t.Base != TTensor {
				return 1 // x.sum(1) for int[1] dim
			}
			if a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindList {
				return 2 // a tuple-valued node (x.size())
			}
			return 0
		}
		for _, e := range a.Elems {
			if e.Kind == ir.ArgNone && t.ElemOpt {
				continue
			}
			if argFits(e, ParamType{Base: t.Base}) == 0 {
				return 0
			}
		}
		return 2
	}
	return scalarFits(a, t.Base)
}

func scalarFits(a ir.Arg, base BaseType) int {
	kind := a.Kind
	if kind == ir.ArgValue {
		switch a.Value.Type.Kind {
		case ir.KindTensor:
			if base == TTensor {
				return 2
			}
			return 0
		case ir.KindSymInt:
			kind = ir.ArgInt
		case ir.KindSymFloat:
			kind = ir.ArgFloat
		case ir.KindSymBool:
			kind = ir.ArgBool
		case ir.KindUnknown:
			return 1 // untyped: the meta rule reports it
		default:
			return 0
		}
	}
	switch kind {
	case ir.ArgInt:
		switch base {
		case TInt, TSymInt:
			return 2
		case TScalar, TFloat, TTensor:
			return 1
		}
	case ir.ArgFloat:
		switch base {
		case TFloat, TScalar:
			return 2
		case TTensor:
			return 1
		}
	case ir.ArgBool:
		switch base {
		case TBool:
			return 2
		case TScalar, TTensor:
			return 1
		}
	case ir.ArgString:
		if base == TStr {
			return 2
		}
	case ir.ArgDType:
		if base == TScalarType {
			return 2
		}
	case ir.ArgDevice:
		if base == TDevice {
			return 2
		}
	case ir.ArgEnum:
		if base == TLayout || base == TMemoryFormat {
			return 2
		}
	}
	return 0
}
