package lowering_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	"github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
)

// inputNodeName matches a node's definition in an FX printout.
var inputNodeName = regexp.MustCompile(`(?m)^\s+(\w+)(?:: "[^"]*")? = `)

// decomposedRemark is decompose's remark: "NODE (OP) became ...".
var decomposedRemark = regexp.MustCompile(`^(\S+) \(([^)]+)\) became `)

// lowerableByDecomposition runs every decompose regression case and
// returns the ops that `kiln compile` lowers through the decompose pass:
// ops with a decomposition row that some case exercises, where every node
// the decomposition emitted has a lowering rule. An emitted node is traced
// to the node it replaced by name (decompose names it "ORIGINAL_suffix";
// the longest matching original wins). An op whose decomposition emits an
// op without a lowering is a test failure, not a quiet gap.
func lowerableByDecomposition(t *testing.T) map[string]bool {
	t.Helper()
	covered := map[string]bool{}
	for _, file := range fxtest.Files(t, "../testdata/decompose") {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		pipeline := strings.TrimSpace(fxtest.Section(a, "pipeline"))
		g, ctx := fxtest.Run(t, "input.fx", fxtest.Section(a, "input.fx"), pipeline, passes.Config{})
		if ctx.Diags.HasErrors() {
			t.Errorf("%s: the pipeline failed", file)
			continue
		}
		origin := decomposedNodes(ctx.Diags.Items)
		// A node of the input kept whole (an adaptive pool whose windows
		// differ) is no decomposition's output, whatever its name.
		input := map[string]bool{}
		for _, m := range inputNodeName.FindAllStringSubmatch(fxtest.Section(a, "input.fx"), -1) {
			input[m[1]] = true
		}
		for op := range origin {
			if rule, ok := decompose.Lookup(origin[op]); ok && !rule.Whole() {
				covered[origin[op]] = true
			}
		}
		for _, n := range g.Nodes {
			from := originOf(n, origin)
			op := ops.Lookup(n.Target)
			if from == "" || op == nil || input[n.Name] {
				continue
			}
			if !lowering.HasRule(op) {
				t.Errorf("%s: %s (%s) decomposes into %s (node %s), which has no lowering rule",
					file, from, origin[from], n.Target, n.Name)
				delete(covered, origin[from])
			}
		}
	}
	return covered
}

// decomposedNodes maps each decomposed node's name to its op.
func decomposedNodes(ds []diag.Diagnostic) map[string]string {
	out := map[string]string{}
	for _, d := range ds {
		if d.Severity == diag.Remark && d.Code == decompose.RemarkDecomposed {
			if m := decomposedRemark.FindStringSubmatch(d.Message); m != nil {
				out[m[1]] = m[2]
			}
		}
	}
	return out
}

// originOf is the decomposed node n was emitted for ("" for none).
func originOf(n *ir.Node, origin map[string]string) string {
	best := ""
	for name := range origin {
		if strings.HasPrefix(n.Name, name+"_") && len(name) > len(best) {
			best = name
		}
	}
	return best
}

// The decompose-based coverage is real: a pointwise op credited to a
// decomposition appears among the ops the cases decompose, and the check
// above fails when an emitted op lacks a lowering.
func TestLowerableByDecomposition(t *testing.T) {
	covered := lowerableByDecomposition(t)
	for _, op := range []string{"aten::hardtanh_backward.default", "aten::_foreach_add.List", "aten::silu.default"} {
		assert.True(t, covered[op], "%s should lower through its decomposition", op)
	}
	assert.False(t, covered["aten::addmm.default"], "addmm is kept whole, not decomposed")
}
