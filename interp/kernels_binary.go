package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/rt"
)

// Binary pointwise ops, after aten/src/ATen/native/BinaryOps.cpp and
// cpu/BinaryOpsKernel.cpp: integer division by zero raises ZeroDivisionError
// (CPU semantics), floor division and remainder follow Python's signs,
// float division by zero gives IEEE infinities and NaN.

// ewOpFunc is a binary op on runtime values (tensors or Python scalars).
type ewOpFunc func(a, b any) (*Tensor, error)

// lane is the element type of a compute lane: float64 for float dtypes,
// int64 for integer and bool ones.
type lane interface{ ~float64 | ~int64 }

// map2 and map3 apply f element by element over a chunk's columns.
func map2[T lane](f func(a, b T) T) func(dst []T, c [][]T) {
	return func(dst []T, c [][]T) {
		a, b := c[0], c[1]
		for i := range dst {
			dst[i] = f(a[i], b[i])
		}
	}
}

func map3[T lane](f func(a, b, c T) T) func(dst []T, c [][]T) {
	return func(dst []T, c [][]T) {
		a, b, d := c[0], c[1], c[2]
		for i := range dst {
			dst[i] = f(a[i], b[i], d[i])
		}
	}
}

// fl2, in2, fl3 and in3 make dtype-independent lane kernels.
func fl2(f func(a, b float64) float64) func(ir.DType) chunkF { return anyDType(chunkF(map2(f))) }
func in2(f func(a, b int64) int64) func(ir.DType) chunkI     { return anyDType(chunkI(map2(f))) }
func fl3(f func(a, b, c float64) float64) func(ir.DType) chunkF {
	return anyDType(chunkF(map3(f)))
}
func in3(f func(a, b, c int64) int64) func(ir.DType) chunkI { return anyDType(chunkI(map3(f))) }

func anyDType[K any](k K) func(ir.DType) K { return func(ir.DType) K { return k } }

// fl2r builds a float kernel that rounds intermediate steps to the
// computation's opmath precision.
func fl2r(mk func(r rounder) func(a, b float64) float64) func(ir.DType) chunkF {
	return func(dt ir.DType) chunkF { return fl2(mk(rounderFor(dt)))(dt) }
}

// binary runs a two-operand elementwise op.
func binaryOp(name string, kind ops.PromotionKind, k ewKernel, a, b any) (*Tensor, error) {
	oa, ob, err := operandPair(a, b)
	if err != nil {
		return nil, err
	}
	if oa.scalar && ob.scalar {
		return nil, fmt.Errorf("%s: expected at least one tensor operand", name)
	}
	return elementwise(ewSpec{kind: kind, opName: name}, k, []operand{oa, ob})
}

// operandPair reads a binary op's two runtime values as operands.
func operandPair(a, b any) (operand, operand, error) {
	oa, err := scalarOperand(a)
	if err != nil {
		return operand{}, operand{}, err
	}
	ob, err := scalarOperand(b)
	return oa, ob, err
}

func addOp(a, b any) (*Tensor, error) { return addAlpha("add", a, b, int64(1), 1) }
func subOp(a, b any) (*Tensor, error) { return addAlpha("sub", a, b, int64(1), -1) }
func mulOp(a, b any) (*Tensor, error) { return binaryOp("mul", ops.PromoteDefault, mulKernel, a, b) }
func divOp(a, b any) (*Tensor, error) { return binaryOp("div", ops.PromoteIntToFloat, divKernel, a, b) }

var mulKernel = ewKernel{
	f:            fl2(func(a, b float64) float64 { return a * b }),
	i:            in2(func(a, b int64) int64 { return a * b }),
	opmathScalar: true,
	c:            func(x []complex128) complex128 { return x[0] * x[1] },
}

var divKernel = ewKernel{f: fl2(func(a, b float64) float64 { return a / b }), opmathScalar: true,
	c: func(x []complex128) complex128 { return x[0] / x[1] }}

