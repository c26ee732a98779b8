package rt

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveMM is the triple loop sgemm computes: sums over blocks of 256
// values of k in order, each step a fused multiply-add, from +0, added
// up block after block.
func naiveMM(m, k, n int64, a, b f32Matrix) []float32 {
	out := make([]float32, m*n)
	for i := range m {
		for j := range n {
			total := float32(0)
			for p0 := int64(0); p0 < k; p0 += 256 {
				acc := float32(0)
				for p := p0; p < min(p0+256, k); p++ {
					acc = FMA32(a.at(i, p), b.at(p, j), acc)
				}
				if p0 == 0 {
					total = acc
				} else {
					total += acc
				}
			}
			out[i*n+j] = total
		}
	}
	return out
}

// TestMatmulF32: mm and bmm through sgemm give the blocked loop's bits
// (the lanes' VFMADD and FMA32 agree) for
// sizes around the 6×16 blocks (leftover rows and columns; k past a
// block of 256, where the assembly's 6×16 block adds to C; m past a
// packed block of A's rows, in two blocks), a
// transposed
// B (linear's weight), an offset output view, in parallel chunks; and
// the same in GOEXPERIMENT=simd builds, where the blocks run on lanes.
func TestMatmulF32(t *testing.T) {
	fill := func(n int64, seed float64) []byte {
		t := NewTensor("f32", []int64{n})
		v := F32s(t.Data)
		for i := range v {
			v[i] = float32(math.Sin(float64(i)*0.37+seed) * 3)
		}
		return t.Data
	}
	for _, sz := range [][3]int64{{1, 1, 1}, {4, 16, 16}, {5, 7, 17}, {9, 33, 50}, {64, 70, 48}, {5, 300, 17}, {8, 520, 32}, {10, 300, 32}, {12, 5, 16}, {3, 0, 5}, {130, 300, 70}, {7, 17, 530}, {270, 9, 20}} {
		m, k, n := sz[0], sz[1], sz[2]
		for _, bT := range []bool{false, true} {
			a := &Tensor{DType: "f32", Shape: []int64{m, k}, Data: fill(m*k, 1)}
			b := &Tensor{DType: "f32", Shape: []int64{k, n}, Data: fill(k*n, 2)}
			bm := f32Matrix{data: F32s(b.Data), rs: n, cs: 1}
			if bT {
				b.Strides = []int64{1, k}
				bm = f32Matrix{data: F32s(b.Data), rs: 1, cs: k}
			}
			out := &Tensor{DType: "f32", Shape: []int64{m, n}, Strides: []int64{n + 3, 1}, Offset: 2, Data: fill(m*(n+3)+2, 3)}
			require.NoError(t, Extern("aten::mm.default", out, []*Tensor{a, b}, nil))
			want := naiveMM(m, k, n, f32Matrix{data: F32s(a.Data), rs: k, cs: 1}, bm)
			got := F32s(out.Data)
			for i := range m {
				for j := range n {
					require.Equal(t, math.Float32bits(want[i*n+j]), math.Float32bits(got[2+i*(n+3)+j]), "%v transposed %v at (%d, %d)", sz, bT, i, j)
				}
			}
		}
	}
	// bmm, contiguous output written in place.
	const bs, m, k, n = 3, 6, 10, 20
	a := &Tensor{DType: "f32", Shape: []int64{bs, m, k}, Data: fill(bs*m*k, 4)}
	b := &Tensor{DType: "f32", Shape: []int64{bs, k, n}, Data: fill(bs*k*n, 5)}
	out := NewTensor("f32", []int64{bs, m, n})
	require.NoError(t, Extern("aten::bmm.default", out, []*Tensor{a, b}, nil))
	for bi := range int64(bs) {
		want := naiveMM(m, k, n, f32Matrix{data: F32s(a.Data), off: bi * m * k, rs: k, cs: 1}, f32Matrix{data: F32s(b.Data), off: bi * k * n, rs: n, cs: 1})
		for i, w := range want {
			require.Equal(t, math.Float32bits(w), math.Float32bits(F32s(out.Data)[bi*m*n+int64(i)]), "bmm batch %d element %d", bi, i)
		}
	}
	// A layout past the end of its buffer is an error, not a panic.
	short := &Tensor{DType: "f32", Shape: []int64{4, 4}, Data: fill(8, 0)}
	require.ErrorContains(t, Extern("aten::mm.default", NewTensor("f32", []int64{4, 4}), []*Tensor{short, short}, nil), "needs more than")
}

// TestAddmmF32: addmm is self + mm's bits, element by element, for a
// broadcast bias (stride 0 along rows: linear's), a full self and a
// transposed self (the scalar path), rows of 21 (two 8-lane pieces and a
// tail of 5), in builds with and without lanes.
func TestAddmmF32(t *testing.T) {
	const m, k, n = 7, 40, 21
	vals := func(c int, seed float64) []float32 {
		v := make([]float32, c)
		for i := range v {
			v[i] = float32(math.Sin(float64(i)*0.53+seed) * 5)
		}
		return v
	}
	tensor := func(shape, strides []int64, v []float32) *Tensor {
		tt := NewTensor("f32", []int64{int64(len(v))})
		copy(F32s(tt.Data), v)
		return &Tensor{DType: "f32", Shape: shape, Strides: strides, Data: tt.Data}
	}
	av, bv := vals(m*k, 1), vals(k*n, 2)
	mm := naiveMM(m, k, n, f32Matrix{data: av, rs: k, cs: 1}, f32Matrix{data: bv, rs: n, cs: 1})
	type self struct {
		t  *Tensor
		at func(i, j int) float32
	}
	bias, full := vals(n, 3), vals(m*n, 4)
	selfs := map[string]self{
		"bias":       {tensor([]int64{m, n}, []int64{0, 1}, bias), func(i, j int) float32 { return bias[j] }},
		"full":       {tensor([]int64{m, n}, []int64{n, 1}, full), func(i, j int) float32 { return full[i*n+j] }},
		"transposed": {tensor([]int64{m, n}, []int64{1, m}, full), func(i, j int) float32 { return full[j*m+i] }},
	}
	for name, s := range selfs {
		out := NewTensor("f32", []int64{m, n})
		a, b := tensor([]int64{m, k}, nil, av), tensor([]int64{k, n}, nil, bv)
		require.NoError(t, Extern("aten::addmm.default", out, []*Tensor{s.t, a, b}, nil))
		for i := range m {
			for j := range n {
				want := s.at(i, j) + mm[i*n+j]
				require.Equal(t, math.Float32bits(want), math.Float32bits(F32s(out.Data)[i*n+j]), "%s self at (%d, %d)", name, i, j)
			}
		}
	}
}

// BenchmarkSgemmLinear: the compare script's MLP's first linear, x [256×512]
// times linear's transposed weight [1024×512], one call (GEMM speed lives
// here, not in a timed test); GFLOP/s against the FMA pipes' peak (16 fused
// multiply-adds a cycle on AVX2 lanes) shows the block's efficiency.
func BenchmarkSgemmLinear(b *testing.B) {
	const m, k, n = 256, 512, 1024
	a, w, c := make([]float32, m*k), make([]float32, n*k), make([]float32, m*n)
	for i := range a {
		a[i] = float32(math.Sin(float64(i) * 0.37))
	}
	for i := range w {
		w[i] = float32(math.Cos(float64(i) * 0.11))
	}
	bm := f32Matrix{data: w, rs: 1, cs: k}
	for b.Loop() {
		if err := sgemm(m, k, n, a, bm, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*m*k*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
