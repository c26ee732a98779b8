package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// Type promotion, after aten/src/ATen/native/TypeProperties.cpp (result_type)
// and c10/core/ScalarType.cpp (promoteTypes), with the refs' promotion kinds
// (torch/_prims_common ELEMENTWISE_TYPE_PROMOTION_KIND).

// PromoteTypes is torch.promote_types(a, b).
func PromoteTypes(a, b ir.DType) (ir.DType, error) {
	switch {
	case a == b:
		return a, nil
	case a == ir.Invalid:
		return b, nil
	case b == ir.Invalid:
		return a, nil
	case a == ir.Bool:
		return b, nil
	case b == ir.Bool:
		return a, nil
	}
	ca, cb := a.Category(), b.Category()
	if ca == ir.CatBits || cb == ir.CatBits {
		return ir.Invalid, fmt.Errorf("Promotion for %s and %s is not supported", a, b)
	}
	if isFloat8(a) || isFloat8(b) {
		return ir.Invalid, fmt.Errorf("Promotion for Float8 Types is not supported, attempted to promote %s and %s", a, b)
	}
	if isBarebonesUnsigned(a) || isBarebonesUnsigned(b) {
		if isUnsigned(a) && isUnsigned(b) {
			return largerBySize(a, b), nil
		}
		return ir.Invalid, fmt.Errorf("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote %s and %s", a, b)
	}
	switch {
	case ca == ir.CatComplex || cb == ir.CatComplex:
		return promoteComplex(a, b)
	case ca == ir.CatFloat && cb == ir.CatFloat:
		if a.ItemSize() == b.ItemSize() { // f16 + bf16
			return ir.F32, nil
		}
		return largerBySize(a, b), nil
	case ca == ir.CatFloat:
		return a, nil
	case cb == ir.CatFloat:
		return b, nil
	}
	return promoteInts(a, b), nil
}

func promoteInts(a, b ir.DType) ir.DType {
	if a.IsSigned() == b.IsSigned() {
		return largerBySize(a, b)
	}
	u, s := a, b
	if a.IsSigned() {
		u, s = b, a
	}
	if s.ItemSize() > u.ItemSize() {
		return s
	}
	// u8 + i8 -> i16 (the only unsigned type that mixes with signed ones).
	return ir.I16
}

func promoteComplex(a, b ir.DType) (ir.DType, error) {
	ra, rb := realPart(a), realPart(b)
	if !ra.IsFloat() {
		return b, nil
	}
	if !rb.IsFloat() {
		return a, nil
	}
	r, err := PromoteTypes(ra, rb)
	if err != nil {
		return ir.Invalid, err
	}
	return toComplex(r), nil
}

func largerBySize(a, b ir.DType) ir.DType {
	if b.ItemSize() > a.ItemSize() {
		return b
	}
	return a
}

func isFloat8(d ir.DType) bool { return d.IsFloat() && d.ItemSize() == 1 }

func isUnsigned(d ir.DType) bool { return d.IsInt() && !d.IsSigned() }

func isBarebonesUnsigned(d ir.DType) bool { return d == ir.U16 || d == ir.U32 || d == ir.U64 }

// realPart maps complex dtypes to their component type; others map to themselves.
func realPart(d ir.DType) ir.DType {
	if c := d.ComplexComponent(); c != ir.Invalid {
		return c
	}
	return d
}

// toComplex is the complex dtype a promotion involving d lands on: d itself
// when complex, the complex of its width for f16/f64, c64 otherwise.
func toComplex(d ir.DType) ir.DType {
	if d.IsComplex() {
		return d
	}
	if c := d.ComplexOf(); c != ir.Invalid {
		return c
	}
	return ir.C64
}

// Operand is one input to type promotion: a tensor (0-dim or not) or a
// Python scalar, which promotes as its default dtype (i64, f32, b8, c64).
type Operand struct {
	DType  ir.DType
	ZeroD  bool // a 0-dim tensor
	Scalar bool // a Python number / SymInt / SymFloat
}

// DefaultFloat is torch.get_default_dtype().
const DefaultFloat = ir.F32

