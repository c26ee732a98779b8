package exectrace

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Options configure reading.
type Options struct {
	// Lookup resolves canonical op names to registry entries (nil: opaque).
	Lookup func(target string) ir.OpSchema
}

// Result is a read trace.
type Result struct {
	Module *ir.Module
	Schema string
	Diags  []diag.Diagnostic
	Stats  Stats
}

// Stats say what the reader used and what it passed over.
type Stats struct {
	Nodes     int // nodes in the trace
	TopLevel  int // ATen calls that became graph nodes
	Nested    int // ATen calls inside another ATen call or a region (dropped: their caller stands for them)
	Regions   int // compiled regions and kernel launches that became opaque nodes
	Labels    int // other non-ATen nodes (labels, profiler steps, roots), reported as remarks
	Fake      int // ATen calls on fake tensors (a torch.compile tracing inside the trace), dropped
	Inputs    int // graph inputs (tensors no recorded call produced)
	Annotated int // results typed from the trace
}

// Code for the remarks about non-ATen nodes.
const CodeNonATen = "et-non-aten"

// regionPrefixes name non-ATen nodes whose ATen children do not tell the
// whole story (a compiled graph runs fused kernels the observer does not
// record): they become one opaque node.
// Other non-ATen nodes (record_function labels, autograd's
// evaluate_function and AccumulateGrad) are transparent: the ATen calls
// under them are the computation.
var regionPrefixes = []string{"Torch-Compiled Region", "CompiledFunction", "## Call CompiledFxGraph"}

func isRegion(name string) bool {
	for _, p := range regionPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func isATen(name string) bool { return strings.HasPrefix(name, "aten::") }

// Parse reads one Execution Trace (already inflated).
func Parse(file string, src []byte, opts Options) (*Result, error) {
	t, err := decode(file, src)
	if err != nil {
		return nil, err
	}
	b := &builder{file: file, opts: opts, g: ir.NewGraph("GraphModule"), values: map[tkey]*ir.Value{},
		namer: map[string]int{}, warned: map[string]bool{}, labels: map[string]*labelInfo{}}
	b.res = &Result{Module: &ir.Module{File: file, Graphs: []*ir.Graph{b.g}}, Schema: t.schema}
	b.res.Stats.Nodes = len(t.nodes)
	b.g.Pos = diag.Pos{File: file, Line: 1, Col: 1}
	b.g.Title = "Execution Trace (schema " + t.schema + ")"
	if !strings.HasPrefix(t.schema, "1.0") && !strings.HasPrefix(t.schema, "1.1") {
		b.warn(1, "et-schema", "schema "+t.schema+" is newer than the 1.0.x and 1.1.x kiln knows; reading it as 1.1.x")
	}
	b.fake = fakeStorages(t)
	for _, n := range t.nodes {
		if err := b.visit(n); err != nil {
			return nil, err
		}
	}
	if len(b.g.Nodes) == 0 {
		b.res.Module.Graphs = nil
	} else {
		b.setOutputs()
	}
	b.labelRemarks()
	if b.res.Stats.Fake > 0 {
		b.res.Diags = append(b.res.Diags, diag.Diagnostic{Severity: diag.Remark, Code: CodeNonATen, Pos: b.g.Pos,
			Message: fmt.Sprintf("%d ATen calls on fake tensors (torch.compile tracing while the observer ran) are not part of the graph", b.res.Stats.Fake)})
	}
	b.g.Renumber()
	return b.res, nil
}

type labelInfo struct {
	line, count int
}

// visit turns one node into a graph node, a remark, or nothing (a call
// nested in one already taken).
func (b *builder) visit(n *node) error {
	inside := false
	for p := n.parent; p != nil; p = p.parent {
		if isATen(p.Name) || isRegion(p.Name) || b.opaque[p] {
			inside = true
			break
		}
	}
	switch {
	case inside:
		if isATen(n.Name) {
			b.res.Stats.Nested++
		}
		return nil
	case isATen(n.Name) && b.touchesFake(n):
		b.res.Stats.Fake++
		return nil
	case isATen(n.Name):
		b.res.Stats.TopLevel++
		return b.call(n)
	case isRegion(n.Name) || n.Kernel != "":
		b.res.Stats.Regions++
		return b.region(n)
	}
	b.res.Stats.Labels++
	label := labelName(n.Name)
	if b.labels[label] == nil {
		b.labels[label] = &labelInfo{line: n.Line}
		b.labelOrder = append(b.labelOrder, label)
	}
	b.labels[label].count++
	return nil
}

// labelName folds numbered labels (ProfilerStep#3) into one remark.
func labelName(name string) string {
	if i := strings.LastIndex(name, "#"); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i+1] + "N"
		}
	}
	return name
}

