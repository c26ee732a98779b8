package fakeprop_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/passes"
)

const scenarios = "../../testdata/scenarios"

// TestScenarios runs scenarios 1, 2 and 5 of docs/SCENARIOS.md and their
// variants: each failure at the right line with PyTorch's message, each way
// out compiling.
func TestScenarios(t *testing.T) {
	ops := filepath.Join(scenarios, "01_custom_op.ops")
	cases := []struct {
		name, file, pipeline string
		cfg                  passes.Config
		// node, code and message of the one expected error; "" for success.
		node, code, msg string
		// types the run must infer, by value name.
		types map[string]string
	}{
		{name: "1 item without capture", file: "01_data_dependent_item.fx", pipeline: "fakeprop",
			node: "_local_scalar_dense", code: "data-dependent",
			msg: "data dependent operator: aten._local_scalar_dense.default; to enable, set torch._dynamo.config.capture_scalar_outputs = True"},
		{name: "1 item captured", file: "01_data_dependent_item.fx", pipeline: "fakeprop{capture-scalar-outputs}",
			types: map[string]string{"_local_scalar_dense": "Sym(zuf0)", "mul": "f32[4, 8][8, 1]cuda:0"}},
		{name: "1 item captured by config", file: "01_data_dependent_item.fx", pipeline: "fakeprop",
			cfg:   passes.Config{CaptureScalarOutputs: true},
			types: map[string]string{"_local_scalar_dense": "Sym(zuf0)"}},
		{name: "1 unbacked size", file: "01_unbacked_size.fx", pipeline: "fakeprop{capture-scalar-outputs}",
			types: map[string]string{"_local_scalar_dense": "Sym(u0)", "zeros": "f32[u0, 4][4, 1]cpu",
				"add": "f32[u0, 4][4, 1]cpu", "sum_1": "f32[4][1]cpu"}},
		// PyTorch 2.15 compiles zeros([u0]) without torch._check_is_size
		// (testdata/scenarios/pytorch_messages.json, 1_zeros_unbacked_capture).
		{name: "1 unbacked size without a size check", file: "01_unbacked_guard.fx", pipeline: "fakeprop{capture-scalar-outputs}",
			types: map[string]string{"_local_scalar_dense": "Sym(u0)", "zeros": "f32[u0][1]cpu"}},
		{name: "1 custom op without fake impl", file: "01_custom_op.fx", pipeline: "fakeprop",
			node: "rope_init", code: "missing-fake-impl",
			msg: "mylib::rope_init: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel registered. You may have run into this message while using an operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake impl."},
		{name: "1 custom op registered", file: "01_custom_op.fx", pipeline: "fakeprop{custom-ops=" + ops + "}",
			types: map[string]string{"rope_init": "f32[128][1]cuda:0", "mul": "f32[4, 128][128, 1]cuda:0"}},
		{name: "2 _to_copy out of meta", file: "02_meta_copy.fx", pipeline: "fakeprop",
			node: "_to_copy", code: "meta-copy", msg: "Cannot copy out of meta tensor; no data!"},
		{name: "2 copy_ out of meta", file: "02_meta_copy_inplace.fx", pipeline: "fakeprop",
			node: "copy_", code: "meta-copy", msg: "Cannot copy out of meta tensor; no data!"},
		{name: "2 copy into meta", file: "02_copy_into_meta.fx", pipeline: "fakeprop",
			types: map[string]string{"copy_": "f32[16, 32][32, 1]meta", "_to_copy": "bf16[16, 32][32, 1]meta"}},
		{name: "5 item on meta", file: "05_meta_item.fx", pipeline: "fakeprop",
			node: "_local_scalar_dense", code: "meta-item",
			msg: "Tensor.item() cannot be called on meta tensors (the value comes from meta input arg0_1 through select)"},
		{name: "5 item on meta, capture on", file: "05_meta_item.fx", pipeline: "fakeprop{capture-scalar-outputs}",
			node: "_local_scalar_dense", code: "meta-item",
			msg: "Tensor.item() cannot be called on meta tensors (the value comes from meta input arg0_1 through select)"},
		{name: "5 without the item path", file: "05_no_item.fx", pipeline: "fakeprop",
			types: map[string]string{"new_zeros": "bf16[1, 8, 64][512, 64, 1]cuda:0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runFile(t, filepath.Join(scenarios, tc.file), tc.pipeline, tc.cfg)
			errs := r.errors()
			if tc.code == "" {
				require.Empty(t, errs)
			} else {
				require.Len(t, errs, 1, "%v", errs)
				d := errs[0]
				assert.Equal(t, tc.code, d.Code)
				assert.Equal(t, tc.msg, d.Message)
				assert.Equal(t, tc.node, d.Node)
				assert.Equal(t, r.lineOf(t, tc.node), d.Pos.Line)
				assert.NotEmpty(t, d.Hint)
			}
			for name, want := range tc.types {
				assert.Equal(t, want, r.typeOf(t, name), name)
			}
		})
	}
}
