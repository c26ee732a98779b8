package passes_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

// Test passes, registered once for this package's tests.
type funcPass struct {
	name string
	run  func(ctx *passes.Context, g *ir.Graph) (bool, error)
}

func (p funcPass) Name() string { return p.name }
func (p funcPass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	return p.run(ctx, g)
}

func register(name string, requires []passes.Requirement, opts []passes.OptionInfo, run func(*passes.Context, *ir.Graph) (bool, error)) {
	passes.Register(passes.Info{Name: name, Summary: "test pass", Requires: requires, Options: opts,
		New: func(passes.Options) (passes.Pass, error) { return funcPass{name, run}, nil }})
}

func init() {
	nop := func(*passes.Context, *ir.Graph) (bool, error) { return false, nil }
	register("t-nop", nil, []passes.OptionInfo{{Name: "level", Doc: "a level"}}, nop)
	register("t-needs-nop", []passes.Requirement{{Pass: "t-nop", Reason: "it needs nop's facts"}}, nil, nop)
	register("t-panic", nil, nil, func(ctx *passes.Context, g *ir.Graph) (bool, error) {
		for _, n := range g.Nodes {
			ctx.At(n)
			if n.Name == "b" {
				var m map[string]int
				m["boom"]++ // a nil-map write: a pass bug
			}
		}
		return false, nil
	})
	register("t-corrupts-then-panics", nil, nil, func(ctx *passes.Context, g *ir.Graph) (bool, error) {
		g.Nodes[0].Results[0] = nil // a graph the printer cannot print
		ctx.At(g.Nodes[1])
		var m map[string]int
		m["boom"]++
		return true, nil
	})
	register("t-liar", nil, nil, func(ctx *passes.Context, g *ir.Graph) (bool, error) {
		g.Nodes[0].Name = "renamed"
		return false, nil // claims no change
	})
	register("t-breaks-uses", nil, nil, func(ctx *passes.Context, g *ir.Graph) (bool, error) {
		g.Nodes = g.Nodes[1:] // drops a definition that is still used
		return true, nil
	})
	register("t-diag", nil, nil, func(ctx *passes.Context, g *ir.Graph) (bool, error) {
		ctx.Remark(g.Nodes[0], "t", "looked at %s", g.Nodes[0].Name)
		return false, ctx.Errorf(g.Nodes[1], "t-error", "fix it", "node %s is wrong", g.Nodes[1].Name)
	})
}

func graph(t *testing.T) *ir.Graph {
	res, err := fx.Parse("g.fx", []byte(`def forward(self, x):
    a = torch.ops.aten.neg.default(x)
    b = torch.ops.aten.neg.default(a)
    return (b,)
`), fx.Options{})
	require.NoError(t, err)
	return res.Module.Graphs[0]
}

func TestPipelineParse(t *testing.T) {
	p, err := passes.Parse("t-nop{level=2},t-needs-nop")
	require.NoError(t, err)
	require.Len(t, p.Steps, 2)
	assert.Equal(t, "2", p.Steps[0].Options["level"])
	assert.Equal(t, "t-nop{level=2},t-needs-nop", p.String())

	_, err = passes.Parse("t-needs-nop,t-nop")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "t-needs-nop must run after t-nop: it needs nop's facts")

	_, err = passes.Parse("t-nop,nosuch")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown pass "nosuch"`)

	_, err = passes.Parse("t-nop{colour=red}")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `has no option "colour"`)

	for _, bad := range []string{"t-nop,,t-nop", "t-nop{level=1", "t-nop}"} {
		_, err = passes.Parse(bad)
		assert.Error(t, err, bad)
	}
	p, err = passes.Parse("")
	require.NoError(t, err)
	assert.Empty(t, p.Steps)
}

func run(t *testing.T, pipeline string, m passes.Manager) (*passes.Context, *passes.Result, error) {
	p, err := passes.Parse(pipeline)
	require.NoError(t, err)
	ctx := passes.NewContext(passes.Config{})
	res, err := m.Run(p, ctx, graph(t))
	return ctx, res, err
}

func TestPanicBecomesErrorNamingPassAndNode(t *testing.T) {
	_, _, err := run(t, "t-panic", passes.Manager{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pass t-panic panicked at node b (aten::neg.default, g.fx:3:5)")
}

// A pass that breaks the graph before it panics: the manager reports the
// panic instead of panicking again while printing what the pass left.
func TestPanicAfterCorruptingTheGraph(t *testing.T) {
	_, _, err := run(t, "t-corrupts-then-panics", passes.Manager{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pass t-corrupts-then-panics panicked at node b")
}

func TestManagerCatchesUnreportedChange(t *testing.T) {
	_, _, err := run(t, "t-liar", passes.Manager{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reported no change but changed the graph")
}

func TestManagerVerifiesAfterChange(t *testing.T) {
	dir := t.TempDir()
	_, _, err := run(t, "t-nop,t-breaks-uses", passes.Manager{ReproDir: dir})
	require.Error(t, err)
	var verr *ir.VerifyError
	require.True(t, errors.As(err, &verr))
	assert.Contains(t, err.Error(), "after pass t-breaks-uses")
	assert.FileExists(t, dir+"/repro.fx", "a failing pass leaves a reproducer")
}

func TestDiagnosticsStopThePipeline(t *testing.T) {
	ctx, res, err := run(t, "t-diag,t-nop", passes.Manager{})
	require.NoError(t, err, "input problems are diagnostics, not errors")
	require.Len(t, res.Passes, 1, "the pipeline stops at the pass that reported an error")
	assert.Equal(t, []string{"t: looked at a"}, ctx.Remarks("t-diag"))
	require.True(t, ctx.Diags.HasErrors())
	d := ctx.Diags.Filter("t-error")[0]
	assert.Equal(t, "g.fx:3:5: error[t-error]: node b is wrong\n    hint: fix it", d.String())
}

func TestPrintAfter(t *testing.T) {
	var out bytes.Buffer
	_, res, err := run(t, "t-nop,t-needs-nop", passes.Manager{Out: &out, PrintAfter: map[string]bool{"t-needs-nop": true}})
	require.NoError(t, err)
	assert.Len(t, res.Passes, 2)
	assert.NotContains(t, out.String(), "IR after t-nop ")
	assert.Contains(t, out.String(), "# -- IR after t-needs-nop (changed=false) --\nclass GraphModule")
}

// With TrustUnchanged a pass's claim is believed where no one reads the
// graph's text (kiln opt without -verify-each): no hash, no print; with
// VerifyEach the claim is checked again.
func TestManagerTrustsUnchangedWhenAsked(t *testing.T) {
	_, res, err := run(t, "t-liar", passes.Manager{TrustUnchanged: true})
	require.NoError(t, err)
	assert.Zero(t, res.Passes[0].HashIn)
	assert.Zero(t, res.Passes[0].HashOut)
	_, _, err = run(t, "t-liar", passes.Manager{TrustUnchanged: true, VerifyEach: true})
	require.ErrorContains(t, err, "reported no change but changed the graph")
	_, _, err = run(t, "t-liar", passes.Manager{TrustUnchanged: true, KeepText: true})
	require.ErrorContains(t, err, "reported no change but changed the graph", "text printed anyway: checked")
}
