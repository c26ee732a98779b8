package driver

import (
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
	var b strings.Builder
	for _, g := range run.Module.Graphs {
		b.WriteString(dot.Graph(g, dot.Options{Diags: run.Diags.Items}))
	}
	text := b.String()
	switch {
	case out == "":
		_, err := io.WriteString(stdout, text)
		return err
	case strings.HasSuffix(out, ".svg"):
		svg, err := dot.SVG(context.Background(), FirstDigraph(text))
		if err != nil {
			return err
		}
		return os.WriteFile(out, svg, 0o644)
	}
	return os.WriteFile(out, []byte(text), 0o644)
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
