package interp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/ir"
)

// Expected bit patterns are hand-derived from the IEEE / OCP formats and
// c10's conversion routines (c10/util/BFloat16.h round_to_nearest_even,
// c10/util/Half.h fp16_ieee_from_fp32_value, c10/util/Float8_*.h).

func TestBF16RoundToNearestEven(t *testing.T) {
	cases := []struct {
		in   float32
		bits uint16
	}{
		{1, 0x3F80},
		{1 + 1.0/256, 0x3F80},             // halfway, even neighbour is 1.0
		{1 + 3.0/256, 0x3F82},             // halfway, even neighbour is 1.015625
		{1 + 1.0/256 + 1.0/65536, 0x3F81}, // just above halfway rounds up
		{-2, 0xC000},
		{float32(math.Inf(1)), 0x7F80},
		{float32(math.Inf(-1)), 0xFF80},
		{math.MaxFloat32, 0x7F80},             // rounds past the largest bf16 to inf
		{float32(math.Float32frombits(1)), 0}, // smallest f32 subnormal rounds to +0
		{float32(math.NaN()), 0x7FC0},
	}
	for _, c := range cases {
		assert.Equalf(t, c.bits, BF16FromF32(c.in), "bf16(%g)", c.in)
	}
	assert.Equal(t, float32(1.0078125), F32FromBF16(0x3F81))
}

func TestF16Conversions(t *testing.T) {
	cases := []struct {
		in   float32
		bits uint16
	}{
		{1, 0x3C00},
		{65504, 0x7BFF},                       // largest half
		{65519, 0x7BFF},                       // below the halfway point to 65536
		{65520, 0x7C00},                       // halfway: ties to even = inf
		{float32(math.Ldexp(1, -24)), 0x0001}, // smallest subnormal
		{float32(math.Ldexp(1, -25)), 0x0000}, // half of it: ties to even = 0
		{float32(math.Ldexp(3, -26)), 0x0001}, // 0.75 of it rounds up
		{float32(math.Ldexp(1, -14)), 0x0400}, // smallest normal
		{float32(math.Copysign(0, -1)), 0x8000},
		{float32(math.NaN()), 0x7E00},
		{float32(math.Inf(-1)), 0xFC00},
		{0.1, 0x2E66},
	}
	for _, c := range cases {
		assert.Equalf(t, c.bits, F16FromF32(c.in), "f16(%g)", c.in)
	}
	assert.Equal(t, float32(math.Ldexp(1, -24)), F32FromF16(0x0001))
	assert.True(t, math.IsInf(float64(F32FromF16(0x7C00)), 1))
	assert.True(t, math.IsNaN(float64(F32FromF16(0x7E01))))
	// every half round-trips
	for b := 0; b < 1<<16; b++ {
		f := F32FromF16(uint16(b))
		if f != f {
			continue
		}
		assert.Equal(t, uint16(b), F16FromF32(f))
	}
}

