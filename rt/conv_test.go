package rt_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	. "github.com/kiln-compiler/kiln/rt"
	"github.com/stretchr/testify/require"
)

// The reduced-float conversions against oracles written here from the
// format definitions, not against interp (which calls this package).
//
// Formats: bfloat16 is the top half of an IEEE binary32; half is IEEE
// binary16; the f8 formats are those of "FP8 Formats for Deep Learning"
// (Micikevicius et al., 2022; the OCP 8-bit Floating Point spec: e4m3fn
// has no inf and NaN only at S.1111.111, e5m2 is IEEE-like) and of "8-bit
// Numerical Formats for Deep Neural Networks" (Noune et al., 2022: the fnuz
// formats, bias one larger, 0x80 the only NaN, no negative zero), as c10
// implements them (c10/util/BFloat16.h, Half.h, Float8_e4m3fn.h,
// Float8_e5m2.h, Float8_e4m3fnuz.h, Float8_e5m2fnuz.h).

type fkind int

const (
	ieee fkind = iota // all-ones exponent: inf (mantissa 0) or NaN
	fn                // no inf; S.1111.111 is NaN; overflow is NaN
	fnuz              // no inf, no -0; 0x80 is the only NaN; overflow is NaN
)

// format is a sign/exponent/mantissa format and the runtime's conversions
// for it (widened to uint32 codes).
type format struct {
	name         string
	dt           ir.DType
	ebits, mbits int
	bias         int
	kind         fkind
	nanCode      func(sign uint32) uint32 // c10's code for a NaN input
	encode       func(float32) uint32     // under test
	decode       func(uint32) float32     // under test
	round        func(float32) float32    // under test
}

func (f *format) signBit() uint32 { return 1 << (f.ebits + f.mbits) }

// value decodes code from the definition: (-1)^s · 2^(e-bias) · 1.m for
// normals, 2^(1-bias) · 0.m for subnormals.
func (f *format) value(code uint32) float64 {
	sign := code & f.signBit()
	mag := code &^ sign
	exp := int(mag >> f.mbits)
	mant := int64(mag & (1<<f.mbits - 1))
	allOnes := exp == 1<<f.ebits-1
	switch {
	case f.kind == fnuz && code == f.signBit():
		return math.NaN()
	case f.kind == fn && allOnes && mant == 1<<f.mbits-1:
		return math.NaN()
	case f.kind == ieee && allOnes && mant != 0:
		return math.NaN()
	}
	var v float64
	switch {
	case f.kind == ieee && allOnes:
		v = math.Inf(1)
	case exp == 0:
		v = math.Ldexp(float64(mant), 1-f.bias-f.mbits)
	default:
		v = math.Ldexp(float64(mant|1<<f.mbits), exp-f.bias-f.mbits)
	}
	if sign != 0 {
		return -v
	}
	return v
}

// overflowCode is c10's result for a magnitude past the largest finite
// value: ±inf (bf16, half, e5m2), S.1111.111 = NaN (e4m3fn: c10 does not
// saturate), 0x80 = NaN (fnuz).
func (f *format) overflowCode(sign uint32) uint32 {
	switch f.kind {
	case fn:
		return sign | (f.signBit() - 1)
	case fnuz:
		return f.signBit()
	}
	return sign | uint32(1<<f.ebits-1)<<f.mbits
}

var formats = []*format{
	{name: "bf16", dt: ir.BF16, ebits: 8, mbits: 7, bias: 127, kind: ieee,
		nanCode: func(uint32) uint32 { return 0x7FC0 }, // c10: NaN → 0x7FC0, sign dropped
		encode:  func(x float32) uint32 { return uint32(BF16FromF32(x)) },
		decode:  func(c uint32) float32 { return F32FromBF16(uint16(c)) }, round: RoundBF16},
	{name: "f16", dt: ir.F16, ebits: 5, mbits: 10, bias: 15, kind: ieee,
		nanCode: func(s uint32) uint32 { return s | 0x7E00 },
		encode:  func(x float32) uint32 { return uint32(F16FromF32(x)) },
		decode:  func(c uint32) float32 { return F32FromF16(uint16(c)) }, round: RoundF16},
	{name: "e4m3fn", dt: ir.F8E4M3FN, ebits: 4, mbits: 3, bias: 7, kind: fn,
		nanCode: func(s uint32) uint32 { return s | 0x7F },
		encode:  func(x float32) uint32 { return uint32(E4M3FNFromF32(x)) },
		decode:  func(c uint32) float32 { return F32FromE4M3FN(uint8(c)) }, round: RoundE4M3FN},
	{name: "e5m2", dt: ir.F8E5M2, ebits: 5, mbits: 2, bias: 15, kind: ieee,
		nanCode: func(s uint32) uint32 { return s | 0x7F },
		encode:  func(x float32) uint32 { return uint32(E5M2FromF32(x)) },
		decode:  func(c uint32) float32 { return F32FromE5M2(uint8(c)) }, round: RoundE5M2},
	{name: "e4m3fnuz", dt: ir.F8E4M3FNUZ, ebits: 4, mbits: 3, bias: 8, kind: fnuz,
		nanCode: func(uint32) uint32 { return 0x80 },
		encode:  func(x float32) uint32 { return uint32(E4M3FNUZFromF32(x)) },
		decode:  func(c uint32) float32 { return F32FromE4M3FNUZ(uint8(c)) }, round: RoundE4M3FNUZ},
	{name: "e5m2fnuz", dt: ir.F8E5M2FNUZ, ebits: 5, mbits: 2, bias: 16, kind: fnuz,
		nanCode: func(uint32) uint32 { return 0x80 },
		encode:  func(x float32) uint32 { return uint32(E5M2FNUZFromF32(x)) },
		decode:  func(c uint32) float32 { return F32FromE5M2FNUZ(uint8(c)) }, round: RoundE5M2FNUZ},
}

