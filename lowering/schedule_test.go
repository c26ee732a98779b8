package lowering

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuseChecked fuses p and asserts that it still computes the same outputs
// (and final input contents) as before, and keeps schedCheck's facts.
func fuseChecked(t *testing.T, p *Program, opts FuseOptions, env map[string]int64) FuseStats {
	t.Helper()
	before := outputBuffers(p)
	require.NoError(t, Verify(p), "the builder's program:\n%s", p)
	want := schedRun(t, p, env, 7)
	stats, err := Fuse(p, opts)
	require.NoError(t, err)
	require.NoError(t, Verify(p), "fused:\n%s", p)
	schedCheck(t, p, before)
	requireClose(t, want, schedRun(t, p, env, 7))
	assert.Equal(t, len(p.Kernels), stats.KernelsAfter)
	return stats
}

func countInstrs(k *Kernel, pred func(*Instr) bool) int {
	n := 0
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if pred(in) {
				n++
			}
		}
	}
	return n
}

func isCall(fn string) func(*Instr) bool {
	return func(in *Instr) bool { return in.Op == OpCall && in.Fn == fn }
}

func remarksWith(p *Program, sub string) []string {
	var out []string
	for _, r := range p.Remarks {
		if strings.Contains(r, sub) {
			out = append(out, r)
		}
	}
	return out
}

func TestFusePointwiseChain(t *testing.T) {
	b := newSchedBuilder("chain")
	x := b.input("x", 8, "s0")
	fns := []string{"exp", "neg", "tanh", "abs", "sigmoid", "exp", "neg", "abs", "tanh", "sigmoid"}
	for i, fn := range fns {
		x = b.pointwise(fmt.Sprintf("%s_%d", fn, i), fn, x)
	}
	b.output(x)
	stats := fuseChecked(t, b.p, FuseOptions{}, map[string]int64{"s0": 5})
	require.Len(t, b.p.Kernels, 1)
	k := b.p.Kernels[0]
	assert.Len(t, k.Stages, 1)
	assert.Len(t, k.Origins, 10)
	assert.Equal(t, FuseStats{KernelsBefore: 10, KernelsAfter: 1, Fusions: 9}, stats)
	// One load of x, ten calls, one store of the output: every
	// intermediate store and buffer is gone.
	assert.Equal(t, 1, countInstrs(k, func(in *Instr) bool { return in.Op == OpLoad }))
	assert.Equal(t, 1, countInstrs(k, func(in *Instr) bool { return in.Op == OpStore }))
	assert.Len(t, b.p.Buffers, 2)
	assert.Contains(t, b.p.Remarks, "fused kernel1 (neg_1) into kernel0 (exp_0): same iteration space [8, s0]")
	assert.Equal(t, "kernel0", k.Name)
}

// softmax as decomposed: amax keepdim, sub, exp, sum keepdim, div.
func softmaxProgram() (*schedBuilder, schedT) {
	b := newSchedBuilder("softmax")
	x := b.input("x", 8, 16)
	amax := b.reduce("amax", ReduceMax, x, true, false)
	sub := b.pointwise("sub", "sub", x, amax)
	exp := b.pointwise("exp", "exp", sub)
	sum := b.reduce("sum", ReduceSum, exp, true, false)
	div := b.pointwise("div", "truediv", exp, sum)
	b.output(div)
	return b, div
}

func TestFuseSoftmax(t *testing.T) {
	b, _ := softmaxProgram()
	stats := fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 1, b.p.String())
	k := b.p.Kernels[0]
	// max over r; exp(x - max) summed over r; exp(x - max)/sum stored over r.
	require.Len(t, k.Stages, 3, k.String())
	for _, st := range k.Stages {
		assert.Len(t, st.Reduce, 1)
	}
	assert.Equal(t, 1, stats.Recomputes)
	assert.Equal(t, 2, countInstrs(k, isCall("exp")), "exp computed once per r-stage that needs it")
	assert.Equal(t, 1, countInstrs(k, func(in *Instr) bool { return in.Op == OpStore }))
	assert.NotEmpty(t, remarksWith(b.p, "recomputed the value of buf3"))
}

func TestFuseSoftmaxNoRecompute(t *testing.T) {
	b, _ := softmaxProgram()
	stats := fuseChecked(t, b.p, FuseOptions{MaxRecompute: -1}, nil)
	// div cannot recompute exp and a kernel never reads back its own
	// store: it stays a second kernel reading exp's and sum's buffers.
	require.Len(t, b.p.Kernels, 2, b.p.String())
	assert.Zero(t, stats.Recomputes)
	assert.Equal(t, 1, countInstrs(b.p.Kernels[0], isCall("exp")))
	assert.Zero(t, countInstrs(b.p.Kernels[1], isCall("exp")))
	assert.NotEmpty(t, remarksWith(b.p, "recomputed 0 times already (max 0)"))
}

