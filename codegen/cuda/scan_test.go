package cuda_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
)

// TestScansEmulated runs the scan graphs (cumsum, cumprod, cummax,
// cummin, logcumsumexp in every dtype rule; fused prologues and epilogues; a scan
// recomputed in later stages) through CUDA codegen, emulated on the CPU,
// against interp; the kernels compile to PTX where clang is installed.
func TestScansEmulated(t *testing.T) {
	files := []string{"lowering/scan.txtar", "lowering/scan_symbolic.txtar", "lowering/scan_extremum.txtar", "lowering/scan_logcumsumexp.txtar",
		"fusion/heldout_cumsum.txtar", "fusion/scan_cumsum_dim0.txtar", "fusion/scan_int_positions.txtar",
		"fusion/scan_softmax.txtar", "fusion/scan_of_scan.txtar"}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			path := filepath.Join("../../testdata", f)
			arch, err := txtar.ParseFile(path)
			require.NoError(t, err)
			g := compileFX(t, path, fxtest.Section(arch, "input.fx"), defaultPipeline)
			src := checkAgainstInterp(t, g, interp.Options{Seed: 5, Sym: map[string]int64{"s0": 7}})
			assert.Contains(t, src, "a scan: this thread walks the range in order")
			ptx(t, src)
		})
	}
}
