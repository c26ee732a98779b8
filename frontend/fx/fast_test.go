package fx

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/ops"
)

// parseBothWays parses src with and without fastOpCall and reports what
// each gave: the printed module (with every value's annotation and
// position) or the error, and the warnings.
func parseBothWays(t *testing.T, src string) (fast, general string) {
	t.Helper()
	show := func() string {
		res, err := Parse("in.fx", []byte(src), Options{Lookup: ops.LookupSchema})
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		b.WriteString(res.Module.Print())
		for _, g := range res.Module.Graphs {
			for _, n := range g.Nodes {
				fmt.Fprintf(&b, "%s %s %v %d args %d kwargs", n.Name, n.Pos, n.Op != nil, len(n.Args), len(n.Kwargs))
				for _, a := range n.Args {
					fmt.Fprintf(&b, " %d:%s", a.Kind, a)
				}
				for _, r := range n.Results {
					fmt.Fprintf(&b, " %s:%s/%s@%s", r.Name, r.Type, r.Annot, r.Pos)
				}
				b.WriteByte('\n')
			}
		}
		for _, w := range res.Warnings {
			b.WriteString(w.String() + "\n")
		}
		return b.String()
	}
	fast = show()
	noFastPath = true
	defer func() { noFastPath = false }()
	return fast, show()
}

// TestFastOpCallAgrees: the fast path builds what the general one does, on
// the corpus, a generated graph, and statements that must fall back.
func TestFastOpCallAgrees(t *testing.T) {
	var inputs []string
	files, _ := filepath.Glob("../../testdata/*/*.fx")
	more, _ := filepath.Glob("../../testdata/*/*/*.fx")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	if len(inputs) < 20 {
		t.Fatalf("found %d corpus graphs", len(inputs))
	}
	inputs = append(inputs, graphgen.Blocks(graphgen.Config{Nodes: 2000}))
	head := "class G(torch.nn.Module):\n    def forward(self, x: \"f32[4, 8][8, 1]cpu\", n: \"Sym(s0)\"):\n"
	args := []string{"x", "x ", " x", "[4, 8]", "[4,8]", "[ 4 , 8 ]", "[4, 8,]", "[]", "[-4, 8]", "[4, 8][0]", "-1", "- 1", "1.5", "-0.0",
		"1e-05", "2.", ".5", "1_0", "010", "0x10", "9223372036854775808", "-9223372036854775808", "1j", "True", "None", "inf", "nan",
		"Ellipsis", "y", "x.t()", "x[0]", "torch.float32", "torch.contiguous_format", "torch . float32", "torch.float32.x",
		"torch.device('cpu')", "'s'", "(4, 8)", "x + 1", "not x", "n", "dim = 0", "dim=0", "keepdim = True", "memory_format = torch.contiguous_format",
		"dtype = torch.float32", "*x", "x == x", "0 ,", ""}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 400; i++ {
		var parts []string
		for k := rng.Intn(4); k >= 0; k-- {
			parts = append(parts, args[rng.Intn(len(args))])
		}
		call := "torch.ops.aten.sum.dim_IntList(" + strings.Join(parts, ", ") + ")"
		switch rng.Intn(6) {
		case 0:
			call = "torch.ops.aten.view.default(" + strings.Join(parts, ", ") + ")"
		case 1:
			call += "[0]"
		case 2:
			call = "torch.ops.aten.nonexistent.default(" + strings.Join(parts, ",") + ")"
		}
		inputs = append(inputs, head+"        y: \"f32[4, 8]\" = torch.ops.aten.clone.default(x)\n        out = "+call+"\n        return (out,)\n")
	}
	for i, src := range inputs {
		fast, general := parseBothWays(t, src)
		if fast != general {
			t.Fatalf("input %d: fast path gives\n%s\ngeneral path gives\n%s\ninput:\n%.2000s", i, fast, general, src)
		}
	}
}
