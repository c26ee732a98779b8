package driver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/report"
)

// CompilePipeline is what `kiln compile` runs before lowering: decompose
// before align, so that the nodes decompositions make get alignment facts.
const CompilePipeline = "fakeprop,functionalize,decompose,align,dce"

// BackendOptions configure lowering, fusion and codegen.
type BackendOptions struct {
	Fuse lowering.FuseOptions
	// Go generates Go code for every program (Program.Go).
	Go bool
	// CUDA generates CUDA C for every program (Program.CUDA).
	CUDA bool
}

// Program is one graph's back end: loop IR before and after fusion, and
// the generated code.
type Program struct {
	Graph     *ir.Graph
	PreFusion string // the loop-IR dump before fusion (ir_pre_fusion)
	Loop      *lowering.Program
	Stats     lowering.FuseStats
	Go        []byte // generated Go source, when BackendOptions.Go
	CUDA      string // generated CUDA C, when BackendOptions.CUDA
	Elapsed   time.Duration
}

// Backend lowers, fuses, plans and (optionally) generates code for every
// graph of a run that the passes left without errors. A graph that has an
// op with no lowering gets a diagnostic in run.Diags and no Program; other
// failures are internal errors.
func Backend(run *Run, opts BackendOptions) ([]*Program, error) {
	if run.Module == nil || run.Diags.HasErrors() {
		return nil, nil
	}
	var out []*Program
	for gi, g := range run.Module.Graphs {
		p, err := backendOne(g, fmt.Sprintf("graph%d", gi), opts, run.Progress)
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			run.Diags.Add(*d)
			continue
		}
		if err != nil {
			return out, fmt.Errorf("graph %d: %w", gi, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func backendOne(g *ir.Graph, name string, opts BackendOptions, prog *Progress) (*Program, error) {
	start := time.Now()
	prog.Stage("lower", len(g.Nodes), "nodes")
	loop, err := lowering.Lower(g, lowering.Options{Name: name})
	if err != nil {
		return nil, err
	}
	p := &Program{Graph: g, PreFusion: loop.String(), Loop: loop}
	if err := lowering.Verify(loop); err != nil {
		return nil, fmt.Errorf("lowering produced invalid loop IR: %w", err)
	}
	prog.Stage("fuse", len(loop.Kernels), "kernels")
	if p.Stats, err = lowering.Fuse(loop, opts.Fuse); err != nil {
		return nil, fmt.Errorf("fuse: %w", err)
	}
	lowering.PlanBuffers(loop)
	if err := lowering.Verify(loop); err != nil {
		return nil, fmt.Errorf("fusion produced invalid loop IR: %w", err)
	}
	if opts.Go {
		prog.Stage("generate Go", len(loop.Kernels), "kernels")
		if p.Go, err = golang.Generate(loop, name); err != nil {
			return nil, fmt.Errorf("go codegen: %w", err)
		}
	}
	if opts.CUDA {
		prog.Stage("generate CUDA C", len(loop.Kernels), "kernels")
		if p.CUDA, err = cuda.Generate(loop); err != nil {
			return nil, fmt.Errorf("cuda codegen: %w", err)
		}
	}
	p.Elapsed = time.Since(start)
	return p, nil
}

// Name is the program's package-safe name ("graph0", "graph1", ...): its
// loop program's.
func (p *Program) Name() string { return p.Loop.Name }

// AddToReport adds p's loop IR before and after fusion and its kernels to
// the report of its graph; files name the dumps that hold the loop IR.
func (p *Program) AddToReport(rec *report.Recorder) {
	rec.AddForm("loop IR", p.PreFusion)
	rec.Columns[len(rec.Columns)-1].File = p.Name() + ".ir_pre_fusion.txt"
	rec.Add("fused", p.Loop.String())
	rec.Columns[len(rec.Columns)-1].File = p.Name() + ".ir_post_fusion.txt"
	rec.Kernels = p.ReportKernels()
}

// ReportKernels describes p's fused kernels for the HTML report: the nodes
// each computes, its loop IR and its generated Go function.
func (p *Program) ReportKernels() []report.Kernel {
	funcs := goFuncs(string(p.Go))
	out := make([]report.Kernel, len(p.Loop.Kernels))
	for i, k := range p.Loop.Kernels {
		out[i] = report.Kernel{Name: k.Name, Kind: k.Kind().String(), Nodes: k.Origins, LoopIR: k.String(), Code: funcs[k.Name]}
	}
	return out
}

// goFuncs cuts generated Go into its top-level functions, each with its
// doc comment, by name, in one pass (a search per kernel was quadratic).
func goFuncs(src string) map[string]string {
	out := map[string]string{}
	for rest := src; ; {
		i := strings.Index(rest, "\n// ")
		if i < 0 {
			return out
		}
		rest = rest[i+1:]
		name, _, ok := strings.Cut(rest[3:], " ")
		end := strings.Index(rest, "\n}\n")
		if !ok || end < 0 {
			return out
		}
		if strings.Contains(rest[:end], "\nfunc "+name+"(") {
			out[name] = rest[:end+3]
		}
		rest = rest[end+3:]
	}
}

// LoopPrograms returns the fused loop programs of ps, for golang.WriteModule.
func LoopPrograms(ps []*Program) []*lowering.Program {
	out := make([]*lowering.Program, len(ps))
	for i, p := range ps {
		out[i] = p.Loop
	}
	return out
}
