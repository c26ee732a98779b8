package driver

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"

	"github.com/kiln-compiler/kiln/codegen/dot"
)

// WriteDot draws every graph of run: DOT text to stdout when out is empty,
// SVG through the embedded Graphviz when out ends in .svg (the first graph:
// an SVG file holds one drawing), DOT text into out otherwise.
func WriteDot(out string, run *Run, stdout io.Writer) error {
	if strings.HasSuffix(out, ".svg") {
		g := run.Module.Graphs
		if len(g) == 0 {
			return writeSVG(out, FirstDigraph(""))
		}
		return writeSVG(out, dot.Graph(g[0], dot.Options{Diags: run.Diags.Items}))
	}
	if out == "" {
		return writeDOT(stdout, run)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := writeDOT(f, run); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeDOT streams every graph's drawing to dst: the DOT of a large graph
// is tens of MB.
func writeDOT(dst io.Writer, run *Run) error {
	w := bufio.NewWriterSize(dst, 1<<16)
	for _, g := range run.Module.Graphs {
		dot.WriteGraph(w, g, dot.Options{Diags: run.Diags.Items})
	}
	return w.Flush()
}

func writeSVG(out, dotText string) error {
	svg, err := dot.SVG(context.Background(), dotText)
	if err != nil {
		return err
	}
	return os.WriteFile(out, svg, 0o644)
}

// FirstDigraph keeps the first graph of a multi-graph DOT text: an SVG file
// holds one drawing.
func FirstDigraph(text string) string {
	if text == "" {
		return "digraph G {}\n"
	}
	if i := strings.Index(text[1:], "\ndigraph "); i >= 0 {
		return text[:i+2]
	}
	return text
}
