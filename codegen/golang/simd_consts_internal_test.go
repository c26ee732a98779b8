package golang

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memOperands takes the constants used only as a MulAdd's addend or
// receiver, and no other: one with another use, one the folds name after
// the loop, and one that is not a float broadcast keep their registers.
func TestMemOperands(t *testing.T) {
	l := &simdLoop{g: &kernelGen{simd: &simdOut{}}}
	for _, h := range []hoisted{
		{"kP0", "kP0 := archsimd.BroadcastFloat32x8(rt.P0)"},
		{"kP1", "kP1 := archsimd.BroadcastFloat32x8(rt.P1)"},
		{"kP2", "kP2 := archsimd.BroadcastFloat32x8(rt.P2)"},
		{"kOne", "kOne := archsimd.BroadcastFloat32x8(1)"},
		{"kAcc", "kAcc := archsimd.BroadcastFloat32x8(rt.Acc)"},
		{"kBias", "kBias := archsimd.BroadcastInt32x8(127)"},
	} {
		l.hoist = append(l.hoist, h)
	}
	l.body.line("y := kP0.MulAdd(r, kP1)")
	l.body.line("y = y.MulAdd(r, kP2).Add(kOne)")
	l.body.line("s := kOne.MulAdd(y, kAcc)")
	l.body.line("k := n.Add(kBias)")
	l.folds.line("acc = acc.Add(kAcc)")
	mem := l.memOperands()
	assert.Equal(t, map[string]string{
		"kP0": "archsimd.LoadFloat32x8(&kx8P0)",
		"kP1": "archsimd.LoadFloat32x8(&kx8P1)",
		"kP2": "archsimd.LoadFloat32x8(&kx8P2)",
	}, mem)
	body := lanes16.spell(withMem(l.body.String(), mem))
	require.Contains(t, body, "y := archsimd.LoadFloat32x16(&kx16P0).MulAdd(r, archsimd.LoadFloat32x16(&kx16P1))")
	decls := l.g.simd.memDecls()
	assert.Contains(t, decls, "kx8P0 = rt.Splat8(rt.P0)")
	assert.Contains(t, decls, "kx16P2 = rt.Splat16(rt.P2)")
	assert.NotContains(t, decls, "kOne")

	// Another loop of the package whose kP1 is another value keeps it.
	other := &simdLoop{g: l.g, hoist: []hoisted{{"kP1", "kP1 := archsimd.BroadcastFloat32x8(rt.Q1)"}}}
	other.body.line("y := y.MulAdd(r, kP1)")
	assert.Empty(t, other.memOperands())
}
