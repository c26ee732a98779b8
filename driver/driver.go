// Package driver is kiln's pipeline as one short function of named steps:
// read a trace, build the IR, run passes, collect diagnostics. The CLI and
// the tests call it; it holds no logic of its own beyond wiring.
package driver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/frontend/optrace"
	"github.com/kiln-compiler/kiln/ir"
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
}

// ReadInput reads a file, or standard input for "-".
func ReadInput(path string, stdin io.Reader) (Input, error) {
	if path == "-" {
		src, err := io.ReadAll(stdin)
		return Input{Name: "<stdin>", Src: src}, err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return Input{}, err
	}
	return Input{Name: path, Src: src}, nil
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

	manager passes.Manager // the back end runs through the same manager
}

// Compile parses in and runs the pipeline on each graph. Input problems
// (parse errors, diagnostics from passes) land in Run.Diags; the returned
// error is for internal failures and bad options.
func Compile(in Input, opts Options) (*Run, error) {
	run := &Run{manager: opts.Manager}
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
	start := time.Now()
	res, err := Parse(in, lookup)
	run.Parse = passes.PassResult{Pass: "parse", Changed: true, Duration: time.Since(start), Err: err}
	if err != nil {
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			run.Diags.Add(*d)
			return run, nil
		}
		return nil, err
	}
	run.Module = res.Module
	if opts.Manager.PrintAfter["parse"] { // -print-after-all starts after parsing, as LLVM's does
		opts.Manager.Dump("parse", true, run.Module.Print())
	}
	for _, w := range res.Warnings {
		run.Diags.Add(w)
	}
	for _, g := range run.Module.Graphs {
		typeInputs(g, opts.InputTypes)
		ctx := passes.NewContext(opts.Config)
		ctx.Diags = &run.Diags
		m := opts.Manager
		if opts.Record {
			rec := &report.Recorder{}
			rec.Start(g)
			run.Stages = append(run.Stages, rec)
			m.AfterPass = chainHooks(m.AfterPass, rec.Hook)
		}
		r, err := m.Run(pipe, ctx, g)
		run.Results = append(run.Results, r)
		if err != nil {
			return run, fmt.Errorf("%s: %w", in.Name, err)
		}
		if run.Diags.HasErrors() {
			break
		}
	}
	return run, nil
}

// typeInputs gives unannotated inputs the types named in types.
func typeInputs(g *ir.Graph, types map[string]ir.Type) {
	for _, in := range g.Inputs {
		if t, ok := types[in.Name]; ok && !in.Type.IsKnown() {
			in.Type = t
		}
	}
}

// Parse picks the frontend by content: dispatcher op traces are JSON lines
// (the first non-blank character is '{'); anything else is FX text.
func Parse(in Input, lookup func(string) ir.OpSchema) (*fx.Result, error) {
	if trimmed := strings.TrimSpace(string(in.Src)); strings.HasPrefix(trimmed, "{") {
		mod, warnings, err := optrace.Parse(in.Name, in.Src, optrace.Options{Lookup: lookup})
		if err != nil {
			return nil, err
		}
		return &fx.Result{Module: mod, Warnings: warnings}, nil
	}
	return fx.Parse(in.Name, in.Src, fx.Options{Lookup: lookup})
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
