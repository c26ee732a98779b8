package testgraphs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/ir"
)

// Every tensor value counts, each symbol (backed or unbacked) at the
// default given; scalars do not.
func TestElements(t *testing.T) {
	g := fxtest.Parse(t, "e.fx", `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[s0, 3][3, 1]cpu", n: "Sym(s0)"):
        y: "f32[s0, 3][3, 1]cpu" = torch.ops.aten.relu.default(x)
        z: "f32[u0 + 1][1]cpu" = torch.ops.aten.sum.dim_IntList(x, [1])
        return (y, z)
`)
	assert.Equal(t, int64(8*3+8*3+9), testgraphs.Elements(g, 8))
	assert.Equal(t, int64(2*3+2*3+3), testgraphs.Elements(g, 2))
}

// ForEach visits every graph that parses, with header types on the
// inputs an unannotated corpus graph leaves untyped.
func TestForEach(t *testing.T) {
	files := map[string]bool{}
	var header ir.Type
	testgraphs.ForEach(t, "../../testdata", func(tg testgraphs.Graph, gi int, g *ir.Graph) {
		files[tg.Name] = true
		if strings.Contains(tg.Name, "018_fz_simple") {
			require.Len(t, g.Inputs, 1)
			header = g.Inputs[0].Type
			assert.Equal(t, tg.Types["arg0_1"], header)
		}
	})
	assert.Greater(t, len(files), 100)
	assert.True(t, header.IsKnown(), "018_fz_simple's input gets its header type")
}
