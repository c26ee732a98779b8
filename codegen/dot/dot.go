// Package dot draws graphs as Graphviz DOT text and renders SVG through
// go-graphviz.
package dot

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	graphviz "github.com/goccy/go-graphviz"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
)

// Options select what the drawing marks.
type Options struct {
	// Diags marks nodes that have diagnostics (matched by node name and
	// position) and shows the first message in the node's tooltip.
	Diags []diag.Diagnostic
	// Clusters groups nodes into boxes (fused kernels): node name → cluster label.
	Clusters map[string]string
}

// Look is how a node is drawn; each kind of op has one.
type look struct {
	shape, style, fill, color string
}

var (
	lookInput   = look{"ellipse", "filled", "#e8f0fe", "#1a73e8"}
	lookOutput  = look{"ellipse", "filled", "#e6f4ea", "#188038"}
	lookPlain   = look{"box", "rounded,filled", "#ffffff", "#5f6368"}
	lookView    = look{"box", "rounded,dashed,filled", "#f8f9fa", "#80868b"}
	lookInPlace = look{"box", "rounded,filled,bold", "#fce8e6", "#d93025"}
	lookDataDep = look{"diamond", "filled", "#fef7e0", "#f29900"}
	lookOpaque  = look{"box", "filled", "#f1f3f4", "#9aa0a6"}
)

func lookOf(n *ir.Node) look {
	switch {
	case ir.IsMutatingNode(n):
		return lookInPlace
	case ir.IsDataDependentNode(n):
		return lookDataDep
	case ir.IsViewNode(n):
		return lookView
	case n.Form == ir.FormOp && n.Op == nil:
		return lookOpaque
	}
	return lookPlain
}

// Writer is what WriteGraph writes to: a *strings.Builder or a
// *bufio.Writer (whose first error sticks until Flush reports it).
type Writer interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// Graph returns DOT text for g: one box per node labelled with its name,
// op and result types; edges follow data flow.
func Graph(g *ir.Graph, opts Options) string {
	var b strings.Builder
	b.Grow(200 * (len(g.Inputs) + len(g.Nodes))) // about what a node and its edges take: no doubling through tens of MB
	WriteGraph(&b, g, opts)
	return b.String()
}

// WriteGraph writes Graph's text to w as it goes: `kiln compile` streams a
// large graph's drawing (tens of MB) into graph.dot instead of holding it.
func WriteGraph(w Writer, g *ir.Graph, opts Options) {
	name := g.Name
	if name == "" {
		name = "GraphModule"
	}
	w.WriteString("digraph ")
	writeQuoted(w, name)
	w.WriteString(" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [color=\"#5f6368\"];\n")
	diagsByNode := map[string]diag.Diagnostic{}
	for _, d := range opts.Diags {
		if _, ok := diagsByNode[d.Node]; !ok && d.Node != "" && d.Severity >= diag.Warning {
			diagsByNode[d.Node] = d
		}
	}
	var num []byte // scratch for ids
	ids := map[*ir.Value]boxID{}
	for i, v := range g.Inputs {
		ids[v] = boxID{input: true, n: i}
		num = boxID{input: true, n: i}.append(num[:0])
		writeNode(w, "  ", string(num), v.Name+"\n"+v.Type.String(), lookInput, "")
	}
	byCluster := map[string][]*ir.Node{}
	var clusterOrder []string
	for _, n := range g.Nodes {
		if c, ok := opts.Clusters[n.Name]; ok {
			if _, seen := byCluster[c]; !seen {
				clusterOrder = append(clusterOrder, c)
			}
			byCluster[c] = append(byCluster[c], n)
		}
	}
	for ci, c := range clusterOrder {
		w.WriteString("  subgraph cluster_")
		w.Write(strconv.AppendInt(num[:0], int64(ci), 10))
		w.WriteString(" {\n    label=")
		writeQuoted(w, c)
		w.WriteString("; style=\"rounded,filled\"; fillcolor=\"#fafafa\"; color=\"#9334e6\";\n")
		for _, n := range byCluster[c] {
			num = writeOpNode(w, "    ", n, diagsByNode, num)
		}
		w.WriteString("  }\n")
	}
	for _, n := range g.Nodes {
		if _, ok := opts.Clusters[n.Name]; !ok {
			num = writeOpNode(w, "  ", n, diagsByNode, num)
		}
		for _, r := range n.Results {
			ids[r] = boxID{n: n.ID}
		}
	}
	writeNode(w, "  ", "output", "output", lookOutput, "")
	edge := func(v *ir.Value, to string) {
		num = append(num[:0], "  "...)
		if id, ok := ids[v]; ok { // else a value no box defines: no source named, as Graph always wrote
			num = id.append(num)
		}
		num = append(append(append(num, " -> "...), to...), ";\n"...)
		w.Write(num)
	}
	var seen distinct
	for _, n := range g.Nodes {
		seen.reset()
		to := nodeID(n)
		n.WalkInputs(func(v *ir.Value) {
			if seen.add(v) {
				edge(v, to)
			}
		})
	}
	for i := range g.Outputs {
		g.Outputs[i].Walk(func(v *ir.Value) { edge(v, "output") })
	}
	w.WriteString("}\n")
}

// maxLabelResults bounds the result types a node's box lists.
const maxLabelResults = 8

func nodeID(n *ir.Node) string { return "n" + strconv.Itoa(n.ID) }

// boxID names a box: in<n> for the n-th graph input, n<n> for node ID n.
type boxID struct {
	input bool
	n     int
}

