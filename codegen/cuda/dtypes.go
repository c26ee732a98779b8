package cuda

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// reg is the register class a dtype's values live in (lowering's
// RegisterKind, shared with the Go backend).
type reg = lowering.RegKind

const (
	regFloat  = lowering.RegF32
	regDouble = lowering.RegF64
	regInt    = lowering.RegI64
	regBool   = lowering.RegBool
)

// cType is the C type of a register: float for f32 and the reduced floats
// (exactly representable), double for f64, long long for every integer
// type (wrapped to width after each op), bool.
func cType(r reg) string { return [...]string{"float", "double", "long long", "bool"}[r] }

// dtInfo is how generated code holds a dtype: its C storage type, its
// register, and the suffix of its k_ld_/k_st_/k_rnd_ prelude functions.
type dtInfo struct {
	storage string
	reg     reg
	suffix  string
}

var dtInfos = withRegs(map[ir.DType]dtInfo{
	ir.Bool:       {storage: "unsigned char", suffix: "b8"},
	ir.U8:         {storage: "unsigned char", suffix: "u8"},
	ir.I8:         {storage: "signed char", suffix: "i8"},
	ir.U16:        {storage: "unsigned short", suffix: "u16"},
	ir.I16:        {storage: "short", suffix: "i16"},
	ir.U32:        {storage: "unsigned int", suffix: "u32"},
	ir.I32:        {storage: "int", suffix: "i32"},
	ir.I64:        {storage: "long long", suffix: "i64"},
	ir.U64:        {storage: "unsigned long long", suffix: "u64"},
	ir.F32:        {storage: "float", suffix: "f32"},
	ir.F64:        {storage: "double", suffix: "f64"},
	ir.BF16:       {storage: "unsigned short", suffix: "bf16"},
	ir.F16:        {storage: "unsigned short", suffix: "f16"},
	ir.F8E4M3FN:   {storage: "unsigned char", suffix: "f8e4m3fn"},
	ir.F8E5M2:     {storage: "unsigned char", suffix: "f8e5m2"},
	ir.F8E4M3FNUZ: {storage: "unsigned char", suffix: "f8e4m3fnuz"},
	ir.F8E5M2FNUZ: {storage: "unsigned char", suffix: "f8e5m2fnuz"},
	ir.F8E8M0FNU:  {storage: "unsigned char", suffix: "f8e8m0fnu"},
})

// withRegs fills each dtype's register from lowering.RegisterKind; a
// dtype listed here without one is a bug in the tables, caught at start.
func withRegs(m map[ir.DType]dtInfo) map[ir.DType]dtInfo {
	for dt, d := range m {
		r, ok := lowering.RegisterKind(dt)
		if !ok {
			panic(fmt.Sprintf("cuda: dtype %s has no register kind", dt.Abbr()))
		}
		d.reg = r
		m[dt] = d
	}
	return m
}

// info looks a dtype up; complex and packed/bit-container dtypes have no
// scalar arithmetic in kiln's CUDA backend.
func info(dt ir.DType) (dtInfo, error) {
	d, ok := dtInfos[dt]
	if !ok {
		return dtInfo{}, fmt.Errorf("dtype %s is not supported by the CUDA backend", dt.Abbr())
	}
	return d, nil
}

// storageOf is the C storage type of a dtype that may be a raw container
// (buffers of any dtype can be passed and copied as bytes).
func storageOf(dt ir.DType) string {
	if d, ok := dtInfos[dt]; ok {
		return d.storage
	}
	switch dt.ItemSize() {
	case 1:
		return "unsigned char"
	case 2:
		return "unsigned short"
	case 4:
		return "unsigned int"
	}
	return "unsigned long long"
}

// castExpr converts C expression x from register of dtype from to dtype
// to, rounding and wrapping as PyTorch does (interp's conversions).
func castExpr(x string, from, to ir.DType) (string, error) {
	fi, err := info(from)
	if err != nil {
		return "", err
	}
	ti, err := info(to)
	if err != nil {
		return "", err
	}
	var conv string
	switch {
	case ti.reg == regBool:
		if fi.reg == regBool {
			return x, nil
		}
		return fmt.Sprintf("(%s != 0)", x), nil
	case fi.reg == regBool:
		conv = fmt.Sprintf("(%s)(%s ? 1 : 0)", cType(ti.reg), x)
	case ti.reg == regInt && (fi.reg == regFloat || fi.reg == regDouble):
		f2i := "k_f2i32"
		if to == ir.I64 || to == ir.U64 || to == ir.U32 {
			f2i = "k_f2i64"
		}
		conv = fmt.Sprintf("%s((double)%s)", f2i, x)
	case ti.reg == fi.reg:
		conv = x
	default:
		conv = fmt.Sprintf("(%s)%s", cType(ti.reg), x)
	}
	if from == to {
		return conv, nil
	}
	return roundExpr(conv, to), nil
}

// roundExpr rounds or wraps a register value into dt (identity for f32,
// f64, i64 and bool).
func roundExpr(x string, dt ir.DType) string {
	switch dt {
	case ir.F32, ir.F64, ir.I64, ir.U64, ir.Bool:
		return x
	}
	return fmt.Sprintf("k_rnd_%s(%s)", dtInfos[dt].suffix, x)
}

// constExpr is a constant of dtype dt as a C register expression; floats
// keep every bit (infinities and NaN through their bit patterns).
func constExpr(s lowering.Scalar, dt ir.DType) (string, error) {
	d, err := info(dt)
	if err != nil {
		return "", err
	}
	switch d.reg {
	case regBool:
		if s.Bool {
			return "true", nil
		}
		return "false", nil
	case regInt:
		return intLit(s.Int), nil
	case regFloat:
		f := float32(s.Float)
		if math.IsInf(float64(f), 0) || f != f {
			return fmt.Sprintf("k_bits_f32(0x%08Xu)", math.Float32bits(f)), nil
		}
		return roundExpr(withPoint(strconv.FormatFloat(float64(f), 'g', -1, 32))+"f", dt), nil
	default:
		if math.IsInf(s.Float, 0) || s.Float != s.Float {
			return fmt.Sprintf("k_bits_f64(0x%016XULL)", math.Float64bits(s.Float)), nil
		}
		return withPoint(strconv.FormatFloat(s.Float, 'g', -1, 64)), nil
	}
}

// withPoint makes a decimal integer spelling a floating literal.
func withPoint(s string) string {
	if strings.ContainsAny(s, ".e") {
		return s
	}
	return s + ".0"
}

// intLit is a long long literal; the most negative value has no literal.
func intLit(v int64) string {
	if v == math.MinInt64 {
		return "(-9223372036854775807LL - 1)"
	}
	return strconv.FormatInt(v, 10) + "LL"
}

// npyDescr is the .npy descr of a dtype as interp writes it: numpy's own
// name, or for dtypes numpy cannot name (bf16, the float8 family) an
// unsigned container of the same size holding the bits.
func npyDescr(dt ir.DType) string {
	switch dt {
	case ir.Bool:
		return "|b1"
	case ir.F16:
		return "<f2"
	case ir.F32:
		return "<f4"
	case ir.F64:
		return "<f8"
	case ir.C64:
		return "<c8"
	case ir.C128:
		return "<c16"
	}
	sz := dt.ItemSize()
	kind := "u"
	if dt.IsInt() && dt.IsSigned() {
		kind = "i"
	}
	order := "<"
	if sz == 1 {
		order = "|"
	}
	if sz > 8 {
		sz = 8
	}
	return fmt.Sprintf("%s%s%d", order, kind, sz)
}
