package interp

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveMM is the order bmmRaw promises: each element from +0, terms in
// ascending l, a product rounded to float64 and then added.
func naiveMM(a, b []float64, m, k, n int64) []float64 {
	out := make([]float64, m*n)
	for i := int64(0); i < m; i++ {
		for j := int64(0); j < n; j++ {
			var s float64
			for l := int64(0); l < k; l++ {
				s += float64(a[i*k+l] * b[l*n+j])
			}
			out[i*n+j] = s
		}
	}
	return out
}

func randFloats(r *rand.Rand, n int64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		// wide exponents, so that the order of the sum shows in the bits
		xs[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20))
	}
	return xs
}

// The blocked GEMM equals the plain loop bit for bit on shapes that cut
// every block and tile (edges in m, n and k; k past one packed block; n
// past one packed block), with and without goroutines.
func TestBlockedMatmulBitsEqualPlainLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int64{{1, 1, 1}, {3, 5, 7}, {4, 8, 8}, {5, 300, 9}, {13, 517, 203}, {64, 64, 400}, {130, 33, 17}, {7, 1, 390}}
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, s := range shapes {
			m, k, n := s[0], s[1], s[2]
			a, b := randFloats(r, m*k), randFloats(r, k*n)
			want := naiveMM(a, b, m, k, n)
			got := bmmRaw(a, b, 1, m, k, n)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					runtime.GOMAXPROCS(old)
					t.Fatalf("GOMAXPROCS=%d %dx%dx%d: element %d: got %v, the plain loop %v", procs, m, k, n, i, got[i], want[i])
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// Batches are independent products; NaN and ±Inf propagate as in the
// plain loop, and an empty k gives +0.
func TestBlockedMatmulBatchesAndSpecials(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const batch, m, k, n = 3, 6, 10, 11
	a, b := randFloats(r, batch*m*k), randFloats(r, batch*k*n)
	a[2] = math.NaN()
	b[batch*k*n-1] = math.Inf(1)
	a[m*k+3] = math.Inf(-1)
	got := bmmRaw(a, b, batch, m, k, n)
	for p := int64(0); p < batch; p++ {
		want := naiveMM(a[p*m*k:(p+1)*m*k], b[p*k*n:(p+1)*k*n], m, k, n)
		for i, w := range want {
			g := got[p*m*n+int64(i)]
			require.True(t, math.Float64bits(g) == math.Float64bits(w) || math.IsNaN(g) && math.IsNaN(w),
				"batch %d element %d: got %v, want %v", p, i, g, w)
		}
	}
	require.True(t, math.IsNaN(got[0]), "NaN in row 0 of a reaches row 0 of the product")
	empty := bmmRaw(nil, nil, 1, 2, 0, 3)
	require.Equal(t, []float64{0, 0, 0, 0, 0, 0}, empty)
	require.False(t, math.Signbit(empty[0]))
}

// The Go micro-kernel and the lanes (where this machine has them) give
// the same bits.
func TestGemmKernelGoEqualsLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kc := range []int64{1, 2, 7, gemmKC} {
		a, b := randFloats(r, kc*gemmMR), randFloats(r, kc*gemmNR)
		c0 := randFloats(r, gemmMR*11)
		c1 := append([]float64(nil), c0...)
		gemmKernelGo(kc, a, b, c0, 11)
		gemmKernel(kc, a, b, c1, 11)
		for i := range c0 {
			require.Equal(t, math.Float64bits(c0[i]), math.Float64bits(c1[i]), "kc %d element %d", kc, i)
		}
	}
}

// BenchmarkMatmul1024x768x4096 is a slice of corpus 041's vocabulary
// projection (1024×768 by 768×50005), in interp's float64 GEMM.
func BenchmarkMatmul1024x768x4096(b *testing.B) {
	const m, k, n = 1024, 768, 4096
	r := rand.New(rand.NewPCG(7, 8))
	x, y := randFloats(r, m*k), randFloats(r, k*n)
	b.SetBytes(0)
	for b.Loop() {
		bmmRaw(x, y, 1, m, k, n)
	}
	b.ReportMetric(float64(2*m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
