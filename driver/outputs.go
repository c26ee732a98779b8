package driver

// The files `kiln compile` writes: dumps of every stage, a Go module, CUDA C.

import (
	"bufio"
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
	"github.com/kiln-compiler/kiln/passes"
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
// fused kernels as clusters, the diagnostics and the HTML report. Each file
// is written as soon as it is made, from the texts the pipeline already
// printed where it has them: on a large graph every dump is tens of MB.
func writeCompileDumps(dir string, run *Run, progs []*Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	run.Progress.Stage("write dumps", countNodes(run), "nodes")
	if err := writeFile(dir, "graph.fx", func(w *bufio.Writer) {
		for gi, g := range run.Module.Graphs {
			if gi > 0 {
				w.WriteByte('\n')
			}
			w.WriteString(finalText(run, gi, g, progs))
		}
	}); err != nil {
		return err
	}
	if err := writeFile(dir, "graph.dot", func(w *bufio.Writer) {
		for _, g := range run.Module.Graphs {
			w.WriteString(dot.Graph(g, dot.Options{Diags: run.Diags.Items, Clusters: kernelClusters(g, progs)}))
		}
	}); err != nil {
		return err
	}
	if err := writeFile(dir, "diagnostics.txt", func(w *bufio.Writer) {
		for _, d := range run.Diags.Items {
			w.WriteString(d.String())
			w.WriteByte('\n')
		}
	}); err != nil {
		return err
	}
	for gi, rec := range run.Stages {
		for ci := range rec.Columns {
			c := &rec.Columns[ci]
			c.File = fmt.Sprintf("graph%d.%02d-%s.fx", gi, ci, c.Title)
			if err := writeText(dir, c.File, c.Text); err != nil {
				return err
			}
		}
		if p := programOf(progs, run.Module.Graphs[gi]); p != nil { // the back-end stages join the report
			p.AddToReport(rec)
		}
		var page strings.Builder
		if err := rec.Write(&page, run.Diags.Items); err != nil {
			return err
		}
		if err := writeText(dir, fmt.Sprintf("report%d.html", gi), page.String()); err != nil {
			return err
		}
	}
	for _, p := range progs {
		for name, text := range map[string]string{".ir_pre_fusion.txt": p.PreFusion, ".ir_post_fusion.txt": p.postFusion(), ".go": p.Go} {
			if err := writeText(dir, p.Name()+name, text); err != nil {
				return err
			}
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

// finalText is graph gi printed: the text its last pass left in the report
// when the graph went through the whole pipeline and the back end (which
// reads the graph, never changes it), else printed now.
func finalText(run *Run, gi int, g *ir.Graph, progs []*Program) string {
	if gi < len(run.Stages) && programOf(progs, g) != nil {
		if cols := run.Stages[gi].Columns; len(cols) > 0 && !cols[len(cols)-1].NewForm {
			return cols[len(cols)-1].Text
		}
	}
	return g.String()
}

// postFusion is the loop IR as the back end left it: the text the last
// stage that printed the program printed, else printed now.
func (p *Program) postFusion() string {
	if i := p.postFusionIndex(); i >= 0 && p.Passes[i].Text != "" {
		return p.Passes[i].Text
	}
	return p.Loop.String()
}

// postFusionIndex is the last stage that left the program (not code), or -1.
func (p *Program) postFusionIndex() int {
	for i := len(p.Passes) - 1; i >= 0; i-- {
		if info, _ := passes.Lookup(p.Passes[i].Pass); !info.Emits {
			return i
		}
	}
	return -1
}

func writeText(dir, name, text string) error {
	return writeFile(dir, name, func(w *bufio.Writer) { w.WriteString(text) })
}

// writeFile writes dir/name through a buffer filled by fill.
func writeFile(dir, name string, fill func(w *bufio.Writer)) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	fill(w)
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
