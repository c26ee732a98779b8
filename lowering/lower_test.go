package lowering_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/lowering/*.txtar")

const (
	caseDir         = "../testdata/lowering"
	defaultPipeline = "fakeprop,functionalize,align,dce"
)

// A golden case is a txtar archive:
//
//	comment         what the case shows
//	-- in.fx --     the FX graph (or -- source --: a path relative to testdata/lowering)
//	-- pipeline --  optional; fakeprop,functionalize,align,dce by default
//	-- program --   the expected Program.String()
//	-- error --     instead of program: the expected Lower error (a substring)
//
// `go test ./lowering -update` rewrites program (or error) from the actual run.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(caseDir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			arch, err := txtar.ParseFile(path)
			require.NoError(t, err)
			file, src := path, section(arch, "in.fx")
			if s := strings.TrimSpace(section(arch, "source")); s != "" {
				file = filepath.Join(caseDir, s)
				data, err := os.ReadFile(file)
				require.NoError(t, err)
				src = string(data)
			}
			pipeline := strings.TrimSpace(section(arch, "pipeline"))
			if pipeline == "" {
				pipeline = defaultPipeline
			}
			g := compile(t, file, src, pipeline)
			p, lerr := lowering.Lower(g, lowering.Options{Name: "g"})
			want, wantErr := section(arch, "program"), strings.TrimSpace(section(arch, "error"))
			if *update {
				if lerr != nil {
					setSection(arch, "error", lerr.Error()+"\n")
				} else {
					setSection(arch, "program", p.String())
				}
				require.NoError(t, os.WriteFile(path, txtar.Format(arch), 0o644))
				return
			}
			if wantErr != "" {
				require.Error(t, lerr)
				assert.Contains(t, lerr.Error(), wantErr)
				return
			}
			require.NoError(t, lerr)
			require.NoError(t, lowering.Verify(p), "Lower's program fails Verify:\n%s", p)
			assert.Equal(t, want, p.String())
		})
	}
}

// compile parses src and runs the pipeline; the graph must come through.
func compile(t *testing.T, file, src, pipeline string) *ir.Graph {
	t.Helper()
	res, err := fx.Parse(file, []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	require.NotEmpty(t, res.Module.Graphs)
	g := res.Module.Graphs[0]
	pipe, err := passes.Parse(pipeline)
	require.NoError(t, err)
	ctx := passes.NewContext(passes.Config{})
	m := passes.Manager{VerifyEach: true}
	_, err = m.Run(pipe, ctx, g)
	require.NoError(t, err)
	require.False(t, ctx.Diags.HasErrors(), "%v", ctx.Diags.Items)
	return g
}

func section(a *txtar.Archive, name string) string {
	for _, f := range a.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func setSection(a *txtar.Archive, name, body string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = []byte(body)
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(body)})
}
