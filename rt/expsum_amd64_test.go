//go:build goexperiment.simd && amd64

package rt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkExpShiftSum runs ExpShiftSum on xs and checks every stored value
// against ExpF32(x - shift), bit for bit, and the 8 lane sums against
// the generated two-step loop's order: lane l of block j of 8 into sum
// j%2 of lane l, the two sums joined, a last odd block into the join.
func checkExpShiftSum(t *testing.T, xs []float32, shift float32, store bool) {
	t.Helper()
	var acc [8]float32
	var want [2][8]float32
	for l := range acc {
		acc[l] = float32(l) * 0.25 // a lane's sum goes on from its start
		want[0][l] = acc[l]
	}
	var dst []float32
	if store {
		dst = make([]float32, len(xs))
	}
	n := ExpShiftSum(xs, dst, shift, &acc)
	require.Equal(t, len(xs)&^7, n)
	pairs := n / 16 * 16
	for i, x := range xs[:n] {
		e := ExpF32(x - shift)
		if store {
			require.Equal(t, math.Float32bits(e), math.Float32bits(dst[i]), "exp(%v - %v), element %d", x, shift, i)
		}
		if i == pairs {
			for l := range want[0] {
				want[0][l] += want[1][l]
			}
		}
		if i < pairs {
			want[i/8%2][i%8] += e
		} else {
			want[0][i%8] += e
		}
	}
	if n == pairs {
		for l := range want[0] {
			want[0][l] += want[1][l]
		}
	}
	for l := range acc {
		w, g := want[0][l], acc[l]
		if w != w && g != g {
			continue // NaN: which payload an add passes on is the compiler's choice (simd.go)
		}
		require.Equal(t, math.Float32bits(w), math.Float32bits(g), "lane %d", l)
	}
}

// TestExpShiftSum: the assembly gives ExpF32's bits on every element (16
// at a time: blocks that take the shortcut, blocks across its ends, and
// NaNs, infinities and subnormal results on the whole function) and the
// lane sums in the generated loop's order, with and without a store.
func TestExpShiftSum(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX2 and FMA")
	}
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, 4096+13) // 8 in a last odd block, 5 the caller's loop finishes
	for i := range xs {
		xs[i] = float32(r.NormFloat64() * 3)
	}
	for _, store := range []bool{true, false} {
		for _, n := range []int{len(xs), 4096, 8, 15, 16, 7} {
			checkExpShiftSum(t, xs[:n], 2.5, store)
		}
	}
	// Around both ends of the shortcut's range and of the clamps, 16
	// consecutive bit patterns a block.
	for _, rg := range [][2]float32{{-85.5, -87.5}, {86.5, 89.5}, {-103.5, -104.5}, {88.5, 90}} {
		var blk []float32
		for b := math.Float32bits(rg[0]); b <= math.Float32bits(rg[1]); b += 16 * 7 {
			for j := range uint32(16) {
				blk = append(blk, math.Float32frombits(b+j))
			}
		}
		checkExpShiftSum(t, blk, 0, true)
	}
	var sweep []float32
	for b := uint64(0); b < 1<<32; b += 16 * 4093 {
		for j := range uint64(16) {
			sweep = append(sweep, math.Float32frombits(uint32(b+j*4093)))
		}
	}
	checkExpShiftSum(t, sweep, 0, true)
	checkExpShiftSum(t, sweep, -1.5, true)
}
