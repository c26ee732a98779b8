// Package passes holds the pass interface, the registry of passes, pipeline
// parsing with ordering constraints, and the pass manager that runs a
// pipeline with verification, timing, IR dumps and crash recovery. Graph
// passes (Pass) and the stages past the graph — lowering, the loop-IR
// verifier, fusion, buffer planning, codegen (UnitPass) — are rows of the
// same registry and run through the same manager; driver's pipeline table
// puts them in run order.
package passes

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
)

// Pass transforms or analyses a graph. Run reports whether it changed g.
// A problem in the user's input is returned as a *diag.Diagnostic (or added
// to ctx as an error diagnostic); any other error is an internal failure.
type Pass interface {
	Name() string
	Run(ctx *Context, g *ir.Graph) (changed bool, err error)
}

// UnitPass is a stage that works past the graph: it lowers the graph to a
// Program, transforms the Program, or emits code from it.
type UnitPass interface {
	Name() string
	RunUnit(ctx *Context, u *Unit) (changed bool, err error)
}

// Program is what a graph becomes once lowered (kiln's loop program). It
// prints and checks itself, so the manager hashes, dumps and verifies it as
// it does a graph.
type Program interface {
	String() string
	Verify() error
}

// Unit is what a pipeline carries from stage to stage: the graph; once a
// lowering stage ran, the Program it became; once a codegen stage ran, the
// code it emitted, by stage name.
type Unit struct {
	Name  string // the program's package-safe name ("graph0")
	Graph *ir.Graph
	Prog  Program
	Code  map[string]string
	// Printed, when set, is Text() as the caller already printed it: the
	// manager starts from it instead of printing the unit again.
	Printed string

	codeMu sync.Mutex // code generators run at once (Manager.RunUnit)
}

// SetCode records the code a codegen stage emitted. Code generators run
// concurrently, so they record it here, not in Code directly.
func (u *Unit) SetCode(stage, src string) {
	u.codeMu.Lock()
	defer u.codeMu.Unlock()
	if u.Code == nil {
		u.Code = map[string]string{}
	}
	u.Code[stage] = src
}

// Text is the unit's printed form: the program once lowered, else the graph.
func (u *Unit) Text() string {
	if u.Prog != nil {
		return u.Prog.String()
	}
	return u.Graph.String()
}

// Options are a pass's settings from the pipeline text: `vmap{in_dims=0,None}`.
type Options map[string]string

// Get returns the option or def.
func (o Options) Get(key, def string) string {
	if v, ok := o[key]; ok {
		return v
	}
	return def
}

// Bool reads a boolean option ("", "1", "true" are true when present).
func (o Options) Bool(key string) bool {
	v, ok := o[key]
	return ok && (v == "" || v == "1" || v == "true")
}

// OptionInfo documents one option of a pass.
type OptionInfo struct {
	Name, Doc string
}

// Requirement is an ordering constraint: a pass needs Pass to have run
// earlier in the pipeline, for Reason.
type Requirement struct {
	Pass, Reason string
}

// Info describes a registered pass: one row of the pipeline table.
type Info struct {
	Name     string
	Summary  string
	Options  []OptionInfo
	Requires []Requirement
	// Stage is the verifier stage that holds after the pass (it never
	// lowers the stage reached by earlier passes).
	Stage ir.Stage
	// Checks says what is verified after the stage, for `kiln passes`;
	// empty means the IR verifier at Stage.
	Checks string
	// VerifyProgram makes the manager verify the Program after the stage
	// (graph passes are verified whenever they change the graph).
	VerifyProgram bool
	// Emits names a codegen stage: its dump is the code it wrote
	// (Unit.Code[Name]), not the program it read.
	Emits bool
	// New builds a graph pass; NewUnit a stage past the graph. A row has
	// exactly one of them (the parse row, run by the driver, has neither).
	New     func(opts Options) (Pass, error)
	NewUnit func(opts Options) (UnitPass, error)
}

var registry = map[string]Info{}

// Register adds a pass. It panics on duplicates: registration happens in
// init functions, and a duplicate is a programming error.
func Register(info Info) {
	if _, dup := registry[info.Name]; dup {
		panic("passes: duplicate pass " + info.Name)
	}
	if (info.New == nil) == (info.NewUnit == nil) {
		panic("passes: pass " + info.Name + " needs exactly one constructor (New or NewUnit)")
	}
	registry[info.Name] = info
}

// Lookup returns a registered pass's info.
func Lookup(name string) (Info, bool) {
	info, ok := registry[name]
	return info, ok
}

