package lowering_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	. "github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/rt"
)

// Lowering, interp and the Go runtime agree on the seed symbol and on
// every node's stream.
func TestRandomNamesAgree(t *testing.T) {
	assert.Equal(t, rt.SeedSym, SeedSym)
	for _, name := range []string{"rand", "native_dropout", "inductor_random_default_1", ""} {
		assert.Equal(t, rt.StreamID(name), StreamID(name), name)
	}
	assert.Equal(t, interp.DropoutScale(0.1), 1/(1-0.1))
	assert.Zero(t, interp.DropoutScale(1))
}

// randProgram is out[x0] = rand_uniform(kiln_seed, 5, x0).
func randProgram() (*Program, *Instr) {
	out := &Buffer{ID: 0, Name: "buf0", DType: ir.F32, Size: sym.Const(8), Kind: BufOutput, Align: 64}
	x0 := sym.Symbol("x0")
	seed := &Instr{ID: 0, Op: OpIndex, DType: ir.I64, Expr: sym.Symbol(SeedSym)}
	stream := &Instr{ID: 1, Op: OpConst, DType: ir.I64, Imm: Scalar{Int: 5}}
	idx := &Instr{ID: 2, Op: OpIndex, DType: ir.I64, Expr: x0}
	draw := &Instr{ID: 3, Op: OpCall, Fn: "rand_uniform", DType: ir.F32, Args: []*Instr{seed, stream, idx}}
	st := &Instr{ID: 4, Op: OpStore, DType: ir.F32, Args: []*Instr{draw}, Access: &Access{Buffer: out, DType: ir.F32, Index: x0}}
	k := &Kernel{Name: "kernel0", Outer: []sym.Expr{sym.Const(8)}, Vec: 1, Stages: []*Stage{{Body: []*Instr{seed, stream, idx, draw, st}}}}
	return &Program{Name: "p", Syms: []string{SeedSym}, Buffers: []*Buffer{out}, Kernels: []*Kernel{k},
		Outputs: []*Result{{Name: "out", Buffer: out}}}, draw
}

func TestVerifyRandomCalls(t *testing.T) {
	p, _ := randProgram()
	require.NoError(t, Verify(p))

	p, draw := randProgram()
	draw.DType = ir.F64
	assert.ErrorContains(t, Verify(p), "rand_uniform produces f32, not f64")

	p, draw = randProgram()
	draw.Args[1] = &Instr{ID: 1, Op: OpConst, DType: ir.F32, Imm: Scalar{Float: 5}}
	p.Kernels[0].Stages[0].Body[1] = draw.Args[1]
	assert.ErrorContains(t, Verify(p), "rand_uniform operand 1 is f32, not i64")

	p, _ = randProgram()
	p.Syms = nil
	assert.ErrorContains(t, Verify(p), SeedSym, "the seed is a program symbol")
}

// Each random node draws from its own stream; a node fused into several
// consumers is recomputed with the same stream, never merged with another.
func TestRandomLowering(t *testing.T) {
	g := compile(t, "rand.fx", `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][3, 1]cpu"):
        rand: "f32[4, 3][3, 1]cpu" = torch.ops.aten.rand.default([4, 3], device = device(type='cpu'), pin_memory = False)
        rand_1: "f32[4, 3][3, 1]cpu" = torch.ops.aten.rand.default([4, 3], device = device(type='cpu'), pin_memory = False)
        add: "f32[4, 3][3, 1]cpu" = torch.ops.aten.add.Tensor(rand, rand_1)
        mul: "f32[4, 3][3, 1]cpu" = torch.ops.aten.mul.Tensor(rand, x)
        return (add, mul)
`, defaultPipeline)
	p, err := Lower(g, Options{Name: "g"})
	require.NoError(t, err)
	assert.Equal(t, []string{SeedSym}, p.Syms)
	_, err = Fuse(p, FuseOptions{})
	require.NoError(t, err)
	require.NoError(t, Verify(p), "%s", p)
	streams := map[int64]int{}
	for _, k := range p.Kernels {
		for _, st := range k.Stages {
			for _, in := range st.Body {
				if in.Op == OpCall && in.Fn == "rand_uniform" {
					streams[in.Args[1].Imm.Int]++
				}
			}
		}
	}
	assert.Len(t, streams, 2, "rand and rand_1 draw distinct streams:\n%s", p)
	assert.GreaterOrEqual(t, streams[StreamID("rand")], 1)
	assert.Equal(t, 1, streams[StreamID("rand_1")])
}

func TestRandomLoweringErrors(t *testing.T) {
	g := compile(t, "r.fx", `class GraphModule(torch.nn.Module):
    def forward(self, x: "i64[][]cpu"):
        inductor_random: "f32[4][1]cpu" = torch.ops.prims.inductor_random.default([4], x, 'randint')
        return (inductor_random,)
`, "fakeprop")
	_, err := Lower(g, Options{Name: "g"})
	require.Error(t, err)
	assert.True(t, IsNoLowering(err), "%v", err)
	assert.True(t, strings.Contains(err.Error(), `inductor_random mode "randint"`), "%v", err)
}
