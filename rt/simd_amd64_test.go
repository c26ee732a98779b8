//go:build goexperiment.simd && amd64

package rt

import (
	"math"
	"math/rand/v2"
	"simd/archsimd"
	"testing"

	"github.com/stretchr/testify/require"
)

// Bit patterns where min and max are delicate: NaNs (quiet, signalling,
// both signs, payloads), ±0, ±inf, denormals, ordinary values.
var laneSpecials = []uint32{
	0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001, 0xff812345,
	0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x00000001, 0x80000001,
	0x3f800000, 0xbf800000, 0x3fa00000, 0x40490fd0, 0xc0200000,
}

// specialPairs are every ordered pair of laneSpecials, as two columns.
func specialPairs() (xs, ys []float32) {
	for _, a := range laneSpecials {
		for _, b := range laneSpecials {
			xs = append(xs, math.Float32frombits(a))
			ys = append(ys, math.Float32frombits(b))
		}
	}
	return xs, ys
}

// scalarMin and scalarMax are what the generated scalar loops compute.
//
//go:noinline
func scalarMin(x, y float32) float32 { return min(x, y) }

//go:noinline
func scalarMax(x, y float32) float32 { return max(x, y) }

// TestLanesMatchScalar: on every pair of specials, in both orders, the
// lane operations give the scalar Go's bits exactly (run with
// GOEXPERIMENT=simd go test ./rt).
func TestLanesMatchScalar(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2")
	}
	sign := SignF32x8()
	xs, ys := specialPairs()
	ops := map[string]struct {
		lanes  func(x, y archsimd.Float32x8) archsimd.Float32x8
		scalar func(x, y float32) float32
	}{
		"min": {func(x, y archsimd.Float32x8) archsimd.Float32x8 { return MinF32x8(x, y) }, scalarMin},
		"max": {func(x, y archsimd.Float32x8) archsimd.Float32x8 { return MaxF32x8(x, y, sign) }, scalarMax},
		"neg": {func(x, _ archsimd.Float32x8) archsimd.Float32x8 { return NegF32x8(x, sign) }, func(x, _ float32) float32 { return -x }},
		"abs": {func(x, _ archsimd.Float32x8) archsimd.Float32x8 { return AbsF32x8(x, sign) }, func(x, _ float32) float32 { return AbsF32(x) }},
	}
	for name, op := range ops {
		for i := 0; i+8 <= len(xs); i += 8 {
			var got [8]float32
			op.lanes(loadF32x8(xs[i:]), loadF32x8(ys[i:])).Store(&got)
			for j := range 8 {
				want := op.scalar(xs[i+j], ys[i+j])
				require.Equal(t, math.Float32bits(want), math.Float32bits(got[j]), "%s(%08x, %08x)", name,
					math.Float32bits(xs[i+j]), math.Float32bits(ys[i+j]))
			}
		}
	}
}

// TestLanes16MatchScalar: the 16-lane twins give the scalar Go's bits on
// every pair of specials, and AnyInt32x16 sees one set lane anywhere.
func TestLanes16MatchScalar(t *testing.T) {
	if !archsimd.X86.AVX512() {
		t.Skip("no AVX-512")
	}
	sign := SignF32x16()
	xs, ys := specialPairs()
	load := func(s []float32) archsimd.Float32x16 { return archsimd.LoadFloat32x16((*[16]float32)(s[:16])) }
	ops := map[string]struct {
		lanes  func(x, y archsimd.Float32x16) archsimd.Float32x16
		scalar func(x, y float32) float32
	}{
		"min": {func(x, y archsimd.Float32x16) archsimd.Float32x16 { return MinF32x16(x, y) }, scalarMin},
		"max": {func(x, y archsimd.Float32x16) archsimd.Float32x16 { return MaxF32x16(x, y, sign) }, scalarMax},
		"neg": {func(x, _ archsimd.Float32x16) archsimd.Float32x16 { return NegF32x16(x, sign) }, func(x, _ float32) float32 { return -x }},
		// the whole exp, clamps and two factors 2^k, whatever k is
		"exp": {func(x, _ archsimd.Float32x16) archsimd.Float32x16 { return ExpClampedF32x16(x) }, func(x, _ float32) float32 { return ExpF32(x) }},
	}
	for name, op := range ops {
		for i := 0; i+16 <= len(xs); i += 16 {
			var got [16]float32
			op.lanes(load(xs[i:]), load(ys[i:])).Store(&got)
			for j := range 16 {
				want := op.scalar(xs[i+j], ys[i+j])
				require.Equal(t, math.Float32bits(want), math.Float32bits(got[j]), "%s(%08x, %08x)", name,
					math.Float32bits(xs[i+j]), math.Float32bits(ys[i+j]))
			}
		}
	}
	require.False(t, AnyInt32x16(archsimd.BroadcastInt32x16(0)))
	for lane := range 16 {
		var v [16]int32
		v[lane] = -1
		require.True(t, AnyInt32x16(archsimd.LoadInt32x16(&v)), "lane %d set", lane)
		require.True(t, AnyInt32x8(archsimd.LoadInt32x8((*[8]int32)(v[lane/8*8:][:8]))), "lane %d set", lane)
	}
}

// loadF32x8 loads 8 lanes from s[:8].
func loadF32x8(s []float32) archsimd.Float32x8 { return archsimd.LoadFloat32x8((*[8]float32)(s[:8])) }

