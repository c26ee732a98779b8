package driver_test

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/report"
)

// The Go back end formats each kernel on its own (in parallel), once per
// shape (kernels of different layers differ only in their numbers); the
// file they make together must still be exactly what gofmt prints.
func TestGeneratedGoStaysGofmtClean(t *testing.T) {
	src := graphgen.Blocks(graphgen.Config{Nodes: 1500}) // several layers: shapes repeat
	run, err := driver.Compile(driver.Input{Name: "gen.fx", Src: []byte(src)}, driver.Options{Pipeline: driver.CompilePipeline})
	require.NoError(t, err)
	require.False(t, run.Diags.HasErrors())
	progs, err := driver.Backend(run, driver.BackendOptions{Go: true})
	require.NoError(t, err)
	require.Len(t, progs, 1)
	require.Greater(t, len(progs[0].Loop.Kernels), 20)
	formatted, err := format.Source([]byte(progs[0].Go))
	require.NoError(t, err)
	require.Equal(t, string(formatted), progs[0].Go)

	// The report shows the function that runs each kernel, cut from the
	// file, for the kernels it lists with their code (report.MaxKernels):
	// the kernel's own, or the earlier kernel's whose code it shares. The
	// rest are named only.
	kernels := progs[0].ReportKernels()
	require.Greater(t, len(kernels), report.MaxKernels)
	shared := 0
	for i, k := range kernels {
		if i >= report.MaxKernels {
			require.Empty(t, k.Code+k.LoopIR, k.Name)
			require.NotEmpty(t, k.Nodes, k.Name)
			continue
		}
		fn := k.Name
		if owner := progs[0].Loop.Kernels[i].SharesCode; owner != nil {
			fn = owner.Name
			shared++
			require.NotContains(t, progs[0].Go, "\nfunc "+k.Name+"(", "a kernel that shares code has none of its own")
		}
		require.True(t, strings.HasPrefix(k.Code, "// "+fn+" is "), "%s: %.80q", k.Name, k.Code)
		require.Contains(t, k.Code, "\nfunc "+fn+"(")
		require.True(t, strings.HasSuffix(k.Code, "\n}\n"))
		require.Equal(t, 1, strings.Count(k.Code, "\nfunc "))
	}
	require.Positive(t, shared, "the layers repeat: later ones run the first one's kernels")
}

var hostStep = regexp.MustCompile(`^(step|read)[0-9]+\(void\) \{\n`)

// Run's work grows with the graph and is cut into step functions of
// bounded size, so that building the generated module stays linear in the
// graph (one Run function of a 10k-node graph took 76 s of go build).
func TestGeneratedRunIsCutIntoSteps(t *testing.T) {
	src := graphgen.Blocks(graphgen.Config{Nodes: 3000})
	run, err := driver.Compile(driver.Input{Name: "gen.fx", Src: []byte(src)}, driver.Options{Pipeline: driver.CompilePipeline})
	require.NoError(t, err)
	progs, err := driver.Backend(run, driver.BackendOptions{Go: true, CUDA: true})
	require.NoError(t, err)
	require.Len(t, progs, 1)
	file, err := parser.ParseFile(token.NewFileSet(), "graph0.go", progs[0].Go, 0)
	require.NoError(t, err)
	steps, statements := 0, 0
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || (fn.Name.Name != "Run" && fn.Recv == nil) {
			continue
		}
		require.LessOrEqual(t, len(fn.Body.List), 200, "%s has %d statements", fn.Name.Name, len(fn.Body.List))
		if fn.Recv != nil {
			steps++
			statements += len(fn.Body.List)
		}
	}
	kernels := len(progs[0].Loop.Kernels)
	require.Greater(t, steps, kernels/128, "steps")
	require.Greater(t, statements, kernels, "every kernel is called from a step")

	// The CUDA host's main likewise: its state is at file scope and its
	// work in static step functions (a C++ compiler's cost of one function
	// grows faster than its length too).
	hostSteps, launches := 0, 0
	for _, fn := range strings.Split(progs[0].CUDA, "\nstatic void kiln_")[1:] {
		if !hostStep.MatchString(fn) {
			continue
		}
		hostSteps++
		body := fn[:strings.Index(fn, "\n}")] // the function's closing brace
		n := 0
		for _, line := range strings.Split(body, "\n")[1:] {
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && line != "  }" {
				n++ // a statement of the function's top level
			}
		}
		// 128 of the host's statements: reading an input is five of C's.
		require.LessOrEqual(t, n, 640, "kiln_%.12s has %d statements", fn, n)
		launches += strings.Count(body, "KILN_LAUNCH(")
	}
	require.Greater(t, hostSteps, kernels/128, "host steps")
	require.Equal(t, kernels, launches, "every kernel is launched from a step")
	main := progs[0].CUDA[strings.Index(progs[0].CUDA, "\nint main("):]
	require.NotContains(t, main, "KILN_LAUNCH(")
}

// The manager hashes a graph by streaming its text (Graph.WriteTo) when no
// one reads the text: the stream must be the text, byte for byte.
func TestGraphWriteToIsString(t *testing.T) {
	src := graphgen.Blocks(graphgen.Config{Nodes: 1500})
	run, err := driver.Compile(driver.Input{Name: "gen.fx", Src: []byte(src)}, driver.Options{Pipeline: driver.CompilePipeline})
	require.NoError(t, err)
	g := run.Module.Graphs[0]
	var b strings.Builder
	n, err := g.WriteTo(&b)
	require.NoError(t, err)
	text := g.String()
	require.Greater(t, len(text), 64<<10, "several flushes")
	require.Equal(t, text, b.String())
	require.Equal(t, int64(len(text)), n)
	require.Equal(t, passes.HashText(text), passes.Hash(g))
}
