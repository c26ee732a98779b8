package passes_test

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
)

var (
	optHuge  = flag.Bool("opt.huge", false, "BenchmarkOptStages also runs 1M nodes (several GB)")
	optNodes = flag.Int("opt.nodes", 0, "BenchmarkOptStages runs this size only")
)

// BenchmarkOptStages is `kiln opt`'s work on stacks of the PyTorch-traced
// transformer block (graphgen.Blocks: bf16, cuda:0, layer norm, attention,
// MLP) of 10k and 100k nodes (1M with -opt.huge; the layers then share
// their weights, as kiln's 1M-node input does): parse, the default
// pipeline fakeprop,functionalize,align,dce through the pass manager as
// `kiln opt` sets it up (verifying after each pass that changed the
// graph), and printing the result. Each stage reports STAGE-ns/node and
// STAGE-B/node (bytes allocated) per input node; linear stages keep both
// flat across sizes.
func BenchmarkOptStages(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if *optHuge {
		sizes = append(sizes, 1_000_000)
	}
	if *optNodes > 0 {
		sizes = []int{*optNodes}
	}
	pipe, err := passes.Parse("fakeprop,functionalize,align,dce")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			src := []byte(graphgen.Blocks(graphgen.Config{Nodes: n, SharedWeights: n >= 1_000_000}))
			stages := []string{"parse", "fakeprop", "functionalize", "align", "dce", "verify+manager", "print"}
			ns := make(map[string]time.Duration)
			bytes := make(map[string]uint64)
			var nodes int
			allocated := func() uint64 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return ms.TotalAlloc
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t0, a0 := time.Now(), allocated()
				res, err := fx.Parse("gen.fx", src, fx.Options{Lookup: ops.LookupSchema})
				if err != nil {
					b.Fatal(err)
				}
				ns["parse"] += time.Since(t0)
				t1, a1 := time.Now(), allocated()
				bytes["parse"] += a1 - a0
				g := res.Module.Graphs[0]
				nodes = len(g.Nodes)
				if err := ir.Verify(g, ir.StageParsed); err != nil {
					b.Fatal(err)
				}
				ctx := passes.NewContext(passes.Config{})
				r, err := (&passes.Manager{TrustUnchanged: true}).Run(pipe, ctx, g)
				if err != nil || ctx.Diags.HasErrors() {
					b.Fatalf("pipeline: %v", err)
				}
				total := time.Since(t1)
				for _, p := range r.Passes {
					ns[p.Pass] += p.Duration
					total -= p.Duration
				}
				ns["verify+manager"] += total
				t2, a2 := time.Now(), allocated()
				bytes["passes+verify"] += a2 - a1 // the manager does not split bytes by pass
				if _, err := res.Module.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
				ns["print"] += time.Since(t2)
				bytes["print"] += allocated() - a2
			}
			for _, s := range stages {
				b.ReportMetric(float64(ns[s].Nanoseconds())/float64(b.N)/float64(nodes), s+"-ns/node")
			}
			for _, s := range []string{"parse", "passes+verify", "print"} {
				b.ReportMetric(float64(bytes[s])/float64(b.N)/float64(nodes), s+"-B/node")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nodes), "ns/node")
		})
	}
}

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