func TestFloat8Conversions(t *testing.T) {
	// e4m3fn: max 448, no inf; values from 464 on become NaN (0x7F).
	assert.Equal(t, uint32(0x7E), e4m3fn.encode(448))
	assert.Equal(t, uint32(0x7E), e4m3fn.encode(464)) // halfway, even is 448
	assert.Equal(t, uint32(0x7F), e4m3fn.encode(470))
	assert.Equal(t, uint32(0x7F), e4m3fn.encode(float32(math.Inf(1))))
	assert.Equal(t, uint32(0xFF), e4m3fn.encode(-1000))
	assert.Equal(t, uint32(0x01), e4m3fn.encode(float32(math.Ldexp(1, -9)))) // smallest subnormal
	assert.Equal(t, 448.0, e4m3fn.decode(0x7E))
	assert.True(t, math.IsNaN(e4m3fn.decode(0x7F)))
	// e5m2: IEEE-like, max 57344, inf from 61440 (halfway, ties to even).
	assert.Equal(t, uint32(0x7B), e5m2.encode(57344))
	assert.Equal(t, uint32(0x7C), e5m2.encode(61440))
	assert.Equal(t, uint32(0x7F), e5m2.encode(float32(math.NaN())))
	// fnuz: 0x80 is the only NaN, no negative zero, bias 8 / 16.
	assert.Equal(t, uint32(0x80), e4m3fnuz.encode(float32(math.NaN())))
	assert.Equal(t, uint32(0x00), e4m3fnuz.encode(float32(math.Copysign(0, -1))))
	assert.Equal(t, uint32(0x40), e4m3fnuz.encode(1))
	assert.Equal(t, uint32(0x7F), e4m3fnuz.encode(240))
	assert.Equal(t, uint32(0x80), e4m3fnuz.encode(300))
	assert.Equal(t, uint32(0x40), e5m2fnuz.encode(1))
	// Overflow and tie edges of each f8 format (c10: e4m3fn NaN from 480,
	// fnuz NaN from one ulp past the max, ties to even at the boundary).
	assert.Equal(t, uint32(0x80), e4m3fn.encode(float32(math.Copysign(0, -1))))
	assert.Equal(t, uint32(0x7F), e4m3fn.encode(480))
	assert.Equal(t, uint32(0x02), e4m3fn.encode(float32(math.Ldexp(3, -10)))) // 1.5 subnormal steps: even is 2
	assert.Equal(t, uint32(0x01), e5m2.encode(float32(math.Ldexp(1, -16))))
	assert.Equal(t, uint32(0x7C), e5m2.encode(65536))
	assert.Equal(t, uint32(0xFC), e5m2.encode(float32(math.Inf(-1))))
	assert.Equal(t, uint32(0xFF), e5m2.encode(float32(math.Copysign(math.NaN(), -1))))
	assert.True(t, math.IsInf(e5m2.decode(0x7C), 1))
	assert.Equal(t, uint32(0x7F), e4m3fnuz.encode(247))
	assert.Equal(t, uint32(0x80), e4m3fnuz.encode(248)) // halfway past 240 (odd code 0x7F): NaN
	assert.Equal(t, uint32(0x00), e4m3fnuz.encode(float32(-math.Ldexp(1, -11))))
	assert.Equal(t, uint32(0x01), e4m3fnuz.encode(float32(math.Ldexp(1, -10))))
	assert.Equal(t, 240.0, e4m3fnuz.decode(0x7F))
	assert.Equal(t, uint32(0x7F), e5m2fnuz.encode(57344))
	assert.Equal(t, uint32(0x80), e5m2fnuz.encode(61440))
	assert.Equal(t, math.Ldexp(1, -17), e5m2fnuz.decode(0x01))
	assert.Equal(t, 57344.0, e5m2fnuz.decode(0x7F))
	// e8m0: exponent only, rounded by the mantissa.
	assert.Equal(t, uint8(127), E8M0FromF32(1))
	assert.Equal(t, uint8(128), E8M0FromF32(1.5)) // guard set, lsb set: up
	assert.Equal(t, uint8(127), E8M0FromF32(1.25))
	assert.Equal(t, uint8(0xFF), E8M0FromF32(float32(math.Inf(1))))
	assert.Equal(t, float32(math.Ldexp(1, -127)), F32FromE8M0(0))
	// every e4m3fn and e5m2 code round-trips
	for _, dt := range []ir.DType{ir.F8E4M3FN, ir.F8E5M2, ir.F8E4M3FNUZ, ir.F8E5M2FNUZ} {
		m := miniOfDTy[dt]
		for b := uint32(0); b < 256; b++ {
			v := m.decode(b)
			if v != v { // fnuz's 0x80 is its NaN
				continue
			}
			assert.Equalf(t, b, m.encode(float32(v)), "%s code %#x", dt.Abbr(), b)
		}
	}
}

func TestRoundToGoesThroughFloat32(t *testing.T) {
	// A double just above the bf16 halfway 1+2^-8 rounds to float32 1+2^-8
	// first, then ties to even: 1.0 (PyTorch converts double -> float -> bf16).
	x := 1 + 1.0/256 + 1e-12
	assert.Equal(t, 1.0, roundTo(ir.BF16, x))
}
