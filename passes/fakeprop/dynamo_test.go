package fakeprop_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/fakeprop"
)

// TestDynamoGraphsTyped strips every annotation but the inputs' from the
// Dynamo-level graphs PyTorch printed (testdata/dynamo, tools/dynamo/gen.py:
// torch functions, Tensor methods, Python operators on tensors, indexing)
// and requires fakeprop to infer each annotated value exactly as PyTorch's
// fake tensors typed it.
func TestDynamoGraphsTyped(t *testing.T) {
	files, err := filepath.Glob("../../testdata/dynamo/*.fx.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	total, matched := 0, 0
	var misses []string
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		res, err := fx.Parse(file, src, fx.Options{Lookup: ops.LookupSchema})
		require.NoError(t, err, file)
		for _, g := range res.Module.Graphs {
			ctx := inferFromInputs(t, file, g, passes.Config{})
			why := map[string]string{}
			for _, d := range ctx.Diags.Items {
				if d.Code == fakeprop.RemarkFromAnnotation || d.Severity >= 2 || d.Code == "fakeprop" {
					why[d.Node] += " " + d.Message
				}
			}
			for _, n := range g.Nodes {
				for _, v := range n.Results {
					if !v.Annot.IsKnown() {
						continue
					}
					total++
					switch {
					case why[n.Name] != "":
						misses = append(misses, fmt.Sprintf("%s:%s (%s): not inferred:%s", filepath.Base(file), v.Name, n.Target, why[n.Name]))
					case !fakeprop.Agrees(v.Annot, v.Type):
						misses = append(misses, fmt.Sprintf("%s:%s (%s): PyTorch %s, kiln %s", filepath.Base(file), v.Name, n.Target, v.Annot, v.Type))
					default:
						matched++
					}
				}
			}
		}
	}
	t.Logf("Dynamo graphs: %d/%d annotated values inferred as PyTorch typed them", matched, total)
	require.Empty(t, misses, "%d of %d values:\n%s", len(misses), total, strings.Join(misses, "\n"))
}
