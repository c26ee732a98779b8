package rt

import "math"

// Exact conversions between float32 and the reduced float formats (c10's
// BFloat16.h, Half.h, Float8_*.h): round to nearest, ties to even; NaN and
// infinities kept where the format has them; subnormals kept. Generated code
// holds reduced-float values in float32 registers, where they are exact.

// BF16FromF32 rounds f to bfloat16 bits; NaN becomes 0x7FC0, as in c10.
func BF16FromF32(f float32) uint16 {
	if f != f {
		return 0x7FC0
	}
	u := math.Float32bits(f)
	return uint16((u + (u>>16)&1 + 0x7FFF) >> 16)
}

// F32FromBF16 widens bfloat16 bits (exact).
func F32FromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// RoundBF16 rounds f to the nearest bfloat16 value, kept as a float32.
func RoundBF16(f float32) float32 { return F32FromBF16(BF16FromF32(f)) }

// F16FromF32 is c10's fp16_ieee_from_fp32_value: subnormals kept,
// overflow to infinity, NaN to 0x7E00 with f's sign.
func F16FromF32(f float32) uint16 {
	const scaleToInf = 0x1.0p+112
	const scaleToZero = 0x1.0p-110
	w := math.Float32bits(f)
	base := math.Float32frombits(w&0x7FFFFFFF) * scaleToInf * scaleToZero
	shl1 := w + w
	sign := w & 0x80000000
	bias := shl1 & 0xFF000000
	if bias < 0x71000000 {
		bias = 0x71000000
	}
	base += math.Float32frombits(bias>>1 + 0x07800000)
	bits := math.Float32bits(base)
	nonsign := (bits>>13)&0x7C00 + bits&0x0FFF
	if shl1 > 0xFF000000 {
		nonsign = 0x7E00
	}
	return uint16(sign>>16 | nonsign)
}

// F32FromF16 is c10's fp16_ieee_to_fp32_value (exact).
func F32FromF16(h uint16) float32 {
	w := uint32(h) << 16
	sign := w & 0x80000000
	two := w + w
	if two < 1<<27 { // zero or subnormal
		return math.Float32frombits(sign | math.Float32bits(math.Float32frombits(two>>17|126<<23)-0.5))
	}
	return math.Float32frombits(sign | math.Float32bits(math.Float32frombits(two>>4+0xE0<<23)*0x1.0p-112))
}

// RoundF16 rounds f to the nearest half value, kept as a float32.
func RoundF16(f float32) float32 { return F32FromF16(F16FromF32(f)) }

// f8 is an 8-bit float format: its parameters and a decode table.
type f8 struct {
	ebits, mbits uint
	bias         int
	kind         uint8 // f8IEEE, f8FN or f8FNUZ
	table        [256]float32
}

const (
	f8IEEE = iota // all-ones exponent holds inf and NaN (e5m2)
	f8FN          // no inf; only S.1111.111 is NaN; overflow is NaN (e4m3fn)
	f8FNUZ        // no inf, no -0; 0x80 is the only NaN; overflow is NaN
)

var (
	e4m3fn   = newF8(4, 3, 7, f8FN)
	e5m2     = newF8(5, 2, 15, f8IEEE)
	e4m3fnuz = newF8(4, 3, 8, f8FNUZ)
	e5m2fnuz = newF8(5, 2, 16, f8FNUZ)
)

func newF8(ebits, mbits uint, bias int, kind uint8) *f8 {
	m := &f8{ebits: ebits, mbits: mbits, bias: bias, kind: kind}
	for c := range m.table {
		m.table[c] = float32(m.decode(uint32(c)))
	}
	return m
}

const f8Sign = 0x80

// nan is the format's NaN code with the given sign bit.
func (m *f8) nan(sign uint32) uint32 {
	switch m.kind {
	case f8FNUZ:
		return f8Sign
	case f8FN:
		return sign | 0x7F
	}
	return sign | 0x7F // e5m2: all-ones exponent, every mantissa bit set (c10)
}

