package interp

import (
	"math"
	"testing"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/rt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const randomOpsFX = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64, 32][32, 1]cpu", p: "f32[64, 32][32, 1]cpu"):
        rand: "f32[64, 32][32, 1]cpu" = torch.ops.aten.rand.default([64, 32], device = device(type='cpu'), pin_memory = False)
        randn: "f32[64, 32][32, 1]cpu" = torch.ops.aten.randn.default([64, 32], device = device(type='cpu'), pin_memory = False)
        rand_like: "f32[64, 32][32, 1]cpu" = torch.ops.aten.rand_like.default(x)
        bernoulli: "f32[64, 32][32, 1]cpu" = torch.ops.aten.bernoulli.default(p)
        native_dropout = torch.ops.aten.native_dropout.default(x, 0.25, True)
        getitem: "f32[64, 32][32, 1]cpu" = native_dropout[0]
        getitem_1: "b8[64, 32][32, 1]cpu" = native_dropout[1];  native_dropout = None
        inductor_seeds: "i64[2][1]cpu" = torch.ops.prims.inductor_seeds.default(2, device(type='cpu'))
        inductor_lookup_seed: "i64[][]cpu" = torch.ops.prims.inductor_lookup_seed.default(inductor_seeds, 1)
        inductor_random: "f32[64, 32][32, 1]cpu" = torch.ops.prims.inductor_random.default([64, 32], inductor_lookup_seed, 'rand')
        return (rand, randn, rand_like, bernoulli, getitem, getitem_1, inductor_seeds, inductor_random)
