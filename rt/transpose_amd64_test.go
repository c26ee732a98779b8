//go:build goexperiment.simd && amd64

package rt

import (
	"simd/archsimd"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTranspose16x16: every element lands at its transposed place, for a
// block inside a wider matrix (the stride is not 16) and at an offset.
func TestTranspose16x16(t *testing.T) {
	if !archsimd.X86.AVX512() {
		t.Skip("no AVX-512")
	}
	for _, stride := range []int{16, 19, 1024} {
		src := make([]float32, 3+15*stride+16)
		for i := range src {
			src[i] = float32(i) + 0.5
		}
		var dst [256]float32
		Transpose16x16(src[3:], stride, &dst)
		for j := range 16 {
			for k := range 16 {
				require.Equal(t, src[3+j*stride+k], dst[16*k+j], "stride %d row %d column %d", stride, j, k)
			}
		}
	}
}
