package driver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/frontend/torchtrace"
)

// Every committed real trace (PyTorch 2.15, tools/traces/gen.py) reads, and
// fakeprop's inference agrees with every type the trace recorded.
func TestRealTracesTypeCheck(t *testing.T) {
	// Known disagreements, each an op-rule gap outside the readers:
	// kiln's rule for the output layout of _scaled_dot_product_flash_attention_for_cpu.
	known := map[string]int{"transformer_infer.log": 1}
	files, err := filepath.Glob("../testdata/traces/*/*")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			run, err := driver.Compile(driver.Input{Name: path, Src: src}, driver.Options{Pipeline: "fakeprop"})
			require.NoError(t, err)
			mismatches := 0
			for _, d := range run.Diags.Items {
				switch {
				case d.Code == "type-mismatch":
					mismatches++
					t.Log(d.String())
				case d.Code == "parse" && d.Severity == diag.Error:
					t.Errorf("%s", d)
				}
			}
			assert.Equal(t, known[filepath.Base(path)], mismatches)
		})
	}
}

func compileFile(t *testing.T, path, pipeline string) *driver.Run {
	t.Helper()
	in, err := driver.ReadInput(path, nil)
	require.NoError(t, err)
	run, err := driver.Compile(in, driver.Options{Pipeline: pipeline})
	require.NoError(t, err)
	return run
}

func TestRankFolderReadsEveryRank(t *testing.T) {
	run := compileFile(t, "../testdata/traces/torchtrace_ranks", "fakeprop")
	require.NotNil(t, run.Module)
	var titles []string
	for _, g := range run.Module.Graphs {
		titles = append(titles, g.Title)
	}
	assert.Equal(t, []string{"rank 0 [0/0] dynamo_output_graph", "rank 0 [0/0] aot_inference_graph",
		"rank 1 [0/0] dynamo_output_graph", "rank 1 [0/0] aot_inference_graph"}, titles)
	// each rank compiled its own input shape: f32[4, 2] on rank 0, f32[4, 3] on rank 1
	assert.Equal(t, "f32[4, 2][2, 1]cpu", run.Module.Graphs[0].Inputs[0].Type.String())
	assert.Equal(t, "f32[4, 3][3, 1]cpu", run.Module.Graphs[2].Inputs[0].Type.String())
	assert.False(t, run.Diags.HasErrors())
}

// nonzero_dynamic.log was compiled with capture_dynamic_output_shape_ops =
// True; kiln takes the setting from the log instead of failing on nonzero.
func TestLogConfigApplies(t *testing.T) {
	run := compileFile(t, "../testdata/traces/torchtrace/nonzero_dynamic.log", "fakeprop")
	assert.Empty(t, run.Diags.Filter("dynamic-output-shape"))
	assert.Len(t, run.Diags.Filter("log-config"), 1)
	assert.False(t, run.Diags.HasErrors())
}

func TestProvenanceComparedWithKilnFusion(t *testing.T) {
	run := compileFile(t, "../testdata/traces/torchtrace/norm_mlp_infer.log", driver.CompilePipeline)
	require.NotEmpty(t, run.Provenance)
	progs, err := driver.Backend(run, driver.BackendOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, progs)
	remarks := run.Diags.Filter(driver.CodeProvenance)
	require.NotEmpty(t, remarks)
	for _, d := range remarks {
		t.Log(d.Message)
	}
	summaries := 0
	for _, d := range remarks {
		if strings.Contains(d.Message, "of Inductor's") {
			summaries++
			assert.Contains(t, d.Message, fmt.Sprintf("Inductor's %d kernels", len(run.Provenance[0].Kernels)))
		}
	}
	assert.Equal(t, 1, summaries)
}

// Where Inductor's kernels and kiln's differ, each difference is a remark:
// join Inductor's last two kernels into one (as if it had fused them) and
// split one into two; kiln's kernels stay as they are.
func TestProvenanceDifferencesAreRemarks(t *testing.T) {
	run := compileFile(t, "../testdata/traces/torchtrace/norm_mlp_infer.log", driver.CompilePipeline)
	progs, err := driver.Backend(run, driver.BackendOptions{})
	require.NoError(t, err)
	p := run.Provenance[0]
	ks := p.Kernels
	require.GreaterOrEqual(t, len(ks), 3)
	joined := torchtrace.Kernel{Name: "joined:9", Nodes: append(append([]string{}, ks[len(ks)-2].Nodes...), ks[len(ks)-1].Nodes...)}
	p.Kernels = append(append([]torchtrace.Kernel{}, ks[:len(ks)-2]...), joined)
	run.Provenance = []torchtrace.Provenance{p}
	var msgs []string
	for _, d := range driver.ProvenanceRemarks(run, progs) {
		msgs = append(msgs, d.Message)
	}
	joinedRemark := false
	for _, m := range msgs {
		joinedRemark = joinedRemark || strings.Contains(m, "into one kernel joined:9; kiln made 2")
	}
	assert.True(t, joinedRemark, "%q", msgs)
}
