package fx_test

import (
	"fmt"
	"testing"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/graphgen"
)

// BenchmarkParseBlocks parses stacks of the PyTorch-traced transformer
// block (graphgen.Blocks, the input of BenchmarkOptStages) of 10k, 100k
// and 1M nodes (the 1M graph shares its weights, as kiln's 1M input
// does); ns/node and B/node are per op node and stay flat when parsing is
// linear.
func BenchmarkParseBlocks(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			src := []byte(graphgen.Blocks(graphgen.Config{Nodes: n, SharedWeights: n >= 1_000_000}))
			var nodes int
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := fx.Parse("gen.fx", src, fx.Options{Lookup: lookup})
				if err != nil {
					b.Fatal(err)
				}
				nodes = len(res.Module.Graphs[0].Nodes)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/node")
		})
	}
}
