package passes_test

import (
	"testing"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
)

// BenchmarkManagerOverhead runs cheap passes on a 100k-node graph, so the
// manager's own work (fingerprinting the graph around every pass,
// verifying it) is what the time measures.
func BenchmarkManagerOverhead(b *testing.B) {
	src := graphgen.Transformer(graphgen.Config{Nodes: 100_000})
	pipe, err := passes.Parse("fakeprop,dce,dce,dce,dce")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		res, err := fx.Parse("gen.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
		if err != nil {
			b.Fatal(err)
		}
		g := res.Module.Graphs[0]
		ctx := passes.NewContext(passes.Config{})
		b.StartTimer()
		if _, err := (&passes.Manager{}).Run(pipe, ctx, g); err != nil || ctx.Diags.HasErrors() {
			b.Fatalf("pipeline: %v %v", err, ctx.Diags.Items)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/node")
}
