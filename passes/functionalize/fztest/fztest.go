// Package fztest runs the regression cases of the functionalize and vmap
// passes: txtar files holding an input graph, a pipeline, and the expected
// printed IR, remarks and diagnostics. `go test -update` rewrites the
// expected sections from what kiln does now; review the diff against
// PyTorch's behaviour before keeping it.
//
// Sections:
//
//	-- pipeline --     the passes to run (fakeprop,functionalize)
//	-- input.fx --     the graph
//	-- output.fx --    the graph after the pipeline (absent when it failed)
//	-- remarks --      remarks of every pass but fakeprop: "L<line> <code>: <message>"
//	-- diagnostics --  warnings and errors: "L<line>:<col> <severity>[<code>]: <message>"
//	-- novalidate --   why the case is not run through interp (rare; say why)
//
// The archive's comment says what the case checks and where its expected
// values come from.
package fztest

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/lit"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

// Update is the -update flag of the test binaries that use this package.
var Update = flag.Bool("update", false, "rewrite the expected sections of the regression cases")

// Case is one regression file.
type Case struct {
	File     string
	Archive  *txtar.Archive
	Pipeline string
	Input    string
}

// Load reads a case.
func Load(t *testing.T, file string) *Case {
	t.Helper()
	a, err := txtar.ParseFile(file)
	require.NoError(t, err)
	c := &Case{File: file, Archive: a}
	c.Pipeline = strings.TrimSpace(c.Section("pipeline"))
	c.Input = c.Section("input.fx")
	require.NotEmpty(t, c.Pipeline, "%s: no pipeline section", file)
	require.NotEmpty(t, c.Input, "%s: no input.fx section", file)
	return c
}

// Files lists the cases in dir.
func Files(t *testing.T, dir string) []string { return fxtest.Files(t, dir) }

// RunCases is the regression runner: a subtest per case in dir loads it,
// runs its pipeline, checks (or under -update rewrites) the expected
// sections, then calls then for the package's own checks.
func RunCases(t *testing.T, dir string, then func(t *testing.T, c *Case, r *Result)) {
	fxtest.ForEach(t, dir, func(t *testing.T, file string) {
		c := Load(t, file)
		r := c.Run(t, "")
		c.Check(t, r)
		then(t, c, r)
	})
}

// Section returns the named section's text, "" when absent.
func (c *Case) Section(name string) string { return fxtest.Section(c.Archive, name) }

// Has reports whether the case has the named section.
func (c *Case) Has(name string) bool { return lit.Has(c.Archive, name) }

// Result is one run of a case.
type Result struct {
	Graph  *ir.Graph
	Diags  []diag.Diagnostic
	Failed bool // the pipeline stopped on an error diagnostic
}

// Parse parses the case's input graph.
func (c *Case) Parse(t testing.TB) *ir.Graph {
	t.Helper()
	return fxtest.Parse(t, "input.fx", c.Input)
}

// Run parses the input and runs pipeline (the case's when "") with the
// verifier after every pass.
func (c *Case) Run(t testing.TB, pipeline string) *Result {
	t.Helper()
	if pipeline == "" {
		pipeline = c.Pipeline
	}
	g, ctx := fxtest.Run(t, "input.fx", c.Input, pipeline, passes.Config{})
	return &Result{Graph: g, Diags: ctx.Diags.Items, Failed: ctx.Diags.HasErrors()}
}

// Remarks formats the remarks of every pass but fakeprop.
func (r *Result) Remarks() string {
	var b strings.Builder
	for _, d := range r.Diags {
		if d.Severity == diag.Remark && d.Pass != "fakeprop" {
			fmt.Fprintf(&b, "L%d %s: %s\n", d.Pos.Line, d.Code, d.Message)
		}
	}
	return b.String()
}

// Diagnostics formats warnings and errors.
func (r *Result) Diagnostics() string {
	var b strings.Builder
	for _, d := range r.Diags {
		if d.Severity != diag.Remark {
			fmt.Fprintf(&b, "L%d:%d %s[%s]: %s\n", d.Pos.Line, d.Pos.Col, d.Severity, d.Code, d.Message)
		}
	}
	return b.String()
}

// Output is the printed graph, "" when the pipeline failed.
func (r *Result) Output() string {
	if r.Failed {
		return ""
	}
	return r.Graph.String()
}

// Check compares the result with the case's expected sections, or
// rewrites them under -update (lit.Golden: empty sections are dropped).
func (c *Case) Check(t *testing.T, r *Result) {
	t.Helper()
	got := map[string]string{"output.fx": r.Output(), "remarks": r.Remarks(), "diagnostics": r.Diagnostics()}
	lit.Golden{File: c.File, Archive: c.Archive, Names: []string{"output.fx", "remarks", "diagnostics"}, Drop: true}.Check(t, got, *Update)
}
