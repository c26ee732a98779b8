package golang

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// regClass is the register a dtype's values live in (lowering.RegisterKind,
// shared with the CUDA backend): float32 for f32 and the reduced floats
// (exact), float64, int64 for every integer type (wrapped to width after
// each op), bool.
type regClass = lowering.RegKind

const (
	regF32  = lowering.RegF32
	regF64  = lowering.RegF64
	regI64  = lowering.RegI64
	regBool = lowering.RegBool
)

// goType is the register's Go type.
func goType(r regClass) string { return [...]string{"float32", "float64", "int64", "bool"}[r] }

// dtInfo is how generated code holds, loads, stores and rounds a dtype.
// Templates take the value as %s.
type dtInfo struct {
	reg   regClass
	view  string // rt function giving the buffer's typed slice
	load  string // element → register
	store string // register → element
	round string // register → register rounded/wrapped into the dtype
	enc   string // register → uint64 bits (bitcast)
	dec   string // uint64 bits → register (bitcast)
	width int    // integer width in bits (shifts)
}

func intInfo(view, elem string, width int, wrap string) dtInfo {
	return dtInfo{reg: regI64, view: view, load: "int64(%s)", store: elem + "(%s)", round: wrap,
		enc: "uint64(%s)", dec: "int64(" + elem + "(%s))", width: width}
}

func halfInfo(view, from, to, round, elem string) dtInfo {
	return dtInfo{reg: regF32, view: view, load: from + "(%s)", store: to + "(%s)", round: round + "(%s)",
		enc: "uint64(" + to + "(%s))", dec: from + "(" + elem + "(%s))"}
}

var dtInfos = map[ir.DType]dtInfo{
	ir.Bool: {reg: regBool, view: "rt.U8s", load: "(%s != 0)", store: "rt.B2U8(%s)", round: "%s",
		enc: "uint64(rt.B2U8(%s))", dec: "(uint8(%s) != 0)", width: 8},
	ir.U8:  intInfo("rt.U8s", "uint8", 8, "int64(uint8(%s))"),
	ir.I8:  intInfo("rt.I8s", "int8", 8, "int64(int8(%s))"),
	ir.U16: intInfo("rt.U16s", "uint16", 16, "int64(uint16(%s))"),
	ir.I16: intInfo("rt.I16s", "int16", 16, "int64(int16(%s))"),
	ir.U32: intInfo("rt.U32s", "uint32", 32, "int64(uint32(%s))"),
	ir.I32: intInfo("rt.I32s", "int32", 32, "int64(int32(%s))"),
	ir.I64: {reg: regI64, view: "rt.I64s", load: "%s", store: "%s", round: "%s", enc: "uint64(%s)", dec: "int64(%s)", width: 64},
	ir.U64: intInfo("rt.U64s", "uint64", 64, "%s"),
	ir.F32: {reg: regF32, view: "rt.F32s", load: "%s", store: "%s", round: "%s",
		enc: "uint64(rt.Float32bits(%s))", dec: "rt.Float32frombits(uint32(%s))"},
	ir.F64: {reg: regF64, view: "rt.F64s", load: "%s", store: "%s", round: "%s",
		enc: "rt.Float64bits(%s)", dec: "rt.Float64frombits(%s)"},
	ir.BF16:       halfInfo("rt.U16s", "rt.F32FromBF16", "rt.BF16FromF32", "rt.RoundBF16", "uint16"),
	ir.F16:        halfInfo("rt.U16s", "rt.F32FromF16", "rt.F16FromF32", "rt.RoundF16", "uint16"),
	ir.F8E4M3FN:   halfInfo("rt.U8s", "rt.F32FromE4M3FN", "rt.E4M3FNFromF32", "rt.RoundE4M3FN", "uint8"),
	ir.F8E5M2:     halfInfo("rt.U8s", "rt.F32FromE5M2", "rt.E5M2FromF32", "rt.RoundE5M2", "uint8"),
	ir.F8E4M3FNUZ: halfInfo("rt.U8s", "rt.F32FromE4M3FNUZ", "rt.E4M3FNUZFromF32", "rt.RoundE4M3FNUZ", "uint8"),
	ir.F8E5M2FNUZ: halfInfo("rt.U8s", "rt.F32FromE5M2FNUZ", "rt.E5M2FNUZFromF32", "rt.RoundE5M2FNUZ", "uint8"),
}

// info looks a dtype up; the Go backend has no complex or bit-container
// arithmetic.
func info(dt ir.DType) (dtInfo, error) {
	d, ok := dtInfos[dt]
	if !ok {
		return dtInfo{}, fmt.Errorf("dtype %s is not supported by the Go backend", dt.Abbr())
	}
	return d, nil
}

// castExpr converts register value v of dtype from to dtype to, with
// PyTorch's rounding (floats through float32 for the reduced formats),
// truncation (float → int, x86's integer indefinite for NaN and overflow)
// and wrapping (int → narrower int).
func castExpr(v string, from, to ir.DType) (string, error) {
	fi, err := info(from)
	if err != nil {
		return "", err
	}
	ti, err := info(to)
	if err != nil {
		return "", err
	}
	if from == to {
		return v, nil
	}
	switch {
	case ti.reg == regBool && fi.reg == regBool:
		return v, nil
	case ti.reg == regBool:
		return "(" + v + " != 0)", nil
	case fi.reg == regBool:
		one := map[regClass]string{regF32: "rt.B2F32(%s)", regF64: "rt.B2F(%s)", regI64: "rt.B2I(%s)"}[ti.reg]
		return fmt.Sprintf(one, v), nil
	case ti.reg == regI64 && fi.reg == regI64:
		return fmt.Sprintf(ti.round, v), nil
	case ti.reg == regI64:
		conv := "rt.F2I32(float64(%s))"
		if to == ir.I64 || to == ir.U64 || to == ir.U32 {
			conv = "rt.F2I64(float64(%s))"
		}
		return fmt.Sprintf(ti.round, fmt.Sprintf(conv, v)), nil
	case ti.reg == regF64:
		return "float64(" + v + ")", nil
	case fi.reg == regF32: // f32-class to f32-class
		return fmt.Sprintf(ti.round, v), nil
	}
	return fmt.Sprintf(ti.round, "float32("+v+")"), nil // f64 or int to f32-class
}

// bitcastExpr reinterprets v's bits (same item size).
func bitcastExpr(v string, from, to ir.DType) (string, error) {
	if from.ItemSize() != to.ItemSize() {
		return "", fmt.Errorf("bitcast %s to %s: sizes differ", from.Abbr(), to.Abbr())
	}
	fi, err := info(from)
	if err != nil {
		return "", err
	}
	ti, err := info(to)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(ti.dec, fmt.Sprintf(fi.enc, v)), nil
}
