//go:build !(goexperiment.simd && amd64)

package rt

// The twin of simd_amd64.go for builds without GOEXPERIMENT=simd (or off
// amd64): generated packages then run every element on their scalar loops.

// SIMD reports whether generated 8-lane inner loops run: never here.
func SIMD() bool { return false }

// AVX512 reports whether generated 16-lane inner loops run: never here.
func AVX512() bool { return false }

// SIMDStatus says which inner loops run, for -simd.
func SIMDStatus() string {
	return "off: built without GOEXPERIMENT=simd (or not on amd64); build with GOEXPERIMENT=simd go build for 8-lane loops"
}

// packTLanes: no lanes in this build; pack copies every value.
func (m f32Matrix) packTLanes(pack []float32, p0, kc, j0 int64) int64 { return 0 }

// packA: no lanes in this build; the scalar loop runs every row.
func (g gemmBlock) packA(apack []float32) bool { return false }

// stripLanes: never called without lanes.
func (g gemmBlock) stripLanes(strip, apack, c []float32, j0, w int64) {}

// addF32Lanes: no lanes in this build; addmm adds every element on scalars.
func addF32Lanes(dst, src []float32) int { return 0 }