// TestFastMathLanes: ExpF32x8 and TanhF32x8 (and ExpClampedF32x16) give
// ExpF32's and TanhF32's bits on the accuracy inputs and on the specials
// (NaN payloads included).
func TestFastMathLanes(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2")
	}
	sign := SignF32x8()
	var xs []float32
	for _, b := range laneSpecials {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, cs := range readFastmath(t) {
		for _, c := range cs {
			xs = append(xs, c.x)
		}
	}
	for len(xs)%8 != 0 {
		xs = append(xs, 0)
	}
	fns := map[string]struct {
		lanes  func(x archsimd.Float32x8) archsimd.Float32x8
		scalar func(x float32) float32
	}{
		"exp":  {func(x archsimd.Float32x8) archsimd.Float32x8 { return ExpF32x8(x, sign) }, ExpF32},
		"tanh": {func(x archsimd.Float32x8) archsimd.Float32x8 { return TanhF32x8(x, sign) }, TanhF32},
	}
	for name, fn := range fns {
		for i := 0; i < len(xs); i += 8 {
			var got [8]float32
			fn.lanes(loadF32x8(xs[i:])).Store(&got)
			for j := range 8 {
				want := fn.scalar(xs[i+j])
				require.Equal(t, math.Float32bits(want), math.Float32bits(got[j]), "%s(%08x)", name, math.Float32bits(xs[i+j]))
			}
		}
	}
	// exp's whole function on 16 lanes (what generated loops call where a
	// lane leaves the shortcut), over the same inputs: every range of k.
	if !archsimd.X86.AVX512() {
		return
	}
	for len(xs)%16 != 0 {
		xs = append(xs, 0)
	}
	for i := 0; i < len(xs); i += 16 {
		var got [16]float32
		ExpClampedF32x16(archsimd.LoadFloat32x16((*[16]float32)(xs[i:][:16]))).Store(&got)
		for j := range 16 {
			require.Equal(t, math.Float32bits(ExpF32(xs[i+j])), math.Float32bits(got[j]), "exp x16(%08x)", math.Float32bits(xs[i+j]))
		}
	}
}

// TestFMA32MatchesLanes: FMA32 gives VFMADD213PS's bits (MulAdd) on
// random operands and cancelling ones.
func TestFMA32MatchesLanes(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX2 and FMA")
	}
	r := rand.New(rand.NewPCG(13, 14))
	f := func() float32 { return float32(r.NormFloat64() * math.Exp2(float64(r.IntN(80)-40))) }
	var xs, ys, zs [8]float32
	for i := range 100000 {
		for j := range 8 {
			xs[j], ys[j], zs[j] = f(), f(), f()
			if (i+j)%3 == 0 {
				zs[j] = -float32(float64(xs[j]) * float64(ys[j]))
			}
		}
		var got [8]float32
		archsimd.LoadFloat32x8(&xs).MulAdd(archsimd.LoadFloat32x8(&ys), archsimd.LoadFloat32x8(&zs)).Store(&got)
		for j := range 8 {
			require.Equal(t, math.Float32bits(got[j]), math.Float32bits(FMA32(xs[j], ys[j], zs[j])), "%v·%v+%v", xs[j], ys[j], zs[j])
		}
	}
}

// TestTranspose8x8: every element lands at its transposed place, for a
// block inside a wider matrix (the stride is not 8).
func TestTranspose8x8(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2")
	}
	for _, stride := range []int{8, 13, 1024} {
		src := make([]float32, 7*stride+8)
		for i := range src {
			src[i] = float32(i) + 0.5
		}
		var dst [64]float32
		Transpose8x8(src, stride, &dst)
		for j := range 8 {
			for k := range 8 {
				require.Equal(t, src[j*stride+k], dst[8*k+j], "stride %d row %d column %d", stride, j, k)
			}
		}
	}
}

// TestExpLanesShortcut: ExpF32x8's shortcut (one factor 2^k, no clamps,
// where every lane's k is in [-124, 126]) gives ExpF32's bits: every
// float32 around the two ends of that range (blocks of 8 consecutive
// values, so most blocks take the shortcut and the blocks across an end
// do not), and a sweep of every 4093rd bit pattern (NaNs, infinities,
// subnormals).
func TestExpLanesShortcut(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX2 and FMA")
	}
	sign := SignF32x8()
	check := func(xs *[8]float32) {
		var got [8]float32
		ExpF32x8(archsimd.LoadFloat32x8(xs), sign).Store(&got)
		for j, x := range xs {
			require.Equal(t, math.Float32bits(ExpF32(x)), math.Float32bits(got[j]), "exp(%v = %08x)", x, math.Float32bits(x))
		}
	}
	var xs [8]float32
	// Each range is of one sign: its bit patterns are consecutive.
	for _, r := range [][2]float32{{-85.5, -87.5}, {86.5, 89.5}} {
		for b := math.Float32bits(r[0]); b <= math.Float32bits(r[1]); b += 8 {
			for j := range xs {
				xs[j] = math.Float32frombits(b + uint32(j))
			}
			check(&xs)
		}
	}
	for b := uint64(0); b < 1<<32; b += 8 * 4093 {
		for j := range xs {
			xs[j] = math.Float32frombits(uint32(b + uint64(j)*4093))
		}
		check(&xs)
	}
}
