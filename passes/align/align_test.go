package align_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/lit"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/align/*.txtar from the actual output")

const caseDir = "../../testdata/align"

// A regression case is a txtar archive in internal/lit's vocabulary:
//
//	-- input.path --    path of an FX file, relative to testdata/align (or:)
//	-- input.fx --      the FX graph itself
//	-- pipeline --      the pipeline to run
//	-- output.facts --  every value with attributes: `name align=N vec=W`
//	-- output.nodes --  the statements the pipeline added, as printed
//	-- diagnostics --   warnings and errors: `severity[code] node: message`
//	-- remarks --       the align pass's remarks
//	-- tv --            optional: translation-validation settings (see tv_test.go)
//
// Expected sections are exact. `go test ./passes/align -update` rewrites
// the output, diagnostics and remarks sections from the actual run.
type regCase struct {
	path     string
	arch     *txtar.Archive
	file     string // FX source name, for positions
	src      string
	pipeline string
}

func loadCases(t *testing.T) []*regCase {
	t.Helper()
	var out []*regCase
	for _, p := range fxtest.Files(t, caseDir) {
		arch, err := txtar.ParseFile(p)
		require.NoError(t, err)
		c := &regCase{path: p, arch: arch, pipeline: strings.TrimSpace(fxtest.Section(arch, "pipeline"))}
		if src := strings.TrimSpace(fxtest.Section(arch, "input.path")); src != "" {
			c.file = filepath.Join(caseDir, src)
			data, err := os.ReadFile(c.file)
			require.NoError(t, err, p)
			c.src = string(data)
		} else {
			c.file, c.src = p, fxtest.Section(arch, "input.fx")
		}
		require.NotEmpty(t, c.pipeline, "%s: no pipeline", p)
		out = append(out, c)
	}
	return out
}

// run is one pipeline run over a case.
type run struct {
	g      *ir.Graph
	before map[string]bool // node names before the pipeline
	ctx    *passes.Context
	err    error
}

func runCase(t *testing.T, c *regCase) *run {
	t.Helper()
	g := fxtest.Parse(t, c.file, c.src)
	r := &run{g: g, before: map[string]bool{}}
	for _, n := range g.Nodes {
		r.before[n.Name] = true
	}
	r.ctx, r.err = fxtest.RunPipeline(t, g, c.pipeline, passes.Config{})
	return r
}

func (r *run) facts() string {
	var b strings.Builder
	for _, v := range r.g.Values() {
		if len(v.Attrs) > 0 {
			fmt.Fprintf(&b, "%s %s\n", v.Name, v.Attrs)
		}
	}
	return b.String()
}

// nodes prints the statements of the nodes the pipeline added.
func (r *run) nodes() string {
	added := map[string]bool{}
	for _, n := range r.g.Nodes {
		if !r.before[n.Name] {
			added[n.Name] = true
		}
	}
	var b strings.Builder
	for _, line := range strings.Split(r.g.String(), "\n") {
		s := strings.TrimSpace(line)
		name, _, _ := strings.Cut(s, " ")
		name = strings.TrimSuffix(name, ":")
		if added[name] && strings.Contains(s, " = ") {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}

func (r *run) diags() string {
	var b strings.Builder
	for _, d := range r.ctx.Diags.Items {
		if d.Severity != diag.Remark {
			fmt.Fprintf(&b, "%s[%s] %s: %s\n", d.Severity, d.Code, d.Node, d.Message)
		}
	}
	return b.String()
}

func (r *run) remarks() string {
	var b strings.Builder
	for _, s := range r.ctx.Remarks("align") {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// TestCases runs every regression case under testdata/align.
func TestCases(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(strings.TrimSuffix(filepath.Base(c.path), ".txtar"), func(t *testing.T) {
			r := runCase(t, c)
			require.NoError(t, r.err)
			got := map[string]string{"output.facts": r.facts(), "output.nodes": r.nodes(), "diagnostics": r.diags(), "remarks": r.remarks()}
			g := lit.Golden{File: c.path, Archive: c.arch, Names: []string{"output.facts", "output.nodes", "diagnostics", "remarks"}, Trim: true}
			g.Check(t, got, *update)
			if t.Failed() {
				t.Logf("IR:\n%s", r.g)
			}
		})
	}
}
