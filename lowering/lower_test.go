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
//	comment            what the case shows
//	-- input.fx --     the FX graph (or -- input.path --: a path relative to testdata/lowering)
//	-- pipeline --     optional; fakeprop,functionalize,align,dce by default
//	-- output --       the expected Program.String()
//	-- diagnostics --  instead of output: the expected Lower error (a substring)
//
// `go test ./lowering -update` rewrites output (or diagnostics) from the actual run.
func TestGolden(t *testing.T) {
	fxtest.ForEach(t, caseDir, func(t *testing.T, path string) {
		arch, err := txtar.ParseFile(path)
		require.NoError(t, err)
		file, src := path, fxtest.Section(arch, "input.fx")
		if s := strings.TrimSpace(fxtest.Section(arch, "input.path")); s != "" {
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
		want, wantErr := fxtest.Section(arch, "output"), strings.TrimSpace(fxtest.Section(arch, "diagnostics"))
		if *update {
			if lerr != nil {
				fxtest.SetSection(arch, "diagnostics", lerr.Error()+"\n")
			} else {
				fxtest.SetSection(arch, "output", p.String())
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
