package fxtest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
)

const addGraph = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][3, 1]cpu"):
        add: "f32[4, 3][3, 1]cpu" = torch.ops.aten.add.Tensor(x, x)
        return (add,)
`

func TestSections(t *testing.T) {
	a := txtar.Parse([]byte("comment\n-- input.fx --\nx\n"))
	assert.Equal(t, "x\n", fxtest.Section(a, "input.fx"))
	assert.Equal(t, "", fxtest.Section(a, "output"))
	fxtest.SetSection(a, "input.fx", "y\n")
	fxtest.SetSection(a, "output", "p\n")
	assert.Equal(t, "comment\n-- input.fx --\ny\n-- output --\np\n", string(txtar.Format(a)))
	// a legacy name would read "" forever: asking for one is a runner bug
	assert.Panics(t, func() { fxtest.Section(a, "in.fx") })
}

func TestCompileTypesTheGraph(t *testing.T) {
	g := fxtest.Compile(t, "t.fx", addGraph, "fakeprop")
	require.Len(t, g.Nodes, 1)
	assert.Equal(t, "f32[4, 3][3, 1]cpu", g.Nodes[0].Results[0].Type.String())
}

// Run hands error diagnostics back to the caller (Compile fails on them).
func TestRunKeepsErrorDiagnostics(t *testing.T) {
	bad := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu", y: "f32[3][1]cpu"):
        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(x, y)
        return (add,)
`
	_, ctx := fxtest.Run(t, "t.fx", bad, "fakeprop", passes.Config{})
	assert.True(t, ctx.Diags.HasErrors(), "shapes 4 and 3 do not broadcast")
}

func TestForEachRunsEveryCase(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.txtar", "a.txtar", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("-- x --\n"), 0o644))
	}
	var seen []string
	fxtest.ForEach(t, dir, func(t *testing.T, file string) {
		seen = append(seen, t.Name()[len("TestForEachRunsEveryCase/"):]+" "+filepath.Base(file))
	})
	assert.Equal(t, []string{"a a.txtar", "b b.txtar"}, seen)
}

func TestFlatten(t *testing.T) {
	got := fxtest.Flatten([]any{1, []any{2, []any{3, 4}}, []any{}, 5})
	assert.Equal(t, []any{1, 2, 3, 4, 5}, got)
	assert.Empty(t, fxtest.Flatten(nil))
}
