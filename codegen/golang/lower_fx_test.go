package golang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/lit"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
)

// loadLoweringCases lowers every testdata/lowering graph that lowers.
func loadLoweringCases(t *testing.T) []fxCase {
	var out []fxCase
	forEachArchive(t, "../../testdata/lowering/*.txtar", func(path, name string, arch *txtar.Archive) {
		src := lit.Section(arch, "input.fx")
		if src == "" || lit.Has(arch, "diagnostics") {
			return // a source reference or a case about a lowering error
		}
		out = append(out, lowerFX(t, path, name, src, basePipeline))
	})
	return out
}

// TestLoweredGraphsAgainstInterp runs the generated Go for every lowering
// regression graph on random inputs and compares outputs and mutated
// inputs with interp, built without and with GOEXPERIMENT=simd.
func TestLoweredGraphsAgainstInterp(t *testing.T) {
	cases := loadLoweringCases(t)
	require.NotEmpty(t, cases)
	progs := programs(cases)
	bin := buildModule(t, progs)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t, bin) })
	}
	// The same module with the 8-lane inner loops (simd.go).
	bin = buildModule(t, progs, "GOEXPERIMENT=simd")
	for _, c := range cases {
		t.Run(c.name+"_simd", func(t *testing.T) { c.check(t, bin) })
	}
}

func (c fxCase) check(t *testing.T, bin string) {
	inputs, err := interp.MakeInputs(c.g, interp.Options{Seed: 7})
	require.NoError(t, err)
	in, out := t.TempDir(), t.TempDir()
	args := []string{"-graph", c.name, "-inputs", in, "-o", out}
	for i, v := range c.g.Inputs {
		switch x := inputs[i].(type) {
		case *interp.Tensor:
			require.NoError(t, interp.SaveNPY(filepath.Join(in, v.Name+".npy"), x))
		case int64:
			args = append(args, "-scalar", fmt.Sprintf("%s=%d", v.Name, x))
		}
	}
	before := interp.CopyValues(inputs)
	res, err := interp.Run(c.g, inputs, interp.Options{})
	require.NoError(t, err)
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "stderr: %s\nprogram:\n%s", stderr.String(), c.prog)
	raw, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)
	var manifest []interp.ManifestEntry
	require.NoError(t, json.Unmarshal(raw, &manifest))
	mutated := 0
	for i := range c.g.Inputs {
		if interp.Compare(before[i], res.Inputs[i], func(ir.DType) interp.Tolerance { return interp.Tolerance{} }) != nil {
			mutated++
		}
	}
	outputs := 0
	for _, e := range manifest {
		var want any
		switch e.Kind {
		case "output":
			want = res.Outputs[outputs]
			outputs++
		case "mutated-input":
			for i, v := range c.g.Inputs {
				if v.Name == e.Name {
					want = res.Inputs[i]
				}
			}
			mutated--
		}
		got := e.Value
		if e.File != "" {
			dt, ok := ir.DTypeFromAbbr(e.DType)
			require.True(t, ok)
			got, err = interp.LoadNPY(filepath.Join(out, e.File), dt)
			require.NoError(t, err)
		} else if f, ok := got.(float64); ok && f == float64(int64(f)) {
			got = int64(f) // JSON numbers come back as float64
		}
		m := interp.Compare(want, got, interp.DefaultTolerance)
		require.Nil(t, m, "%s %s: %v\nprogram:\n%s", e.Kind, e.Name, m, c.prog)
	}
	require.Equal(t, len(res.Outputs), outputs, "every output is written")
	require.LessOrEqual(t, mutated, 0, "every input interp mutates is written back")
}
