package fx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/ops"
)

// TestParseKeepsNoSource: Parse reads its input in place, so nothing it
// returns may point into it: overwriting the input after parsing changes
// nothing the graphs print, nor the warnings.
func TestParseKeepsNoSource(t *testing.T) {
	inputs := []string{graphgen.Blocks(graphgen.Config{Nodes: 3000})}
	for _, pat := range []string{"../../testdata/*/*.fx", "../../testdata/*/*/*.fx"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, string(b))
		}
	}
	for i, in := range inputs {
		src := []byte(in)
		res, err := Parse("in.fx", src, Options{Lookup: ops.LookupSchema})
		if err != nil {
			continue // an error is a fresh message
		}
		before := res.Module.Print()
		var warns []string
		for _, w := range res.Warnings {
			warns = append(warns, w.String())
		}
		for j := range src {
			src[j] = "#x_9(]'"[j%7]
		}
		if after := res.Module.Print(); after != before {
			t.Fatalf("input %d: the graph changed with its source buffer:\n%.1500s", i, after)
		}
		for j, w := range res.Warnings {
			if w.String() != warns[j] {
				t.Fatalf("input %d: warning %d changed with the source buffer: %s", i, j, w.String())
			}
		}
		for _, g := range res.Module.Graphs {
			for _, n := range g.Nodes {
				if n.Target == "" || n.Stack != "" && n.Stack[0] != '#' {
					t.Fatalf("input %d: node %s changed", i, n.Name)
				}
			}
		}
	}
}
