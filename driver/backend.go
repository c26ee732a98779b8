package driver

import (
	"errors"
	"fmt"
	"time"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
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
		p, err := backendOne(g, fmt.Sprintf("graph%d", gi), opts)
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
	for _, d := range ProvenanceRemarks(run, out) {
		run.Diags.Add(d)
	}
	return out, nil
}

func backendOne(g *ir.Graph, name string, opts BackendOptions) (*Program, error) {
	start := time.Now()
	loop, err := lowering.Lower(g, lowering.Options{Name: name})
	if err != nil {
		return nil, err
	}
	p := &Program{Graph: g, PreFusion: loop.String(), Loop: loop}
	if err := lowering.Verify(loop); err != nil {
		return nil, fmt.Errorf("lowering produced invalid loop IR: %w", err)
	}
	if p.Stats, err = lowering.Fuse(loop, opts.Fuse); err != nil {
		return nil, fmt.Errorf("fuse: %w", err)
	}
	lowering.PlanBuffers(loop)
	if err := lowering.Verify(loop); err != nil {
		return nil, fmt.Errorf("fusion produced invalid loop IR: %w", err)
	}
	if opts.Go {
		if p.Go, err = golang.Generate(loop, name); err != nil {
			return nil, fmt.Errorf("go codegen: %w", err)
		}
	}
	if opts.CUDA {
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

// LoopPrograms returns the fused loop programs of ps, for golang.WriteModule.
func LoopPrograms(ps []*Program) []*lowering.Program {
	out := make([]*lowering.Program, len(ps))
	for i, p := range ps {
		out[i] = p.Loop
	}
	return out
}
