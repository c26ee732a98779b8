package driver_test

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/codegen/dot"
	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/lowering"
)

var (
	benchHuge  = flag.Bool("bench.huge", false, "BenchmarkCompileStages also runs 1M nodes (about a minute and several GB)")
	benchNodes = flag.Int("bench.nodes", 0, "BenchmarkCompileStages runs this size only")
	benchGraph = flag.String("bench.graph", "blocks", "the generated graph: blocks, training (graphgen.TrainingBlocks), transformer, mutations")
)

// benchSource is the -bench.graph generator's graph of about n nodes. At
// 1M nodes, 200k separate weights make a 7 MB signature line, past
// limits.LineBytes: the layers share theirs.
func benchSource(b *testing.B, n int) []byte {
	cfg := graphgen.Config{Nodes: n, SharedWeights: n >= 1_000_000}
	switch *benchGraph {
	case "blocks":
		return []byte(graphgen.Blocks(cfg))
	case "training":
		return []byte(graphgen.TrainingBlocks(cfg))
	case "transformer":
		return []byte(graphgen.Transformer(graphgen.Config{Nodes: n, Symbolic: true}))
	case "mutations":
		return []byte(graphgen.Mutations(graphgen.Config{Nodes: n}))
	}
	b.Fatalf("-bench.graph=%s: want blocks, training, transformer or mutations", *benchGraph)
	return nil
}

// BenchmarkCompileStages runs the whole of `kiln compile` (every dump but
// the SVG, which dot bounds separately) on stacks of the PyTorch-traced
// transformer block (graphgen.Blocks: bf16, cuda:0, layer norm, attention,
// MLP; another generator with -bench.graph) of 10k and 100k nodes (1M
// with -bench.huge), and reports each
// stage's cost per node: STAGE-ns/node and STAGE-B/node (bytes allocated).
// Linear stages keep both flat across sizes.
func BenchmarkCompileStages(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if *benchHuge {
		sizes = append(sizes, 1_000_000)
	}
	if *benchNodes > 0 {
		sizes = []int{*benchNodes}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			src := benchSource(b, n)
			st := stageTimer{}
			var nodes int
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				nodes = compileStages(b, src, &st)
			}
			st.report(b, nodes)
		})
	}
}

// compileStages is `kiln compile`'s work split into timed stages; it
// returns the node count after the passes.
func compileStages(b *testing.B, src []byte, st *stageTimer) int {
	var run *driver.Run
	st.time("parse+passes", func() {
		var err error
		run, err = driver.Compile(driver.Input{Name: "gen.fx", Src: src},
			driver.Options{Pipeline: driver.CompilePipeline, Record: true})
		if err != nil || run.Diags.HasErrors() {
			b.Fatalf("compile: %v %v", err, firstErrors(run))
		}
	})
	g := run.Module.Graphs[0]
	var loop *lowering.Program
	var pre string
	st.time("lower", func() {
		var err error
		if loop, err = lowering.Lower(g, lowering.Options{Name: "graph0"}); err != nil {
			b.Fatal(err)
		}
		pre = loop.String()
	})
	st.time("fuse+plan", func() {
		if _, err := lowering.Fuse(loop, lowering.FuseOptions{}); err != nil {
			b.Fatal(err)
		}
		lowering.Plan(loop)
	})
	st.time("verify", func() {
		if err := lowering.Verify(loop); err != nil {
			b.Fatal(err)
		}
	})
	var goSrc []byte
	st.time("codegen-go", func() {
		var err error
		if goSrc, err = golang.Generate(loop, "graph0"); err != nil {
			b.Fatal(err)
		}
	})
	st.time("codegen-cuda", func() {
		if _, err := cuda.Generate(loop); err != nil {
			b.Fatal(err)
		}
	})
	st.time("dump-fx", func() { _ = run.Module.Print() })
	st.time("dump-dot", func() { _ = dot.Graph(g, dot.Options{Diags: run.Diags.Items}) })
	st.time("dump-report", func() {
		rec := run.Stages[0]
		rec.AddForm("lower", pre)
		rec.Add("plan", loop.String())
		rec.Kernels = (&driver.Program{Graph: g, PreFusion: pre, Loop: loop, Go: string(goSrc)}).ReportKernels()
		var page strings.Builder
		if err := rec.Write(&page, run.Diags.Items); err != nil {
			b.Fatal(err)
		}
	})
	return len(g.Nodes)
}

// BenchmarkCompileDumps is `kiln compile` (all dumps) as the CLI runs it:
// driver.Compile recording every pass into driver.Dumps (each dump written
// as its stage finishes), driver.Backend (lower, verify, fuse, plan, go and
// cuda at once, through the pass manager), driver.WriteOutputs for the rest
// and the wait for the writer; per phase ns/node and B/node, and each
// back-end stage's ns/node as the manager timed it.
func BenchmarkCompileDumps(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if *benchNodes > 0 {
		sizes = []int{*benchNodes}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			src := benchSource(b, n)
			st := stageTimer{}
			manager := map[string]time.Duration{}
			var nodes int
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var run *driver.Run
				dir := b.TempDir()
				dumps := driver.NewDumps(dir) // as the CLI: each stage's dump written as it finishes
				st.time("parse+passes", func() {
					var err error
					run, err = driver.Compile(driver.Input{Name: "gen.fx", Src: src},
						driver.Options{Pipeline: driver.CompilePipeline, Record: true, Dumps: dumps})
					if err != nil || run.Diags.HasErrors() {
						b.Fatalf("compile: %v %v", err, firstErrors(run))
					}
				})
				nodes = len(run.Module.Graphs[0].Nodes)
				var progs []*driver.Program
				st.time("back-end", func() {
					var err error
					if progs, err = driver.Backend(run, driver.BackendOptions{Go: true, CUDA: true}); err != nil || len(progs) != 1 {
						b.Fatalf("back end: %v", err)
					}
				})
				for _, pr := range progs[0].Passes {
					manager[pr.Pass] += pr.Duration
				}
				st.time("dumps", func() {
					if err := driver.WriteOutputs(dir, "", false, run, progs); err != nil {
						b.Fatal(err)
					}
				})
			}
			st.report(b, nodes)
			for stage, d := range manager {
				b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(nodes), stage+"-ns/node")
			}
		})
	}
}

func firstErrors(run *driver.Run) string {
	if run == nil {
		return ""
	}
	var s []string
	for _, d := range run.Diags.Items {
		if d.Severity.String() == "error" && len(s) < 3 {
			s = append(s, d.String())
		}
	}
	return strings.Join(s, "\n")
}

// stageTimer sums time and allocated bytes per stage.
type stageTimer struct {
	names []string
	ns    map[string]time.Duration
	bytes map[string]uint64
}

func (s *stageTimer) time(name string, f func()) {
	if s.ns == nil {
		s.ns, s.bytes = map[string]time.Duration{}, map[string]uint64{}
	}
	if _, ok := s.ns[name]; !ok {
		s.names = append(s.names, name)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	f()
	s.ns[name] += time.Since(start)
	runtime.ReadMemStats(&m1)
	s.bytes[name] += m1.TotalAlloc - m0.TotalAlloc
}

func (s *stageTimer) report(b *testing.B, nodes int) {
	per := float64(b.N) * float64(nodes)
	for _, name := range s.names {
		b.ReportMetric(float64(s.ns[name].Nanoseconds())/per, name+"-ns/node")
		b.ReportMetric(float64(s.bytes[name])/per, name+"-B/node")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/node")
}
