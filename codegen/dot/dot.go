// Package dot draws graphs as Graphviz DOT text and renders SVG through
// go-graphviz.
package dot

import (
	"bytes"
	"context"
	"fmt"
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

// Graph returns DOT text for g: one box per node labelled with its name,
// op and result types; edges follow data flow.
func Graph(g *ir.Graph, opts Options) string {
	var b strings.Builder
	b.Grow(200 * (len(g.Inputs) + len(g.Nodes))) // about what a node and its edges take: no doubling through tens of MB
	name := g.Name
	if name == "" {
		name = "GraphModule"
	}
	fmt.Fprintf(&b, "digraph %s {\n", quote(name))
	b.WriteString("  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [color=\"#5f6368\"];\n")
	diagsByNode := map[string]diag.Diagnostic{}
	for _, d := range opts.Diags {
		if _, ok := diagsByNode[d.Node]; !ok && d.Node != "" && d.Severity >= diag.Warning {
			diagsByNode[d.Node] = d
		}
	}
	ids := map[*ir.Value]string{}
	for i, v := range g.Inputs {
		id := fmt.Sprintf("in%d", i)
		ids[v] = id
		writeNode(&b, "  ", id, v.Name+"\n"+v.Type.String(), lookInput, "")
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
		fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s; style=\"rounded,filled\"; fillcolor=\"#fafafa\"; color=\"#9334e6\";\n", ci, quote(c))
		for _, n := range byCluster[c] {
			writeOpNode(&b, "    ", n, diagsByNode)
		}
		b.WriteString("  }\n")
	}
	for _, n := range g.Nodes {
		if _, ok := opts.Clusters[n.Name]; !ok {
			writeOpNode(&b, "  ", n, diagsByNode)
		}
		for _, r := range n.Results {
			ids[r] = nodeID(n)
		}
	}
	writeNode(&b, "  ", "output", "output", lookOutput, "")
	for _, n := range g.Nodes {
		seen := map[*ir.Value]bool{}
		n.WalkInputs(func(v *ir.Value) {
			if !seen[v] {
				seen[v] = true
				fmt.Fprintf(&b, "  %s -> %s;\n", ids[v], nodeID(n))
			}
		})
	}
	for i := range g.Outputs {
		g.Outputs[i].Walk(func(v *ir.Value) { fmt.Fprintf(&b, "  %s -> output;\n", ids[v]) })
	}
	b.WriteString("}\n")
	return b.String()
}

// maxLabelResults bounds the result types a node's box lists.
const maxLabelResults = 8

func nodeID(n *ir.Node) string { return fmt.Sprintf("n%d", n.ID) }

func writeOpNode(b *strings.Builder, indent string, n *ir.Node, diags map[string]diag.Diagnostic) {
	var lb strings.Builder // a Builder: += on the label was quadratic in the result count
	lb.WriteString(n.Name + "\n" + shortTarget(n.Target))
	for i, r := range n.Results {
		if i == maxLabelResults && len(n.Results) > maxLabelResults+1 {
			// A split into 100k pieces must not make a 100k-line box.
			fmt.Fprintf(&lb, "\n… %d more results", len(n.Results)-i)
			break
		}
		if t := r.Type.String(); t != "" {
			lb.WriteString("\n" + t)
		}
	}
	label := lb.String()
	lk := lookOf(n)
	tooltip := ""
	if d, ok := diags[n.Name]; ok {
		lk.color, lk.style = "#c5221f", lk.style+",bold"
		if !strings.Contains(lk.style, "filled") {
			lk.style += ",filled"
		}
		lk.fill = "#f9dedc"
		label += "\n" + d.Severity.String() + "[" + d.Code + "]"
		tooltip = d.Message
	}
	writeNode(b, indent, nodeID(n), label, lk, tooltip)
}

func shortTarget(t string) string { return strings.TrimPrefix(t, "aten::") }

func writeNode(b *strings.Builder, indent, id, label string, lk look, tooltip string) {
	fmt.Fprintf(b, "%s%s [label=%s, shape=%s, style=%s, fillcolor=%s, color=%s", indent, id, quote(label),
		lk.shape, quote(lk.style), quote(lk.fill), quote(lk.color))
	if tooltip != "" {
		fmt.Fprintf(b, ", tooltip=%s", quote(tooltip))
	}
	b.WriteString("];\n")
}

var quoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// quote makes a DOT string literal.
func quote(s string) string { return `"` + quoter.Replace(s) + `"` }

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
