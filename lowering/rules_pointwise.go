package lowering

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Pointwise lowerings, as data: each aten op names a Fn of Fns or a small
// body builder. Formulas follow ATen's CPU kernels (UnaryOpsKernel.cpp,
// BinaryOpsKernel.cpp, Activation.cpp) so that a kernel rounds as eager does.

// unaryFns are ops whose body is one Fn of self ("sgn" is sign for reals).
var unaryFns = map[string]string{
	"neg": "neg", "abs": "abs", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
	"log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "rsqrt": "rsqrt", "reciprocal": "reciprocal",
	"sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh",
	"cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "sigmoid": "sigmoid",
	"erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "lgamma": "lgamma", "frac": "frac", "sign": "sign", "sgn": "sign",
}

// roundingFns are the identity on integers.
var roundingFns = []string{"floor", "ceil", "round", "trunc"}

// unaryFloatPreds test a float property; integers convert exactly enough.
var unaryFloatPreds = []string{"isnan", "isinf", "isfinite", "signbit"}

// binaryFns are `name.Tensor` / `name.Scalar` (and `.default`) ops whose
// body is one Fn of (self, other).
var binaryFns = map[string]string{
	"mul.Tensor": "mul", "mul.Scalar": "mul",
	"remainder.Tensor": "remainder", "remainder.Scalar": "remainder", "remainder.Scalar_Tensor": "remainder",
	"fmod.Tensor": "fmod", "fmod.Scalar": "fmod",
	"floor_divide": "floordiv", "floor_divide.Scalar": "floordiv",
	"bitwise_and.Tensor": "bitwise_and", "bitwise_and.Scalar": "bitwise_and",
	"bitwise_or.Tensor": "bitwise_or", "bitwise_or.Scalar": "bitwise_or",
	"bitwise_xor.Tensor": "bitwise_xor", "bitwise_xor.Scalar": "bitwise_xor",
	"__and__.Tensor": "bitwise_and", "__and__.Scalar": "bitwise_and",
	"__or__.Tensor": "bitwise_or", "__or__.Scalar": "bitwise_or",
	"__xor__.Tensor": "bitwise_xor", "__xor__.Scalar": "bitwise_xor",
	"__lshift__.Tensor": "lshift", "__lshift__.Scalar": "lshift",
	"__rshift__.Tensor": "rshift", "__rshift__.Scalar": "rshift",
	"bitwise_left_shift.Tensor": "lshift", "bitwise_right_shift.Tensor": "rshift",
	"maximum": "maximum", "minimum": "minimum", "fmax": "fmax", "fmin": "fmin",
	"atan2": "atan2", "hypot": "hypot", "copysign.Tensor": "copysign",
}

// compareFns compute in the operands' promoted type and give bool.
var compareFns = []string{"eq", "ne", "lt", "le", "gt", "ge"}

// logicalFns take their operands as bool.
var logicalFns = []string{"logical_and", "logical_or", "logical_xor"}

func pointwiseRules() map[string]rule {
	t := map[string]rule{}
	def := func(r pwRule, names ...string) {
		for _, n := range names {
			t[n] = r.lower
		}
	}
	for op, fn := range unaryFns {
		def(fnRule(fn, computeOut, "self"), op)
	}
	for _, op := range roundingFns {
		def(exprRule(computeOut, roundOrIdentity(op), "self"), op)
	}
	for _, op := range unaryFloatPreds {
		def(fnRule(op, computeFloat, "self"), op)
	}
	def(fnRule("logical_not", computeBool, "self"), "logical_not")
	for op, fn := range binaryFns {
		def(fnRule(fn, computeOut, "self", "other"), op)
	}
	for _, op := range compareFns {
		def(fnRule(op, computePromoted, "self", "other"), op+".Tensor", op+".Scalar")
	}
	for _, op := range logicalFns {
		def(fnRule(op, computeBool, "self", "other"), op)
	}
	def(fnRule("pow", computeOut, "self", "exponent"), "pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar")
	def(alphaRule("add", false), "add.Tensor", "add.Scalar")
	def(alphaRule("sub", false), "sub.Tensor", "sub.Scalar")
	def(alphaRule("sub", true), "rsub.Tensor", "rsub.Scalar")
	def(exprRule(computeOut, trueDiv, "self", "other"), "div.Tensor", "div.Scalar", "true_divide.Tensor")
	def(pwRule{operands: []string{"self", "other"}, build: divMode}, "div.Tensor_mode", "div.Scalar_mode")
	for op, r := range specialPointwise() {
		def(r, op)
	}
	for op, r := range activationRules() {
		def(r, op)
	}
	return t
}