func TestFuseSharedProducer(t *testing.T) {
	b := newSchedBuilder("shared")
	x := b.input("x", 8, 4)
	p := b.pointwise("exp", "exp", x)
	for i := range 10 {
		b.output(b.scalarOp(fmt.Sprintf("mul_%d", i), "mul", p, float64(i+1)))
	}
	stats := fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 1)
	k := b.p.Kernels[0]
	assert.Equal(t, 1, countInstrs(k, isCall("exp")), "the producer is computed once")
	assert.Zero(t, stats.Recomputes)
	assert.Equal(t, 10, countInstrs(k, func(in *Instr) bool { return in.Op == OpStore }))
}

// Ten consumers in ten later r-stages (each after its own reduction)
// recompute the shared value at most MaxRecompute times; the next
// consumer starts a new kernel that reads the value back from its buffer.
func TestFuseRecomputeBounded(t *testing.T) {
	for _, maxRe := range []int{1, 2, 3} {
		b := newSchedBuilder("bounded")
		x := b.input("x", 4, 8)
		e := b.pointwise("exp", "exp", x)
		s := b.reduce("sum", ReduceSum, e, true, false)
		for i := range 10 {
			m := b.pointwise(fmt.Sprintf("mul_%d", i), "mul", e, s)
			s = b.reduce(fmt.Sprintf("sum_%d", i), ReduceSum, m, true, false)
		}
		b.output(s)
		stats := fuseChecked(t, b.p, FuseOptions{MaxRecompute: maxRe}, nil)
		assert.Equal(t, maxRe, stats.Recomputes)
		require.Len(t, b.p.Kernels, 2)
		assert.Equal(t, 1+maxRe, countInstrs(b.p.Kernels[0], isCall("exp")))
		assert.Zero(t, countInstrs(b.p.Kernels[1], isCall("exp")))
		assert.Len(t, b.p.Kernels[0].Origins, 2+2*maxRe)
	}
}

func TestFuseReductionEpilogue(t *testing.T) {
	b := newSchedBuilder("epilogue")
	x := b.input("x", 8, 4)
	s := b.reduce("sum", ReduceSum, x, false, false)
	b.output(b.scalarOp("mul", "mul", s, 0.5))
	fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 1)
	assert.Len(t, b.p.Kernels[0].Stages, 2)
	assert.Equal(t, KernelReduction, b.p.Kernels[0].Kind())
}

// layerNorm: mean, x - mean, square, mean, + eps, rsqrt, multiply.
func TestFuseLayerNorm(t *testing.T) {
	b := newSchedBuilder("layer_norm")
	x := b.input("x", "s0", 32)
	mean := b.reduce("mean", ReduceSum, x, true, true)
	sub := b.pointwise("sub", "sub", x, mean)
	sq := b.pointwise("mul", "mul", sub, sub)
	v := b.reduce("var", ReduceSum, sq, true, true)
	eps := b.scalarOp("add", "add", v, 1e-5)
	rs := b.pointwise("rsqrt", "rsqrt", eps)
	b.output(b.pointwise("mul_1", "mul", sub, rs))
	fuseChecked(t, b.p, FuseOptions{}, map[string]int64{"s0": 3})
	require.Len(t, b.p.Kernels, 1, b.p.String())
	assert.Len(t, b.p.Kernels[0].Origins, 7)
}

// A consumer over x.t() iterates [4, 8] where its producer iterates [8, 4]:
// with its loops swapped it reads each element where the producer wrote it,
// so the two fuse (Inductor 2.15 emits one kernel, cpp_fused_add_exp_t_0,
// for exp(x), exp(x).t() + 1).
func TestFuseTransposeReordersLoops(t *testing.T) {
	b := newSchedBuilder("transpose")
	x := b.input("x", 8, 4)
	e := b.pointwise("exp", "exp", x)
	b.output(e)
	b.output(b.scalarOp("add", "add", b.transpose(e), 1))
	fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 1, b.p.String())
	assert.Contains(t, b.p.Remarks, "fused kernel1 (add) into kernel0 (exp): same iteration space [8, 4] (loops reordered [1 0])")
}

// A same-space consumer that reads another iteration's element (x.t() of
// a square) must not fuse either.
func TestFuseSquareTransposeDoesNotFuse(t *testing.T) {
	b := newSchedBuilder("square")
	x := b.input("x", 4, 4)
	e := b.pointwise("exp", "exp", x)
	b.output(b.pointwise("add", "add", e, b.transpose(e)))
	fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 2)
	assert.NotEmpty(t, remarksWith(b.p, "not where kernel0 writes it"))
}

