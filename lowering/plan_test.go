package lowering

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planChecked plans p and asserts that, with reused buffers really
// sharing memory, it computes what it did before.
func planChecked(t *testing.T, p *Program, env map[string]int64) {
	t.Helper()
	want := schedRun(t, p, env, 11)
	PlanBuffers(p)
	require.NoError(t, Verify(p))
	requireClose(t, want, schedRun(t, p, env, 11))
	for _, b := range p.Buffers {
		if b.ReuseOf != nil {
			assert.Equal(t, BufIntermediate, b.Kind, "%s reuses but is %s", b.Name, b.Kind)
			assert.Equal(t, BufIntermediate, b.ReuseOf.Kind, "%s is reused but is %s", b.ReuseOf.Name, b.ReuseOf.Kind)
		}
	}
}

// Four externs in a chain: buf2 (the first mm) dies after the second mm
// reads it, so the third mm's result takes its memory; the last result
// is an output and never reuses.
func TestPlanChainReuse(t *testing.T) {
	b := newSchedBuilder("chain")
	x := b.input("x", 8, 8)
	w := b.input("w", 8, 8)
	m0 := b.mm("mm0", x, w)
	m1 := b.mm("mm1", m0, w)
	m2 := b.mm("mm2", m1, w)
	m3 := b.mm("mm3", m2, w)
	b.output(m3)
	planChecked(t, b.p, nil)
	assert.Nil(t, m0.buf.ReuseOf)
	assert.Nil(t, m1.buf.ReuseOf, "buf2 is still being read when buf3 is written")
	assert.Same(t, m0.buf, m2.buf.ReuseOf)
	assert.Nil(t, m3.buf.ReuseOf, "an output never reuses")
	assert.Contains(t, b.p.Remarks, "buf4 reuses buf2 (256 bytes, dead after kernel1)")
}

// Buffers of two sizes die and are born in turn: each new buffer takes
// the memory of a dead one of its own byte size, never the other's.
func TestPlanBySize(t *testing.T) {
	b := newSchedBuilder("sizes")
	x := b.input("x", 8, 4)
	e0 := b.pointwise("exp", "exp", x)                               // [8, 4]
	s0 := b.reduce("sum0", ReduceSum, b.transpose(e0), false, false) // [4]
	e1 := b.pointwise("exp1", "exp", e0)                             // e0 dies
	t0 := b.scalarOp("mul", "mul", s0, 2)                            // s0 dies
	e2 := b.pointwise("exp2", "exp", e1)                             // [8, 4]
	u := b.scalarOp("mul1", "mul", t0, 3)                            // [4]
	b.output(b.pointwise("exp3", "exp", e2))
	b.output(b.scalarOp("mul2", "mul", u, 4))
	planChecked(t, b.p, nil)
	assert.Same(t, e0.buf, e2.buf.ReuseOf)
	assert.Same(t, s0.buf, u.buf.ReuseOf)
	assert.Nil(t, e1.buf.ReuseOf)
	assert.Nil(t, t0.buf.ReuseOf)
	assert.Contains(t, b.p.Remarks, "buffer planning: 2 of 6 intermediate buffers reuse memory")
}

// Symbolic sizes reuse only when sym.Equal: [s0, 4] takes over a dead
// [s0, 4] (same bytes) but never a dead [s1, 4].
func TestPlanSymbolic(t *testing.T) {
	b := newSchedBuilder("symbolic")
	x := b.input("x", "s0", 4)
	y := b.input("y", "s1", 4)
	w := b.input("w", 4, 4)
	a := b.mm("mm_a", y, w)   // [s1, 4]
	a2 := b.mm("mm_a2", a, w) // a dies
	c := b.mm("mm_c", x, w)   // [s0, 4]: must not take a's memory
	c2 := b.mm("mm_c2", c, w) // c dies
	d := b.mm("mm_d", x, w)   // [s0, 4]: takes c's memory
	b.output(a2)
	b.output(c2)
	b.output(b.mm("mm_e", d, w))
	planChecked(t, b.p, map[string]int64{"s0": 3, "s1": 5})
	assert.Nil(t, c.buf.ReuseOf)
	assert.Same(t, c.buf, d.buf.ReuseOf)
}

// After fusion, planning sees fewer, larger kernels; outputs stay fresh.
func TestPlanAfterFusion(t *testing.T) {
	b, _ := softmaxProgram()
	_, err := Fuse(b.p, FuseOptions{MaxRecompute: -1})
	require.NoError(t, err)
	planChecked(t, b.p, nil)
	for _, r := range b.p.Outputs {
		assert.Nil(t, r.Buffer.ReuseOf)
	}
}
