package driver

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/report"
)

// CompilePipeline is what `kiln compile` runs before lowering: decompose
// and Inductor's post-grad patterns before align, so that the nodes they
// make get alignment facts; aten first, so that a Dynamo-level graph
// reaches the rest as ATen ops (it leaves an ATen graph as it is).
const CompilePipeline = "fakeprop,aten,functionalize,decompose,postgrad,align,dce"

// BackendOptions configure lowering, fusion and codegen.
type BackendOptions struct {
	Fuse lowering.FuseOptions
	// Go generates Go code for every program (Program.Go).
	Go bool
	// CUDA generates CUDA C for every program (Program.CUDA).
	CUDA bool
}

// Pipeline is the back end as pipeline text: lower, verify, fuse, plan,
// then the code generators asked for.
func (o BackendOptions) Pipeline() string {
	var fuse []string
	if o.Fuse.Disable {
		fuse = append(fuse, "off")
	}
	if o.Fuse.MaxRecompute != 0 {
		fuse = append(fuse, "max_recompute="+strconv.Itoa(o.Fuse.MaxRecompute))
	}
	if o.Fuse.MaxStageInstrs != 0 {
		fuse = append(fuse, "max_stage_instrs="+strconv.Itoa(o.Fuse.MaxStageInstrs))
	}
	stages := []string{"lower", "verify", "fuse", "plan"}
	if len(fuse) > 0 {
		stages[2] += "{" + strings.Join(fuse, ";") + "}"
	}
	if o.Go {
		stages = append(stages, "go")
	}
	if o.CUDA {
		stages = append(stages, "cuda")
	}
	return strings.Join(stages, ",")
}

// Program is one graph's back end: loop IR before and after fusion, and
// the generated code.
type Program struct {
	Graph     *ir.Graph
	PreFusion string // the loop-IR dump before fusion (ir_pre_fusion)
	Loop      *lowering.Program
	Stats     lowering.FuseStats
	Go        string // generated Go source, when BackendOptions.Go
	CUDA      string // generated CUDA C, when BackendOptions.CUDA
	Elapsed   time.Duration
	// Streamed says the stages' texts went to the run's Dumps as each
	// stage made them, and their report columns with them: PreFusion, Go,
	// the Passes' texts (and CUDA, unless Dumps.PTX) are empty then.
	Streamed bool
	// Passes are the back-end stages as the manager measured them, with
	// each one's output (the report's columns).
	Passes []passes.PassResult
}

// Backend lowers, fuses, plans and (optionally) generates code for every
// graph of a run that the passes left without errors, through the same
// pass manager as the graph passes. A graph that has an op with no
// lowering gets a diagnostic in run.Diags and no Program; other failures
// are internal errors.
func Backend(run *Run, opts BackendOptions) ([]*Program, error) {
	if run.Module == nil || run.Diags.HasErrors() {
		return nil, nil
	}
	pipe, err := passes.Parse(opts.Pipeline())
	if err != nil {
		return nil, err
	}
	m := run.manager
	m.KeepText, m.AfterPass, m.AfterStage, m.TrustUnchanged, m.Unread = true, nil, nil, true, nil
	var out []*Program
	for gi, g := range run.Module.Graphs {
		if d := checkStridedBounds(g); d != nil {
			run.Diags.Add(*d)
			continue
		}
		run.Progress.Stage("back end", len(g.Nodes), "nodes")
		u := &passes.Unit{Name: fmt.Sprintf("graph%d", gi), Graph: g}
		var rec *report.Recorder
		if gi < len(run.Stages) && len(run.Stages[gi].Columns) > 0 { // the graph as the last pass printed it
			rec = run.Stages[gi]
			u.Printed = rec.Columns[len(rec.Columns)-1].Text
		}
		streamed := run.dumps != nil && rec != nil
		m.Unread = unreadStage
		m.AfterStage = func(s passes.Step, u *passes.Unit, pr *passes.PassResult) error {
			run.Progress.Stage(s.Info.Name+" done", len(g.Nodes), "nodes")
			if !streamed {
				return nil
			}
			if lp, ok := u.Prog.(*loopProg); ok && lp.code == nil { // the code generators stream into their dumps
				lp.code = run.dumps.spills(u.Name)
			}
			run.dumps.backendColumn(rec, u, pr, nextEmits(pipe, s))
			return nil
		}
		ctx := passes.NewContext(passes.Config{}) // a graph's diagnostics stop its own back end only
		res, err := m.RunUnit(pipe, ctx, u)
		run.Diags.Items = append(run.Diags.Items, ctx.Diags.Items...)
		if ctx.Diags.HasErrors() {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("graph %d: %w", gi, err)
		}
		if len(res.Passes) < len(pipe.Steps) { // stopped by a diagnostic
			continue
		}
		p := newProgram(g, u, res.Passes)
		if p.Streamed = streamed; streamed {
			p.Go = ""
			if !run.dumps.PTX {
				p.CUDA = ""
			}
		}
		if run.Stages == nil { // no report: keep only ir_pre_fusion's text
			for i := range p.Passes {
				p.Passes[i].Text = ""
			}
		}
		p.dropReportOnly()
		out = append(out, p)
	}
	for _, d := range ProvenanceRemarks(run, out) {
		run.Diags.Add(d)
	}
	return out, nil
}

