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

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
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
	fxtest.ForEach(t, caseDir, func(t *testing.T, path string) {
		arch, err := txtar.ParseFile(path)
		require.NoError(t, err)
		file, src := path, fxtest.Section(arch, "in.fx")
		if s := strings.TrimSpace(fxtest.Section(arch, "source")); s != "" {
			file = filepath.Join(caseDir, s)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			src = string(data)
		}
		pipeline := strings.TrimSpace(fxtest.Section(arch, "pipeline"))
		if pipeline == "" {
			pipeline = defaultPipeline
		}
		g := compile(t, file, src, pipeline)
		p, lerr := lowering.Lower(g, lowering.Options{Name: "g"})
		want, wantErr := fxtest.Section(arch, "program"), strings.TrimSpace(fxtest.Section(arch, "error"))
		if *update {
			if lerr != nil {
				fxtest.SetSection(arch, "error", lerr.Error()+"\n")
			} else {
				fxtest.SetSection(arch, "program", p.String())
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

// compile parses src and runs the pipeline; the graph must come through.
func compile(t *testing.T, file, src, pipeline string) *ir.Graph {
	t.Helper()
	return fxtest.Compile(t, file, src, pipeline)
}