func (id boxID) append(b []byte) []byte {
	if id.input {
		b = append(b, "in"...)
	} else {
		b = append(b, 'n')
	}
	return strconv.AppendInt(b, int64(id.n), 10)
}

// distinct says whether a value is new among a node's inputs: a short
// list scanned for the usual few, a map past maxLinearSeen (a cat of 100k
// pieces must not be quadratic).
type distinct struct {
	few  []*ir.Value
	many map[*ir.Value]bool
}

const maxLinearSeen = 16

func (d *distinct) reset() { d.few, d.many = d.few[:0], nil }

func (d *distinct) add(v *ir.Value) bool {
	if d.many != nil {
		if d.many[v] {
			return false
		}
		d.many[v] = true
		return true
	}
	if slices.Contains(d.few, v) {
		return false
	}
	if d.few = append(d.few, v); len(d.few) > maxLinearSeen {
		d.many = make(map[*ir.Value]bool, 2*len(d.few))
		for _, x := range d.few {
			d.many[x] = true
		}
	}
	return true
}

// writeOpNode writes n's box, its label quoted part by part: the label is
// the node's name, target and result types, one per line.
func writeOpNode(w Writer, indent string, n *ir.Node, diags map[string]diag.Diagnostic, scratch []byte) []byte {
	lk := lookOf(n)
	d, marked := diags[n.Name]
	if marked {
		lk.color, lk.style = "#c5221f", lk.style+",bold"
		if !strings.Contains(lk.style, "filled") {
			lk.style += ",filled"
		}
		lk.fill = "#f9dedc"
	}
	w.WriteString(indent)
	scratch = boxID{n: n.ID}.append(scratch[:0])
	w.Write(scratch)
	w.WriteString(` [label="`)
	quoter.WriteString(w, n.Name)
	w.WriteString(`\n`)
	quoter.WriteString(w, shortTarget(n.Target))
	for i, r := range n.Results {
		if i == maxLabelResults && len(n.Results) > maxLabelResults+1 {
			// A split into 100k pieces must not make a 100k-line box.
			scratch = strconv.AppendInt(append(scratch[:0], `\n… `...), int64(len(n.Results)-i), 10)
			w.Write(append(scratch, " more results"...))
			break
		}
		if t := r.Type.String(); t != "" {
			w.WriteString(`\n`)
			quoter.WriteString(w, t)
		}
	}
	tooltip := ""
	if marked {
		w.WriteString(`\n`)
		quoter.WriteString(w, d.Severity.String()+"["+d.Code+"]")
		tooltip = d.Message
	}
	w.WriteByte('"')
	writeAttrs(w, lk, tooltip)
	return scratch
}

func shortTarget(t string) string { return strings.TrimPrefix(t, "aten::") }

func writeNode(w Writer, indent, id, label string, lk look, tooltip string) {
	w.WriteString(indent)
	w.WriteString(id)
	w.WriteString(" [label=")
	writeQuoted(w, label)
	writeAttrs(w, lk, tooltip)
}

// writeAttrs ends a box's statement: its look and tooltip.
func writeAttrs(w Writer, lk look, tooltip string) {
	w.WriteString(", shape=")
	w.WriteString(lk.shape)
	w.WriteString(", style=")
	writeQuoted(w, lk.style)
	w.WriteString(", fillcolor=")
	writeQuoted(w, lk.fill)
	w.WriteString(", color=")
	writeQuoted(w, lk.color)
	if tooltip != "" {
		w.WriteString(", tooltip=")
		writeQuoted(w, tooltip)
	}
	w.WriteString("];\n")
}

var quoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// writeQuoted writes s as a DOT string literal.
func writeQuoted(w Writer, s string) {
	w.WriteByte('"')
	quoter.WriteString(w, s)
	w.WriteByte('"')
}

// SVG renders DOT text to SVG with the embedded Graphviz. Layout time
// grows faster than the graph, so a drawing of more than MaxDrawn nodes
// and edges is refused (*TooLargeError) before Graphviz starts.
func SVG(ctx context.Context, dotText string) ([]byte, error) {
	if n := countDrawn(dotText); n > MaxDrawn {
		return nil, &TooLargeError{Drawn: n}
	}
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("dot: start graphviz: %w", err)
	}
	defer gv.Close()
	g, err := graphviz.ParseBytes([]byte(dotText))
	if err != nil {
		return nil, fmt.Errorf("dot: parse: %w", err)
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := gv.Render(ctx, g, graphviz.SVG, &buf); err != nil {
		return nil, fmt.Errorf("dot: render svg: %w", err)
	}
	return openOnContent(buf.Bytes()), nil
}

// openOnContent makes a browser that opens the SVG show the drawing, not
// the empty top-left corner of a wide layout (Graphviz centres each rank):
// a script scrolls the first node into view.
func openOnContent(svg []byte) []byte {
	i := bytes.LastIndex(svg, []byte("</svg>"))
	if i < 0 {
		return svg
	}
	out := make([]byte, 0, len(svg)+len(scrollScript))
	out = append(out, svg[:i]...)
	out = append(out, scrollScript...)
	return append(out, svg[i:]...)
}

const scrollScript = `<script><![CDATA[
(function(){var n=document.querySelector('g.node');if(!n)return;var b=n.getBoundingClientRect();
window.scrollTo(Math.max(0,b.left+window.scrollX-window.innerWidth/3),Math.max(0,b.top+window.scrollY-20))})();
]]></script>
`
