package functionalize_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/functionalize/fztest"
)

const corpusDir = "../../testdata/corpus/"

// corpusPair is a graph kiln functionalizes and PyTorch's own
// functionalized output for the same program (test_functionalization.py,
// reapply_views=False).
type corpusPair struct {
	input    string            // a corpus file, or a regression case (.txtar)
	expected string            // the corpus .expected file
	types    map[string]string // input annotations the .code form lacks
	exact    bool              // equal before dead-code elimination too
}

var corpusPairs = []corpusPair{
	// The corpus main files are PyTorch's re-inplaced graphs of the same
	// programs; functionalizing them must give PyTorch's functionalized
	// graph again (018, 022 and 026 are already functional but for the
	// input write-back, which is kept, so they are equal node for node;
	// 020 and 025 leave dead stale views PyTorch's trace does not have).
	{"018_fz_simple.fx.txt", "018_fz_simple.expected.fx.txt", map[string]string{"arg0_1": "f32[4, 2]"}, true},
	{"020_fz_copy_.fx.txt", "020_fz_copy_.expected.fx.txt", map[string]string{"arg0_1": "f32[2]"}, false},
	{"022_fz_split.fx.txt", "022_fz_split.expected.fx.txt", map[string]string{"arg0_1": "f32[4, 2]"}, true},
	{"025_fz_index_mutation_fill_select.fx.txt", "025_fz_index_mutation_fill_select.expected.fx.txt", map[string]string{"arg0_1": "f32[2]"}, false},
	{"026_fz_instance_norm_running_stats.fx.txt", "026_fz_instance_norm_running_stats.expected.fx.txt",
		map[string]string{"arg0_1": "f32[20, 100, 35, 45]", "arg1_1": "f32[100]", "arg2_1": "f32[100]"}, true},
	// The programs themselves, traced without functionalization (021's
	// dead z4 = z0[0] + z2.reshape(4) differs: see split_chain_021.txtar).
	{"view_018.txtar", "018_fz_simple.expected.fx.txt", map[string]string{"arg0_1": "f32[4, 2]"}, true},
	{"diagonal_copy_020.txtar", "020_fz_copy_.expected.fx.txt", map[string]string{"arg0_1": "f32[2]"}, true},
	{"split_diagonal.txtar", "022_fz_split.expected.fx.txt", map[string]string{"arg0_1": "f32[4, 2]"}, true},
	{"select_fill_025.txtar", "025_fz_index_mutation_fill_select.expected.fx.txt", map[string]string{"arg0_1": "f32[2]"}, true},
	{"split_chain_021.txtar", "021_fz_everything.expected.fx.txt", map[string]string{"arg0_1": "f32[4, 2]"}, false},
	// An input resized in place is written back after resize_ to its new
	// size (tools/corpus/resize_input.py).
	{"114_makefx_resize_input_functionalized.fx.txt", "114_makefx_resize_input_functionalized.expected.fx.txt",
		map[string]string{"x_1": "f32[0]", "y_1": "f32[2]"}, true},
}

// TestCorpusExpected compares kiln's functionalization with PyTorch's, node
// by node, after dead-code elimination (PyTorch's graphs keep the dead
// views its lazy regeneration leaves; kiln's keep others), with value
// names canonicalized and *_copy ops read as the views they copy; and
// validates kiln's result against the eager graph through interp.
func TestCorpusExpected(t *testing.T) {
	for _, p := range corpusPairs {
		t.Run(p.input, func(t *testing.T) {
			got := canonical(t, loadGraph(t, p.input, p.types), "fakeprop,functionalize,dce")
			want := canonical(t, loadGraph(t, p.expected, p.types), "fakeprop,dce")
			require.Equal(t, want, got)
			if p.exact {
				got := canonical(t, loadGraph(t, p.input, p.types), "fakeprop,functionalize")
				want := canonical(t, loadGraph(t, p.expected, p.types), "fakeprop")
				require.Equal(t, want, got, "before dce")
				again := canonical(t, loadGraph(t, p.expected, p.types), "fakeprop,functionalize")
				require.Equal(t, want, again, "PyTorch's functionalized graph, functionalized again")
			}
			before, after := loadGraph(t, p.input, p.types), loadGraph(t, p.input, p.types)
			canonical(t, before, "fakeprop")
			canonical(t, after, "fakeprop,functionalize")
			require.NoError(t, fztest.Equivalent(before, after, 1), "translation validation")
		})
	}
}

func loadGraph(t *testing.T, name string, types map[string]string) *ir.Graph {
	t.Helper()
	if strings.HasSuffix(name, ".txtar") {
		return fztest.Load(t, caseDir+"/"+name).Parse(t)
	}
	src, err := os.ReadFile(corpusDir + name)
	require.NoError(t, err)
	text := string(src)
	def := regexp.MustCompile(`def forward\(self[^)]*\)`)
	text = def.ReplaceAllStringFunc(text, func(line string) string {
		for in, ty := range types {
			line = regexp.MustCompile(`\b`+in+`\b`).ReplaceAllString(line, fmt.Sprintf("%s: %q", in, ty))
		}
		return line
	})
	res, err := fx.Parse(name, []byte(text), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	return res.Module.Graphs[0]
}

var copyOp = regexp.MustCompile(`torch\.ops\.aten\.(\w+)_copy\.`)

// canonical runs pipeline on g and prints its nodes with values renamed
// v0, v1, ... in definition order and *_copy ops spelled as their views.
func canonical(t *testing.T, g *ir.Graph, pipeline string) []string {
	t.Helper()
	p, err := passes.Parse(pipeline)
	require.NoError(t, err)
	ctx := passes.NewContext(passes.Config{})
	_, err = (&passes.Manager{VerifyEach: true}).Run(p, ctx, g)
	require.NoError(t, err)
	require.False(t, ctx.Diags.HasErrors(), "%v", ctx.Diags.Items)
	k := 0
	for _, n := range g.Nodes {
		for _, r := range n.Results {
			r.Name = fmt.Sprintf("v%d", k)
			k++
		}
	}
	var out []string
	for _, n := range g.Nodes {
		var names []string
		for _, r := range n.Results {
			names = append(names, r.Name)
		}
		out = append(out, strings.Join(names, ", ")+" = "+copyOp.ReplaceAllString(n.Call(), "torch.ops.aten.$1."))
	}
	var rets []string
	for _, a := range g.Outputs {
		rets = append(rets, a.String())
	}
	return append(out, "return "+strings.Join(rets, ", "))
}
