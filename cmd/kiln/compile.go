package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/codegen/dot"
	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// compileFlags are compile's own flags.
type compileFlags struct {
	outDir, target string
	noFuse, ptx    bool
}

func runCompile(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf compileFlags
	start := time.Now()
	run, status := compileWith("compile", args, stdin, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&cf.outDir, "o", "kiln-out", "output folder")
		fs.StringVar(&cf.target, "target", "", "go: write a buildable Go module into the output folder instead of the dumps; cuda: write only the CUDA C")
		fs.BoolVar(&cf.ptx, "ptx", false, "also compile the CUDA C to PTX with clang (graphN.ptx)")
		fs.BoolVar(&cf.noFuse, "no-fuse", false, "lower without fusion: one kernel per node")
	}, func(o *driver.Options) {
		o.Record = true
	})
	if run == nil || run.Module == nil {
		return status
	}
	if cf.target != "" && cf.target != "go" && cf.target != "cuda" {
		fmt.Fprintf(stderr, "kiln compile: unknown -target %q (known: go, cuda)\n", cf.target)
		return 2
	}
	printed := len(run.Diags.Items) // compileWith printed these
	progs, err := driver.Backend(run, driver.BackendOptions{Fuse: lowering.FuseOptions{Disable: cf.noFuse},
		Go: cf.target != "cuda", CUDA: cf.target != "go"})
	if err != nil {
		fmt.Fprintf(stderr, "kiln compile: %v\n", err)
		return 1
	}
	printDiags(stderr, run.Diags.Items[printed:])
	if run.Diags.HasErrors() {
		status = 1
	}
	od, err := openOutDir(cf.outDir)
	if err != nil {
		fmt.Fprintf(stderr, "kiln compile: %v\n", err)
		return 1
	}
	switch cf.target {
	case "go":
		err = writeGoModule(cf.outDir, progs)
	case "cuda":
		err = writeCUDA(cf.outDir, progs, cf.ptx)
	default:
		if err = writeCompileDumps(cf.outDir, run, progs); err == nil {
			err = writeCUDA(cf.outDir, progs, cf.ptx)
		}
	}
	if err == nil {
		err = od.close()
	}
	if err != nil {
		fmt.Fprintf(stderr, "kiln compile: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, compileSummary(run, progs, cf, time.Since(start)))
	return status
}

// compileSummary is the one line compile prints: what ran, what came out.
func compileSummary(run *driver.Run, progs []*driver.Program, cf compileFlags, elapsed time.Duration) string {
	var pipeline string
	if len(run.Results) > 0 && run.Results[0] != nil {
		names := make([]string, len(run.Results[0].Passes))
		for i, p := range run.Results[0].Passes {
			names[i] = p.Pass
		}
		pipeline = strings.Join(names, ",")
	}
	before, after, fusions := 0, 0, 0
	for _, p := range progs {
		before += p.Stats.KernelsBefore
		after += p.Stats.KernelsAfter
		fusions += p.Stats.Fusions
	}
	what := map[string]string{"": "dumps", "go": "Go module", "cuda": "CUDA C"}[cf.target]
	return fmt.Sprintf("kiln compile: %d graph(s), %d node(s); passes %s; %d kernel(s) from %d (%d fusion(s)); %s; %s in %s",
		len(run.Module.Graphs), countNodes(run), pipeline, after, before, fusions, elapsed.Round(time.Microsecond), what, cf.outDir)
}

func countNodes(run *driver.Run) int {
	n := 0
	for _, g := range run.Module.Graphs {
		n += len(g.Nodes)
	}
	return n
}

func writeGoModule(dir string, progs []*driver.Program) error {
	if len(progs) == 0 {
		return fmt.Errorf("no graph was lowered, so there is no code to write")
	}
	return golang.WriteModule(dir, "kilngen", driver.LoopPrograms(progs))
}

// writeCUDA writes graphN.cu per program, and graphN.ptx when ptx is set
// (clang must be installed).
func writeCUDA(dir string, progs []*driver.Program, ptx bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range progs {
		if err := os.WriteFile(filepath.Join(dir, p.Name()+".cu"), []byte(p.CUDA), 0o644); err != nil {
			return err
		}
		if !ptx {
			continue
		}
		text, err := cuda.PTX(context.Background(), p.CUDA)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name(), err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.Name()+".ptx"), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeCompileDumps writes the final graph, each pass's graph, the loop IR
// before and after fusion, the generated code, DOT and SVG drawings with
// fused kernels as clusters, the diagnostics and the HTML report.
func writeCompileDumps(dir string, run *driver.Run, progs []*driver.Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{"graph.fx": run.Module.Print()}
	var dotText strings.Builder
	for _, g := range run.Module.Graphs {
		dotText.WriteString(dot.Graph(g, dot.Options{Diags: run.Diags.Items, Clusters: kernelClusters(g, progs)}))
	}
	files["graph.dot"] = dotText.String()
	var diags strings.Builder
	for _, d := range run.Diags.Items {
		diags.WriteString(d.String() + "\n")
	}
	files["diagnostics.txt"] = diags.String()
	for gi, rec := range run.Stages {
		for ci, c := range rec.Columns {
			files[fmt.Sprintf("graph%d.%02d-%s.fx", gi, ci, c.Title)] = c.Text
		}
		if p := programOf(progs, run.Module.Graphs[gi]); p != nil { // the loop IR joins the report
			rec.Add("loop IR", p.PreFusion)
			rec.Add("fused", p.Loop.String())
		}
		var page strings.Builder
		if err := rec.Write(&page, run.Diags.Items); err != nil {
			return err
		}
		files[fmt.Sprintf("report%d.html", gi)] = page.String()
	}
	for _, p := range progs {
		files[p.Name()+".ir_pre_fusion.txt"] = p.PreFusion
		files[p.Name()+".ir_post_fusion.txt"] = p.Loop.String()
		files[p.Name()+".go"] = string(p.Go)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	svg, err := dot.SVG(context.Background(), firstDigraph(dotText.String()))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "graph.svg"), svg, 0o644)
}

// programOf is g's back-end program, nil when g was not lowered.
func programOf(progs []*driver.Program, g *ir.Graph) *driver.Program {
	for _, p := range progs {
		if p.Graph == g {
			return p
		}
	}
	return nil
}

// kernelClusters maps each node of g to the fused kernel that computes it,
// so the drawing boxes fused nodes together.
func kernelClusters(g *ir.Graph, progs []*driver.Program) map[string]string {
	out := map[string]string{}
	if p := programOf(progs, g); p != nil {
		for _, k := range p.Loop.Kernels {
			for _, origin := range k.Origins {
				out[origin] = k.Name
			}
		}
	}
	return out
}