func newProgram(g *ir.Graph, u *passes.Unit, prs []passes.PassResult) *Program {
	lp := u.Prog.(*loopProg)
	p := &Program{Graph: g, Loop: lp.Program, Stats: lp.stats, Go: u.Code["go"], CUDA: u.Code["cuda"], Passes: prs}
	for _, pr := range prs {
		p.Elapsed += pr.Duration
		if pr.Pass == "lower" {
			p.PreFusion = pr.Text
		}
	}
	return p
}

// dropReportOnly lets go of the texts only the report reads (a stage's
// program that no dump holds, fuse's on the default pipeline) where the
// report would not show them, keeping their line counts (see
// report.Recorder.DropUnshown).
func (p *Program) dropReportOnly() {
	post := p.postFusionIndex()
	long := func(i int) bool {
		return i >= len(p.Passes) || p.Passes[i].Lines > report.MaxColumnLines ||
			strings.Count(p.Passes[i].Text, "\n") > report.MaxColumnLines
	}
	for i := range p.Passes {
		pr := &p.Passes[i]
		info, _ := passes.Lookup(pr.Pass)
		if pr.Text == "" || pr.Text == p.PreFusion || i == post || info.Emits || !long(i) {
			continue
		}
		if next, _ := passes.Lookup(p.nextPass(i)); !long(i+1) && !next.Emits {
			continue // the next column compares its lines with this one
		}
		pr.Lines, pr.Text = strings.Count(pr.Text, "\n"), ""
	}
}

func (p *Program) nextPass(i int) string {
	if i+1 < len(p.Passes) {
		return p.Passes[i+1].Pass
	}
	return ""
}

// AddColumns adds the back-end stages to a graph's report: the loop IR
// after each stage, and the code each code generator emitted.
func (p *Program) AddColumns(rec *report.Recorder) {
	for _, pr := range p.Passes {
		rec.Columns = append(rec.Columns, backendColumn(rec, p.Name(), pr))
	}
}

// backendColumn is a back-end stage's report column: the loop IR it left,
// or the code it emitted, with the file that holds it. The first is a new
// language (the loop IR after the graph), as is code.
func backendColumn(rec *report.Recorder, name string, pr passes.PassResult) report.Column {
	info, _ := passes.Lookup(pr.Pass)
	c := report.Column{Title: pr.Pass, Changed: pr.Changed || info.Emits, Text: pr.Text, Lines: pr.Lines, NewForm: info.Emits,
		File: backendFiles[pr.Pass], Unprinted: pr.Unprinted}
	if c.File != "" {
		c.File = name + c.File
	}
	if n := len(rec.Columns); n == 0 || !isBackend(rec.Columns[n-1].Title) {
		c.NewForm = true
	}
	return c
}

// unreadStage says whether no one reads what stage s printed: no file
// holds it, and the program has more instructions (one line each) than
// the report shows in a column (fuse's, on a large graph).
func unreadStage(s passes.Step, u *passes.Unit) bool {
	lp, ok := u.Prog.(*loopProg)
	return ok && backendFiles[s.Info.Name] == "" && lp.Instrs() > report.MaxColumnLines
}

// nextEmits says whether the step after s in pipe is a code generator,
// whose report column is in another language (it never compares lines
// with s's).
func nextEmits(pipe *passes.Pipeline, s passes.Step) bool {
	for i, step := range pipe.Steps[:max(len(pipe.Steps)-1, 0)] {
		if step.Info.Name == s.Info.Name {
			return pipe.Steps[i+1].Info.Emits
		}
	}
	return false
}

// backendFiles are the dumps of the back-end stages, after the program's name.
var backendFiles = map[string]string{"lower": ".ir_pre_fusion.txt", "plan": ".ir_post_fusion.txt", "go": ".go", "cuda": ".cu"}

func isBackend(stage string) bool {
	for _, info := range backEnd {
		if info.Name == stage {
			return true
		}
	}
	return false
}

