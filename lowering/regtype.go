package lowering

import "github.com/kiln-compiler/kiln/ir"

// RegKind is the class of register a dtype's scalar values are held in by
// generated code: what the loop IR's arithmetic means per dtype, shared by
// the code generators (each spells the register in its own language).
type RegKind uint8

const (
	// RegF32 holds f32 and the reduced floats (bf16, f16, the float8
	// family), which float32 represents exactly; values round to the
	// dtype where eager PyTorch rounds.
	RegF32 RegKind = iota
	// RegF64 holds f64.
	RegF64
	// RegI64 holds every integer type, wrapped to its width after each op.
	RegI64
	// RegBool holds bool.
	RegBool
)

var regKinds = map[ir.DType]RegKind{
	ir.Bool: RegBool,
	ir.U8:   RegI64, ir.I8: RegI64, ir.U16: RegI64, ir.I16: RegI64,
	ir.U32: RegI64, ir.I32: RegI64, ir.U64: RegI64, ir.I64: RegI64,
	ir.F32: RegF32, ir.F64: RegF64, ir.BF16: RegF32, ir.F16: RegF32,
	ir.F8E4M3FN: RegF32, ir.F8E5M2: RegF32, ir.F8E4M3FNUZ: RegF32, ir.F8E5M2FNUZ: RegF32,
	ir.F8E8M0FNU: RegF32,
}

// RegisterKind is the register class of dt's scalar values; false for
// dtypes without scalar arithmetic in kiln (complex, packed, bit
// containers).
func RegisterKind(dt ir.DType) (RegKind, bool) {
	r, ok := regKinds[dt]
	return r, ok
}
