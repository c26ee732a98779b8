package driver

// The files `kiln compile` writes: dumps of every stage, a Go module, CUDA C.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/codegen/dot"
	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/ir"
)

// WriteOutputs writes what `kiln compile` makes into dir: for target "go" a
// buildable Go module, for "cuda" the CUDA C only (and PTX when ptx is
// set), for "" every stage's dump and the CUDA C.
func WriteOutputs(dir, target string, ptx bool, run *Run, progs []*Program) error {
	switch target {
	case "go":
		return writeGoModule(dir, progs)
	case "cuda":
		return writeCUDA(dir, progs, ptx)
	}
	if err := writeCompileDumps(dir, run, progs); err != nil {
		return err
	}
	return writeCUDA(dir, progs, ptx)
}

// Summary is the one line compile prints: what ran, what came out.
func Summary(run *Run, progs []*Program, target, dir string, elapsed time.Duration) string {
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
	what := map[string]string{"": "dumps", "go": "Go module", "cuda": "CUDA C"}[target]
	return fmt.Sprintf("kiln compile: %d graph(s), %d node(s); passes %s; %d kernel(s) from %d (%d fusion(s)); %s; %s in %s",
		len(run.Module.Graphs), countNodes(run), pipeline, after, before, fusions, elapsed.Round(time.Microsecond), what, dir)
}

func countNodes(run *Run) int {
	n := 0
	for _, g := range run.Module.Graphs {
		n += len(g.Nodes)
	}
	return n
}

func writeGoModule(dir string, progs []*Program) error {
	if len(progs) == 0 {
		return fmt.Errorf("no graph was lowered, so there is no code to write")
	}
	return golang.WriteModule(dir, "kilngen", LoopPrograms(progs))
}

// writeCUDA writes graphN.cu per program, and graphN.ptx when ptx is set
// (clang must be installed).
func writeCUDA(dir string, progs []*Program, ptx bool) error {
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
func writeCompileDumps(dir string, run *Run, progs []*Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	run.Progress.Stage("write dumps", countNodes(run), "nodes")
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
		for ci := range rec.Columns {
			c := &rec.Columns[ci]
			c.File = fmt.Sprintf("graph%d.%02d-%s.fx", gi, ci, c.Title)
			files[c.File] = c.Text
		}
		if p := programOf(progs, run.Module.Graphs[gi]); p != nil { // the back-end stages join the report
			p.AddToReport(rec)
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
	// Last, and bounded: a graph too large to lay out gets a kernel summary
	// or a note (dot.Drawing), never minutes in Graphviz.
	if len(run.Module.Graphs) == 0 {
		return nil
	}
	g := run.Module.Graphs[0]
	run.Progress.Stage("draw graph.svg", len(g.Nodes), "nodes")
	svg, note, err := dot.Drawing(context.Background(), g, dot.Options{Diags: run.Diags.Items, Clusters: kernelClusters(g, progs)}, filepath.Join(dir, "graph.dot"))
	if err != nil {
		return err
	}
	if note != "" {
		run.Notes = append(run.Notes, note)
	}
	return os.WriteFile(filepath.Join(dir, "graph.svg"), svg, 0o644)
}

// programOf is g's back-end program, nil when g was not lowered.
func programOf(progs []*Program, g *ir.Graph) *Program {
	for _, p := range progs {
		if p.Graph == g {
			return p
		}
	}
	return nil
}

// kernelClusters maps each node of g to the fused kernel that computes it,
// so the drawing boxes fused nodes together.
func kernelClusters(g *ir.Graph, progs []*Program) map[string]string {
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