// AddToReport adds p's back-end columns (AddColumns) and its kernels to
// the report of its graph; a streamed program's columns are there already.
func (p *Program) AddToReport(rec *report.Recorder) {
	if !p.Streamed {
		p.AddColumns(rec)
		rec.Kernels = p.ReportKernels()
	}
}

// ReportKernels describes p's fused kernels for the HTML report: the nodes
// each computes, and for the first report.MaxKernels (the ones the page
// shows) its loop IR and its generated Go function.
func (p *Program) ReportKernels() []report.Kernel { return reportKernels(p.Loop, []byte(p.Go)) }

func reportKernels(loop *lowering.Program, goSrc []byte) []report.Kernel {
	shown := loop.Kernels[:min(len(loop.Kernels), report.MaxKernels)]
	want := make(map[string]bool, len(shown))
	for _, k := range shown {
		want[codeOf(k).Name] = true
	}
	funcs := goFuncs(goSrc, want)
	out := make([]report.Kernel, len(loop.Kernels))
	for i, k := range loop.Kernels {
		out[i] = report.Kernel{Name: k.Name, Kind: k.Kind().String(), Nodes: k.Origins}
		if i < report.MaxKernels {
			out[i].LoopIR, out[i].Code = k.String(), funcs[codeOf(k).Name]
		}
	}
	return out
}

// codeOf is the kernel whose generated function runs k.
func codeOf(k *lowering.Kernel) *lowering.Kernel {
	if k.SharesCode != nil {
		return k.SharesCode
	}
	return k
}

// goFuncs cuts generated Go into its top-level functions, each with its
// doc comment, by name, in one pass (a search per kernel was quadratic),
// stopping once it has every function in want. The functions are copies:
// src (tens of MB on a large graph) is not kept alive by them.
func goFuncs(src []byte, want map[string]bool) map[string]string {
	out := map[string]string{}
	for rest := src; len(out) < len(want); {
		i := bytes.Index(rest, []byte("\n// "))
		if i < 0 {
			return out
		}
		rest = rest[i+1:]
		name, _, ok := bytes.Cut(rest[3:], []byte(" "))
		end := bytes.Index(rest, []byte("\n}\n"))
		if !ok || end < 0 {
			return out
		}
		if want[string(name)] && bytes.Contains(rest[:end], []byte("\nfunc "+string(name)+"(")) {
			out[string(name)] = string(rest[:end+3])
		}
		rest = rest[end+3:]
	}
	return out
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

// loopProg is a loop program as the pass manager sees it.
type loopProg struct {
	*lowering.Program
	stats lowering.FuseStats // what the fuse stage did
	// code, when set, streams each code generator's output into its dump
	// (Dumps.spills) instead of keeping it in Unit.Code.
	code map[string]*spill
}

func (p *loopProg) Verify() error { return lowering.Verify(p.Program) }

// backEnd are the table's rows past the graph.
var backEnd = []passes.Info{
	{Name: "lower", Summary: "lower every node to loop kernels over buffers (Inductor's lowering); an op with no lowering rule is a diagnostic",
		Checks: "nothing by itself: the verify row follows", NewUnit: stage("lower", lower)},
	{Name: "verify", Summary: "check the loop IR: arguments defined before use, index expressions naming only loop variables and the program's symbols, buffers read only after a kernel wrote them",
		Requires: []passes.Requirement{{Pass: "lower", Reason: "it checks the loop IR lowering made"}},
		Checks:   "the loop-IR verifier (it is the check)", NewUnit: stage("verify", verifyLoops)},
	{Name: "fuse", Summary: "fuse kernels greedily in program order (Inductor's scheduler): vertically into their producer's group, horizontally with kernels reading the same buffer",
		Options: []passes.OptionInfo{{Name: "off", Doc: "no fusion: one kernel per node (kiln compile -no-fuse)"},
			{Name: "max_recompute", Doc: "times one stored value may be recomputed instead of read back (default 2; negative: never)"},
			{Name: "max_stage_instrs", Doc: "refuse a fusion that grows a stage beyond this many instructions (default 256)"}},
		Requires: []passes.Requirement{{Pass: "lower", Reason: "it fuses the kernels lowering made"}},
		Checks:   "nothing by itself: plan's check covers fusion", NewUnit: newFuse},
	{Name: "plan", Summary: "plan buffers, as Inductor's memory planning: an intermediate buffer takes over the memory of a dead one of the same byte size; " +
		"a kernel identical to an earlier one but for its buffers runs that one's code, as Inductor reuses a kernel's source",
		Requires: []passes.Requirement{{Pass: "lower", Reason: "it plans the buffers of the loop program"}},
		Checks:   "the loop-IR verifier (fusion and planning produced valid loop IR)", VerifyProgram: true, NewUnit: stage("plan", plan)},
	{Name: "go", Summary: "generate Go: one gofmt-clean file of kernels and a Run entry, over the scalar runtime rt",
		Requires: []passes.Requirement{{Pass: "plan", Reason: "the code allocates the buffers the plan sized"}},
		Checks:   "nothing: the e2e tests build and run it against interp", Emits: true, NewUnit: stage("go", emitGo)},
	{Name: "cuda", Summary: "generate CUDA C: one .cu translation unit of kernels and a host wrapper",
		Requires: []passes.Requirement{{Pass: "plan", Reason: "the code allocates the buffers the plan sized"}},
		Checks:   "nothing: the codegen tests compile it to PTX with clang", Emits: true, NewUnit: stage("cuda", emitCUDA)},
}

func init() {
	for _, info := range backEnd {
		passes.Register(info)
	}
}

// unitFunc is a back-end stage as a function.
type unitFunc struct {
	name string
	run  func(u *passes.Unit, lp *loopProg) (bool, error)
}

func (f unitFunc) Name() string { return f.name }

func (f unitFunc) RunUnit(_ *passes.Context, u *passes.Unit) (bool, error) {
	lp, _ := u.Prog.(*loopProg)
	if lp == nil && f.name != "lower" {
		return false, fmt.Errorf("no loop program: %s must run after lower", f.name)
	}
	return f.run(u, lp)
}

func stage(name string, run func(u *passes.Unit, lp *loopProg) (bool, error)) func(passes.Options) (passes.UnitPass, error) {
	return func(passes.Options) (passes.UnitPass, error) { return unitFunc{name, run}, nil }
}

func lower(u *passes.Unit, _ *loopProg) (bool, error) {
	loop, err := lowering.Lower(u.Graph, lowering.Options{Name: u.Name})
	if err != nil {
		return false, err
	}
	u.Prog = &loopProg{Program: loop}
	return true, nil
}

func verifyLoops(_ *passes.Unit, lp *loopProg) (bool, error) {
	if err := lowering.Verify(lp.Program); err != nil {
		return false, fmt.Errorf("lowering produced invalid loop IR: %w", err)
	}
	return false, nil
}

func newFuse(o passes.Options) (passes.UnitPass, error) {
	fo := lowering.FuseOptions{Disable: o.Bool("off")}
	for key, dst := range map[string]*int{"max_recompute": &fo.MaxRecompute, "max_stage_instrs": &fo.MaxStageInstrs} {
		if v, ok := o[key]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("%s=%q: want an integer", key, v)
			}
			*dst = n
		}
	}
	return unitFunc{"fuse", func(_ *passes.Unit, lp *loopProg) (bool, error) {
		var err error
		lp.stats, err = lowering.Fuse(lp.Program, fo)
		return true, err // the manager tells change by the program's hash
	}}, nil
}

