package decompose_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	"github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
	"github.com/kiln-compiler/kiln/passes/functionalize/fztest"
)

// The regression cases share fztest's txtar format (pipeline, input.fx,
// output.fx, remarks, diagnostics; `go test -update` rewrites the expected
// sections).
const caseDir = "../../testdata/decompose"

// TestRegressions runs every case, compares the printed graph, remarks
// and diagnostics with the case's, and validates the decomposition:
// interp runs the graph before decompose and after it on the same random
// inputs (three seeds), and outputs must agree within the dtype's
// tolerance (torch.testing.assert_close's defaults), with the decomposed
// graph's runtime types checked against its static ones.
func TestRegressions(t *testing.T) {
	fztest.RunCases(t, caseDir, func(t *testing.T, c *fztest.Case, r *fztest.Result) {
		require.False(t, r.Failed, "the pipeline failed:\n%s", r.Diagnostics())
		require.NotEmpty(t, decomposedOps(r.Diags), "the case decomposes nothing")
		if why := c.Section("novalidate"); why != "" {
			t.Logf("not validated: %s", why)
			return
		}
		validate(t, c, r.Graph)
	})
}

func validate(t *testing.T, c *fztest.Case, after *ir.Graph) {
	t.Helper()
	before := c.Run(t, withoutDecompose(c.Pipeline))
	require.False(t, before.Failed)
	for _, seed := range fztest.Seeds {
		require.NoError(t, fztest.Equivalent(before.Graph, after, seed), "seed %d", seed)
	}
}

// withoutDecompose drops the decompose steps (and what follows them) from
// a pipeline: the reference graph.
func withoutDecompose(pipeline string) string {
	var kept []string
	for _, p := range strings.Split(pipeline, ",") {
		if strings.TrimSpace(p) == "decompose" {
			break
		}
		kept = append(kept, p)
	}
	return strings.Join(kept, ",")
}

var remarkOp = regexp.MustCompile(`^\S+ \(([^)]+)\) became `)

// decomposedOps lists the ops the decompose remarks say were decomposed.
func decomposedOps(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if d.Severity == diag.Remark && d.Code == decompose.RemarkDecomposed {
			if m := remarkOp.FindStringSubmatch(d.Message); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// TestTableCoverage: every row names a registered op, no op has two rows,
// and every decomposition is exercised by at least one regression case.
func TestTableCoverage(t *testing.T) {
	seen := map[string]bool{}
	for _, file := range fztest.Files(t, caseDir) {
		r := fztest.Load(t, file).Run(t, "")
		for _, op := range decomposedOps(r.Diags) {
			seen[op] = true
		}
	}
	rows := map[string]bool{}
	for _, rule := range decompose.Rules() {
		require.False(t, rows[rule.Op], "%s has two rows", rule.Op)
		rows[rule.Op] = true
		require.NotNil(t, ops.Lookup(rule.Op), "%s is not a registered op", rule.Op)
		require.Equal(t, rule.Op, ops.Lookup(rule.Op).QualifiedName(), "rows use qualified names")
		require.NotEmpty(t, rule.Note, "%s has no note", rule.Op)
		if !rule.Whole() {
			require.True(t, seen[rule.Op], "no regression case exercises the decomposition of %s", rule.Op)
		}
	}
	for op := range seen {
		r, ok := decompose.Lookup(op)
		require.True(t, ok && !r.Whole(), "%s was decomposed without a table row", op)
	}
}
