package functionalize_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
	"github.com/kiln-compiler/kiln/passes/functionalize/fztest"
)

const caseDir = "../../testdata/functionalize"

// TestRegressions runs every case in testdata/functionalize and compares
// the printed graph, the remarks and the diagnostics with the case's.
func TestRegressions(t *testing.T) {
	fztest.RunCases(t, caseDir, func(t *testing.T, c *fztest.Case, r *fztest.Result) {
		if why := c.Section("novalidate"); why != "" {
			t.Logf("not validated: %s", why)
		} else if !r.Failed {
			c.Validate(t, r.Graph)
		}
	})
}

// TestFailureLeavesGraph: a functionalization that stops on an error
// leaves the graph as fakeprop left it.
func TestFailureLeavesGraph(t *testing.T) {
	for _, name := range []string{"as_strided_refused", "expand_refused"} {
		c := fztest.Load(t, caseDir+"/"+name+".txtar")
		r := c.Run(t, "")
		require.True(t, r.Failed, name)
		require.Equal(t, c.Run(t, "fakeprop").Graph.String(), r.Graph.String(), name)
	}
}

// TestIdempotent: functionalizing a functionalized graph changes nothing;
// the copy_ epilogue is recognized as a write-back and kept.
func TestIdempotent(t *testing.T) {
	for _, file := range fztest.Files(t, caseDir) {
		c := fztest.Load(t, file)
		once := c.Run(t, "fakeprop,functionalize")
		if once.Failed {
			continue
		}
		twice := c.Run(t, "fakeprop,functionalize,functionalize")
		require.False(t, twice.Failed, "%s", file)
		require.Equal(t, once.Graph.String(), twice.Graph.String(), "%s", file)
	}
}
