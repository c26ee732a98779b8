package dce_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/cse"
	_ "github.com/kiln-compiler/kiln/passes/dce"
)

// runPipeline parses src, runs pipeline with verification after every pass,
// and returns the graph and the context.
func runPipeline(t *testing.T, pipeline, src string) (*ir.Graph, *passes.Context) {
	t.Helper()
	return fxtest.Run(t, "t.fx", src, pipeline, passes.Config{})
}

func names(g *ir.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.Name)
	}
	return out
}

func TestDCE(t *testing.T) {
	g, ctx := runPipeline(t, "dce", `def forward(self, x, y):
    a = torch.ops.aten.relu.default(x)
    dead1 = torch.ops.aten.neg.default(a)
    dead2 = torch.ops.aten.exp.default(dead1)
    add_ = torch.ops.aten.add_.Tensor(y, 1)
    s = torch.ops.aten._local_scalar_dense.default(x)
    ge = s >= 0
    _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression u0 >= 0 on node 'ge'")
    opaque = torch.ops.mylib.foo.default(x)
    unused_view = torch.ops.aten.view.default(x, [-1])
    return (a,)
`)
	// Dead chains go in one sweep; mutations, asserts (and what feeds
	// them) and unknown ops stay.
	assert.Equal(t, []string{"a", "add_", "s", "ge", "_assert_scalar", "opaque"}, names(g))
	assert.Equal(t, []string{
		"dce: removed unused_view (aten::view.default): result unused",
		"dce: removed dead2 (aten::exp.default): result unused",
		"dce: removed dead1 (aten::neg.default): result unused",
	}, ctx.Remarks("dce"))
}

func TestCSE(t *testing.T) {
	g, ctx := runPipeline(t, "cse,dce", `def forward(self, x, s0):
    a = torch.ops.aten.relu.default(x)
    b = torch.ops.aten.relu.default(x)
    c = torch.ops.aten.add.Tensor(a, b)
    d = torch.ops.aten.add.Tensor(a, b, alpha = 2)
    r1 = torch.ops.aten.rand.default([2], device = device(type='cpu'), pin_memory = False)
    r2 = torch.ops.aten.rand.default([2], device = device(type='cpu'), pin_memory = False)
    p = s0 + 1
    q = s0 + 1
    return (c, d, r1, r2, p, q)
`)
	// b merges into a, q into p; calls that differ in a keyword and random
	// ops stay apart.
	assert.Equal(t, []string{"a", "c", "d", "r1", "r2", "p"}, names(g))
	assert.Equal(t, "c = torch.ops.aten.add.Tensor(a, a)", callLine(g, "c"))
	assert.Equal(t, []string{"cse: b is the same computation as a", "cse: q is the same computation as p"}, ctx.Remarks("cse"))
}

func TestCSESkipsMutatingGraphs(t *testing.T) {
	g, ctx := runPipeline(t, "cse", `def forward(self, x):
    a = torch.ops.aten.add.Tensor(x, 1)
    add_ = torch.ops.aten.add_.Tensor(x, 1)
    b = torch.ops.aten.add.Tensor(x, 1)
    return (a, b)
`)
	assert.Equal(t, []string{"a", "add_", "b"}, names(g), "a and b read x before and after the mutation")
	assert.Equal(t, []string{"cse: skipped: add_ mutates its input; run functionalize first"}, ctx.Remarks("cse"))
}

func callLine(g *ir.Graph, name string) string {
	for _, n := range g.Nodes {
		if n.Name == name {
			return n.Name + " = " + n.Call()
		}
	}
	return ""
}
