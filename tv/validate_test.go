package tv

import (
	"bytes"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/interp"
	"testing"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// badPass rewrites every add.Tensor into sub.Tensor: a wrong pass.
type badPass struct{}

func (badPass) Name() string { return "tv-test-add-to-sub" }

func (badPass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	changed := false
	for _, n := range g.Nodes {
		if n.Target == "aten::add.Tensor" {
			n.Target = "aten::sub.Tensor"
			n.Op = ops.Lookup("aten::sub.Tensor")
			changed = true
		}
	}
	return changed, nil
}

// dropMutation removes an in-place op whose result is unused: the outputs
// stay the same, only the input's final contents change.
type dropMutation struct{}

func (dropMutation) Name() string { return "tv-test-drop-mutation" }

func (dropMutation) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	for _, n := range g.Nodes {
		if n.Target == "aten::mul_.Tensor" {
			g.Remove(n)
			return true, nil
		}
	}
	return false, nil
}

func init() {
	passes.Register(passes.Info{Name: "tv-test-add-to-sub", Summary: "test: a wrong pass",
		New: func(passes.Options) (passes.Pass, error) { return badPass{}, nil }})
	passes.Register(passes.Info{Name: "tv-test-drop-mutation", Summary: "test: drops an input mutation",
		New: func(passes.Options) (passes.Pass, error) { return dropMutation{}, nil }})
}

const tvGraphSrc = `
def forward(self, x: "f32[3]", y: "f32[3]"):
    mul_: "f32[3]" = torch.ops.aten.mul_.Tensor(y, 2);  mul_ = None
    add: "f32[3]" = torch.ops.aten.add.Tensor(x, 1)
    mul: "f32[3]" = torch.ops.aten.mul.Tensor(add, x)
    return (mul,)
`

func runPipeline(t *testing.T, pipeline string) (*Validator, error) {
	g := parseGraph(t, tvGraphSrc)
	pipe, err := passes.Parse(pipeline)
	require.NoError(t, err)
	var log bytes.Buffer
	v := &Validator{Options: interp.Options{Seed: 3}, Log: &log}
	m := passes.Manager{}
	v.Install(&m)
	_, err = m.Run(pipe, passes.NewContext(passes.Config{}), g)
	return v, err
}

func TestValidatorCatchesWrongPass(t *testing.T) {
	v, err := runPipeline(t, "dce,tv-test-add-to-sub")
	require.Error(t, err)
	assert.True(t, IsMismatch(err))
	var d *diag.Diagnostic
	require.ErrorAs(t, err, &d)
	assert.Equal(t, "tv-test-add-to-sub", d.Pass)
	assert.Contains(t, d.Message, "pass tv-test-add-to-sub changed the graph's results: output 0 (mul) changed: values differ")
	assert.Contains(t, d.Message, "worst at [")
	assert.Contains(t, d.Message, "first differing value: add (aten::sub.Tensor)")
	assert.Equal(t, 4, d.Pos.Line, "positioned at the first differing node")
	require.Len(t, v.Records, 2)
	assert.Equal(t, "unchanged", v.Records[0].Status)
	assert.Equal(t, "failed", v.Records[1].Status)
}

func TestValidatorComparesInputMutations(t *testing.T) {
	_, err := runPipeline(t, "tv-test-drop-mutation")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input y (its final contents: an input mutation) changed")
}

func TestValidatorPassesGoodPipeline(t *testing.T) {
	v, err := runPipeline(t, "fakeprop,cse,dce")
	require.NoError(t, err)
	assert.NotEmpty(t, v.Records)
	for _, r := range v.Records {
		assert.NotEqual(t, "failed", r.Status)
	}
}

func TestCloneIsDeep(t *testing.T) {
	g := parseGraph(t, tvGraphSrc)
	c := ir.Clone(g)
	assert.Equal(t, g.String(), c.String())
	require.NoError(t, ir.Verify(c, ir.StageParsed))
	c.Nodes[1].Results[0].Type.Tensor.Shape[0] = sym3()
	c.Remove(c.Nodes[0])
	assert.Len(t, g.Nodes, 3)
	assert.Equal(t, "f32[3]", g.Nodes[1].Results[0].Type.Tensor.String())
	for _, n := range c.Nodes {
		n.WalkInputs(func(v *ir.Value) {
			for _, in := range g.Inputs {
				assert.NotSame(t, in, v, "clone uses its own values")
			}
		})
	}
}

func sym3() sym.Expr { return sym.Const(4) }

func parseGraph(t *testing.T, src string) *ir.Graph {
	t.Helper()
	res, err := fx.Parse("test.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	require.NotEmpty(t, res.Module.Graphs)
	return res.Module.Graphs[0]
}