`

func runRandomOps(t *testing.T, seed uint64) (*Result, []any) {
	t.Helper()
	g := parseGraph(t, randomOpsFX)
	inputs, err := MakeInputs(g, Options{Seed: 1})
	require.NoError(t, err)
	probs := inputs[1].(*Tensor).Floats()
	for i := range probs {
		probs[i] = float64(i%5) / 4 // 0, .25, .5, .75, 1
	}
	inputs[1] = FromFloats(ir.F32, []int64{64, 32}, probs)
	res, err := Run(g, CopyValues(inputs), Options{Seed: seed, CheckTypes: true})
	require.NoError(t, err)
	return res, inputs
}

// Every random op's element i is the counter-based draw of (seed, the
// node's stream, i) put through the op's transform.
func TestRandomOpsAreCounterBased(t *testing.T) {
	res, inputs := runRandomOps(t, 9)
	out := res.Outputs
	x, p := inputs[0].(*Tensor).Floats(), inputs[1].(*Tensor).Floats()
	rand, randn, randLike := floatsOf(t, out[0]), floatsOf(t, out[1]), floatsOf(t, out[2])
	bern, drop, mask := floatsOf(t, out[3]), floatsOf(t, out[4]), intsOf(t, out[5])
	seeds, irand := intsOf(t, out[6]), floatsOf(t, out[7])
	scale := float32(1 / 0.75)
	for i := range rand {
		n := int64(i)
		require.Equal(t, float64(rt.RandUniform(9, rt.StreamID("rand"), n)), rand[i])
		require.Equal(t, float64(rt.RandNormal(9, rt.StreamID("randn"), n)), randn[i])
		require.Equal(t, float64(rt.RandUniform(9, rt.StreamID("rand_like"), n)), randLike[i])
		u := rt.RandUniform(9, rt.StreamID("bernoulli"), n)
		require.Equal(t, rt.B2F(float64(u) < p[i]), bern[i])
		keep := rt.RandUniform(9, rt.StreamID("native_dropout"), n) >= 0.25
		require.Equal(t, rt.B2I(keep), mask[i])
		require.Equal(t, float64(float32(x[i])*float32(rt.B2F(keep))*scale), drop[i])
		require.Equal(t, float64(rt.RandUniform(seeds[1], 0, n)), irand[i])
	}
	assert.Equal(t, []int64{rt.RandBits(9, rt.StreamID("inductor_seeds"), 0), rt.RandBits(9, rt.StreamID("inductor_seeds"), 1)}, seeds)
}

// Values are what a random op should look like: ranges and moments, the
// bernoulli edge probabilities, dropout's keep rate.
func TestRandomOpsStatistics(t *testing.T) {
	res, inputs := runRandomOps(t, 3)
	out := res.Outputs
	mean := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	for _, k := range []int{0, 2, 7} {
		u := floatsOf(t, out[k])
		for _, v := range u {
			require.True(t, v >= 0 && v < 1, "output %d: %v out of [0, 1)", k, v)
		}
		assert.InDelta(t, 0.5, mean(u), 0.03, "output %d", k)
	}
	z := floatsOf(t, out[1])
	sq := make([]float64, len(z))
	for i, v := range z {
		sq[i] = v * v
	}
	assert.InDelta(t, 0, mean(z), 0.05)
	assert.InDelta(t, 1, mean(sq), 0.08)
	p, bern := inputs[1].(*Tensor).Floats(), floatsOf(t, out[3])
	for i := range p {
		if p[i] == 0 || p[i] == 1 {
			require.Equal(t, p[i], bern[i], "bernoulli(%v)", p[i])
		}
	}
	assert.InDelta(t, mean(p), mean(bern), 0.03)
	kept := 0.0
	for _, m := range intsOf(t, out[5]) {
		kept += float64(m)
	}
	assert.InDelta(t, 0.75, kept/2048, 0.03, "dropout keeps 1-p of the elements")
	seeds := intsOf(t, out[6])
	assert.NotEqual(t, seeds[0], seeds[1])
	assert.True(t, seeds[0] >= 0 && seeds[1] >= 0)
}

// The same seed draws the same numbers; another seed, others; two random
// nodes of one graph draw independently.
func TestRandomOpsSeeded(t *testing.T) {
	a, _ := runRandomOps(t, 5)
	b, _ := runRandomOps(t, 5)
	c, _ := runRandomOps(t, 6)
	for k := range a.Outputs {
		assert.Equal(t, a.Outputs[k].(*Tensor).Floats(), b.Outputs[k].(*Tensor).Floats(), "output %d", k)
	}
	for _, k := range []int{0, 1, 2, 6, 7} {
		assert.NotEqual(t, a.Outputs[k].(*Tensor).Floats(), c.Outputs[k].(*Tensor).Floats(), "output %d", k)
	}
	assert.NotEqual(t, floatsOf(t, a.Outputs[0]), floatsOf(t, a.Outputs[2]), "rand and rand_like draw other streams")
}

// Eval-mode dropout is the identity with an all-true mask; p = 1 drops all.
func TestDropoutEvalAndOne(t *testing.T) {
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8][1]cpu"):
        native_dropout = torch.ops.aten.native_dropout.default(x, 0.5, False)
        getitem: "f32[8][1]cpu" = native_dropout[0]
        getitem_1: "b8[8][1]cpu" = native_dropout[1];  native_dropout = None
        native_dropout_1 = torch.ops.aten.native_dropout.default(x, 1.0, True)
        getitem_2: "f32[8][1]cpu" = native_dropout_1[0]
        getitem_3: "b8[8][1]cpu" = native_dropout_1[1];  native_dropout_1 = None
        return (getitem, getitem_1, getitem_2, getitem_3)
`
	x := f32([]int64{8}, 1, -2, 3, -4, 5, -6, 7, math.Inf(1))
	res := runGraph(t, src, x)
	assert.Equal(t, x.Floats(), floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []int64{1, 1, 1, 1, 1, 1, 1, 1}, intsOf(t, res.Outputs[1]))
	dropped := floatsOf(t, res.Outputs[2])
	for i, v := range dropped[:7] {
		assert.Zero(t, v, "element %d", i)
	}
	assert.True(t, math.IsNaN(dropped[7]), "inf * 0 is NaN, as input.mul(mask)")
	assert.Equal(t, []int64{0, 0, 0, 0, 0, 0, 0, 0}, intsOf(t, res.Outputs[3]))
}

// TestIndexInputThroughWhere: cross entropy keeps ignore_index out of its
// gather with where(target != -100, target, 0) (corpus 041); the random
// labels must then be valid class indices, as for a direct gather.
func TestIndexInputThroughWhere(t *testing.T) {
	g := parseGraph(t, `
def forward(self, x: "f32[64, 5]", y: "i64[64]"):
    ne: "b8[64]" = torch.ops.aten.ne.Scalar(y, -100)
    scalar_tensor: "i64[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.int64)
    where: "i64[64]" = torch.ops.aten.where.self(ne, y, scalar_tensor)
    unsqueeze: "i64[64, 1]" = torch.ops.aten.unsqueeze.default(where, 1)
    gather: "f32[64, 1]" = torch.ops.aten.gather.default(x, 1, unsqueeze)
    return (gather,)
`)
	for seed := range uint64(5) {
		in, err := MakeInputs(g, Options{Seed: seed})
		require.NoError(t, err)
		for _, v := range in[1].(*Tensor).Ints() {
			require.True(t, v >= 0 && v < 5, "label %d", v)
		}
		_, err = Run(g, in, Options{Seed: seed})
		require.NoError(t, err)
	}
}

