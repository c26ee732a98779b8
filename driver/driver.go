// Package driver is kiln's pipeline as one short function of named steps:
// read a trace, build the IR, run passes, collect diagnostics. The CLI and
// the tests call it; it holds no logic of its own beyond wiring.
package driver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/frontend/torchtrace"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/fakeprop"
	"github.com/kiln-compiler/kiln/report"
)

// DefaultPipeline is what `kiln opt` runs when -passes is not given.
const DefaultPipeline = "fakeprop,functionalize,align,dce"

// Input is a trace to compile.
type Input struct {
	Name string // file name used in positions ("-" reads stdin as "<stdin>")
	Src  []byte
	// Files is set for a folder (TORCH_TRACE=/dir: one log per rank); Src is then nil.
	Files []frontend.File
}

// ReadInput reads a file, or standard input for "-", refusing one larger
// than limits.InputBytes before reading it.
func ReadInput(path string, stdin io.Reader) (Input, error) {
	name, r := "<stdin>", stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return Input{}, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			files, err := frontend.ReadDir(path, limits.InputBytes)
			return Input{Name: path, Files: files}, err
		}
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limits.InputBytes {
			return Input{}, inputTooLarge(path, st.Size())
		}
		name, r = path, f
	}
	src, err := io.ReadAll(io.LimitReader(r, limits.InputBytes+1))
	if err != nil {
		return Input{}, err
	}
	if int64(len(src)) > limits.InputBytes {
		return Input{}, inputTooLarge(name, -1)
	}
	return Input{Name: name, Src: src}, nil
}

func inputTooLarge(name string, size int64) error {
	lerr := &limits.Error{What: "input size in bytes", Got: size, Limit: limits.InputBytes, Flag: "-max-input-bytes"}
	return diag.Errorf(diag.Pos{File: name, Line: 1, Col: 1}, "limit", lerr.Hint(), "%v", lerr)
}

// Options configure a run.
type Options struct {
	Pipeline string
	Config   passes.Config
	Manager  passes.Manager
	// Lookup resolves op names; nil uses Registry, or the built-in one.
	Lookup func(string) ir.OpSchema
	// Registry, when set, holds custom ops on top of the built-in ones;
	// the frontend and fakeprop both use it.
	Registry *ops.Registry
	// Record keeps the graph after every pass (for the HTML report and the
	// per-pass dumps of `kiln compile`).
	Record bool
	// Dumps, when set with Record, writes each pass's graph to its dump
	// file as the pass finishes and lets go of the texts the report will
	// not show (see Dumps).
	Dumps *Dumps
	// Progress, when set, hears each stage (see Progress).
	Progress *Progress
	// InputTypes types graph inputs the trace leaves unannotated, by name
	// (`kiln run -type`); an annotated input keeps its annotation.
	InputTypes map[string]ir.Type
}

// Run is one compilation: parse, then run the pipeline on every graph.
type Run struct {
	Parse   passes.PassResult // the parse row: its time (the other rows' are in Results)
	Module  *ir.Module
	Diags   diag.List
	Results []*passes.Result   // one per graph
	Stages  []*report.Recorder // one per graph, when Options.Record
	// Progress is Options.Progress, for the stages after Compile.
	Progress *Progress
	// Notes are what the user should know about the outputs (a drawing
	// left out, and how to get it), for stderr.
	Notes []string
	// Provenance is Inductor's kernel → post-grad nodes map from a
	// TORCH_TRACE log, for comparing kiln's fusion with it (ProvenanceRemarks).
	Provenance []torchtrace.Provenance

	manager passes.Manager // the back end runs through the same manager
	dumps   *Dumps         // Options.Dumps, for the back end and WriteOutputs
}