// addAlpha is a + sign·alpha·b with add's alpha checks.
func addAlpha(name string, a, b, alpha any, sign float64) (*Tensor, error) {
	oa, ob, err := operandPair(a, b)
	if err != nil {
		return nil, err
	}
	spec := ewSpec{kind: ops.PromoteDefault, opName: name}
	compute, _, err := spec.promote([]operand{oa, ob})
	if err != nil {
		return nil, err
	}
	if name == "sub" || name == "rsub" {
		if oa.dt == ir.Bool && ob.dt == ir.Bool {
			return nil, fmt.Errorf("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.")
		}
		if oa.dt == ir.Bool || ob.dt == ir.Bool {
			return nil, fmt.Errorf("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
		}
	}
	af, isFloat := alpha.(float64)
	_, isBool := alpha.(bool)
	switch {
	case isFloat && !compute.IsFloat() && !compute.IsComplex():
		return nil, fmt.Errorf("For integral input tensors, argument alpha must not be a floating point number.")
	case isBool && compute != ir.Bool:
		return nil, fmt.Errorf("Boolean alpha only supported for Boolean results.")
	}
	ai, _ := intOrBool(alpha)
	if !isFloat {
		af = float64(ai)
	}
	af *= sign
	ai *= int64(sign)
	k := ewKernel{
		f: fl2(func(x, y float64) float64 {
			if af == 1 {
				return x + y
			}
			return x + af*y
		}),
		i:            in2(func(x, y int64) int64 { return x + ai*y }),
		opmathScalar: true,
		c:            func(x []complex128) complex128 { return x[0] + complex(af, 0)*x[1] },
	}
	return elementwise(spec, k, []operand{oa, ob})
}

func kAdd(c *call) ([]any, error)  { return alphaKernel(c, "add", 1, false) }
func kSub(c *call) ([]any, error)  { return alphaKernel(c, "sub", -1, false) }
func kRsub(c *call) ([]any, error) { return alphaKernel(c, "rsub", -1, true) }

func alphaKernel(c *call, name string, sign float64, swap bool) ([]any, error) {
	a, err := c.val("self")
	if err != nil {
		return nil, err
	}
	b, err := c.val("other")
	if err != nil {
		return nil, err
	}
	alpha, err := c.scalar("alpha")
	if err != nil {
		return nil, err
	}
	if swap {
		a, b = b, a
	}
	return oneT(addAlpha(name, a, b, alpha, sign))
}

// floorDivInt is Python's // on ints (b != 0).
func floorDivInt(a, b int64) int64 { return rt.FloorDivI64(a, b) }

// divFloorFloat is ATen's div_floor_floating, each step rounded to the
// computation precision by r (operands are taken as they come, unlike
// rt.FloorDivF32, which takes float32 operands).
func divFloorFloat(r rounder) func(a, b float64) float64 {
	return func(a, b float64) float64 { return rt.FloorDivFloat(a, b, r) }
}

// pyFmod is Python's float %: fmod, moved to the divisor's sign.
func pyFmod(a, b float64) float64 { return rt.Remainder(a, b) }

// intDivision runs an op whose int lane divides: a zero divisor is
// PyTorch's CPU "ZeroDivisionError".
func intDivision(name string, kind ops.PromotionKind, k ewKernel, a, b any) (*Tensor, error) {
	oa, ob, err := operandPair(a, b)
	if err != nil {
		return nil, err
	}
	spec := ewSpec{kind: kind, opName: name}
	compute, _, err := spec.promote([]operand{oa, ob})
	if err != nil {
		return nil, err
	}
	if !compute.IsFloat() && hasZero(ob) {
		return nil, fmt.Errorf("ZeroDivisionError")
	}
	return elementwise(spec, k, []operand{oa, ob})
}

func hasZero(o operand) bool {
	if o.t == nil {
		return o.i == 0
	}
	for _, v := range o.t.Ints() {
		if v == 0 {
			return true
		}
	}
	return false
}

var floorDivKernel = ewKernel{f: fl2r(divFloorFloat), i: in2(floorDivInt)}

var truncDivKernel = ewKernel{
	f: fl2(func(a, b float64) float64 { return math.Trunc(a / b) }),
	i: in2(func(a, b int64) int64 { return a / b }),
}

var remainderKernel = ewKernel{
	f: fl2(pyFmod),
	i: in2(func(a, b int64) int64 { return a - floorDivInt(a, b)*b }),
}

var fmodKernel = ewKernel{f: fl2(math.Mod), i: in2(func(a, b int64) int64 { return a % b })}

func kDiv(c *call) ([]any, error) {
	a, b, err := selfOther(c)
	if err != nil {
		return nil, err
	}
	mode, err := c.str("rounding_mode")
	if err != nil {
		return nil, err
	}
	switch mode {
	case "":
		return oneT(divOp(a, b))
	case "trunc":
		return oneT(intDivision("div", ops.PromoteDefault, truncDivKernel, a, b))
	case "floor":
		return oneT(intDivision("div", ops.PromoteDefault, floorDivKernel, a, b))
	}
	return nil, fmt.Errorf("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", mode)
}

// selfOther reads the two operands of a binary op, whatever they are called.
func selfOther(c *call) (any, any, error) {
	names := []string{"self", "other"}
	if !c.has("other") {
		ps := c.op.Schema.Params
		names = []string{ps[0].Name, ps[1].Name}
	}
	a, err := c.val(names[0])
	if err != nil {
		return nil, nil, err
	}
	b, err := c.val(names[1])
	return a, b, err
}

// pairKernel adapts op over a call's two operands.
func pairKernel(op func(a, b any) (*Tensor, error)) kernel {
	return func(c *call) ([]any, error) {
		a, b, err := selfOther(c)
		if err != nil {
			return nil, err
		}
		return oneT(op(a, b))
	}
}

// binKernel registers a plain binary op.
func binKernel(name string, kind ops.PromotionKind, k ewKernel) kernel {
	return pairKernel(func(a, b any) (*Tensor, error) { return binaryOp(name, kind, k, a, b) })
}

// divKernelNamed registers an op whose int lane divides.
func divKernelNamed(name string, k ewKernel) kernel {
	return pairKernel(func(a, b any) (*Tensor, error) { return intDivision(name, ops.PromoteDefault, k, a, b) })
}

func cmpKernel(f func(a, b float64) bool, g func(a, b int64) bool) ewKernel {
	return ewKernel{
		f: fl2(func(a, b float64) float64 { return rt.B2F(f(a, b)) }),
		i: in2(func(a, b int64) int64 { return rt.B2I(g(a, b)) }),
	}
}

func intOnly(f func(a, b int64) int64) ewKernel { return ewKernel{i: in2(f)} }

// shiftKernel is ATen's lshift/rshift: shifts past the width give 0 (left)
// or the sign fill (right).
func shiftKernel(left bool) ewKernel {
	return ewKernel{i: func(dt ir.DType) chunkI {
		width := int64(dt.ItemSize() * 8)
		return in2(func(a, b int64) int64 {
			if left {
				if b < 0 || b >= width {
					return 0
				}
				return a << uint(b)
			}
			if b < 0 || b >= width {
				b = width - 1
			}
			return a >> uint(b)
		})(dt)
	}}
}

// nanPropagating is maximum/minimum: a NaN operand gives NaN.
func nanPropagating(f func(a, b float64) float64) func(a, b float64) float64 {
	return func(a, b float64) float64 {
		if a != a || b != b {
			return math.NaN()
		}
		return f(a, b)
	}
}

var maxNaN, minNaN = nanPropagating(math.Max), nanPropagating(math.Min)

// logAddExpBase is log_b(b^a + b^x) for base e (exp, ln 1) and base 2
// (exp2, ln 2), stable for large operands.
func logAddExpBase(exp func(float64) float64, lnBase float64) func(a, b float64) float64 {
	return func(a, b float64) float64 {
		if math.IsInf(a, 0) && a == b {
			return a
		}
		m := math.Max(a, b)
		return m + math.Log1p(exp(-math.Abs(a-b)))/lnBase
	}
}

var logAddExp, logAddExp2 = logAddExpBase(math.Exp, 1), logAddExpBase(math.Exp2, math.Ln2)

func xlogy(x, y float64) float64 {
	if y != y {
		return math.NaN()
	}
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

func logicalKernel(f func(a, b bool) bool) ewKernel {
	return cmpKernel(func(a, b float64) bool { return f(a != 0, b != 0) }, func(a, b int64) bool { return f(a != 0, b != 0) })
}

func init() {
	register(kAdd, "add.Tensor", "add.Scalar")
	register(kSub, "sub.Tensor", "sub.Scalar")
	register(kRsub, "rsub.Tensor", "rsub.Scalar")
	register(binKernel("mul", ops.PromoteDefault, mulKernel), "mul.Tensor", "mul.Scalar")
	register(kDiv, "div.Tensor", "div.Scalar", "div.Tensor_mode", "div.Scalar_mode")
	register(binKernel("true_divide", ops.PromoteIntToFloat, divKernel), "true_divide.Tensor", "true_divide.Scalar")
	register(divKernelNamed("floor_divide", floorDivKernel), "floor_divide", "floor_divide.Scalar")
	register(divKernelNamed("remainder", remainderKernel), "remainder.Tensor", "remainder.Scalar", "remainder.Scalar_Tensor")
	register(divKernelNamed("fmod", fmodKernel), "fmod.Tensor", "fmod.Scalar")
	and := intOnly(func(a, b int64) int64 { return a & b })
	or := intOnly(func(a, b int64) int64 { return a | b })
	xor := intOnly(func(a, b int64) int64 { return a ^ b })
	register(binKernel("bitwise_and", ops.PromoteDefault, and), "bitwise_and.Tensor", "bitwise_and.Scalar", "__and__.Tensor", "__and__.Scalar")
	register(binKernel("bitwise_or", ops.PromoteDefault, or), "bitwise_or.Tensor", "bitwise_or.Scalar", "__or__.Tensor", "__or__.Scalar")
	register(binKernel("bitwise_xor", ops.PromoteDefault, xor), "bitwise_xor.Tensor", "bitwise_xor.Scalar", "__xor__.Tensor", "__xor__.Scalar")
	register(binKernel("lshift", ops.PromoteDefault, shiftKernel(true)), "__lshift__.Tensor", "__lshift__.Scalar", "bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor_Scalar")
	register(binKernel("rshift", ops.PromoteDefault, shiftKernel(false)), "__rshift__.Tensor", "__rshift__.Scalar", "bitwise_right_shift.Tensor", "bitwise_right_shift.Tensor_Scalar")
	cmps := []struct {
		name string
		f    func(a, b float64) bool
		g    func(a, b int64) bool
	}{
		{"eq", func(a, b float64) bool { return a == b }, func(a, b int64) bool { return a == b }},
		{"ne", func(a, b float64) bool { return a != b }, func(a, b int64) bool { return a != b }},
		{"lt", func(a, b float64) bool { return a < b }, func(a, b int64) bool { return a < b }},
		{"le", func(a, b float64) bool { return a <= b }, func(a, b int64) bool { return a <= b }},
		{"gt", func(a, b float64) bool { return a > b }, func(a, b int64) bool { return a > b }},
		{"ge", func(a, b float64) bool { return a >= b }, func(a, b int64) bool { return a >= b }},
	}
	for _, cm := range cmps {
		register(binKernel(cm.name, ops.PromoteAlwaysBool, cmpKernel(cm.f, cm.g)), cm.name+".Tensor", cm.name+".Scalar")
	}
	register(binKernel("maximum", ops.PromoteDefault, ewKernel{f: fl2(maxNaN), i: in2(func(a, b int64) int64 { return max(a, b) })}), "maximum", "max.other")
	register(binKernel("minimum", ops.PromoteDefault, ewKernel{f: fl2(minNaN), i: in2(func(a, b int64) int64 { return min(a, b) })}), "minimum", "min.other")
	register(binKernel("fmax", ops.PromoteDefault, ewKernel{f: fl2(rt.FMax), i: in2(func(a, b int64) int64 { return max(a, b) })}), "fmax")
	register(binKernel("fmin", ops.PromoteDefault, ewKernel{f: fl2(rt.FMin), i: in2(func(a, b int64) int64 { return min(a, b) })}), "fmin")
	register(binKernel("atan2", ops.PromoteIntToFloat, ewKernel{f: fl2(math.Atan2)}), "atan2")
	register(binKernel("hypot", ops.PromoteIntToFloat, ewKernel{f: fl2(math.Hypot)}), "hypot")
	register(binKernel("logaddexp", ops.PromoteIntToFloat, ewKernel{f: fl2(logAddExp)}), "logaddexp")
	register(binKernel("logaddexp2", ops.PromoteIntToFloat, ewKernel{f: fl2(logAddExp2)}), "logaddexp2")
	register(binKernel("copysign", ops.PromoteIntToFloat, ewKernel{f: fl2(math.Copysign)}), "copysign.Tensor", "copysign.Scalar")
	register(binKernel("xlogy", ops.PromoteIntToFloat, ewKernel{f: fl2(xlogy)}), "xlogy.Tensor", "xlogy.Scalar_Self", "xlogy.Scalar_Other")
	register(binKernel("nextafter", ops.PromoteDefault, ewKernel{f: nextafterKernel}), "nextafter")
	register(binKernel("logical_and", ops.PromoteAlwaysBool, logicalKernel(func(a, b bool) bool { return a && b })), "logical_and")
	register(binKernel("logical_or", ops.PromoteAlwaysBool, logicalKernel(func(a, b bool) bool { return a || b })), "logical_or")
	register(binKernel("logical_xor", ops.PromoteAlwaysBool, logicalKernel(func(a, b bool) bool { return a != b })), "logical_xor")
}

// nextafterKernel steps toward b in the computation dtype's own spacing.
func nextafterKernel(dt ir.DType) chunkF {
	return fl2(func(a, b float64) float64 {
		if dt == ir.F64 {
			return math.Nextafter(a, b)
		}
		return float64(math.Nextafter32(float32(a), float32(b)))
	})(dt)
}
