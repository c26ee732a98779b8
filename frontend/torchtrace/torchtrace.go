package torchtrace

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
)

// Options configure reading.
type Options struct {
	// Lookup resolves canonical op names to registry entries (nil: opaque).
	Lookup func(target string) ir.OpSchema
}

// Result is a read log.
type Result struct {
	Module *ir.Module
	// Diags holds compile failures and fake-kernel events (errors and
	// warnings at the log's line) and the FX parser's warnings.
	Diags      []diag.Diagnostic
	Provenance []Provenance
	// Config holds the Dynamo settings the compiles ran with, from
	// compilation_metrics' dynamo_config (capture_scalar_outputs,
	// capture_dynamic_output_shape_ops): true when any compile had it on.
	Config map[string]bool
	Stats  Stats
}

// Stats say what the reader used and what it passed over.
type Stats struct {
	Lines, Events int
	Graphs        int            // graphs read (a payload may hold several)
	Described     int            // graph inputs given an offset or a type by describe_tensor
	Skipped       int            // lines neither envelope nor payload
	Unread        map[string]int // event kinds (artifact:NAME) kiln does not use, with counts
}

// Provenance is Inductor's kernel → post-grad nodes map for one graph
// (the inductor_provenance_tracking_node_mappings artifact).
type Provenance struct {
	Pos     diag.Pos
	Graph   *ir.Graph // the inductor_post_grad_graph it describes; nil if the log lacks it
	Kernels []Kernel
}

// Kernel is one generated kernel and the post-grad nodes it computes.
type Kernel struct {
	Name  string   // "cpp_fused_relu_1:3", "triton_poi_fused_add_0:2", "extern_kernels.addmm:4"
	Nodes []string // post-grad node names
}

// graphEvents are the events whose payload is FX text.
var graphEvents = map[string]bool{
	"dynamo_output_graph": true, "aot_forward_graph": true, "aot_backward_graph": true, "aot_joint_graph": true,
	"aot_inference_graph": true, "inductor_pre_grad_graph": true, "inductor_post_grad_graph": true,
	"compiled_autograd_graph": true, "exported_program": true,
}

// reader holds the state of one log.
type reader struct {
	file   string
	opts   Options
	res    *Result
	descs  map[string][]inputDesc // compile id → describe_tensor/describe_source facts
	srcOf  map[[2]int]string      // (describer, tensor id) → source
	failed map[string]bool        // compile ids with a failing compilation_metrics
	errs   []*event               // dynamo_error artifacts, reported when no metrics say more
	post   map[string]*ir.Graph   // compile id → latest post-grad graph
}

// Parse reads one TORCH_TRACE log. It fails only when src holds no
// envelope at all; everything else (a payload that does not parse, a failed
// compile) is a diagnostic, so the graphs that did read are kept.
func Parse(file string, src []byte, opts Options) (*Result, error) {
	events, skipped, bad := scan(string(src))
	if len(events) == 0 {
		return nil, diag.Errorf(diag.Pos{File: file, Line: 1, Col: 1}, "parse",
			"TORCH_TRACE logs are written by TORCH_TRACE=/dir; each event line starts with a glog prefix and a JSON object",
			"no TORCH_TRACE event in the file")
	}
	r := &reader{file: file, opts: opts, res: &Result{Module: &ir.Module{File: file}, Config: map[string]bool{}}, descs: map[string][]inputDesc{},
		srcOf: map[[2]int]string{}, failed: map[string]bool{}, post: map[string]*ir.Graph{}}
	r.res.Stats = Stats{Lines: strings.Count(string(src), "\n") + 1, Events: len(events), Skipped: skipped, Unread: map[string]int{}}
	for _, line := range bad {
		r.res.Diags = append(r.res.Diags, diag.Diagnostic{Severity: diag.Warning, Code: "parse", Pos: r.pos(line, 1),
			Message: "a glog line whose JSON does not parse; skipped"})
	}
	for _, e := range events {
		r.event(e)
	}
	r.finish()
	r.res.Stats.Graphs = len(r.res.Module.Graphs)
	return r.res, nil
}

func (r *reader) pos(line, col int) diag.Pos { return diag.Pos{File: r.file, Line: line, Col: col} }

func (r *reader) event(e *event) {
	switch {
	case graphEvents[e.kind] || e.kind == "artifact" && isGraphArtifact(e):
		r.graph(e)
	case e.kind == "describe_tensor":
		r.describeTensor(e)
	case e.kind == "describe_source":
		r.describeSource(e)
	case e.kind == "compilation_metrics" || e.kind == "bwd_compilation_metrics":
		r.metrics(e)
	case e.kind == "artifact" && e.artifact == "dynamo_error":
		r.errs = append(r.errs, e)
	case e.kind == "missing_fake_kernel" || e.kind == "mismatched_fake_kernel":
		r.fakeKernel(e)
	case e.kind == "artifact" && e.artifact == "inductor_provenance_tracking_node_mappings":
		r.provenance(e)
	default:
		name := e.kind
		if e.kind == "artifact" {
			name += ":" + e.artifact
		}
		r.res.Stats.Unread[name]++
	}
}