// TestIndexInputThroughClamp: kiln's decomposition of
// embedding_dense_backward clamps the token ids before its index_put
// (corpus 109 backward); the random ids must still be valid rows of the
// 100-row gradient, as eager's embedding requires, not negative.
func TestIndexInputThroughClamp(t *testing.T) {
	g := parseGraph(t, `
def forward(self, grad: "f32[2, 7, 4]", ids: "i64[2, 7]"):
    zeros: "f32[100, 4]" = torch.ops.aten.new_zeros.default(grad, [100, 4])
    lo: "i64[]" = torch.ops.aten.scalar_tensor.default(-100, dtype = torch.int64)
    maximum: "i64[2, 7]" = torch.ops.aten.maximum.default(ids, lo)
    hi: "i64[]" = torch.ops.aten.scalar_tensor.default(99, dtype = torch.int64)
    minimum: "i64[2, 7]" = torch.ops.aten.minimum.default(maximum, hi)
    put: "f32[100, 4]" = torch.ops.aten._unsafe_index_put.default(zeros, [minimum], grad, True)
    return (put,)
`)
	for seed := range uint64(5) {
		in, err := MakeInputs(g, Options{Seed: seed})
		require.NoError(t, err)
		for _, v := range in[1].(*Tensor).Ints() {
			require.True(t, v >= 0 && v < 100, "token id %d", v)
		}
	}
}

// TestIndexInputOfEmbeddingBackward: the embedding backward whole (kiln run's
// default pipeline keeps it) bounds its token ids by num_weights.
func TestIndexInputOfEmbeddingBackward(t *testing.T) {
	g := parseGraph(t, `
def forward(self, grad: "f32[2, 7, 4]", ids: "i64[2, 7]"):
    embedding_dense_backward: "f32[100, 4]" = torch.ops.aten.embedding_dense_backward.default(grad, ids, 100, -1, False)
    return (embedding_dense_backward,)
`)
	seen := map[int64]bool{}
	for seed := range uint64(5) {
		in, err := MakeInputs(g, Options{Seed: seed})
		require.NoError(t, err)
		for _, v := range in[1].(*Tensor).Ints() {
			require.True(t, v >= 0 && v < 100, "token id %d", v)
			seen[v] = true
		}
	}
	require.Greater(t, len(seen), 10, "ids drawn from all 100 rows, not from the 2 an unknown bound allows")
}

// TestIndexInputThroughGather: BERT gathers its token type ids out of a
// buffer before their 2-row embedding (corpus 108 forward); the buffer's
// values must be valid rows, and the positions valid columns of it.
func TestIndexInputThroughGather(t *testing.T) {
	g := parseGraph(t, `
def forward(self, pos: "i64[1, 512]", buf: "i64[1, 512]", w: "f32[2, 4]"):
    slice_1: "i64[1, 7]" = torch.ops.aten.slice.Tensor(pos, 1, 0, 7)
    gather: "i64[1, 7]" = torch.ops.aten.gather.default(buf, 1, slice_1)
    expand: "i64[2, 7]" = torch.ops.aten.expand.default(gather, [2, 7])
    embedding: "f32[2, 7, 4]" = torch.ops.aten.embedding.default(w, expand)
    return (embedding,)
`)
	requireTokenTypeIDs(t, g)
}

// TestIndexInputThroughTo: RoBERTa moves its token type buffer with
// .to(device) before the gather (testdata/dynamo/hf_roberta after the aten
// pass); the move passes the values through.
func TestIndexInputThroughTo(t *testing.T) {
	g := parseGraph(t, `
def forward(self, pos: "i64[1, 7]", buf: "i64[1, 512]", w: "f32[2, 4]"):
    to: "i64[1, 512]" = torch.ops.aten.to.dtype_layout(buf, device = device(type='cpu'))
    gather: "i64[1, 7]" = torch.ops.aten.gather.default(to, 1, pos)
    embedding: "f32[1, 7, 4]" = torch.ops.aten.embedding.default(w, gather)
    return (embedding,)
`)
	requireTokenTypeIDs(t, g)
}

// requireTokenTypeIDs: over 5 seeds, the inputs made for g give its second
// input (a token type buffer) rows of a 2-row embedding, and g runs.
func requireTokenTypeIDs(t *testing.T, g *ir.Graph) {
	t.Helper()
	for seed := range uint64(5) {
		in, err := MakeInputs(g, Options{Seed: seed})
		require.NoError(t, err)
		for _, v := range in[1].(*Tensor).Ints() {
			require.True(t, v == 0 || v == 1, "token type id %d", v)
		}
		_, err = Run(g, in, Options{Seed: seed})
		require.NoError(t, err)
	}
}