func roundOrIdentity(fn string) func(e *pwEnv, x []*Instr) *Instr {
	return func(e *pwEnv, x []*Instr) *Instr {
		if !e.dt.IsFloat() {
			return x[0]
		}
		return e.fn(fn, x[0])
	}
}

// alphaRule is add/sub with `alpha`: self ± alpha*other (rsub swaps).
func alphaRule(fn string, swap bool) pwRule {
	return pwRule{operands: []string{"self", "other"}, build: func(e *pwEnv, x []*Instr) (*Instr, error) {
		a, b := x[0], x[1]
		if swap {
			a, b = b, a
		}
		if alpha := e.c.Arg("alpha"); !(alpha.Kind == ir.ArgInt && alpha.Int == 1) {
			k, err := e.scalarArg(alpha, e.dt)
			if err != nil {
				return nil, err
			}
			b = e.fn("mul", k, b)
		}
		return e.fn(fn, a, b), nil
	}}
}

// trueDiv divides in a float type (truediv on integers is not a Fn).
func trueDiv(e *pwEnv, x []*Instr) *Instr {
	if e.dt.IsFloat() {
		return e.fn("truediv", x[0], x[1])
	}
	return e.call("truediv", ir.F32, e.cast(x[0], ir.F32), e.cast(x[1], ir.F32))
}

// divMode is div with rounding_mode: None divides, 'floor' is Python's //,
// 'trunc' rounds toward zero (on integers: (a - fmod(a, b)) // b, exact).
func divMode(e *pwEnv, x []*Instr) (*Instr, error) {
	mode := e.c.Arg("rounding_mode")
	switch {
	case mode.Kind == ir.ArgNone:
		return trueDiv(e, x), nil
	case mode.Str == "floor":
		return e.fn("floordiv", x...), nil
	case mode.Str == "trunc" && e.dt.IsFloat():
		return e.fn("trunc", e.fn("truediv", x...)), nil
	case mode.Str == "trunc":
		return e.fn("floordiv", e.fn("sub", x[0], e.fn("fmod", x...)), x[1]), nil
	}
	return nil, fmt.Errorf("div: rounding_mode must be None, 'floor' or 'trunc', got %s", mode.String())
}

// specialPointwise are the ops whose bodies are small expressions.
func specialPointwise() map[string]pwRule {
	where := exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr { return e.fn("where", x...) },
		"~condition", "self", "other")
	clamp := exprRule(computeOut, clampBody, "self", "min", "max")
	return map[string]pwRule{
		"where.self": where, "where.ScalarSelf": where, "where.ScalarOther": where, "where.Scalar": where,
		"clamp": clamp, "clamp.Tensor": clamp,
		"clamp_min": fnRule("maximum", computeOut, "self", "min"), "clamp_min.Tensor": fnRule("maximum", computeOut, "self", "min"),
		"clamp_max": fnRule("minimum", computeOut, "self", "max"), "clamp_max.Tensor": fnRule("minimum", computeOut, "self", "max"),
		"masked_fill.Scalar": exprRule(computeOut, maskedFill, "self", "~mask", "value"),
		"masked_fill.Tensor": exprRule(computeOut, maskedFill, "self", "~mask", "value"),
		"lerp.Scalar":        {operands: []string{"self", "end"}, build: lerpScalar},
		"lerp.Tensor":        exprRule(computeOut, lerpTensor, "self", "end", "weight"),
		"addcmul": {operands: []string{"self", "tensor1", "tensor2"}, build: func(e *pwEnv, x []*Instr) (*Instr, error) {
			v, err := e.param("value")
			return e.fn("add", x[0], e.fn("mul", e.fn("mul", v, x[1]), x[2])), err
		}},
		"addcdiv": {operands: []string{"self", "tensor1", "tensor2"}, build: func(e *pwEnv, x []*Instr) (*Instr, error) {
			v, err := e.param("value")
			return e.fn("add", x[0], e.fn("truediv", e.fn("mul", v, x[1]), x[2])), err
		}},
		"nan_to_num": {operands: []string{"self"}, build: nanToNum},
		"prims::fma": exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr {
			return e.fn("add", e.fn("mul", x[0], x[1]), x[2])
		}, "a", "b", "c"),
		"logaddexp":  exprRule(computeOut, logAddExp(false), "self", "other"),
		"logaddexp2": exprRule(computeOut, logAddExp(true), "self", "other"),
		"xlogy.Tensor": exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr {
			prod := e.fn("where", e.fn("eq", x[0], e.k(0)), e.k(0), e.fn("mul", x[0], e.fn("log", x[1])))
			return e.fn("where", e.fn("isnan", x[1]), e.k(math.NaN()), prod)
		}, "self", "other"),
		"bitwise_not": exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr {
			if e.outDT == ir.Bool {
				return e.fn("logical_not", x[0])
			}
			return e.fn("bitwise_not", x[0])
		}, "self"),
	}
}

