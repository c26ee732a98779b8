package driver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/driver"
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