// a1 = x + x; a_{i+1} = a_i*a_i + a_i: Inductor re-inlines a_i into both
// uses, doubling per level; here the DAG stays shared.
func TestFuseExponentialChain(t *testing.T) {
	b := newSchedBuilder("expo")
	x := b.input("x", 16)
	a := b.pointwise("add", "add", x, x)
	for i := range 30 {
		m := b.pointwise(fmt.Sprintf("mul_%d", i), "mul", a, a)
		a = b.pointwise(fmt.Sprintf("add_%d", i), "add", m, a)
	}
	b.output(a)
	start := time.Now()
	_, err := Fuse(b.p, FuseOptions{})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), time.Second)
	require.Len(t, b.p.Kernels, 1)
	// 61 calls, one load, one store: linear in the chain.
	assert.Equal(t, 63, countInstrs(b.p.Kernels[0], func(*Instr) bool { return true }))
}

func TestFuseExternBarrier(t *testing.T) {
	b := newSchedBuilder("extern")
	x := b.input("x", 8, 4)
	w := b.input("w", 4, 4)
	e := b.pointwise("exp", "exp", x)
	m := b.mm("mm", e, w)
	b.output(b.pointwise("add", "add", m, e))
	b.output(b.scalarOp("mul", "mul", e, 2))
	fuseChecked(t, b.p, FuseOptions{}, nil)
	// exp and mul fuse; mm stays; add depends on mm, so it cannot join
	// the exp group that runs before mm.
	require.Len(t, b.p.Kernels, 3, b.p.String())
	assert.Equal(t, KernelExtern, b.p.Kernels[1].Kind())
	assert.NotEmpty(t, remarksWith(b.p, "kernel2 (add) not fused into kernel1 (mm): kernel1 is an extern call"))
	assert.NotEmpty(t, remarksWith(b.p, "kernel2 not fused into kernel0: it reads buf3, written by kernel1 which runs later"))
}

func TestFuseHorizontal(t *testing.T) {
	b := newSchedBuilder("horizontal")
	x := b.input("x", 8, 4)
	b.output(b.pointwise("exp", "exp", x))
	b.output(b.pointwise("neg", "neg", x))
	b.output(b.reduce("sum", ReduceSum, x, true, false))
	fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 1, b.p.String())
	assert.Equal(t, 1, countInstrs(b.p.Kernels[0], func(in *Instr) bool { return in.Op == OpLoad }), b.p.String())
}

// The copy_ epilogue into a mutated input fuses when every access is to
// the same element, and is a barrier when the group reads other elements.
func TestFuseMutatedInput(t *testing.T) {
	b := newSchedBuilder("inplace_ok")
	x := b.input("x", 8, 4)
	s := b.reduce("sum", ReduceSum, x, true, false)
	b.copyInto(x, b.pointwise("sub", "sub", x, s))
	fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 1, b.p.String())

	b = newSchedBuilder("inplace_barrier")
	x = b.input("x", 4, 4)
	b.copyInto(x, b.pointwise("add", "add", x, b.transpose(x)))
	fuseChecked(t, b.p, FuseOptions{}, nil)
	require.Len(t, b.p.Kernels, 2, b.p.String())
	assert.NotEmpty(t, remarksWith(b.p, "overwrites x"))
}

func TestFuseStageLimit(t *testing.T) {
	b := newSchedBuilder("limit")
	x := b.input("x", 8)
	for i := range 20 {
		x = b.pointwise(fmt.Sprintf("exp_%d", i), "exp", x)
	}
	b.output(x)
	stats := fuseChecked(t, b.p, FuseOptions{MaxStageInstrs: 8}, nil)
	assert.Greater(t, len(b.p.Kernels), 1)
	for _, k := range b.p.Kernels {
		for _, st := range k.Stages {
			assert.LessOrEqual(t, len(st.Body), 8)
		}
	}
	assert.Equal(t, 20-len(b.p.Kernels), stats.Fusions)
	assert.NotEmpty(t, remarksWith(b.p, "(max 8)"))
}

func TestFuseDisable(t *testing.T) {
	b, _ := softmaxProgram()
	before := b.p.String()
	stats, err := Fuse(b.p, FuseOptions{Disable: true})
	require.NoError(t, err)
	assert.Equal(t, FuseStats{KernelsBefore: 5, KernelsAfter: 5}, stats)
	assert.Equal(t, before+"# fusion disabled: one kernel per node\n", b.p.String())
}

func TestFuseDeterministic(t *testing.T) {
	dump := func() string {
		b, _ := softmaxProgram()
		_, err := Fuse(b.p, FuseOptions{})
		require.NoError(t, err)
		PlanBuffers(b.p)
		return b.p.String()
	}
	assert.Equal(t, dump(), dump())
}

func TestFuseMalformed(t *testing.T) {
	b := newSchedBuilder("bad")
	x := b.input("x", 4)
	b.pointwise("exp", "exp", x)
	b.p.Kernels[0].Stages[0].Body[0].Access = nil
	_, err := Fuse(b.p, FuseOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kernel0")
}
