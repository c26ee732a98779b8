//go:build goexperiment.simd && amd64

package rt

// expShiftSum is in expsum_amd64.s.
//
//go:noescape
func expShiftSum(n int64, src, dst *float32, shift float32, acc *[8]float32)

// ExpShiftSum is a softmax's middle loop on AVX2 lanes, in assembly: for
// the longest multiple of 8 elements of src, e = ExpF32(src[i] - shift)
// is stored to dst[i] (unless dst is nil) and added to acc's lanes as
// the generated lane loop adds it (two accumulators over blocks of 16,
// joined, then a last block of 8). It returns how many elements it did
// (0 without SIMD()). Go's compiler kept that loop's 16 constants and two
// chains in registers only by spilling and reloading around every step;
// here the constants are memory operands.
func ExpShiftSum(src, dst []float32, shift float32, acc *[8]float32) int {
	n := len(src) &^ 7
	if !useSIMD || n == 0 {
		return 0
	}
	var d *float32
	if dst != nil {
		d = &dst[:n][0]
	}
	expShiftSum(int64(n/8), &src[0], d, shift, acc)
	return n
}
