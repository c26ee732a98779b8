package fakeprop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/passes"
)

// pytorchMessages reads what PyTorch itself raised for the scenarios'
// programs (tools/scenarios/pytorch_messages.py): case name -> message, ""
// when the program ran without an error.
func pytorchMessages(t *testing.T) map[string]string {
	src, err := os.ReadFile(filepath.Join(scenarios, "pytorch_messages.json"))
	require.NoError(t, err)
	var data struct {
		Cases []struct {
			Name    string  `json:"name"`
			Message *string `json:"message"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(src, &data))
	out := map[string]string{}
	for _, c := range data.Cases {
		if c.Message != nil {
			out[c.Name] = *c.Message
		} else {
			out[c.Name] = ""
		}
	}
	return out
}

// TestScenarioMessagesFromPyTorch checks kiln's scenario diagnostics
// against the text PyTorch 2.15 printed for the same programs.
func TestScenarioMessagesFromPyTorch(t *testing.T) {
	pt := pytorchMessages(t)
	cases := []struct {
		pytorch, file, pipeline string
		match                   func(kiln, pytorch string) bool
	}{
		{"2_to_copy_out_of_meta", "02_meta_copy.fx", "fakeprop", func(k, p string) bool { return k == p }},
		{"2_copy__out_of_meta", "02_meta_copy_inplace.fx", "fakeprop", func(k, p string) bool { return k == p }},
		{"2_copy_into_meta", "02_copy_into_meta.fx", "fakeprop", nil},
		// kiln names the meta input the value came from after PyTorch's text
		{"5_item_on_meta", "05_meta_item.fx", "fakeprop", strings.HasPrefix},
		// FakeTensorMode raises DataDependentOutputException naming the op
		{"1_item_fake_tensor", "01_data_dependent_item.fx", "fakeprop", strings.Contains},
		{"1_zeros_unbacked_capture", "01_unbacked_guard.fx", "fakeprop{capture-scalar-outputs}", nil},
	}
	for _, tc := range cases {
		t.Run(tc.pytorch, func(t *testing.T) {
			want, ok := pt[tc.pytorch]
			require.True(t, ok, "no PyTorch record %s", tc.pytorch)
			errs := runFile(t, filepath.Join(scenarios, tc.file), tc.pipeline, passes.Config{}).errors()
			if want == "" {
				assert.Empty(t, errs, "PyTorch ran this program without an error")
				return
			}
			require.Len(t, errs, 1)
			assert.True(t, tc.match(errs[0].Message, want), "kiln %q, PyTorch %q", errs[0].Message, want)
		})
	}
}
