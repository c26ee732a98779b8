package cuda_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/internal/tooltest"
	"github.com/kiln-compiler/kiln/ir"
)

// nvrtcCheck is tools/cuda_nvrtc/check.py, relative to this package.
const nvrtcCheck = "../../tools/cuda_nvrtc/check.py"

// needNVRTC returns python3 when the check finds NVRTC (PyTorch's CUDA
// wheels ship it), or skips (fails under CI, which installs PyTorch).
func needNVRTC(t *testing.T) string {
	t.Helper()
	py := tooltest.Need(t, "python3")
	out, err := exec.Command(py, nvrtcCheck, "--probe").CombinedOutput()
	if err == nil {
		return py
	}
	if os.Getenv("KILN_REQUIRE_TOOLS") != "" {
		t.Fatalf("NVRTC is required (KILN_REQUIRE_TOOLS is set): %v\n%s", err, out)
	}
	t.Skipf("NVRTC not found (%s): pip install torch to run this test; CI installs it", strings.TrimSpace(string(out)))
	return ""
}

// nvrtcReport is what check.py --json writes.
type nvrtcReport struct {
	NVRTC string `json:"nvrtc"`
	Arch  string `json:"arch"`
	Files []struct {
		File    string                    `json:"file"`
		OK      bool                      `json:"ok"`
		Kernels int                       `json:"kernels"`
		Missing []string                  `json:"missing"`
		Log     string                    `json:"log"`
		Report  map[string]map[string]any `json:"report"`
	} `json:"files"`
}

// TestCorpusNVRTC compiles the CUDA of every graph under testdata/ that
// lowers with NVIDIA's own compiler, NVRTC, to SASS for sm_90 (H100):
// nvcc's front end accepts every translation unit, and ptxas compiles every
// kernel in it. Without a GPU this is as close to the hardware as the code
// gets; TestCorpusEmulated checks its values.
func TestCorpusNVRTC(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles one program per graph")
	}
	py := needNVRTC(t)
	dir := t.TempDir()
	var files []string
	testgraphs.ForEach(t, "../../testdata", func(tg testgraphs.Graph, gi int, g *ir.Graph) {
		if !lowers(g) {
			return
		}
		src, err := cuda.Generate(lowerFused(t, g))
		require.NoError(t, err, tg.Name)
		name := strings.NewReplacer("../../testdata/", "", "/", "_", ":", "_").Replace(tg.Name)
		file := filepath.Join(dir, fmt.Sprintf("%s.%d.cu", name, gi))
		require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
		files = append(files, file)
	})
	report := filepath.Join(dir, "report.json")
	out, runErr := exec.Command(py, append([]string{nvrtcCheck, "--arch", "sm_90", "--json", report}, files...)...).CombinedOutput()
	raw, err := os.ReadFile(report)
	require.NoError(t, err, "check.py wrote no report (%v):\n%s", runErr, out)
	var r nvrtcReport
	require.NoError(t, json.Unmarshal(raw, &r))
	require.Len(t, r.Files, len(files))
	kernels, spilling, maxRegs, maxWhere := 0, 0, 0.0, ""
	for _, f := range r.Files {
		assert.True(t, f.OK, "%s: missing %v\n%s", filepath.Base(f.File), f.Missing, f.Log)
		assert.Len(t, f.Report, f.Kernels, "%s: every kernel reaches ptxas", filepath.Base(f.File))
		kernels += f.Kernels
		for k, info := range f.Report {
			if regs, _ := info["registers"].(float64); regs > maxRegs {
				maxRegs, maxWhere = regs, filepath.Base(f.File)+" "+k
			}
			if spills, _ := info["spill_stores"].(float64); spills > 0 {
				spilling++
			}
		}
	}
	assert.NoError(t, runErr, "check.py's exit status")
	t.Logf("NVRTC %s: %d programs, %d kernels compiled to %s; registers at most %.0f (%s); %d kernel(s) spill",
		r.NVRTC, len(files), kernels, r.Arch, maxRegs, maxWhere, spilling)
	assert.Greater(t, len(files), 100, "programs generated from testdata")
}