// Compile parses in and runs the pipeline on each graph. Input problems
// (parse errors, diagnostics from passes) land in Run.Diags; the returned
// error is for internal failures and bad options.
func Compile(in Input, opts Options) (*Run, error) {
	run := &Run{manager: opts.Manager, Progress: opts.Progress}
	if opts.Record {
		run.dumps = opts.Dumps
	}
	pipe, err := passes.Parse(opts.Pipeline)
	if err != nil {
		return nil, err
	}
	lookup := opts.Lookup
	if opts.Registry != nil {
		if opts.Config.Extra == nil {
			opts.Config.Extra = map[string]any{}
		}
		opts.Config.Extra[fakeprop.ExtraRegistry] = opts.Registry
		if lookup == nil {
			lookup = opts.Registry.Schema
		}
	}
	if lookup == nil {
		lookup = ops.LookupSchema
	}
	opts.Progress.Stage("parse", len(in.Src)>>10, "KiB")
	start := time.Now()
	res, err := parseInput(in, lookup)
	run.Parse = passes.PassResult{Pass: "parse", Changed: true, Duration: time.Since(start), Err: err}
	if err != nil {
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			run.Diags.Add(*d)
			return run, nil
		}
		return nil, err
	}
	run.Module, run.Provenance = res.Module, res.Provenance
	if opts.Manager.PrintAfter["parse"] { // -print-after-all starts after parsing, as LLVM's does
		opts.Manager.Dump("parse", true, run.Module.Print())
	}
	for _, w := range res.Diags {
		run.Diags.Add(w)
	}
	applyLogConfig(&opts.Config, res.Config, in.Name, &run.Diags)
	for gi, g := range run.Module.Graphs {
		typeInputs(g, opts.InputTypes)
		ctx := passes.NewContext(opts.Config)
		ctx.Diags = &run.Diags
		m := opts.Manager
		u := &passes.Unit{Graph: g}
		if opts.Record {
			rec := &report.Recorder{}
			rec.Start(g)
			run.Stages = append(run.Stages, rec)
			// The report's columns are the texts the manager prints anyway
			// (to hash each pass's output): printed once, not twice.
			u.Printed, m.KeepText = rec.Columns[0].Text, true
			m.AfterPass = chainHooks(m.AfterPass, rec.Hook)
			if d := run.dumps; d != nil {
				d.graphColumn(gi, rec)
				m.AfterPass = chainHooks(m.AfterPass, func(_ passes.Step, _, _ *ir.Graph, res *passes.PassResult) error {
					d.graphColumn(gi, rec)
					res.Text = "" // the column holds it, while the page needs it
					return nil
				})
			}
		}
		if err := ir.Verify(g, ir.StageParsed); err != nil {
			// The input's own structure is wrong (an op call missing a
			// required argument, say): say so at its lines, before any pass.
			addProblems(&run.Diags, g.Pos, err, "invalid-graph", "the call does not match the op's schema ('kiln explain invalid-graph')")
			break
		}
		if p := opts.Progress; p != nil && len(pipe.Steps) > 0 {
			p.Stage(pipe.Steps[0].Info.Name, len(g.Nodes), "nodes")
			m.AfterPass = chainHooks(m.AfterPass, func(s passes.Step, _, after *ir.Graph, _ *passes.PassResult) error {
				p.Stage(s.Info.Name+" done", len(after.Nodes), "nodes")
				return nil
			})
		}
		r, err := m.RunUnit(pipe, ctx, u)
		if opts.Record && !opts.Manager.KeepText && r != nil {
			for i := range r.Passes { // kept for the report, which holds them now
				r.Passes[i].Text = ""
			}
		}
		run.Results = append(run.Results, r)
		var verr *ir.VerifyError
		if errors.As(err, &verr) {
			addProblems(&run.Diags, g.Pos, verr, "verify", "kiln's IR verifier rejected the graph a pass produced; if the input is valid PyTorch, please report it as a kiln bug")
			break
		}
		if err != nil {
			return run, fmt.Errorf("%s: %w", in.Name, err)
		}
		if run.Diags.HasErrors() {
			break
		}
	}
	return run, nil
}

// addProblems reports each verifier problem as a positioned diagnostic.
func addProblems(l *diag.List, at diag.Pos, err error, code, hint string) {
	var verr *ir.VerifyError
	if !errors.As(err, &verr) {
		l.Add(*diag.Errorf(at, code, hint, "%v", err))
		return
	}
	for _, p := range verr.Problems {
		var pr *ir.Problem
		if errors.As(p, &pr) {
			d := diag.Errorf(pr.Pos, code, hint, "%s (%s): %s", pr.Node, pr.Target, pr.Msg)
			d.Node = pr.Node
			l.Add(*d)
			continue
		}
		l.Add(*diag.Errorf(at, code, hint, "%v", p))
	}
}

// typeInputs gives unannotated inputs the types named in types.
func typeInputs(g *ir.Graph, types map[string]ir.Type) {
	for _, in := range g.Inputs {
		if t, ok := types[in.Name]; ok && !in.Type.IsKnown() {
			in.Type = t
		}
	}
}

// Parse reads the input in whatever format it holds (frontend.Parse tells
// them apart by content: FX text, op traces, TORCH_TRACE logs, Execution
// Traces, gzip of any). Errors that did not stop reading (a failed compile
// recorded in a TORCH_TRACE log) come back among the warnings.
func Parse(in Input, lookup func(string) ir.OpSchema) (*fx.Result, error) {
	res, err := parseInput(in, lookup)
	if err != nil {
		return nil, err
	}
	return &fx.Result{Module: res.Module, Warnings: res.Diags}, nil
}

// parseInput reads a file, or a folder of per-rank TORCH_TRACE logs as one module.
func parseInput(in Input, lookup func(string) ir.OpSchema) (*frontend.Result, error) {
	if in.Files == nil {
		return frontend.Parse(in.Name, in.Src, lookup)
	}
	rs, err := frontend.ParseDir(in.Name, in.Files, lookup)
	if err != nil {
		return nil, err
	}
	return frontend.Merge(in.Name, rs), nil
}

// applyLogConfig turns on the Dynamo settings a TORCH_TRACE log says its
// compiles ran with: the graphs in it were made under them.
func applyLogConfig(c *passes.Config, logged map[string]bool, file string, diags *diag.List) {
	for _, k := range torchtrace.ConfigKeys {
		if !logged[k] {
			continue
		}
		switch k {
		case "capture_scalar_outputs":
			c.CaptureScalarOutputs = true
		case "capture_dynamic_output_shape_ops":
			c.CaptureDynamicOutputShapeOps = true
		}
		diags.Add(diag.Diagnostic{Severity: diag.Remark, Code: "log-config", Pos: diag.Pos{File: file, Line: 1, Col: 1},
			Message: "torch._dynamo.config." + k + " = True, as the log's compilation_metrics record"})
	}
}

// chainHooks runs two AfterPass hooks in order.
func chainHooks(first, second func(passes.Step, *ir.Graph, *ir.Graph, *passes.PassResult) error) func(passes.Step, *ir.Graph, *ir.Graph, *passes.PassResult) error {
	if first == nil {
		return second
	}
	return func(s passes.Step, before, after *ir.Graph, res *passes.PassResult) error {
		if err := first(s, before, after, res); err != nil {
			return err
		}
		return second(s, before, after, res)
	}
}

// LoadRegistry reads a custom-op file (see ops/CUSTOM_OPS.md) on top of the
// built-in registry.
func LoadRegistry(path string) (*ops.Registry, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ops.LoadCustomOps(ops.Default(), path, src)
}
