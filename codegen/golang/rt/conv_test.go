package rt_test

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/kiln-compiler/kiln/codegen/golang/rt"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/stretchr/testify/require"
)

// sameFloat is bit equality, except that any NaN equals any NaN (the
// payload of a widened NaN is not part of the contract).
func sameFloat(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

// probeFloats are float32 values that exercise rounding in every format:
// every 16-bit pattern widened, each ± half a bf16/f16/f8 step around it
// (ties), the neighbours of those, and random bit patterns.
func probeFloats() []float32 {
	var out []float32
	add := func(f float32) {
		out = append(out, f, math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, float32(math.Inf(-1))))
	}
	for h := 0; h < 1<<16; h++ {
		add(math.Float32frombits(uint32(h) << 16))
		add(math.Float32frombits(uint32(h)<<16 | 0x8000)) // bf16 tie
		f := interp.F32FromF16(uint16(h))
		add(f)
		add(f * (1 + 1.0/2048)) // near an f16 tie
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 18 {
		out = append(out, math.Float32frombits(rng.Uint32()))
	}
	return out
}

func TestSixteenBitDecodeExhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		require.True(t, sameFloat(interp.F32FromBF16(uint16(h)), F32FromBF16(uint16(h))), "bf16 %#04x", h)
		require.True(t, sameFloat(interp.F32FromF16(uint16(h)), F32FromF16(uint16(h))), "f16 %#04x", h)
	}
}

func TestEncodeAgainstInterp(t *testing.T) {
	f8s := []struct {
		dt     ir.DType
		encode func(float32) uint8
		decode func(uint8) float32
		round  func(float32) float32
	}{
		{ir.F8E4M3FN, E4M3FNFromF32, F32FromE4M3FN, RoundE4M3FN},
		{ir.F8E5M2, E5M2FromF32, F32FromE5M2, RoundE5M2},
		{ir.F8E4M3FNUZ, E4M3FNUZFromF32, F32FromE4M3FNUZ, RoundE4M3FNUZ},
		{ir.F8E5M2FNUZ, E5M2FNUZFromF32, F32FromE5M2FNUZ, RoundE5M2FNUZ},
	}
	probes := probeFloats()
	for _, f := range probes {
		require.Equal(t, interp.BF16FromF32(f), BF16FromF32(f), "bf16 of %g (%#08x)", f, math.Float32bits(f))
		require.Equal(t, interp.F16FromF32(f), F16FromF32(f), "f16 of %g (%#08x)", f, math.Float32bits(f))
		require.True(t, sameFloat(interp.F32FromF16(interp.F16FromF32(f)), RoundF16(f)))
	}
	for _, c := range f8s {
		for b := 0; b < 256; b++ {
			want := bytesToF32(t, c.dt, uint8(b))
			require.True(t, sameFloat(want, c.decode(uint8(b))), "%s decode %#02x", c.dt, b)
		}
		for _, f := range probes {
			want := f32ToByte(t, c.dt, f)
			require.Equal(t, want, c.encode(f), "%s encode %g (%#08x)", c.dt, f, math.Float32bits(f))
			require.True(t, sameFloat(c.decode(want), c.round(f)))
		}
	}
}

// bytesToF32 decodes one f8 byte through interp's tensor storage.
func bytesToF32(t *testing.T, dt ir.DType, b uint8) float32 {
	x := interp.MustEmpty(dt, 1)
	x.Storage.Data[0] = b
	return float32(x.Floats()[0])
}

// f32ToByte encodes through interp (FromFloats rounds into dt).
func f32ToByte(t *testing.T, dt ir.DType, f float32) uint8 {
	return interp.FromFloats(dt, []int64{1}, []float64{float64(f)}).Storage.Data[0]
}
