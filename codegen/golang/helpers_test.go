package golang

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
)

// The pipelines the FX-driven tests run before Lower.
const (
	basePipeline      = "fakeprop,functionalize,align,dce"
	decomposePipeline = "fakeprop,functionalize,decompose,align,dce"
)

// fxCase is one FX graph taken through the whole pipeline: passes, Lower,
// Fuse, PlanBuffers (then Generate, go build and run in the tests).
type fxCase struct {
	name string
	g    *ir.Graph
	prog *lowering.Program
}

func (c fxCase) program() *lowering.Program { return c.prog }

// lowerFX runs src (file names it in positions) through pipeline (which
// must not fail; diagnostics are the caller's to check, see lowerGraph).
func lowerFX(t *testing.T, file, name, src, pipeline string) fxCase {
	t.Helper()
	g, _ := fxtest.Run(t, file, src, pipeline, passes.Config{})
	return lowerGraph(t, name, g)
}

// lowerGraph takes g through Lower (as package name), Fuse and
// PlanBuffers; the program must verify after fusion and after planning.
func lowerGraph(t *testing.T, name string, g *ir.Graph) fxCase {
	t.Helper()
	p, err := lowering.Lower(g, lowering.Options{Name: name})
	require.NoError(t, err, name)
	_, err = lowering.Fuse(p, lowering.FuseOptions{})
	require.NoError(t, err, name)
	require.NoError(t, lowering.Verify(p), "%s fused:\n%s", name, p)
	lowering.Plan(p)
	require.NoError(t, lowering.Verify(p), "%s planned:\n%s", name, p)
	return fxCase{name: name, g: g, prog: p}
}

// fxProgram is lowerFX of an inline graph under decomposePipeline.
func fxProgram(t *testing.T, name, src string) fxCase {
	t.Helper()
	return lowerFX(t, name+".fx", name, src, decomposePipeline)
}

// forEachArchive calls fn for every txtar archive matching pattern (there
// must be some), with its path, the package name its file name gives, and
// the archive.
func forEachArchive(t *testing.T, pattern string, fn func(path, name string, arch *txtar.Archive)) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no cases match %s", pattern)
	for _, path := range paths {
		arch, err := txtar.ParseFile(path)
		require.NoError(t, err)
		fn(path, PackageName(strings.TrimSuffix(filepath.Base(path), ".txtar")), arch)
	}
}

// programs lists the cases' programs, for buildModule.
func programs[C interface{ program() *lowering.Program }](cases []C) []*lowering.Program {
	progs := make([]*lowering.Program, len(cases))
	for i, c := range cases {
		progs[i] = c.program()
	}
	return progs
}
