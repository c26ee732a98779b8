package lowering

import (
	"fmt"
	"testing"
	"time"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// BenchmarkLowerFusePlan lowers, fuses and plans generated transformer-like
// graphs (layer norms, matmuls, softmax-ish reductions, pointwise chains,
// symbolic batch s0) of 10k and 100k nodes. ns/node (all three steps) and
// fuse-ns/node (Fuse + PlanBuffers alone) should stay flat across sizes:
// the scheduler is linear.
func BenchmarkLowerFusePlan(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			g := benchGraph(b, n)
			nodes := float64(len(g.Nodes))
			var fuseTime time.Duration
			var stats FuseStats
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p, err := Lower(g, Options{})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				stats, err = Fuse(p, FuseOptions{})
				if err != nil {
					b.Fatal(err)
				}
				PlanBuffers(p)
				fuseTime += time.Since(start)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nodes, "ns/node")
			b.ReportMetric(float64(fuseTime.Nanoseconds())/float64(b.N)/nodes, "fuse-ns/node")
			b.ReportMetric(float64(stats.KernelsBefore)/float64(stats.KernelsAfter), "kernels-before/after")
		})
	}
}

func benchGraph(b testing.TB, n int) *ir.Graph {
	src := graphgen.Transformer(graphgen.Config{Nodes: n, Symbolic: true})
	res, err := fx.Parse("gen.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	if err != nil {
		b.Fatal(err)
	}
	g := res.Module.Graphs[0]
	pipe, err := passes.Parse("fakeprop,functionalize,align,dce")
	if err != nil {
		b.Fatal(err)
	}
	ctx := passes.NewContext(passes.Config{})
	if _, err := (&passes.Manager{}).Run(pipe, ctx, g); err != nil || ctx.Diags.HasErrors() {
		b.Fatalf("pipeline: %v %v", err, ctx.Diags.Items)
	}
	return g
}
