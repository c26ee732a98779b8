package dot_test

import (
	"testing"

	"github.com/kiln-compiler/kiln/codegen/dot"
)

// BenchmarkGraph draws a 20k-node stack of transformer blocks with its
// fused kernels as clusters (graph.dot of `kiln compile`).
func BenchmarkGraph(b *testing.B) {
	run, clusters := compileBlocks(b, 20_000)
	g := run.Module.Graphs[0]
	b.ResetTimer()
	for b.Loop() {
		_ = dot.Graph(g, dot.Options{Diags: run.Diags.Items, Clusters: clusters})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(g.Nodes)), "ns/node")
}
