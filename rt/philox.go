package rt

import (
	"hash/fnv"
	"math"
	"math/bits"
)

// Counter-based random numbers for the random ops (rand, randn, bernoulli,
// native_dropout, Inductor's seeds and inductor_random). Element i of a
// random op's result is a pure function of (seed, stream, i): Philox4x32-10
// keyed by the seed, counting (i, stream). Parallel kernels, interp and the
// CUDA prelude (k_rand_* in codegen/cuda) therefore draw the same numbers
// whatever order they visit elements in. This is the generator PyTorch's
// CUDA backend and Triton's tl.rand use (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11); the values are not PyTorch's,
// whose offsets depend on launch geometry.

// Philox constants: round multipliers and Weyl key increments.
const (
	philoxM0 = 0xD2511F53
	philoxM1 = 0xCD9E8D57
	philoxW0 = 0x9E3779B9
	philoxW1 = 0xBB67AE85
)

// SeedSym is the size symbol through which generated programs receive the
// run's seed (lowering.SeedSym): Run reads syms[SeedSym], 0 when absent;
// the generated main sets it from -seed.
const SeedSym = "kiln_seed"

// Philox4x32 is Philox4x32-10 on counter ctr and key key (Random123's
// philox4x32_R(10, ctr, key)).
func Philox4x32(ctr [4]uint32, key [2]uint32) [4]uint32 {
	for r := 0; r < 10; r++ {
		if r > 0 {
			key[0] += philoxW0
			key[1] += philoxW1
		}
		hi0, lo0 := bits.Mul32(philoxM0, ctr[0])
		hi1, lo1 := bits.Mul32(philoxM1, ctr[2])
		ctr = [4]uint32{hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0}
	}
	return ctr
}

// Philox is the block of four words for element index of stream under
// seed: key = seed (low word first), counter = (index, stream) as four
// little-endian 32-bit words, the layout of PyTorch's philox engine
// (offset, subsequence) and of tl.rand(seed, index) for stream 0.
func Philox(seed, stream, index uint64) [4]uint32 {
	return Philox4x32(
		[4]uint32{uint32(index), uint32(index >> 32), uint32(stream), uint32(stream >> 32)},
		[2]uint32{uint32(seed), uint32(seed >> 32)})
}

// uniform24 maps a word to [0, 1) with 24 bits, exactly representable in
// float32: PyTorch's uniform_real for float ((x & (2^24-1)) * 2^-24).
func uniform24(x uint32) float32 {
	return float32(x&(1<<24-1)) * (1.0 / (1 << 24))
}

// RandUniform is element index of stream under seed, uniform in [0, 1)
// (a multiple of 2^-24).
func RandUniform(seed, stream, index int64) float32 {
	return uniform24(Philox(uint64(seed), uint64(stream), uint64(index))[0])
}

// RandNormal is element index of stream under seed, standard normal by
// Box–Muller on the block's first two words, computed in float64 and
// rounded once: sqrt(-2 ln(1-u1)) * cos(2π u2), 1-u1 in (0, 1].
func RandNormal(seed, stream, index int64) float32 {
	w := Philox(uint64(seed), uint64(stream), uint64(index))
	u1, u2 := float64(uniform24(w[0])), float64(uniform24(w[1]))
	r := math.Sqrt(-2 * math.Log(1-u1))
	return float32(r * math.Cos(2*math.Pi*u2))
}

// RandBits is element index of stream under seed as a non-negative int64
// (63 bits of the block's first two words): the seeds Inductor's
// inductor_seeds draws for each random op of a graph.
func RandBits(seed, stream, index int64) int64 {
	w := Philox(uint64(seed), uint64(stream), uint64(index))
	return int64((uint64(w[1])<<32 | uint64(w[0])) >> 1)
}

// StreamID is the stream of a random op's node: FNV-1a 64 of "node:" and
// its name, as int64 (lowering.StreamID computes the same).
func StreamID(node string) int64 {
	h := fnv.New64a()
	h.Write([]byte("node:" + node))
	return int64(h.Sum64())
}