// All returns the registered passes sorted by name.
func All() []Info {
	out := make([]Info, 0, len(registry))
	for _, info := range registry {
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Config holds settings that several passes read, mirroring
// torch._dynamo.config where PyTorch has the same switch.
type Config struct {
	CaptureScalarOutputs         bool // torch._dynamo.config.capture_scalar_outputs
	CaptureDynamicOutputShapeOps bool // torch._dynamo.config.capture_dynamic_output_shape_ops
	// Extra carries settings owned by individual packages (a custom-op
	// registry, say), keyed by package name.
	Extra map[string]any
}

// Context is what a pass sees besides the graph.
type Context struct {
	Config Config
	Diags  *diag.List

	pass    string   // the pass running now, for diagnostics
	current *ir.Node // the node it is working on, for crash reports
	remarks int      // remarks the running pass reported (limits.RemarksPerPass)
}

// NewContext returns a context with an empty diagnostic list.
func NewContext(cfg Config) *Context {
	return &Context{Config: cfg, Diags: &diag.List{}}
}

// Remark records a decision of the current pass about node n.
func (c *Context) Remark(n *ir.Node, code, format string, args ...any) {
	c.report(diag.Remark, n, code, "", format, args...)
}

// Warn records a warning about node n.
func (c *Context) Warn(n *ir.Node, code, hint, format string, args ...any) {
	c.report(diag.Warning, n, code, hint, format, args...)
}

// Errorf records an error about node n and returns it, so a pass can
// `return false, ctx.Errorf(...)` to stop the pipeline there.
func (c *Context) Errorf(n *ir.Node, code, hint, format string, args ...any) *diag.Diagnostic {
	d := c.report(diag.Error, n, code, hint, format, args...)
	return &d
}

func (c *Context) report(sev diag.Severity, n *ir.Node, code, hint, format string, args ...any) diag.Diagnostic {
	d := diag.Diagnostic{Severity: sev, Code: code, Pass: c.pass, Hint: hint}
	if sev == diag.Remark {
		if c.remarks++; limits.RemarksPerPass > 0 && c.remarks > limits.RemarksPerPass {
			return d // counted for the pass's summary (endPass), not kept
		}
	}
	d.Message = fmt.Sprintf(format, args...)
	if n != nil {
		d.Pos, d.Node = n.Pos, n.Name
	}
	c.Diags.Add(d)
	return d
}

// RemarkAt records a remark at pos about the value named node (a graph
// input, which has no node), under the same budget as Remark.
func (c *Context) RemarkAt(pos diag.Pos, node, code, msg string) {
	c.RemarkFunc(pos, node, code, func() string { return msg })
}

// RemarkFunc is RemarkAt with the message built by msg, called only for a
// remark that is kept: a pass with a remark per value (align) formats
// 10,000 of them, not a million.
func (c *Context) RemarkFunc(pos diag.Pos, node, code string, msg func() string) {
	if c.remarks++; limits.RemarksPerPass > 0 && c.remarks > limits.RemarksPerPass {
		return
	}
	c.Diags.Add(diag.Diagnostic{Severity: diag.Remark, Code: code, Pos: pos, Node: node, Pass: c.pass, Message: msg()})
}

// startPass begins counting the remarks of pass.
func (c *Context) startPass(pass string) {
	c.pass, c.current, c.remarks = pass, nil, 0
}

// endPass says, in one remark at the graph's position, how many remarks
// the pass made past limits.RemarksPerPass.
func (c *Context) endPass(at diag.Pos) {
	if limit := limits.RemarksPerPass; limit > 0 && c.remarks > limit {
		c.Diags.Add(diag.Diagnostic{Severity: diag.Remark, Code: "limit", Pass: c.pass, Pos: at,
			Message: fmt.Sprintf("%s made %d remarks; the first %d are listed (-max-remarks=N lists more, 0 all)", c.pass, c.remarks, limit)})
	}
}

// Remarks returns the remarks a pass reported, as "code: message" lines, for tests.
func (c *Context) Remarks(pass string) []string {
	var out []string
	for _, d := range c.Diags.Items {
		if d.Severity == diag.Remark && d.Pass == pass {
			out = append(out, d.Code+": "+d.Message)
		}
	}
	return out
}

// Step is one pass of a parsed pipeline: Pass for a graph pass, Unit for
// a stage past the graph.
type Step struct {
	Info    Info
	Options Options
	Pass    Pass
	Unit    UnitPass
}

// run runs the step on u.
func (s Step) run(ctx *Context, u *Unit) (bool, error) {
	if s.Unit != nil {
		return s.Unit.RunUnit(ctx, u)
	}
	return s.Pass.Run(ctx, u.Graph)
}

// From is the pipeline from step i on (a reproducer's pipeline).
func (p *Pipeline) From(i int) *Pipeline {
	return &Pipeline{Steps: p.Steps[i:]}
}

// Pipeline is a parsed, checked list of passes.
type Pipeline struct {
	Steps []Step
}

// String prints the pipeline as it parses back.
func (p *Pipeline) String() string {
	parts := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		parts[i] = s.Info.Name
		if len(s.Options) > 0 {
			keys := make([]string, 0, len(s.Options))
			for k := range s.Options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var kv []string
			for _, k := range keys {
				if v := s.Options[k]; v != "" {
					kv = append(kv, k+"="+v)
				} else {
					kv = append(kv, k) // a flag option: `fuse{off}`
				}
			}
			parts[i] += "{" + strings.Join(kv, ";") + "}"
		}
	}
	return strings.Join(parts, ",")
}
