package fakeprop_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/fakeprop"
)

// TestCompiledCorpusFullyTyped: the graphs tools/corpus/gen.py recorded
// from torch.compile and torch.export (testdata/corpus/1NN_*) are typed by
// kiln's own rules, every annotated node, with one deliberate exception: a
// custom op the corpus ops file does not declare, which is typed from its
// annotation with a warning (evidence in the input).
func TestCompiledCorpusFullyTyped(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/1[0-9][0-9]_*.fx.txt")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 9)
	opsFile := "../../testdata/customops/corpus.ops"
	opsSrc, err := os.ReadFile(opsFile)
	require.NoError(t, err)
	reg, err := ops.LoadCustomOps(ops.Default(), opsFile, opsSrc)
	require.NoError(t, err)
	total, fromAnnot := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		res, err := fx.Parse(file, src, fx.Options{Lookup: ops.LookupSchema})
		require.NoError(t, err, file)
		for _, g := range res.Module.Graphs {
			for _, n := range g.Nodes {
				for _, v := range n.Results {
					if v.Annot.IsKnown() {
						total++
					}
				}
			}
			ctx := passes.NewContext(passes.Config{Extra: map[string]any{fakeprop.ExtraRegistry: reg}})
			p, err := passes.Parse("fakeprop")
			require.NoError(t, err)
			_, err = p.Steps[0].Pass.Run(ctx, g)
			require.NoError(t, err, file)
			for _, d := range ctx.Diags.Items {
				assert.NotEqual(t, "error", d.Severity.String(), "%s: %s", file, d)
				if d.Code == fakeprop.RemarkFromAnnotation {
					fromAnnot++
					assert.Equal(t, "warning", d.Severity.String())
					assert.Contains(t, d.Message, "clip_norm", "%s: only the undeclared custom op may be typed from its annotation", file)
				}
			}
		}
	}
	t.Logf("compiled corpus: %d annotated values in %d graphs; %d typed from the annotation (the undeclared custom op)", total, len(files), fromAnnot)
	assert.Equal(t, 1, fromAnnot)
}
