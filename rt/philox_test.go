package rt

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Random123's known-answer vectors for philox4x32_10 (kat_vectors).
func TestPhiloxKnownAnswers(t *testing.T) {
	cases := []struct {
		ctr  [4]uint32
		key  [2]uint32
		want [4]uint32
	}{
		{[4]uint32{}, [2]uint32{}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff},
			[4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0},
			[4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Philox4x32(c.ctr, c.key), "ctr %08x key %08x", c.ctr, c.key)
	}
}

// Philox lays (seed, stream, index) out as key and counter words.
func TestPhiloxLayout(t *testing.T) {
	assert.Equal(t, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, Philox(0, 0, 0))
	assert.Equal(t, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
		Philox(0x299f31d0a4093822, 0x0370734413198a2e, 0x85a308d3243f6a88))
	assert.Equal(t, uniform24(0x6627e8d5), RandUniform(0, 0, 0))
	assert.Equal(t, float32(0x27e8d5)/(1<<24), RandUniform(0, 0, 0))
}

func TestUniform24Range(t *testing.T) {
	assert.Equal(t, float32(0), uniform24(0xff000000))
	assert.Equal(t, float32(1-1.0/(1<<24)), uniform24(0xffffffff))
	assert.Less(t, uniform24(0xffffffff), float32(1))
}

// Values depend on (seed, stream, index) only; streams and seeds differ.
func TestRandDeterminismAndIndependence(t *testing.T) {
	const n = 4096
	a := make([]float32, n)
	for i := range a {
		a[i] = RandUniform(7, 11, int64(i))
	}
	for i := n - 1; i >= 0; i-- { // reverse order: same values
		require.Equal(t, a[i], RandUniform(7, 11, int64(i)))
	}
	sameStream, sameSeed := 0, 0
	for i := range a {
		if RandUniform(7, 12, int64(i)) == a[i] {
			sameStream++
		}
		if RandUniform(8, 11, int64(i)) == a[i] {
			sameSeed++
		}
	}
	assert.Less(t, sameStream, 4, "another stream draws other numbers")
	assert.Less(t, sameSeed, 4, "another seed draws other numbers")
}

// Moments of the uniform and normal draws over 64k elements.
func TestRandMoments(t *testing.T) {
	const n = 1 << 16
	var su, su2, sn, sn2 float64
	lo, hi := float32(1), float32(0)
	for i := int64(0); i < n; i++ {
		u := RandUniform(3, StreamID("rand"), i)
		require.True(t, u >= 0 && u < 1, "uniform %v out of [0, 1)", u)
		lo, hi = min(lo, u), max(hi, u)
		su += float64(u)
		su2 += float64(u) * float64(u)
		z := float64(RandNormal(3, StreamID("randn"), i))
		require.False(t, math.IsNaN(z) || math.IsInf(z, 0))
		sn += z
		sn2 += z * z
	}
	assert.InDelta(t, 0.5, su/n, 0.01)
	assert.InDelta(t, 1.0/12, su2/n-(su/n)*(su/n), 0.005)
	assert.Less(t, lo, float32(0.001))
	assert.Greater(t, hi, float32(0.999))
	assert.InDelta(t, 0, sn/n, 0.02)
	assert.InDelta(t, 1, sn2/n, 0.03)
}

func TestRandBits(t *testing.T) {
	seen := map[int64]bool{}
	for i := int64(0); i < 1000; i++ {
		b := RandBits(7, StreamID("inductor_seeds"), i)
		require.GreaterOrEqual(t, b, int64(0))
		seen[b] = true
	}
	assert.Len(t, seen, 1000, "seeds are distinct")
	w := Philox(7, uint64(StreamID("s")), 5)
	assert.Equal(t, int64((uint64(w[1])<<32|uint64(w[0]))>>1), RandBits(7, StreamID("s"), 5))
}

func TestStreamID(t *testing.T) {
	// FNV-1a 64 of "node:x": offset basis and prime applied by hand.
	h := uint64(14695981039346656037)
	for _, c := range []byte("node:x") {
		h ^= uint64(c)
		h *= 1099511628211
	}
	assert.Equal(t, int64(h), StreamID("x"))
	assert.NotEqual(t, StreamID("a"), StreamID("b"))
}