func (m *f8) decode(code uint32) float64 {
	mag := code &^ f8Sign
	switch {
	case m.kind == f8FNUZ && code == f8Sign, m.kind == f8FN && mag == 0x7F:
		return math.NaN()
	}
	exp := int(mag >> m.mbits)
	mant := float64(mag & (1<<m.mbits - 1))
	var v float64
	switch {
	case m.kind == f8IEEE && exp == 1<<m.ebits-1:
		if mant != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	case exp == 0:
		v = math.Ldexp(mant, 1-m.bias-int(m.mbits))
	default:
		v = math.Ldexp(mant+math.Ldexp(1, int(m.mbits)), exp-m.bias-int(m.mbits))
	}
	if code&f8Sign != 0 {
		v = -v
	}
	return v
}

// encode rounds f to the nearest code, ties to even.
func (m *f8) encode(f float32) uint8 {
	x := float64(f)
	var sign uint32
	if math.Signbit(x) {
		sign = f8Sign
	}
	if x != x {
		return uint8(m.nan(sign))
	}
	code := m.magnitude(math.Abs(x))
	switch m.kind {
	case f8IEEE:
		if inf := uint32(1<<m.ebits-1) << m.mbits; code >= inf {
			code = inf
		}
	case f8FN:
		if code >= 0x7F {
			return uint8(m.nan(sign))
		}
	case f8FNUZ:
		if code >= f8Sign {
			return uint8(m.nan(sign))
		}
		if code == 0 {
			return 0
		}
	}
	return uint8(sign | code)
}

// magnitude is the unsigned code nearest a ≥ 0, treating the all-ones
// exponent as ordinary (anything too large gives a code ≥ 0x80).
func (m *f8) magnitude(a float64) uint32 {
	if math.IsInf(a, 1) {
		return f8Sign
	}
	emin := 1 - m.bias
	if a < math.Ldexp(1, emin) {
		return uint32(math.RoundToEven(math.Ldexp(a, int(m.mbits)-emin)))
	}
	_, exp := math.Frexp(a)
	e := exp - 1
	q := math.RoundToEven(math.Ldexp(a, int(m.mbits)-e))
	if q >= math.Ldexp(1, int(m.mbits)+1) {
		q /= 2
		e++
	}
	biased := e + m.bias
	if biased >= 1<<m.ebits {
		return f8Sign
	}
	return uint32(biased)<<m.mbits | (uint32(q) - 1<<m.mbits)
}

// E4M3FNFromF32 rounds f to float8_e4m3fn bits.
func E4M3FNFromF32(f float32) uint8 { return e4m3fn.encode(f) }

// F32FromE4M3FN widens float8_e4m3fn bits (exact).
func F32FromE4M3FN(b uint8) float32 { return e4m3fn.table[b] }

// RoundE4M3FN rounds f to the nearest float8_e4m3fn value.
func RoundE4M3FN(f float32) float32 { return e4m3fn.table[e4m3fn.encode(f)] }

// E5M2FromF32 rounds f to float8_e5m2 bits.
func E5M2FromF32(f float32) uint8 { return e5m2.encode(f) }

// F32FromE5M2 widens float8_e5m2 bits (exact).
func F32FromE5M2(b uint8) float32 { return e5m2.table[b] }

// RoundE5M2 rounds f to the nearest float8_e5m2 value.
func RoundE5M2(f float32) float32 { return e5m2.table[e5m2.encode(f)] }

// E4M3FNUZFromF32 rounds f to float8_e4m3fnuz bits.
func E4M3FNUZFromF32(f float32) uint8 { return e4m3fnuz.encode(f) }

// F32FromE4M3FNUZ widens float8_e4m3fnuz bits (exact).
func F32FromE4M3FNUZ(b uint8) float32 { return e4m3fnuz.table[b] }

// RoundE4M3FNUZ rounds f to the nearest float8_e4m3fnuz value.
func RoundE4M3FNUZ(f float32) float32 { return e4m3fnuz.table[e4m3fnuz.encode(f)] }

// E5M2FNUZFromF32 rounds f to float8_e5m2fnuz bits.
func E5M2FNUZFromF32(f float32) uint8 { return e5m2fnuz.encode(f) }

// F32FromE5M2FNUZ widens float8_e5m2fnuz bits (exact).
func F32FromE5M2FNUZ(b uint8) float32 { return e5m2fnuz.table[b] }

// RoundE5M2FNUZ rounds f to the nearest float8_e5m2fnuz value.
func RoundE5M2FNUZ(f float32) float32 { return e5m2fnuz.table[e5m2fnuz.encode(f)] }
