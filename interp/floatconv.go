package interp

import (
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/rt"
)

// Exact conversions between float32 and the reduced float formats, after
// c10/util/BFloat16.h (round_to_nearest_even), c10/util/Half.h
// (fp16_ieee_from_fp32_value) and c10/util/Float8_*.h. PyTorch converts to
// every reduced format from float32 (a double is first rounded to float), so
// these take a float32; rounding is to nearest, ties to even. The
// arithmetic is the Go runtime's (codegen/golang/rt), so that interp and
// generated code round alike; e8m0 (below) is interp's alone, as the Go
// backend has no e8m0 arithmetic.

// BF16FromF32 rounds f to bfloat16 bits. NaN becomes 0x7FC0, as in c10.
func BF16FromF32(f float32) uint16 { return rt.BF16FromF32(f) }

// F32FromBF16 widens bfloat16 bits to float32 (exact).
func F32FromBF16(h uint16) float32 { return rt.F32FromBF16(h) }

// F16FromF32 rounds f to IEEE half bits: subnormals kept, overflow to
// infinity, NaN to the quiet NaN 0x7E00 with f's sign.
func F16FromF32(f float32) uint16 { return rt.F16FromF32(f) }

// F32FromF16 widens IEEE half bits to float32 (exact; a NaN keeps its
// payload, as c10's fp16_ieee_to_fp32_value does).
func F32FromF16(h uint16) float32 { return rt.F32FromF16(h) }

// minifloat is a sign-exponent-mantissa format of at most 16 bits: its
// conversions to and from float32, widened to the codes and float64 that
// interp's storage accessors use.
type minifloat struct {
	enc func(float32) uint32
	dec func(uint32) float32
}

func codec[B uint8 | uint16](enc func(float32) B, dec func(B) float32) minifloat {
	return minifloat{
		enc: func(f float32) uint32 { return uint32(enc(f)) },
		dec: func(c uint32) float32 { return dec(B(c)) },
	}
}

// encode rounds f to the nearest code, ties to even.
func (m minifloat) encode(f float32) uint32 { return m.enc(f) }

// decode widens a code (exact).
func (m minifloat) decode(code uint32) float64 { return float64(m.dec(code)) }

var (
	half      = codec(rt.F16FromF32, rt.F32FromF16)
	e5m2      = codec(rt.E5M2FromF32, rt.F32FromE5M2)
	e4m3fn    = codec(rt.E4M3FNFromF32, rt.F32FromE4M3FN)
	e4m3fnuz  = codec(rt.E4M3FNUZFromF32, rt.F32FromE4M3FNUZ)
	e5m2fnuz  = codec(rt.E5M2FNUZFromF32, rt.F32FromE5M2FNUZ)
	miniOfDTy = map[ir.DType]minifloat{ir.F16: half, ir.F8E5M2: e5m2, ir.F8E4M3FN: e4m3fn,
		ir.F8E4M3FNUZ: e4m3fnuz, ir.F8E5M2FNUZ: e5m2fnuz}
)

// E8M0FromF32 is fp8e8m0fnu_from_fp32_value: the float32 exponent rounded
// by the mantissa (ties to even), sign ignored; NaN and ±inf give 0xFF.
func E8M0FromF32(f float32) uint8 {
	bits := math.Float32bits(f)
	exp := (bits >> 23) & 0xFF
	if exp == 0xFF {
		return 0xFF
	}
	g := bits&0x400000 != 0
	r := bits&0x200000 != 0
	s := bits&0x1FFFFF != 0
	lsb := exp > 0
	if g && (r || s || lsb) {
		exp++
	}
	return uint8(exp)
}

// F32FromE8M0 widens e8m0fnu bits: 0 is 2^-127, 0xFF is NaN.
func F32FromE8M0(b uint8) float32 {
	switch b {
	case 0:
		return math.Float32frombits(0x00400000)
	case 0xFF:
		return math.Float32frombits(0x7F800001)
	}
	return math.Float32frombits(uint32(b) << 23)
}

// F4E2M1 values by code (sign in bit 3), for the packed float4_e2m1fn_x2
// format; kiln reads it only as raw bytes.
var f4e2m1Values = [8]float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}

// roundTo rounds a float64 result as PyTorch stores it into dt: float32
// first (PyTorch converts doubles to reduced formats through float), then
// the reduced format. Non-float dtypes return v unchanged.
func roundTo(dt ir.DType, v float64) float64 {
	switch dt {
	case ir.F64:
		return v
	case ir.F32:
		return float64(float32(v))
	case ir.BF16:
		return float64(F32FromBF16(BF16FromF32(float32(v))))
	case ir.F8E8M0FNU:
		return float64(F32FromE8M0(E8M0FromF32(float32(v))))
	}
	if m, ok := miniOfDTy[dt]; ok {
		return m.decode(m.encode(float32(v)))
	}
	return v
}
