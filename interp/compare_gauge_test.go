package interp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
)

// The gauge alignment must accept exactly the freedom PyTorch documents
// (a sign per singular/eigen vector, the order of linalg.eig's values)
// and nothing else.

func testMat() *cmat {
	return &cmat{r: 4, c: 3, a: []complex128{1, 2, -1, 0.5, -3, 2, 4, 1, 0, -2, 0.25, 1.5}}
}

func f32Of(t *testing.T, m *cmat) *Tensor {
	out, err := writeMats(ir.F32, nil, []*cmat{m}, m.r, m.c, true, ir.CPU)
	require.NoError(t, err)
	return out
}

func flipCol(m *cmat, j int64) *cmat {
	o := m.clone()
	for i := int64(0); i < o.r; i++ {
		o.set(i, j, -o.at(i, j))
	}
	return o
}

func agree(want, got *Tensor) bool {
	return CompareTensors(want, got, DefaultTolerance(want.DType)) == nil
}

func TestAlignSVDAcceptsOnlyCoupledSigns(t *testing.T) {
	u, s, vh := svd(testMat(), false)
	S, err := writeVecs(ir.F32, nil, [][]complex128{realVec(s)}, 3, ir.CPU)
	require.NoError(t, err)
	// PyTorch's gauge: column 1 of U and row 1 of Vh negated together.
	wantU, wantVh := f32Of(t, flipCol(u, 1)), f32Of(t, flipCol(vh.adjoint(), 1).adjoint())
	gotU, gotVh := AlignSVD(wantU, S, wantVh, f32Of(t, u), f32Of(t, vh))
	require.True(t, agree(wantU, gotU) && agree(wantVh, gotVh), "a coupled sign flip is the documented gauge")
	// Only U's column flipped: A ≠ U·S·Vh, so it must still fail.
	gotU, gotVh = AlignSVD(wantU, S, f32Of(t, vh), f32Of(t, u), f32Of(t, vh))
	require.False(t, agree(wantU, gotU) && agree(f32Of(t, vh), gotVh), "U and Vh turn together")
	// Swapped singular vectors are not a gauge.
	sw := u.clone()
	for i := int64(0); i < sw.r; i++ {
		a, b := sw.at(i, 0), sw.at(i, 1)
		sw.set(i, 0, b)
		sw.set(i, 1, a)
	}
	gotU, _ = AlignSVD(wantU, S, wantVh, f32Of(t, sw), f32Of(t, vh))
	require.False(t, agree(wantU, gotU))
}

func TestAlignEighAcceptsSignsOnly(t *testing.T) {
	a := &cmat{r: 3, c: 3, a: []complex128{2, 1, 0, 1, 3, 1, 0, 1, 4}}
	w, v := eighJacobi(a, true)
	W, err := writeVecs(ir.F32, nil, [][]complex128{realVec(w)}, 3, ir.CPU)
	require.NoError(t, err)
	want := f32Of(t, flipCol(v, 2))
	require.True(t, agree(want, AlignEigh(W, want, f32Of(t, v))))
	wrong := v.clone()
	for i := int64(0); i < 3; i++ {
		wrong.set(i, 0, v.at(i, 1))
		wrong.set(i, 1, v.at(i, 0))
	}
	require.False(t, agree(want, AlignEigh(W, want, f32Of(t, wrong))))
}

func TestAlignEigPermutesButKeepsValues(t *testing.T) {
	a := &cmat{r: 3, c: 3, a: []complex128{1, 2, 0, -2, 1, 0.5, 0, 1, 3}}
	w, v, err := eig(a)
	require.NoError(t, err)
	vals := func(x []complex128) *Tensor {
		out, err := writeVecs(ir.C64, nil, [][]complex128{x}, 3, ir.CPU)
		require.NoError(t, err)
		return out
	}
	vecs := func(m *cmat) *Tensor {
		out, err := writeMats(ir.C64, nil, []*cmat{m}, 3, 3, true, ir.CPU)
		require.NoError(t, err)
		return out
	}
	// PyTorch's order reversed and one vector's phase turned by i.
	perm := []int64{2, 0, 1}
	pw, pv := make([]complex128, 3), newCmat(3, 3)
	for k, j := range perm {
		pw[k] = w[j]
		for i := int64(0); i < 3; i++ {
			pv.set(i, int64(k), v.at(i, j)*map[bool]complex128{true: 1i, false: 1}[k == 1])
		}
	}
	gw, gv := AlignEig(vals(pw), vecs(pv), vals(w), vecs(v))
	require.True(t, agree(vals(pw), gw) && agree(vecs(pv), gv))
	// A wrong eigenvalue stays wrong after the permutation.
	bad := append([]complex128(nil), w...)
	bad[0] += 0.01
	gw, _ = AlignEig(vals(pw), vecs(pv), vals(bad), vecs(v))
	require.False(t, agree(vals(pw), gw))
}