// isGraphArtifact: string artifacts named *_graph whose payload is FX text
// (before_pre_grad_graph, after_joint_graph, inductor_post_grad_graph, ...).
func isGraphArtifact(e *event) bool {
	if e.encoding != "string" || !strings.HasSuffix(e.artifact, "_graph") {
		return false
	}
	for _, l := range e.payload {
		if strings.Contains(l, "def forward(") || strings.HasPrefix(strings.TrimSpace(l), "graph():") {
			return true
		}
	}
	return false
}

func (r *reader) graph(e *event) {
	stage := e.kind
	if e.kind == "artifact" {
		stage = e.artifact
	}
	title := strings.TrimSpace(e.compileID() + " " + stage)
	if len(e.payload) == 0 {
		r.res.Diags = append(r.res.Diags, diag.Diagnostic{Severity: diag.Warning, Code: "parse", Pos: r.pos(e.line, 1),
			Message: title + " has no payload"})
		return
	}
	res, err := fx.Parse(r.file, []byte(strings.Join(e.payload, "\n")), fx.Options{Lookup: r.opts.Lookup})
	shift := func(p diag.Pos) diag.Pos {
		if p.Line > 0 {
			p.Line += e.payLine - 1
			p.Col++ // the payload's tab
		}
		return p
	}
	if err != nil {
		d, ok := err.(*diag.Diagnostic)
		if !ok {
			d = diag.Errorf(r.pos(e.payLine, 1), "parse", "", "%v", err)
		}
		dd := *d
		dd.Pos = shift(dd.Pos)
		dd.Message = title + ": " + dd.Message
		r.res.Diags = append(r.res.Diags, dd)
		return
	}
	for _, w := range res.Warnings {
		w.Pos = shift(w.Pos)
		r.res.Diags = append(r.res.Diags, w)
	}
	for i, g := range res.Module.Graphs {
		shiftGraph(g, shift)
		g.Title = title
		if i > 0 {
			g.Title = fmt.Sprintf("%s (%s)", title, g.Name)
		}
		r.applyDescs(e.compileID(), g)
		r.res.Module.Graphs = append(r.res.Module.Graphs, g)
	}
	if stage == "inductor_post_grad_graph" && len(res.Module.Graphs) > 0 {
		r.post[e.compileID()] = res.Module.Graphs[0]
	}
}

// shiftGraph moves every position of g from the payload into the log.
func shiftGraph(g *ir.Graph, shift func(diag.Pos) diag.Pos) {
	g.Pos = shift(g.Pos)
	for _, v := range g.Inputs {
		v.Pos = shift(v.Pos)
	}
	for _, n := range g.Nodes {
		n.Pos = shift(n.Pos)
		for _, v := range n.Results {
			v.Pos = shift(v.Pos)
		}
	}
}

// finish reports the dynamo_error tracebacks no failing metrics explained.
func (r *reader) finish() {
	for _, e := range r.errs {
		if r.failed[e.compileID()] {
			continue
		}
		last := ""
		for _, l := range e.payload {
			if s := strings.TrimSpace(l); s != "" {
				last = s
			}
		}
		r.res.Diags = append(r.res.Diags, diag.Diagnostic{Severity: diag.Error, Code: CodeCompileFailed, Pos: r.pos(e.line, 1),
			Message: fmt.Sprintf("torch.compile of %s failed: %s", e.compileID(), last),
			Hint:    fmt.Sprintf("the traceback is the dynamo_error payload from line %d", e.payLine)})
	}
	sort.SliceStable(r.res.Diags, func(i, j int) bool { return r.res.Diags[i].Pos.Line < r.res.Diags[j].Pos.Line })
}

func (r *reader) provenance(e *event) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.Join(e.payload, "\n")), &m); err != nil {
		r.res.Diags = append(r.res.Diags, diag.Diagnostic{Severity: diag.Warning, Code: "parse", Pos: r.pos(e.payLine, 2),
			Message: "provenance mapping is not JSON: " + err.Error()})
		return
	}
	p := Provenance{Pos: r.pos(e.line, 1), Graph: r.post[e.compileID()]}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !strings.HasSuffix(k, "CodeToPost") { // cppCodeToPost, tritonCodeToPost, ...
			continue
		}
		var kernels map[string][]string
		if json.Unmarshal(m[k], &kernels) != nil {
			continue
		}
		for name, nodes := range kernels {
			p.Kernels = append(p.Kernels, Kernel{Name: name, Nodes: nodes})
		}
	}
	sort.Slice(p.Kernels, func(i, j int) bool { return kernelOrder(p.Kernels[i].Name) < kernelOrder(p.Kernels[j].Name) })
	r.res.Provenance = append(r.res.Provenance, p)
}

// kernelOrder sorts "name:N" by N (the kernel's place in the generated code).
func kernelOrder(name string) string {
	_, n, _ := strings.Cut(name, ":")
	return fmt.Sprintf("%08s %s", n, name)
}