func plan(_ *passes.Unit, lp *loopProg) (bool, error) {
	lowering.Plan(lp.Program)
	return true, nil
}

func emitGo(u *passes.Unit, lp *loopProg) (bool, error) {
	sp := lp.code["go"]
	if sp == nil {
		src, err := golang.Generate(lp.Program, u.Name)
		u.SetCode("go", string(src))
		return false, err
	}
	sp.kernels = reportKernels(lp.Program, nil)
	err := golang.GenerateTo(sp, lp.Program, u.Name, func(i int, src string) {
		if i < report.MaxKernels { // the report shows these kernels' code
			name := lp.Kernels[i].Name
			sp.kernels[i].Code = goFuncs([]byte("\n"+src), map[string]bool{name: true})[name]
		}
	})
	if err != nil {
		return false, err
	}
	shownCode(sp.kernels, lp.Kernels)
	text, err := sp.close()
	u.SetCode("go", text)
	return false, err
}

// shownCode gives each shown kernel that runs an earlier kernel's code
// that code (kernels share code with earlier ones only).
func shownCode(shown []report.Kernel, kernels []*lowering.Kernel) {
	at := map[*lowering.Kernel]int{}
	for i := range shown[:min(len(shown), report.MaxKernels)] {
		k := kernels[i]
		at[k] = i
		if owner := k.SharesCode; owner != nil {
			shown[i].Code = shown[at[owner]].Code
		}
	}
}

func emitCUDA(u *passes.Unit, lp *loopProg) (bool, error) {
	sp := lp.code["cuda"]
	if sp == nil {
		src, err := cuda.Generate(lp.Program)
		u.SetCode("cuda", src)
		return false, err
	}
	if err := cuda.GenerateTo(sp, lp.Program); err != nil {
		return false, err
	}
	text, err := sp.close()
	u.SetCode("cuda", text)
	return false, err
}
