package fakeprop_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/lit"
	"github.com/kiln-compiler/kiln/passes"
)

// TestRegressions runs testdata/fakeprop/*.txtar in the vocabulary of
// internal/lit: input.fx, the pipeline, any extra files (written next to
// each other; $DIR in the pipeline names their folder), and `output`: lines
// `type NAME TYPE` and `diag LINE CODE MESSAGE`. Every error the run
// reports must be wanted.
func TestRegressions(t *testing.T) {
	fxtest.ForEach(t, "../../testdata/fakeprop", func(t *testing.T, file string) {
		ar, err := txtar.ParseFile(file)
		require.NoError(t, err)
		dir := t.TempDir()
		for _, f := range ar.Files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644))
		}
		input, _ := lit.Get(ar, "input")
		pipeline, _ := lit.Get(ar, "pipeline")
		want, ok := lit.Get(ar, "output")
		require.True(t, ok, "a case says what it expects")
		pipeline = strings.ReplaceAll(strings.TrimSpace(pipeline), "$DIR", dir)
		r := runFX(t, "input.fx", input, pipeline, passes.Config{})
		checkWant(t, r, want)
	})
}

func checkWant(t *testing.T, r *result, want string) {
	wanted := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		kind, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch kind {
		case "type":
			name, typ, _ := strings.Cut(rest, " ")
			assert.Equal(t, typ, r.typeOf(t, name), name)
		case "diag":
			f := strings.SplitN(rest, " ", 3)
			require.Len(t, f, 3, line)
			ln, err := strconv.Atoi(f[0])
			require.NoError(t, err)
			wanted[f[0]+" "+f[1]] = true
			assert.True(t, hasDiag(r.diags, ln, f[1], f[2]), "missing diagnostic %q in %v", line, r.diags)
		default:
			t.Fatalf("bad want line %q", line)
		}
	}
	for _, d := range r.errors() {
		assert.True(t, wanted[strconv.Itoa(d.Pos.Line)+" "+d.Code], "unexpected error %s", d)
	}
}

func hasDiag(ds []diag.Diagnostic, line int, code, msg string) bool {
	for _, d := range ds {
		if d.Pos.Line == line && d.Code == code && d.Message == msg {
			return true
		}
	}
	return false
}
