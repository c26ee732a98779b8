// Package fxtest holds the test helpers that kiln's packages share: parse
// an FX text, run a pass pipeline over it with the verifier after every
// pass, and walk a folder of txtar regression cases. It is imported by
// tests only; it imports the pass registry but no pass, so a test names
// the passes it needs with blank imports.
package fxtest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/lit"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// Parse parses src (file names it in positions) and returns its first
// graph.
func Parse(t testing.TB, file, src string) *ir.Graph {
	t.Helper()
	res, err := fx.Parse(file, []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	require.NotEmpty(t, res.Module.Graphs)
	return res.Module.Graphs[0]
}

// RunPipeline runs pipeline over g with the verifier after every pass and
// returns the context (diagnostics, remarks) and the manager's error.
func RunPipeline(t testing.TB, g *ir.Graph, pipeline string, cfg passes.Config) (*passes.Context, error) {
	t.Helper()
	p, err := passes.Parse(pipeline)
	require.NoError(t, err)
	ctx := passes.NewContext(cfg)
	_, err = (&passes.Manager{VerifyEach: true}).Run(p, ctx, g)
	return ctx, err
}

// Run parses src and runs pipeline over it; the manager must not fail
// (error diagnostics are the caller's to check).
func Run(t testing.TB, file, src, pipeline string, cfg passes.Config) (*ir.Graph, *passes.Context) {
	t.Helper()
	g := Parse(t, file, src)
	ctx, err := RunPipeline(t, g, pipeline, cfg)
	require.NoError(t, err, "%s: internal failure", file)
	return g, ctx
}

// Compile is Run where the graph must come through: no error diagnostics.
func Compile(t testing.TB, file, src, pipeline string) *ir.Graph {
	t.Helper()
	g, ctx := Run(t, file, src, pipeline, passes.Config{})
	require.False(t, ctx.Diags.HasErrors(), "%v", ctx.Diags.Items)
	return g
}

// Files lists the txtar cases in dir; there must be some.
func Files(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no cases in %s", dir)
	return files
}

// ForEach runs fn as a subtest per txtar case in dir, named by the file.
func ForEach(t *testing.T, dir string, fn func(t *testing.T, file string)) {
	t.Helper()
	for _, file := range Files(t, dir) {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) { fn(t, file) })
	}
}

// Section is the named section's text, "" when absent; it reads through
// internal/lit, so name must be a vocabulary word.
func Section(a *txtar.Archive, name string) string { return lit.Section(a, name) }

// SetSection replaces the named section's text, appending the section
// when absent (through internal/lit).
func SetSection(a *txtar.Archive, name, body string) { lit.SetSection(a, name, body) }

// Flatten lists nested tuple outputs (interp's []any) element by element,
// as lowering numbers a program's results.
func Flatten(vals []any) []any {
	var out []any
	for _, v := range vals {
		if list, ok := v.([]any); ok {
			out = append(out, Flatten(list)...)
			continue
		}
		out = append(out, v)
	}
	return out
}