// clampBody is min(max(x, lo), hi), NaN in x propagating (maximum and
// minimum propagate NaN), either bound optional.
func clampBody(e *pwEnv, x []*Instr) *Instr {
	y := x[0]
	if x[1] != nil {
		y = e.fn("maximum", y, x[1])
	}
	if x[2] != nil {
		y = e.fn("minimum", y, x[2])
	}
	return y
}

func maskedFill(e *pwEnv, x []*Instr) *Instr { return e.fn("where", x[1], x[2], x[0]) }

// lerp is ATen's two-sided formula: weight < 0.5 ? self + w*(end-self)
// : end - (end-self)*(1-w).
func lerpScalar(e *pwEnv, x []*Instr) (*Instr, error) {
	w, err := e.paramFloat("weight")
	if err != nil {
		return nil, err
	}
	diff := e.fn("sub", x[1], x[0])
	if w < 0.5 {
		return e.fn("add", x[0], e.fn("mul", e.k(w), diff)), nil
	}
	return e.fn("sub", x[1], e.fn("mul", diff, e.k(1-w))), nil
}

func lerpTensor(e *pwEnv, x []*Instr) *Instr {
	diff := e.fn("sub", x[1], x[0])
	lo := e.fn("add", x[0], e.fn("mul", x[2], diff))
	hi := e.fn("sub", x[1], e.fn("mul", diff, e.fn("sub", e.k(1), x[2])))
	return e.fn("where", e.fn("lt", e.fn("abs", x[2]), e.k(0.5)), lo, hi)
}

// nanToNum replaces NaN, +inf and -inf (defaults: 0 and the dtype's
// largest and lowest finite values); integers pass through.
func nanToNum(e *pwEnv, x []*Instr) (*Instr, error) {
	if !e.dt.IsFloat() {
		return x[0], nil
	}
	big := finfoMax(e.outDT)
	vals := []float64{0, big, -big}
	for i, name := range []string{"nan", "posinf", "neginf"} {
		if !e.c.IsNone(name) {
			v, err := e.paramFloat(name)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
	}
	y := e.fn("where", e.fn("isnan", x[0]), e.k(vals[0]), x[0])
	y = e.fn("where", e.fn("eq", x[0], e.k(math.Inf(1))), e.k(vals[1]), y)
	return e.fn("where", e.fn("eq", x[0], e.k(math.Inf(-1))), e.k(vals[2]), y), nil
}

// finfoMax is torch.finfo(dt).max.
func finfoMax(dt ir.DType) float64 {
	switch dt {
	case ir.F16:
		return 65504
	case ir.BF16:
		return 3.3895313892515355e38
	case ir.F64:
		return math.MaxFloat64
	}
	return math.MaxFloat32
}

// logAddExp is max + log1p(exp(-|a-b|)), with equal infinities passed
// through as ATen does (base 2 for logaddexp2).
func logAddExp(base2 bool) func(e *pwEnv, x []*Instr) *Instr {
	return func(e *pwEnv, x []*Instr) *Instr {
		m := e.fn("maximum", x[0], x[1])
		negAbs := e.fn("neg", e.fn("abs", e.fn("sub", x[0], x[1])))
		var tail *Instr
		if base2 {
			tail = e.fn("truediv", e.fn("log1p", e.fn("exp2", negAbs)), e.k(math.Ln2))
		} else {
			tail = e.fn("log1p", e.fn("exp", negAbs))
		}
		same := e.call("logical_and", ir.Bool, e.fn("isinf", x[0]), e.fn("eq", x[0], x[1]))
		return e.fn("where", same, x[0], e.fn("add", m, tail))
	}
}
