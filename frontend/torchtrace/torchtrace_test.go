package torchtrace_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/torchtrace"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// The logs were written by PyTorch 2.15 (tools/traces/gen.py).
const dir = "../../testdata/traces/torchtrace"

func read(t *testing.T, name string) (*torchtrace.Result, []string) {
	t.Helper()
	path := filepath.Join(dir, name)
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	res, err := torchtrace.Parse(path, src, torchtrace.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	return res, strings.Split(string(src), "\n")
}

// lineOf finds the first line holding substr, independently of the reader.
func lineOf(t *testing.T, lines []string, substr string) int {
	t.Helper()
	for i, l := range lines {
		if strings.Contains(l, substr) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", substr)
	return 0
}

func titles(m *ir.Module) []string {
	var out []string
	for _, g := range m.Graphs {
		out = append(out, g.Title)
	}
	return out
}

func TestCNNTrainGraphsInFileOrder(t *testing.T) {
	res, _ := read(t, "cnn_train.log")
	assert.Equal(t, []string{
		"[0/0] dynamo_output_graph", "[0/0] before_pre_grad_graph", "[0/0] after_pre_grad_graph",
		"[0/0] aot_joint_graph", "[0/0] aot_forward_graph", "[0/0] aot_backward_graph",
		"[0/0] before_post_grad_graph", "[0/0] inductor_post_grad_graph",
		"[0/0] before_post_grad_graph", "[0/0] inductor_post_grad_graph",
	}, titles(res.Module))
	for _, d := range res.Diags {
		assert.NotEqual(t, diag.Error, d.Severity, "%s", d)
	}
}

// The dynamo_output_graph envelope records every node's size ("sizes"), and
// compilation_metrics the op count: both must agree with the graph read
// from the payload.
func TestDynamoGraphAgreesWithEnvelope(t *testing.T) {
	for _, name := range []string{"cnn_train.log", "transformer_infer.log", "custom_op_fake.log", "nonzero_dynamic.log", "item_scalar.log"} {
		t.Run(name, func(t *testing.T) {
			res, lines := read(t, name)
			env := lines[lineOf(t, lines, `{"dynamo_output_graph"`)-1]
			var e struct {
				G struct {
					Sizes map[string][]any `json:"sizes"`
				} `json:"dynamo_output_graph"`
			}
			require.NoError(t, json.Unmarshal([]byte(env[strings.Index(env, "] ")+2:]), &e))
			var m struct {
				M struct {
					Ops int `json:"graph_op_count"`
				} `json:"compilation_metrics"`
			}
			metrics := lines[lineOf(t, lines, `{"compilation_metrics"`)-1]
			require.NoError(t, json.Unmarshal([]byte(metrics[strings.Index(metrics, "] ")+2:]), &m))
			g := res.Module.Graphs[0]
			require.Equal(t, "[0/0] dynamo_output_graph", g.Title)
			assert.Equal(t, m.M.Ops, len(g.Nodes), "graph_op_count")
			checked := 0
			for _, n := range g.Nodes {
				for _, r := range n.Results {
					want, ok := e.G.Sizes[r.Name]
					if !ok || r.Annot.Kind != ir.KindTensor {
						continue
					}
					got := make([]string, len(r.Annot.Tensor.Shape))
					for i, s := range r.Annot.Tensor.Shape {
						got[i] = s.String()
					}
					wantS := make([]string, len(want))
					for i, s := range want {
						b, _ := json.Marshal(s)
						wantS[i] = strings.Trim(string(b), `"`)
					}
					assert.Equal(t, wantS, got, r.Name)
					checked++
				}
			}
			assert.Positive(t, checked)
		})
	}
}

func TestNodePositionsPointIntoTheLog(t *testing.T) {
	res, lines := read(t, "cnn_train.log")
	for _, g := range res.Module.Graphs {
		for _, n := range g.Nodes {
			line := lines[n.Pos.Line-1]
			require.True(t, strings.HasPrefix(line, "\t"), "%s: %s is not a payload line", g.Title, n.Name)
			assert.Contains(t, line, n.Name, "%s:%d", g.Title, n.Pos.Line)
		}
	}
}

func TestFailedCompilesAreErrorsAtTheMetricsLine(t *testing.T) {
	cases := map[string]string{
		"custom_op_nofake.log":  "There was no fake impl registered for <CustomOpDef(kilntest::scale_rows)>",
		"graph_break_fails.log": "Data-dependent branching",
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			res, lines := read(t, name)
			var errs []diag.Diagnostic
			for _, d := range res.Diags {
				if d.Severity == diag.Error {
					errs = append(errs, d)
				}
			}
			require.Len(t, errs, 1)
			assert.Equal(t, torchtrace.CodeCompileFailed, errs[0].Code)
			assert.Equal(t, lineOf(t, lines, `{"compilation_metrics"`), errs[0].Pos.Line)
			assert.Contains(t, errs[0].Message, want)
			assert.Empty(t, res.Module.Graphs, "the compile failed before any graph was logged")
		})
	}
}

