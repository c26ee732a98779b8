package dot

import (
	"context"
	"errors"
	"fmt"
	"html"
	"sort"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// MaxDrawn bounds what SVG hands to Graphviz: nodes plus edges. Graphviz's
// layout grows faster than linearly (a 2,300-node chain ran for minutes),
// and a drawing of thousands of boxes is unreadable anyway.
const MaxDrawn = 2000

// TooLargeError is SVG's answer to a drawing above MaxDrawn.
type TooLargeError struct{ Drawn int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("dot: the drawing has %d nodes and edges, more than the %d kiln lays out; write DOT instead (`kiln dot -o FILE.dot`) and render it with Graphviz (`dot -Tsvg FILE.dot`)", e.Drawn, MaxDrawn)
}

// countDrawn counts node and edge statements of DOT text as Graph writes it.
func countDrawn(dotText string) int {
	n := 0
	for len(dotText) > 0 {
		line := dotText
		if i := strings.IndexByte(dotText, '\n'); i >= 0 {
			line, dotText = dotText[:i], dotText[i+1:]
		} else {
			dotText = ""
		}
		if strings.Contains(line, " [label=") || strings.Contains(line, " -> ") {
			n++
		}
	}
	return n
}

// Drawing is graph.svg for `kiln compile`: the whole graph when it is small
// enough to lay out, else a summary with one box per fused kernel
// (opts.Clusters), else a short SVG that says where the full DOT is. note
// says which was drawn, for the user; it is "" for the whole graph.
func Drawing(ctx context.Context, g *ir.Graph, opts Options, dotFile string) (svg []byte, note string, err error) {
	var big *TooLargeError
	if n := len(g.Inputs) + len(g.Nodes); n > MaxDrawn {
		big = &TooLargeError{Drawn: n} // no need to write the DOT to know
	} else {
		svg, err = SVG(ctx, Graph(g, opts))
		if !errors.As(err, &big) {
			return svg, "", err
		}
	}
	if k := len(clusterSet(opts.Clusters)); k > 0 && k <= MaxDrawn {
		summary := Summary(g, opts)
		svg, err = SVG(ctx, summary)
		if err == nil {
			note = fmt.Sprintf("graph.svg shows one box per fused kernel: the whole graph has at least %d nodes and edges to draw, more than %d; the full drawing is %s (render it with `dot -Tsvg %s`)", big.Drawn, MaxDrawn, dotFile, dotFile)
			return svg, note, nil
		}
		if !errors.As(err, &big) {
			return nil, "", err
		}
	}
	note = fmt.Sprintf("graph.svg is not drawn: the graph has at least %d nodes and edges to draw, more than %d; the full drawing is %s (render it with `dot -Tsvg %s`)", big.Drawn, MaxDrawn, dotFile, dotFile)
	return NoteSVG(note), note, nil
}

// Summary draws g with one box per cluster (fused kernel) and one per
// unclustered node that is not a view; views are drawn through. An edge
// joins two boxes when data flows between them.
func Summary(g *ir.Graph, opts Options) string {
	var b strings.Builder
	b.WriteString("digraph ")
	writeQuoted(&b, g.Name+" (kernels)")
	b.WriteString(" {\n")
	b.WriteString("  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [color=\"#5f6368\"];\n")
	box := map[string]int{} // box key → node count
	var order []string
	src := map[*ir.Value][]string{} // value → boxes it comes from (views drawn through)
	for _, v := range g.Inputs {
		src[v] = []string{"input " + v.Name}
	}
	edges := map[[2]string]bool{}
	var edgeOrder [][2]string
	addEdge := func(from, to string) {
		if e := [2]string{from, to}; from != to && !edges[e] {
			edges[e] = true
			edgeOrder = append(edgeOrder, e)
		}
	}
	for _, n := range g.Nodes {
		var in []string
		n.WalkInputs(func(v *ir.Value) { in = append(in, src[v]...) })
		key, ok := opts.Clusters[n.Name]
		if !ok && ir.IsViewNode(n) {
			for _, r := range n.Results {
				src[r] = capSources(in)
			}
			continue
		}
		if !ok {
			key = n.Name
		}
		if _, seen := box[key]; !seen {
			order = append(order, key)
		}
		box[key]++
		for _, s := range in {
			addEdge(s, key)
		}
		for _, r := range n.Results {
			src[r] = []string{key}
		}
	}
	ids := map[string]string{}
	for i, v := range g.Inputs {
		ids["input "+v.Name] = fmt.Sprintf("in%d", i)
	}
	used := map[string]bool{}
	for _, e := range edgeOrder {
		used[e[0]] = true
	}
	for i, v := range g.Inputs {
		if used["input "+v.Name] {
			writeNode(&b, "  ", fmt.Sprintf("in%d", i), v.Name, lookInput, "")
		}
	}
	kernels := clusterSet(opts.Clusters)
	for i, key := range order {
		id := fmt.Sprintf("k%d", i)
		ids[key] = id
		label := key
		if kernels[key] {
			label = fmt.Sprintf("%s\n%d node(s)", key, box[key])
		}
		writeNode(&b, "  ", id, label, lookPlain, "")
	}
	for _, e := range edgeOrder {
		fmt.Fprintf(&b, "  %s -> %s;\n", ids[e[0]], ids[e[1]])
	}
	b.WriteString("}\n")
	return b.String()
}

// capSources keeps a view's source list short (a drawing, not an analysis).
func capSources(in []string) []string {
	sort.Strings(in)
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	if len(out) > 8 {
		out = out[:8]
	}
	return append([]string(nil), out...)
}

func clusterSet(c map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, k := range c {
		out[k] = true
	}
	return out
}

// NoteSVG is a small SVG that shows one message.
func NoteSVG(msg string) []byte {
	return []byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="900" height="60"><text x="10" y="30" font-family="Helvetica" font-size="13">%s</text></svg>`+"\n", html.EscapeString(msg)))
}