// ResultType is torch.result_type over operands: three groups (tensors with
// dim > 0, 0-dim tensors, scalars), each promoted on its own, and a lower
// group changes the result only when it is of a higher category.
func ResultType(operands []Operand) (ir.DType, error) {
	var dim, zero, wrapped ir.DType
	for _, o := range operands {
		var err error
		switch {
		case o.Scalar:
			wrapped, err = PromoteTypes(wrapped, scalarDType(o.DType))
		case o.ZeroD:
			zero, err = PromoteTypes(zero, o.DType)
		default:
			dim, err = PromoteTypes(dim, o.DType)
		}
		if err != nil {
			return ir.Invalid, err
		}
	}
	lower, err := combineCategories(zero, wrapped)
	if err != nil {
		return ir.Invalid, err
	}
	return combineCategories(dim, lower)
}

func scalarDType(d ir.DType) ir.DType {
	switch {
	case d.IsFloat():
		return DefaultFloat
	case d.IsComplex():
		return toComplex(DefaultFloat)
	}
	return d
}

// combineCategories is TypeProperties.cpp's combine_categories.
func combineCategories(higher, lower ir.DType) (ir.DType, error) {
	switch {
	case higher.IsComplex():
		return higher, nil
	case lower.IsComplex():
		if higher.IsFloat() {
			return toComplex(higher), nil
		}
		return lower, nil
	case higher.IsFloat():
		return higher, nil
	case higher == ir.Bool || lower.IsFloat():
		return PromoteTypes(higher, lower)
	case higher != ir.Invalid:
		return higher, nil
	}
	return lower, nil
}

// PromotionKind is ELEMENTWISE_TYPE_PROMOTION_KIND: how the promoted
// "computation" dtype maps to the result dtype.
type PromotionKind uint8

// Promotion kinds.
const (
	PromoteDefault        PromotionKind = iota // result = promoted type
	PromoteIntToFloat                          // ints and bool become the default float (sin, div, sqrt)
	PromoteAlwaysBool                          // comparisons, logical ops
	PromoteComplexToFloat                      // abs
	PromoteBoolToLong                          // pow
	PromoteNoOpmath                            // where: promoted type, no opmath
	PromoteKeep                                // result = self's dtype (in-place, masked_fill)
)

// ResultDType maps the promoted dtype to the op's result dtype.
func (k PromotionKind) ResultDType(promoted ir.DType) ir.DType {
	switch k {
	case PromoteIntToFloat:
		if promoted == ir.Bool || promoted.IsInt() {
			return DefaultFloat
		}
	case PromoteAlwaysBool:
		return ir.Bool
	case PromoteComplexToFloat:
		if promoted.IsComplex() {
			return realPart(promoted)
		}
	case PromoteBoolToLong:
		if promoted == ir.Bool {
			return ir.I64
		}
	}
	return promoted
}

// CanCast is c10::canCast: an integer result cannot take a float value,
// bool cannot take non-bool, real cannot take complex.
func CanCast(from, to ir.DType) bool {
	switch {
	case from.IsComplex() && !to.IsComplex():
		return false
	case from.IsFloat() && (to.IsInt() || to == ir.Bool):
		return false
	case from != ir.Bool && to == ir.Bool:
		return false
	}
	return true
}

// errCannotCast is PyTorch's in-place / out= cast failure.
func errCannotCast(from, to ir.DType) *Error {
	return Errorf(CodeDType, "compute into a fresh tensor (the out-of-place op) or cast the operand first",
		"result type %s can't be cast to the desired output type %s", ScalarTypeName(from), ScalarTypeName(to))
}

// ScalarTypeName is c10's ScalarType name used in messages: Float, Long,
// BFloat16 (interp's messages use it too).
func ScalarTypeName(d ir.DType) string {
	names := map[ir.DType]string{
		ir.Bool: "Bool", ir.U8: "Byte", ir.I8: "Char", ir.I16: "Short", ir.I32: "Int", ir.I64: "Long",
		ir.F16: "Half", ir.BF16: "BFloat16", ir.F32: "Float", ir.F64: "Double",
		ir.C32: "ComplexHalf", ir.C64: "ComplexFloat", ir.C128: "ComplexDouble",
		ir.U16: "UInt16", ir.U32: "UInt32", ir.U64: "UInt64",
	}
	if n, ok := names[d]; ok {
		return n
	}
	return d.Name()
}