func (b *builder) labelRemarks() {
	for _, l := range b.labelOrder {
		info := b.labels[l]
		msg := fmt.Sprintf("non-ATen node %q (%d×): a label; the ATen calls under it are the graph's nodes", l, info.count)
		b.res.Diags = append(b.res.Diags, diag.Diagnostic{Severity: diag.Remark, Code: CodeNonATen,
			Pos: diag.Pos{File: b.file, Line: info.line, Col: 1}, Message: msg})
	}
}

// target is the registry name of an ATen call: from op_schema when the
// trace has it (it names the overload), else NAME.default.
func target(n *node) (string, *ops.Schema) {
	if n.Schema != "" {
		if s, err := ops.ParseSchema(n.Schema, "aten"); err == nil {
			return s.Namespace + "::" + s.Name + "." + s.Overload, s
		}
	}
	return n.Name + ".default", nil
}

func (b *builder) warn(line int, code, msg string) {
	b.res.Diags = append(b.res.Diags, diag.Diagnostic{Severity: diag.Warning, Code: code,
		Pos: diag.Pos{File: b.file, Line: line, Col: 1}, Message: msg})
}

func itoa(i int) string { return strconv.Itoa(i) }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// sortedKeys is for deterministic iteration.
func sortedKeys(m map[tkey]bool) []tkey {
	out := make([]tkey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].less(out[j]) })
	return out
}

// fakeStorages finds the storages of fake tensors: a FakeTensor reports its
// fake device (cpu, cuda) but lives in a meta storage, so its storage id
// also appears with device "meta". A real meta tensor says "meta" always.
func fakeStorages(t *trace) map[int64]bool {
	meta, other := map[int64]bool{}, map[int64]bool{}
	for _, n := range t.nodes {
		for _, s := range append(flatten(n.In.slots()), flatten(n.Out.slots())...) {
			var tup []json.RawMessage
			var sid int64
			var dev string
			if !strings.HasPrefix(s.typ, "Tensor") || json.Unmarshal(s.value, &tup) != nil || len(tup) < 6 ||
				json.Unmarshal(tup[1], &sid) != nil || json.Unmarshal(tup[5], &dev) != nil {
				continue
			}
			if dev == "meta" {
				meta[sid] = true
			} else {
				other[sid] = true
			}
		}
	}
	fake := map[int64]bool{}
	for sid := range meta {
		if other[sid] {
			fake[sid] = true
		}
	}
	return fake
}

// touchesFake reports whether a call reads or writes a fake tensor.
func (b *builder) touchesFake(n *node) bool {
	if len(b.fake) == 0 {
		return false
	}
	for _, s := range append(flatten(n.In.slots()), flatten(n.Out.slots())...) {
		var tup []json.RawMessage
		var sid int64
		if strings.HasPrefix(s.typ, "Tensor") && json.Unmarshal(s.value, &tup) == nil && len(tup) >= 2 &&
			json.Unmarshal(tup[1], &sid) == nil && b.fake[sid] {
			return true
		}
	}
	return false
}