func TestFakeKernelEvents(t *testing.T) {
	res, lines := read(t, "draft_export_fake_kernels.log")
	byCode := map[string]diag.Diagnostic{}
	for _, d := range res.Diags {
		byCode[d.Code] = d
	}
	miss := byCode[torchtrace.CodeMissingFakeKernel]
	assert.Equal(t, lineOf(t, lines, `{"missing_fake_kernel"`), miss.Pos.Line)
	assert.Contains(t, miss.Message, "kilntest.nofake.default")
	bad := byCode[torchtrace.CodeMismatchedFakeKernel]
	assert.Equal(t, lineOf(t, lines, `{"mismatched_fake_kernel"`), bad.Pos.Line)
	assert.Contains(t, bad.Message, "kilntest.badfake.default")
	assert.Contains(t, bad.Message, "mismatch between fake value u0 and real value 2")
	assert.Equal(t, []string{"[0/0] exported_program"}, titles(res.Module))
}

func TestProvenanceNamesPostGradNodes(t *testing.T) {
	res, _ := read(t, "cnn_train.log")
	require.Len(t, res.Provenance, 2) // forward and backward
	fwd := res.Provenance[0]
	require.NotNil(t, fwd.Graph)
	assert.Equal(t, "[0/0] inductor_post_grad_graph", fwd.Graph.Title)
	require.NotEmpty(t, fwd.Kernels)
	names := map[string]bool{}
	for _, n := range fwd.Graph.Nodes {
		names[n.Name] = true
		for _, r := range n.Results {
			names[r.Name] = true
		}
	}
	for _, v := range fwd.Graph.Inputs {
		names[v.Name] = true
	}
	for _, k := range fwd.Kernels {
		for _, n := range k.Nodes {
			assert.True(t, names[n], "kernel %s names %s, not in the post-grad graph", k.Name, n)
		}
	}
	assert.Equal(t, "cpp_fused_0:1", fwd.Kernels[0].Name)
}

func TestDescribeTensorGivesStorageOffset(t *testing.T) {
	res, lines := read(t, "view_input.log")
	assert.Contains(t, lines[lineOf(t, lines, `"storage_offset": 8`)-1], `{"describe_tensor"`)
	require.NotEmpty(t, res.Module.Graphs)
	for _, g := range res.Module.Graphs[:1] { // Dynamo's graph names the input after its source, L['x']
		require.NotEmpty(t, g.Inputs)
		in := g.Inputs[0]
		require.Equal(t, ir.KindTensor, in.Type.Kind)
		assert.Equal(t, "8", in.Type.Tensor.Offset.String(), "%s %s", g.Title, in.Name)
	}
	assert.Equal(t, 1, res.Stats.Described)
}

func TestNotALog(t *testing.T) {
	_, err := torchtrace.Parse("x.log", []byte("hello\n"), torchtrace.Options{})
	var d *diag.Diagnostic
	require.ErrorAs(t, err, &d)
	assert.Equal(t, 1, d.Pos.Line)
}
