package graphgen_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
)

// Generated graphs parse, and their annotations are what fakeprop infers.
func TestGeneratedGraphsTypeCheck(t *testing.T) {
	for _, cfg := range []graphgen.Config{{Nodes: 200}, {Nodes: 200, Symbolic: true}, {Nodes: 200, Mutating: true}} {
		g := parse(t, graphgen.Transformer(cfg))
		require.GreaterOrEqual(t, len(g.Nodes), cfg.Nodes)
		typeCheck(t, g)
		require.NoError(t, ir.Verify(g, ir.StageTyped))
	}
}

// Blocks stacks the PyTorch-traced block: the stack parses, every
// annotation PyTorch printed is what fakeprop infers, and the whole
// compile pipeline runs without a diagnostic error.
func TestBlocksTypeCheck(t *testing.T) {
	src := graphgen.Blocks(graphgen.Config{Nodes: 300})
	g := parse(t, src)
	require.GreaterOrEqual(t, len(g.Nodes), 300*3/4, "getitems fold into their node")
	require.Len(t, g.Inputs, 1+12*5, "5 layers of 60 statements, 12 weights each")
	for _, n := range g.Nodes {
		require.NotNil(t, n.Op, "%s: %s is not a registry op", n.Name, n.Target)
	}
	typeCheck(t, g)
	outs := 0
	g.Outputs[0].Walk(func(v *ir.Value) {
		outs++
		require.Equal(t, "bf16[2, 16, 64][1024, 64, 1]cuda:0", v.Type.String())
	})
	require.Equal(t, 1, outs)
}

// SharedWeights keeps one set of weights for every layer.
func TestBlocksSharedWeights(t *testing.T) {
	src := graphgen.Blocks(graphgen.Config{Nodes: 300, SharedWeights: true})
	g := parse(t, src)
	require.Len(t, g.Inputs, 13)
	typeCheck(t, g)
	require.Equal(t, 5*12, g.Inputs[1].NumUses()+g.Inputs[2].NumUses()+countUses(g, 3, 12), "every layer reads the shared weights")
}

func countUses(g *ir.Graph, from, to int) int {
	n := 0
	for _, v := range g.Inputs[from : to+1] {
		n += v.NumUses()
	}
	return n
}

// TrainingBlocks stacks the PyTorch-traced training step: every annotation
// PyTorch printed is what fakeprop infers, a layer reads the previous
// layer's input gradient, and every layer's loss and weight gradients are
// outputs.
func TestTrainingBlocksTypeCheck(t *testing.T) {
	src := graphgen.TrainingBlocks(graphgen.Config{Nodes: 500})
	g := parse(t, src)
	for _, n := range g.Nodes {
		require.NotNil(t, n.Op, "%s: %s is not a registry op", n.Name, n.Target)
	}
	layers := (len(g.Inputs) - 1) / 12
	require.Equal(t, 1+12*layers, len(g.Inputs))
	require.GreaterOrEqual(t, layers, 3)
	typeCheck(t, g)

	var outs []*ir.Value
	for _, o := range g.Outputs {
		o.Walk(func(v *ir.Value) { outs = append(outs, v) })
	}
	require.Len(t, outs, 13*layers+1, "each layer's loss and 12 weight gradients, and the last input gradient")
	require.Equal(t, "f32[][]cpu", outs[0].Type.String(), "the loss")
	require.Equal(t, "bf16[2, 16, 64][1024, 64, 1]cpu", outs[len(outs)-1].Type.String(), "the input gradient")
	for i, v := range outs[:len(outs)-1] {
		if i%13 == 1 { // layer i/13's first weight gradient is ln1's weight
			require.Equal(t, "bf16[64][1]cpu", v.Type.String(), "output %d", i)
		}
	}
	// Layer 1's first node normalizes layer 0's input gradient.
	var ln1 *ir.Node
	for _, n := range g.Nodes {
		if n.Name == "native_layer_norm_L1" {
			ln1 = n
		}
	}
	require.NotNil(t, ln1)
	require.Equal(t, "add_5_L0", ln1.Args[0].Value.Name)
}

// parse reads a generated graph.
func parse(t *testing.T, src string) *ir.Graph {
	t.Helper()
	res, err := fx.Parse("gen.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	return res.Module.Graphs[0]
}

// typeCheck runs fakeprop over g, verifying the IR after it: no error,
// and every annotation PyTorch printed is what fakeprop infers.
func typeCheck(t *testing.T, g *ir.Graph) {
	t.Helper()
	p, err := passes.Parse("fakeprop")
	require.NoError(t, err)
	ctx := passes.NewContext(passes.Config{})
	_, err = (&passes.Manager{VerifyEach: true}).Run(p, ctx, g)
	require.NoError(t, err)
	require.False(t, ctx.Diags.HasErrors(), "%+v", ctx.Diags.Items)
	require.Empty(t, ctx.Diags.Filter("type-mismatch"), "annotations must match inference")
}
