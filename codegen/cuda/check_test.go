package cuda_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
)

// Every op family's kernel checks the indices it reads on the device and
// the host reports the first failure after the launch: the emulated
// program exits 1 with interp's (PyTorch's) message, the PTX still
// compiles, and in-range indices still give interp's results.
func TestBadIndexEmulated(t *testing.T) {
	needTool(t, "g++")
	for _, path := range fxtest.Files(t, "../../testdata/lowering/badindex") {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			arch, err := txtar.ParseFile(path)
			require.NoError(t, err)
			var ints map[string][]int64
			require.NoError(t, json.Unmarshal([]byte(fxtest.Section(arch, "ints")), &ints))
			want := strings.TrimSpace(fxtest.Section(arch, "diagnostics"))
			g := compileFX(t, name+".fx", fxtest.Section(arch, "input.fx"), defaultPipeline)
			p := lowerFused(t, g)
			src, err := cuda.Generate(p)
			require.NoError(t, err)
			require.Contains(t, src, "kiln_index_fail(kiln_err, ")

			inputs, err := interp.MakeInputs(g, interp.Options{Seed: 7})
			require.NoError(t, err)
			for i, v := range g.Inputs {
				if vals, ok := ints[v.Name]; ok {
					tt := inputs[i].(*interp.Tensor)
					inputs[i] = interp.FromInts(tt.DType, tt.Shape, vals)
				}
			}
			_, ierr := interp.Run(g, interp.CopyValues(inputs), interp.Options{Seed: 7})
			var d *diag.Diagnostic
			require.ErrorAs(t, ierr, &d)
			require.Equal(t, want, strings.TrimPrefix(d.Message, d.Node+": "))

			inDir, args := saveInputs(t, p, inputs)
			run := runEmulated(t, buildEmulated(t, src), inDir, args...)
			stderr := run.stderr
			assert.Equal(t, 1, run.code, "stderr: %s", stderr)
			assert.Regexp(t, `^kiln: kernel\d+: `, stderr)
			assert.True(t, strings.HasSuffix(stderr, ": "+want+"\n"), "stderr %q, want %q", stderr, want)

			checkAgainstInterp(t, g, interp.Options{Seed: 7}) // random in-range indices
		})
	}
}

// The kernels of a program with checks compile to PTX with clang: the
// failure record is claimed with a 64-bit compare-and-swap.
func TestCheckCompilesToPTX(t *testing.T) {
	g := compileFX(t, "gather.fx", `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[100, 4][4, 1]cpu", i: "i64[3, 4][4, 1]cpu", j: "i64[5][1]cpu"):
        gather: "f32[3, 4][4, 1]cpu" = torch.ops.aten.gather.default(x, 0, i)
        index: "f32[5, 4][4, 1]cpu" = torch.ops.aten.index.Tensor(x, [j])
        return (gather, index)
`, defaultPipeline)
	src, err := cuda.Generate(lowerFused(t, g))
	require.NoError(t, err)
	assert.Contains(t, src, "if ((unsigned long long)(tmp0) >= (unsigned long long)(long long)(100)) { kiln_index_fail(kiln_err, 0, tmp0, (long long)(100)); return; }")
	assert.Contains(t, src, "(tmp0) < -(long long)(100) || (tmp0) >= (long long)(100)")
	assert.Contains(t, src, `static const char* const kiln_check_msgs[] = {"index {index} is out of bounds for dimension 0 with size {size}"};`)
	out := ptx(t, src)
	assert.Contains(t, out, "atom.global.cas.b64")
}
