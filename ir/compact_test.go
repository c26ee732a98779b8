package ir_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

const compactSrc = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 6]", y: "f32[4, 6]"):
        a = torch.ops.aten.add.Tensor(x, y)
        dead = torch.ops.aten.neg.default(a)
        s = torch.ops.aten.split.Tensor(a, 2, dim = 1)
        s0 = s[0]
        s1 = s[1]
        s2 = s[2]
        dead2 = torch.ops.aten.relu.default(s2)
        c = torch.ops.aten.cat.default([s0, s1, x], 1)
        d = torch.ops.aten.mul.Tensor(c, 2.0)
        return (d, s0)
`

// Compact copies the live nodes into fresh chunks: the graph prints and
// verifies as before, nothing in it points at an old node or value, and
// it can be edited afterwards.
func TestCompactKeepsTheGraph(t *testing.T) {
	res, err := fx.Parse("t.fx", []byte(compactSrc), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	g := res.Module.Graphs[0]
	dead := map[*ir.Node]bool{}
	for _, n := range g.Nodes {
		if n.Name == "dead" || n.Name == "dead2" {
			dead[n] = true
		}
	}
	require.Len(t, dead, 2)
	g.RemoveDead(dead)
	want := g.String()
	old := map[any]bool{}
	for _, v := range g.Inputs {
		old[v] = true
	}
	for _, n := range g.Nodes {
		old[n] = true
		for _, r := range n.Results {
			old[r] = true
		}
	}

	g.Compact()
	require.NoError(t, ir.Verify(g, ir.StageParsed))
	assert.Equal(t, want, g.String())
	live := map[any]bool{}
	for _, v := range g.Inputs {
		assert.False(t, old[v], "input %s was not moved", v.Name)
		live[v] = true
	}
	for _, n := range g.Nodes {
		assert.False(t, old[n], "node %s was not moved", n.Name)
		live[n] = true
		for _, r := range n.Results {
			assert.False(t, old[r], "value %s was not moved", r.Name)
			assert.Same(t, n, r.Def)
			live[r] = true
		}
	}
	for _, n := range g.Nodes {
		n.WalkInputs(func(v *ir.Value) {
			assert.True(t, live[v], "%s reads a value outside the graph: %s", n.Name, v.Name)
			assert.Contains(t, v.Users(), n, "%s is not among %s's users", n.Name, v.Name)
		})
	}
	for _, o := range g.Outputs {
		o.Walk(func(v *ir.Value) { assert.True(t, live[v], "output %s", v.Name) })
	}

	// Still editable: d now reads the sum instead of the cat.
	cat, mul := g.Nodes[len(g.Nodes)-2], g.Nodes[len(g.Nodes)-1]
	require.Equal(t, "c", cat.Name)
	mul.SetArgs([]ir.Arg{ir.ValueArg(g.Nodes[0].Out()), ir.FloatArg(2)}, nil)
	g.Remove(cat)
	require.NoError(t, ir.Verify(g, ir.StageParsed))
	assert.Contains(t, g.String(), "d = torch.ops.aten.mul.Tensor(a, 2.0);  a = None")
}

// A value of another graph (a verifier error, but Compact must not make it
// worse) is left as it is, though its ID is one of this graph's.
func TestCompactLeavesForeignValues(t *testing.T) {
	res, err := fx.Parse("t.fx", []byte(compactSrc), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	g := res.Module.Graphs[0]
	other := ir.NewGraph("other")
	foreign := other.AddInput("foreign", g.Inputs[0].Type, diag.Pos{})
	require.Equal(t, g.Inputs[0].ID, foreign.ID, "the IDs collide")
	mul := g.Nodes[len(g.Nodes)-1]
	mul.SetArgs([]ir.Arg{ir.ValueArg(foreign), ir.FloatArg(2)}, nil)
	g.Compact()
	mul = g.Nodes[len(g.Nodes)-1]
	assert.Same(t, foreign, mul.Args[0].Value)
	assert.NotSame(t, g.Inputs[0], mul.Args[0].Value)
}