// sameFloat is bit equality, except that any NaN equals any NaN (the
// payload of a widened f8 NaN is not part of the contract).
func sameFloat(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

// Hand-derived facts that pin the test's decoder to the formats: largest
// finite value, smallest subnormal, and how many NaN and inf codes exist.
func TestFormatDecoderFacts(t *testing.T) {
	facts := map[string]struct {
		max, minSub float64
		nans, infs  int
	}{
		"bf16":     {0x1.FEp127, 0x1p-133, 254, 2},
		"f16":      {65504, 0x1p-24, 2046, 2},
		"e4m3fn":   {448, 0x1p-9, 2, 0},
		"e5m2":     {57344, 0x1p-16, 6, 2},
		"e4m3fnuz": {240, 0x1p-10, 1, 0},
		"e5m2fnuz": {57344, 0x1p-17, 1, 0},
	}
	for _, f := range formats {
		want := facts[f.name]
		var nans, infs int
		for c := uint32(0); c < f.signBit()<<1; c++ {
			v := f.value(c)
			nans += int(b2i(v != v))
			infs += int(b2i(math.IsInf(v, 0)))
		}
		tab := finiteTable(f)
		require.Equal(t, want.max, tab.vals[len(tab.vals)-1], f.name)
		require.Equal(t, want.minSub, tab.vals[1], f.name)
		require.Equal(t, want.nans, nans, f.name)
		require.Equal(t, want.infs, infs, f.name)
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// TestDecodeExhaustive checks every code of every format against the
// definition; bf16 is bits<<16 exactly; half keeps a NaN's payload, quiet,
// as c10's fp16_ieee_to_fp32_value does (it widens through a float
// multiply, which sets the quiet bit): sign | 0x7FC00000 | mantissa<<13.
func TestDecodeExhaustive(t *testing.T) {
	for _, f := range formats {
		for c := uint32(0); c < f.signBit()<<1; c++ {
			got := f.decode(c)
			switch f.name {
			case "bf16":
				require.Equal(t, c<<16, math.Float32bits(got), "bf16 %#04x", c)
				continue
			case "f16":
				if v := f.value(c); v != v {
					want := (c&0x8000)<<16 | 0x7FC00000 | (c&0x3FF)<<13
					require.Equal(t, want, math.Float32bits(got), "f16 NaN %#04x", c)
					continue
				}
			}
			require.True(t, sameFloat(float32(f.value(c)), got), "%s decode %#x: want %v, got %v", f.name, c, f.value(c), got)
		}
	}
}

// table is a format's non-negative finite values in increasing order with
// their codes, for rounding by search.
type table struct {
	vals  []float64
	codes []uint32
}

func finiteTable(f *format) table {
	var tab table
	for c := uint32(0); c < f.signBit(); c++ {
		if v := f.value(c); !math.IsNaN(v) && !math.IsInf(v, 0) {
			tab.vals, tab.codes = append(tab.vals, v), append(tab.codes, c)
		}
	}
	sort.Sort(byValue(tab))
	return tab
}

type byValue table

func (b byValue) Len() int           { return len(b.vals) }
func (b byValue) Less(i, j int) bool { return b.vals[i] < b.vals[j] }
func (b byValue) Swap(i, j int) {
	b.vals[i], b.vals[j] = b.vals[j], b.vals[i]
	b.codes[i], b.codes[j] = b.codes[j], b.codes[i]
}

// encodeOracle rounds x to f by brute force: the nearest finite value of
// the table, a tie going to the even code. Past the largest value the
// format continues (one ulp above, the code after the largest's): rounding
// there is c10's overflow rule.
func encodeOracle(f *format, tab table, x float32) uint32 {
	var sign uint32
	if math.Signbit(float64(x)) {
		sign = f.signBit()
	}
	if x != x {
		return f.nanCode(sign)
	}
	a := math.Abs(float64(x))
	n := len(tab.vals)
	i := sort.SearchFloat64s(tab.vals, a) // first value ≥ a
	if i < n && tab.vals[i] == a {
		return signed(f, sign, tab.codes[i])
	}
	lo, loCode := tab.vals[i-1], tab.codes[i-1]
	hi, hiCode, over := 0.0, uint32(0), i == n
	if over {
		hi, hiCode = tab.vals[n-1]+(tab.vals[n-1]-tab.vals[n-2]), tab.codes[n-1]+1
	} else {
		hi, hiCode = tab.vals[i], tab.codes[i]
	}
	if a >= hi && over {
		return f.overflowCode(sign)
	}
	pickHi := a-lo > hi-a || (a-lo == hi-a && hiCode%2 == 0)
	switch {
	case !pickHi:
		return signed(f, sign, loCode)
	case over:
		return f.overflowCode(sign)
	}
	return signed(f, sign, hiCode)
}

// signed attaches the sign, except that fnuz has no negative zero.
func signed(f *format, sign, mag uint32) uint32 {
	if f.kind == fnuz && mag == 0 {
		return 0
	}
	return sign | mag
}

// probeFloats are float32 values that exercise rounding in every format:
// every 16-bit pattern widened (as bf16 and as half), each ± half a bf16
// step around it (ties), near-ties of half, their float32 neighbours, and
// random bit patterns. Halves are widened by the test's own decoder.
func probeFloats() []float32 {
	var out []float32
	add := func(f float32) {
		out = append(out, f, math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, float32(math.Inf(-1))))
	}
	half := formats[1]
	for h := 0; h < 1<<16; h++ {
		add(math.Float32frombits(uint32(h) << 16))
		add(math.Float32frombits(uint32(h)<<16 | 0x8000)) // bf16 tie
		f := float32(half.value(uint32(h)))
		add(f)
		add(f * (1 + 1.0/2048)) // near an f16 tie
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 18 {
		out = append(out, math.Float32frombits(rng.Uint32()))
	}
	return out
}

// f8Ties are the exact midpoints between neighbouring f8 values (and past
// the largest), the f8 analogue of the bf16 tie probes.
func f8Ties() []float32 {
	var out []float32
	for _, f := range formats[2:] {
		tab := finiteTable(f)
		v := append(tab.vals, 2*tab.vals[len(tab.vals)-1]-tab.vals[len(tab.vals)-2])
		for i := 1; i < len(v); i++ {
			m := float32((v[i-1] + v[i]) / 2)
			out = append(out, m, -m, math.Nextafter32(m, 0), math.Nextafter32(m, float32(math.Inf(1))))
		}
	}
	return out
}

func TestEncodeAgainstOracle(t *testing.T) {
	probes := append(probeFloats(), f8Ties()...)
	for _, f := range formats {
		tab := finiteTable(f)
		for _, x := range probes {
			want := encodeOracle(f, tab, x)
			require.Equal(t, want, f.encode(x), "%s encode %g (%#08x)", f.name, x, math.Float32bits(x))
			require.True(t, sameFloat(float32(f.value(want)), f.round(x)), "%s round %g", f.name, x)
		}
	}
}

// TestInterpStorageUsesFormats checks that interp's tensor storage of each
// reduced dtype reads and writes through the right format (a wiring check;
// the conversions themselves are tested above).
func TestInterpStorageUsesFormats(t *testing.T) {
	probes := probeFloats()
	for _, f := range formats {
		tab := finiteTable(f)
		width := int64(f.dt.ItemSize())
		x := interp.MustEmpty(f.dt, 1)
		for c := uint32(0); c < f.signBit()<<1; c++ {
			putCode(x.Storage.Data, width, c)
			require.True(t, sameFloat(float32(f.value(c)), float32(x.Floats()[0])), "%s storage decode %#x", f.name, c)
		}
		for i := 0; i < len(probes); i += 97 {
			y := interp.FromFloats(f.dt, []int64{1}, []float64{float64(probes[i])})
			require.Equal(t, encodeOracle(f, tab, probes[i]), getCode(y.Storage.Data, width), "%s storage encode %g", f.name, probes[i])
		}
	}
}

func putCode(b []byte, width int64, c uint32) {
	if width == 1 {
		b[0] = byte(c)
		return
	}
	binary.LittleEndian.PutUint16(b, uint16(c))
}

func getCode(b []byte, width int64) uint32 {
	if width == 1 {
		return uint32(b[0])
	}
	return uint32(binary.LittleEndian.Uint16(b))
}
