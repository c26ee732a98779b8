package driver

// The files `kiln compile` writes: dumps of every stage, a Go module, CUDA C.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/codegen/dot"
	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/report"
)

// WriteOutputs writes what `kiln compile` makes into dir: for target "go" a
// buildable Go module, for "cuda" the CUDA C only (and PTX when ptx is
// set), for "" every stage's dump and the CUDA C (through the run's Dumps
// when it has them: the files its stages wrote already are not written
// again). The folder is an OutDir: the last run's files are removed and
// this run's listed.
func WriteOutputs(dir, target string, ptx bool, run *Run, progs []*Program) error {
	if target == "" {
		d := run.dumps
		if d == nil {
			d = NewDumps(dir)
		} else if d.Dir != dir {
			return fmt.Errorf("the run's dumps go to %s, not %s", d.Dir, dir)
		}
		d.PTX = d.PTX || ptx
		err := writeCompileDumps(d, run, progs)
		if cerr := d.Close(); err == nil {
			err = cerr
		}
		return err
	}
	od, err := OpenOutDir(dir)
	if err != nil {
		return err
	}
	switch target {
	case "go":
		err = writeGoModule(dir, progs)
	case "cuda":
		err = writeCUDA(dir, progs, ptx)
	default:
		err = fmt.Errorf("unknown target %q", target)
	}
	if err != nil {
		return err
	}
	return od.Close()
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

// writeCompileDumps queues the final graph, each pass's graph, the loop
// IR before and after fusion, the generated code, DOT and SVG drawings
// with fused kernels as clusters, the diagnostics and the HTML report, from
// the texts the pipeline already printed where it has them: on a large
// graph every dump is tens of MB. Files a streamed run wrote already are
// not queued again.
func writeCompileDumps(d *Dumps, run *Run, progs []*Program) error {
	run.Progress.Stage("write dumps", countNodes(run), "nodes")
	for gi, rec := range run.Stages {
		for ci := range rec.Columns {
			if c := &rec.Columns[ci]; c.NewForm {
				break // the back end's: its stages name their own files
			} else if c.File == "" {
				c.File = graphDumpName(gi, ci, c.Title)
				d.Text(c.File, c.Text)
			}
		}
	}
	finals := make([]finalText, len(run.Module.Graphs))
	for gi, g := range run.Module.Graphs {
		finals[gi] = finalTextOf(run, gi, g, progs)
	}
	d.File("graph.fx", func(w *bufio.Writer) error {
		for gi, f := range finals {
			if gi > 0 {
				w.WriteByte('\n')
			}
			if err := f.writeTo(w, d.Dir); err != nil {
				return err
			}
		}
		return nil
	})
	d.File("graph.dot", func(w *bufio.Writer) error {
		for _, g := range run.Module.Graphs {
			dot.WriteGraph(w, g, dot.Options{Diags: run.Diags.Items, Clusters: kernelClusters(g, progs)})
		}
		return nil
	})
	diags := run.Diags.Items
	d.File("diagnostics.txt", func(w *bufio.Writer) error {
		for _, item := range diags {
			w.WriteString(item.String())
			w.WriteByte('\n')
		}
		return nil
	})
	for _, p := range progs {
		if !p.Streamed {
			d.Text(p.Name()+".ir_pre_fusion.txt", p.PreFusion)
			d.Text(p.Name()+".ir_post_fusion.txt", p.postFusion())
			d.Text(p.Name()+".go", p.Go)
			d.Text(p.Name()+".cu", p.CUDA)
		}
	}
	for gi, rec := range run.Stages {
		if p := programOf(progs, run.Module.Graphs[gi]); p != nil { // the back-end stages join the report
			p.AddToReport(rec)
		}
		var page strings.Builder
		if err := rec.Write(&page, diags); err != nil {
			return err
		}
		d.Text(fmt.Sprintf("report%d.html", gi), page.String())
	}
	if err := writePTX(d, progs); err != nil {
		return err
	}
	// Last, and bounded: a graph too large to lay out gets a kernel summary
	// or a note (dot.Drawing), never minutes in Graphviz.
	if len(run.Module.Graphs) == 0 {
		return nil
	}
	g := run.Module.Graphs[0]
	run.Progress.Stage("draw graph.svg", len(g.Nodes), "nodes")
	svg, note, err := dot.Drawing(context.Background(), g, dot.Options{Diags: diags, Clusters: kernelClusters(g, progs)}, filepath.Join(d.Dir, "graph.dot"))
	if err != nil {
		return err
	}
	if note != "" {
		run.Notes = append(run.Notes, note)
	}
	d.Text("graph.svg", string(svg))
	return nil
}

// writePTX queues graphN.ptx for each program when Dumps.PTX (clang must be
// installed).
func writePTX(d *Dumps, progs []*Program) error {
	if !d.PTX {
		return nil
	}
	for _, p := range progs {
		text, err := cuda.PTX(context.Background(), p.CUDA)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name(), err)
		}
		d.Text(p.Name()+".ptx", text)
	}
	return nil
}

// finalText is a graph as its last pass left it: the text of its last FX
// column, or that column's dump file when the text was let go (Dumps),
// when the graph went through the whole pipeline and the back end (which
// reads the graph, never changes it); else the graph, printed when
// written.
type finalText struct {
	text, file string
	graph      *ir.Graph
}

func finalTextOf(run *Run, gi int, g *ir.Graph, progs []*Program) finalText {
	if gi < len(run.Stages) && programOf(progs, g) != nil {
		if c := lastFXColumn(run.Stages[gi]); c != nil {
			if c.Text == "" && c.LineCount() > 0 {
				return finalText{file: c.File}
			}
			return finalText{text: c.Text}
		}
	}
	return finalText{graph: g}
}

func (f finalText) writeTo(w *bufio.Writer, dir string) error {
	switch {
	case f.graph != nil:
		_, err := f.graph.WriteTo(w)
		return err
	case f.file != "":
		r, err := os.Open(filepath.Join(dir, f.file))
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.Copy(w, r)
		return err
	}
	_, err := w.WriteString(f.text)
	return err
}

// lastFXColumn is the last column of a graph's report that holds the
// graph (not loop IR or code), or nil.
func lastFXColumn(rec *report.Recorder) *report.Column {
	last := -1
	for i, c := range rec.Columns {
		if c.NewForm {
			break
		}
		last = i
	}
	if last < 0 {
		return nil
	}
	return &rec.Columns[last]
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

// writeFile writes dir/name through a buffer filled by fill.
func writeFile(dir, name string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = fill(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
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
