package ir

import "fmt"

// DType is a tensor element type, as torch.dtype.
type DType uint8

// The dtypes FX prints (torch/utils/_dtype_abbrs.py), in a fixed order.
const (
	Invalid DType = iota
	Bool
	U8
	U16
	U32
	U64
	I8
	I16
	I32
	I64
	F16
	BF16
	F32
	F64
	C32
	C64
	C128
	F8E4M3FN
	F8E5M2
	F8E4M3FNUZ
	F8E5M2FNUZ
	F8E8M0FNU
	F4E2M1FNX2
	Bits16
	Bits1x8
	numDTypes
)

// Category orders dtypes for type promotion: bool < integer < floating < complex.
type Category uint8

const (
	CatBool Category = iota
	CatInt
	CatFloat
	CatComplex
	CatBits // raw bit containers: no arithmetic
)

type dtypeInfo struct {
	abbr     string   // FX annotation spelling
	name     string   // torch.<name>
	aliases  []string // other torch.<name> spellings
	itemSize int      // bytes per element
	cat      Category
	signed   bool
}

var dtypeTable = [numDTypes]dtypeInfo{
	Bool:       {"b8", "bool", nil, 1, CatBool, false},
	U8:         {"u8", "uint8", nil, 1, CatInt, false},
	U16:        {"u16", "uint16", nil, 2, CatInt, false},
	U32:        {"u32", "uint32", nil, 4, CatInt, false},
	U64:        {"u64", "uint64", nil, 8, CatInt, false},
	I8:         {"i8", "int8", nil, 1, CatInt, true},
	I16:        {"i16", "int16", []string{"short"}, 2, CatInt, true},
	I32:        {"i32", "int32", []string{"int"}, 4, CatInt, true},
	I64:        {"i64", "int64", []string{"long"}, 8, CatInt, true},
	F16:        {"f16", "float16", []string{"half"}, 2, CatFloat, true},
	BF16:       {"bf16", "bfloat16", nil, 2, CatFloat, true},
	F32:        {"f32", "float32", []string{"float"}, 4, CatFloat, true},
	F64:        {"f64", "float64", []string{"double"}, 8, CatFloat, true},
	C32:        {"c32", "complex32", []string{"chalf"}, 4, CatComplex, true},
	C64:        {"c64", "complex64", []string{"cfloat"}, 8, CatComplex, true},
	C128:       {"c128", "complex128", []string{"cdouble"}, 16, CatComplex, true},
	F8E4M3FN:   {"f8e4m3fn", "float8_e4m3fn", nil, 1, CatFloat, true},
	F8E5M2:     {"f8e5m2", "float8_e5m2", nil, 1, CatFloat, true},
	F8E4M3FNUZ: {"f8e4m3fnuz", "float8_e4m3fnuz", nil, 1, CatFloat, true},
	F8E5M2FNUZ: {"f8e5m2fnuz", "float8_e5m2fnuz", nil, 1, CatFloat, true},
	F8E8M0FNU:  {"f8e8m0fnu", "float8_e8m0fnu", nil, 1, CatFloat, false},
	F4E2M1FNX2: {"f4e2m1fnx2", "float4_e2m1fn_x2", nil, 1, CatFloat, true},
	Bits16:     {"b16", "bits16", nil, 2, CatBits, false},
	Bits1x8:    {"b1x8", "bits1x8", nil, 1, CatBits, false},
}

var (
	dtypeByAbbr = map[string]DType{}
	dtypeByName = map[string]DType{}
)

func init() {
	for d := DType(1); d < numDTypes; d++ {
		info := dtypeTable[d]
		dtypeByAbbr[info.abbr] = d
		dtypeByName[info.name] = d
		for _, a := range info.aliases {
			dtypeByName[a] = d
		}
	}
}

// AllDTypes lists every valid dtype in declaration order.
func AllDTypes() []DType {
	out := make([]DType, 0, numDTypes-1)
	for d := DType(1); d < numDTypes; d++ {
		out = append(out, d)
	}
	return out
}

// DTypeFromAbbr maps an FX annotation prefix ("f32", "bf16", "b8") to a dtype.
func DTypeFromAbbr(abbr string) (DType, bool) {
	d, ok := dtypeByAbbr[abbr]
	return d, ok
}

// DTypeFromName maps a torch attribute name ("float32", "half", "long") to a dtype.
func DTypeFromName(name string) (DType, bool) {
	d, ok := dtypeByName[name]
	return d, ok
}

// Valid reports whether d is a real dtype.
func (d DType) Valid() bool { return d > Invalid && d < numDTypes }

// Abbr is the FX annotation spelling: "f32".
func (d DType) Abbr() string {
	if !d.Valid() {
		return "?"
	}
	return dtypeTable[d].abbr
}

// Name is the torch attribute name: "float32".
func (d DType) Name() string {
	if !d.Valid() {
		return "?"
	}
	return dtypeTable[d].name
}

// String is the Python spelling: "torch.float32".
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return "torch." + dtypeTable[d].name
}

// ItemSize is the element size in bytes.
func (d DType) ItemSize() int {
	if !d.Valid() {
		return 0
	}
	return dtypeTable[d].itemSize
}

// WrapInt truncates v to d's width, as storing it into a tensor of d and
// reading it back does: two's complement for the narrow integer types,
// 0 or 1 for bool; v itself for every other dtype.
func (d DType) WrapInt(v int64) int64 {
	switch d {
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	case U8:
		return int64(uint8(v))
	case I8:
		return int64(int8(v))
	case I16:
		return int64(int16(v))
	case U16:
		return int64(uint16(v))
	case I32:
		return int64(int32(v))
	case U32:
		return int64(uint32(v))
	}
	return v
}

// Category is the promotion category.
func (d DType) Category() Category {
	if !d.Valid() {
		return CatBits
	}
	return dtypeTable[d].cat
}

// IsFloat reports whether d is a real floating dtype.
func (d DType) IsFloat() bool { return d.Category() == CatFloat }

// IsComplex reports whether d is complex.
func (d DType) IsComplex() bool { return d.Category() == CatComplex }

// IsInt reports whether d is an integer dtype (bool excluded).
func (d DType) IsInt() bool { return d.Category() == CatInt }

// IsSigned reports whether d can hold negative values.
func (d DType) IsSigned() bool { return d.Valid() && dtypeTable[d].signed }

// IsReducedFloat reports whether d is computed in float32 "opmath" by PyTorch
// pointwise kernels (bf16, f16 and the float8 family).
func (d DType) IsReducedFloat() bool {
	return d.IsFloat() && d.ItemSize() < 4
}

// complexPairs pairs each complex dtype with the real dtype of its halves
// (what view_as_real exposes and view_as_complex consumes).
var complexPairs = [...]struct{ complex, component DType }{{C32, F16}, {C64, F32}, {C128, F64}}

// ComplexComponent is the real dtype of a complex dtype's halves (c64 → f32);
// Invalid for a dtype that is not complex.
func (d DType) ComplexComponent() DType {
	for _, p := range complexPairs {
		if p.complex == d {
			return p.component
		}
	}
	return Invalid
}

// ComplexOf is the complex dtype whose halves are d (f32 → c64); Invalid
// for a dtype that is not f16, f32 or f64.
func (d DType) ComplexOf() DType {
	for _, p := range complexPairs {
		if p.component == d {
			return p.complex
		}
	}
	return Invalid
}
