package cuda_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/judged"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
)

// checkAgainstInterp generates CUDA for g (lowered and fused), runs it
// emulated on random inputs and compares every output and mutated input
// with interp's run of the graph.
func checkAgainstInterp(t *testing.T, g *ir.Graph, opts interp.Options) string {
	t.Helper()
	return checkJudged(t, g, opts, "")
}

// checkJudged is checkAgainstInterp for a corpus graph PyTorch judged
// (internal/judged, named by its path under testdata): its tolerance,
// else its RMS bound per output, as internal/e2e compares the Go back end.
func checkJudged(t *testing.T, g *ir.Graph, opts interp.Options, name string) string {
	t.Helper()
	judgement, _ := judged.Of(name)
	p := lowerFused(t, g)
	src, err := cuda.Generate(p)
	require.NoError(t, err, "%s", p)
	inputs, err := interp.MakeInputs(g, opts)
	require.NoError(t, err)
	inDir, args := saveInputs(t, p, inputs)
	args = append(args, fmt.Sprintf("seed=%d", opts.Seed)) // random ops draw interp's numbers
	res, err := interp.Run(g, interp.CopyValues(inputs), opts)
	require.NoError(t, err)
	outDir := emulate(t, src, inDir, args...)
	wants := fxtest.Flatten(res.Outputs)
	require.Len(t, wants, len(p.Outputs), "interp's outputs, flattened, and the program's")
	for i, want := range wants {
		file := fmt.Sprintf("out%d.npy", i)
		switch w := want.(type) {
		case *interp.Tensor:
			got := loadOutput(t, outDir, file, w.DType)
			if m := interp.CompareTensors(w, got, judged.Tolerance(name, w.DType)); m != nil {
				if ok, why := judgement.Output(i, w, got); ok {
					t.Logf("output %d: %d of %d elements past rtol/atol, %s (judged: %s)", i, m.Bad, m.Total, why, name)
					continue
				}
				t.Errorf("output %d (%s): %s\nprogram:\n%s\n%s", i, p.Outputs[i].Name, m, p, numbered(src))
			}
		case int64:
			got := loadOutput(t, outDir, file, ir.I64)
			assert.Equal(t, []int64{w}, got.Ints(), "output %d", i)
		}
	}
	for i, in := range p.Inputs {
		if !in.Mutated {
			continue
		}
		w := res.Inputs[i].(*interp.Tensor)
		got := loadOutput(t, outDir, in.Name+".npy", w.DType)
		if m := interp.CompareTensors(w, got, judged.Tolerance(name, w.DType)); m != nil {
			if ok, why := judgement.Input(in.Name, w, got); ok {
				t.Logf("mutated input %s: %d of %d elements past rtol/atol, %s (judged: %s)", in.Name, m.Bad, m.Total, why, name)
				continue
			}
			t.Errorf("mutated input %s: %s", in.Name, m)
		}
	}
	return src
}

var scenario3 = []string{
	"03_misaligned_view.fx", "03_view_dtype_offset4.fx", "03_view_dtype_offset6.fx", "03_view_dtype_offset8.fx",
	"03_view_dtype_then_slice.fx", "03_f16_view.fx", "03_gguf_q8_0.fx", "03_gguf_u8_view_f16.fx",
	"03_symbolic_offset.fx", "03_slice_scatter.fx", "03_as_strided.fx", "03_misaligned_input.fx",
}

// TestScenario3Emulated runs every scenario-3 variant through lowering,
// fusion and CUDA codegen, and checks the emulated program's results
// against interp.
func TestScenario3Emulated(t *testing.T) {
	for _, name := range scenario3 {
		t.Run(strings.TrimSuffix(name, ".fx"), func(t *testing.T) {
			path := filepath.Join("../../testdata/scenarios", name)
			g := compileFX(t, path, readFile(t, path), defaultPipeline)
			checkAgainstInterp(t, g, interp.Options{Seed: 3, Sym: map[string]int64{"s0": 3}})
		})
	}
}

var (
	vectorLoad = regexp.MustCompile(`ld\.global(\.nc)?\.v[24]\.`)
	scalarF32  = regexp.MustCompile(`ld\.global(\.nc)?\.f32`)
)

// TestScenario3PTX is the regression test of scenario 3: the f32 view of
// x[2:] sits 4 bytes into a bf16 storage, so kiln must read it with scalar
// loads, while x[8:] (16 bytes in) gets vector loads.
func TestScenario3PTX(t *testing.T) {
	cases := []struct {
		file   string
		vector bool
	}{
		{"03_misaligned_view.fx", false},
		{"03_view_dtype_offset4.fx", false},
		{"03_view_dtype_offset6.fx", false},
		{"03_view_dtype_offset8.fx", true},
	}
	for _, c := range cases {
		t.Run(strings.TrimSuffix(c.file, ".fx"), func(t *testing.T) {
			path := filepath.Join("../../testdata/scenarios", c.file)
			g := compileFX(t, path, readFile(t, path), defaultPipeline)
			p := lowerFused(t, g)
			src, err := cuda.Generate(p)
			require.NoError(t, err)
			out := ptx(t, src)
			loads := loadLines(out)
			if c.vector {
				assert.Regexp(t, vectorLoad, loads, "the 16-byte aligned view must be read with vector loads")
				assert.True(t, strings.Contains(src, "vector load arg0_1[x0 + 4].as(f32)"), "the kernel comment names the vector load")
			} else {
				assert.Regexp(t, scalarF32, loads, "the misaligned view must be read with scalar f32 loads")
				assert.NotRegexp(t, vectorLoad, loads, "no vector load may touch the misaligned view")
				assert.False(t, strings.Contains(src, "vector load arg0_1"), "the view's load is commented as vectorized")
			}
			if c.vector {
				assert.True(t, strings.Contains(out, "st.global.v4.f32"), "kiln's own output buffer is 64-byte aligned")
			}
		})
	}
}

// loadLines keeps the global load instructions of a PTX listing.
func loadLines(ptx string) string {
	var b strings.Builder
	for _, l := range strings.Split(ptx, "\n") {
		if strings.Contains(l, "ld.global") {
			b.WriteString(strings.TrimSpace(l) + "\n")
		}
	}
	return b.String()
}
