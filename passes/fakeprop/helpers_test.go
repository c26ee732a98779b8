package fakeprop_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
)

// result is one pipeline run over an FX text.
type result struct {
	g     *ir.Graph
	diags []diag.Diagnostic
	src   string
}

// runFX parses src and runs pipeline over its first graph, with the
// verifier after every pass.
func runFX(t *testing.T, file, src, pipeline string, cfg passes.Config) *result {
	t.Helper()
	g, ctx := fxtest.Run(t, file, src, pipeline, cfg)
	return &result{g: g, diags: ctx.Diags.Items, src: src}
}

func runFile(t *testing.T, path, pipeline string, cfg passes.Config) *result {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	return runFX(t, path, string(src), pipeline, cfg)
}

// errors returns the error diagnostics.
func (r *result) errors() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range r.diags {
		if d.Severity == diag.Error {
			out = append(out, d)
		}
	}
	return out
}

// lineOf is the 1-based line of the statement that assigns name.
func (r *result) lineOf(t *testing.T, name string) int {
	for i, l := range strings.Split(r.src, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, name+":") || strings.HasPrefix(trimmed, name+" =") {
			return i + 1
		}
	}
	t.Fatalf("no statement assigns %s", name)
	return 0
}

// typeOf is the printed type of the value called name.
func (r *result) typeOf(t *testing.T, name string) string {
	for _, v := range r.g.Values() {
		if v.Name == name {
			return v.Type.String()
		}
	}
	t.Fatalf("no value %s", name)
	return ""
}

// graphOf builds a one-node FX text: inputs with annotations, one statement.
func graphOf(inputs []string, body ...string) string {
	var b strings.Builder
	b.WriteString("class GraphModule(torch.nn.Module):\n    def forward(self")
	for _, in := range inputs {
		b.WriteString(", " + in)
	}
	b.WriteString("):\n")
	last := ""
	for _, s := range body {
		b.WriteString("        " + s + "\n")
		last = strings.TrimSpace(strings.SplitN(s, "=", 2)[0])
		last = strings.SplitN(last, ":", 2)[0]
	}
	b.WriteString("        return (" + last + ",)\n")
	return b.String()
}
