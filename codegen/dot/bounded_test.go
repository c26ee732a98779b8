package dot_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/dot"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/internal/graphgen"
)

func compileBlocks(t testing.TB, nodes int) (*driver.Run, map[string]string) {
	src := graphgen.Blocks(graphgen.Config{Nodes: nodes})
	run, err := driver.Compile(driver.Input{Name: "gen.fx", Src: []byte(src)}, driver.Options{Pipeline: driver.CompilePipeline})
	require.NoError(t, err)
	require.False(t, run.Diags.HasErrors())
	progs, err := driver.Backend(run, driver.BackendOptions{})
	require.NoError(t, err)
	clusters := map[string]string{}
	for _, k := range progs[0].Loop.Kernels {
		for _, o := range k.Origins {
			clusters[o] = k.Name
		}
	}
	return run, clusters
}

// A drawing above MaxDrawn never reaches Graphviz: SVG refuses it at once,
// and the error says how to get the drawing.
func TestSVGRefusesLargeDrawing(t *testing.T) {
	run, _ := compileBlocks(t, 3000)
	_, err := dot.SVG(context.Background(), dot.Graph(run.Module.Graphs[0], dot.Options{}))
	var big *dot.TooLargeError
	require.True(t, errors.As(err, &big), "%v", err)
	require.Greater(t, big.Drawn, dot.MaxDrawn)
	require.Contains(t, err.Error(), "dot -Tsvg")
}

// Above the limit, compile's drawing is one box per fused kernel; above it
// again, a note naming the full DOT file.
func TestDrawingFallsBackToKernelsThenNote(t *testing.T) {
	run, clusters := compileBlocks(t, 700)
	g := run.Module.Graphs[0]
	svg, note, err := dot.Drawing(context.Background(), g, dot.Options{Clusters: clusters}, "graph.dot")
	require.NoError(t, err)
	require.Contains(t, note, "one box per fused kernel")
	require.Contains(t, note, "graph.dot")
	require.Contains(t, string(svg), "kernel0")
	require.Contains(t, string(svg), "node(s)")

	run, clusters = compileBlocks(t, 20000)
	svg, note, err = dot.Drawing(context.Background(), run.Module.Graphs[0], dot.Options{Clusters: clusters}, "graph.dot")
	require.NoError(t, err)
	require.Contains(t, note, "is not drawn")
	require.True(t, strings.HasPrefix(string(svg), "<svg"), "%s", svg)
	require.Contains(t, string(svg), "dot -Tsvg graph.dot")
	require.Less(t, len(svg), 1000)
}
