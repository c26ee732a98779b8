package golang

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
)

// badIndexCase is one graph of testdata/lowering/badindex: indices PyTorch
// rejects (ints, by input name) and its message (error).
type badIndexCase struct {
	fxCase
	ints map[string][]int64
	want string
}

func loadBadIndexCases(t *testing.T) []badIndexCase {
	var out []badIndexCase
	forEachArchive(t, "../../testdata/lowering/badindex/*.txtar", func(path, name string, arch *txtar.Archive) {
		name = "bad_" + name
		c := badIndexCase{fxCase: fxProgram(t, name, fxtest.Section(arch, "input.fx")),
			want: strings.TrimSpace(fxtest.Section(arch, "diagnostics"))}
		require.NoError(t, json.Unmarshal([]byte(fxtest.Section(arch, "ints")), &c.ints), path)
		out = append(out, c)
	})
	return out
}

// inputs are interp's random inputs with the bad indices put in.
func (c badIndexCase) inputs(t *testing.T) []any {
	inputs, err := interp.MakeInputs(c.g, interp.Options{Seed: 7})
	require.NoError(t, err)
	for i, v := range c.g.Inputs {
		if vals, ok := c.ints[v.Name]; ok {
			tt := inputs[i].(*interp.Tensor)
			inputs[i] = interp.FromInts(tt.DType, tt.Shape, vals)
		}
	}
	return inputs
}

// interpMessage is the op's own message in interp's error, without the
// position and node interp adds.
func interpMessage(t *testing.T, err error) string {
	var d *diag.Diagnostic
	require.ErrorAs(t, err, &d)
	return strings.TrimPrefix(d.Message, d.Node+": ")
}

// Every op family's generated kernel checks the indices it reads: the
// binary exits 1 with interp's (PyTorch's) message; with in-range random
// indices it computes what interp computes.
func TestBadIndexExitsWithPyTorchMessage(t *testing.T) {
	cases := loadBadIndexCases(t)
	bin := buildModule(t, programs(cases))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inputs := c.inputs(t)
			in := t.TempDir()
			for i, v := range c.g.Inputs {
				require.NoError(t, interp.SaveNPY(filepath.Join(in, v.Name+".npy"), inputs[i].(*interp.Tensor)))
			}
			_, ierr := interp.Run(c.g, interp.CopyValues(inputs), interp.Options{})
			require.Error(t, ierr, "interp accepts the indices")
			require.Equal(t, c.want, interpMessage(t, ierr))

			cmd := exec.Command(bin, "-graph", c.name, "-inputs", in, "-o", t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
			assert.Equal(t, 1, exit.ExitCode())
			assert.Regexp(t, `^error: kernel\d+: `+regexpQuote(c.want)+"\n$", stderr.String())
			assert.NotContains(t, stderr.String(), "panic")

			c.check(t, bin) // random in-range indices
		})
	}
}

func regexpQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, ".", `\.`, "(", `\(`, ")", `\)`, "[", `\[`, "]", `\]`, "+", `\+`, "*", `\*`, "?", `\?`)
	return r.Replace(s)
}

// The check is one compare in the generated loop, before the gathered
// load, and returns rt.IndexError with the message as data.
func TestCheckCodeShape(t *testing.T) {
	c := fxProgram(t, "gather_check", `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[100, 2][2, 1]cpu", i: "i64[3, 2][2, 1]cpu", j: "i64[4][1]cpu"):
        gather: "f32[3, 2][2, 1]cpu" = torch.ops.aten.gather.default(x, 0, i)
        index: "f32[4, 2][2, 1]cpu" = torch.ops.aten.index.Tensor(x, [j])
        return (gather, index)
`)
	src, err := Generate(c.prog, c.name)
	require.NoError(t, err)
	s := string(src)
	assert.Contains(t, s, "if uint64(tmp0) >= uint64(int64(100)) {\n")
	assert.Contains(t, s, "if tmp0 < -int64(100) || tmp0 >= int64(100) {\n")
	assert.Contains(t, s, `return rt.IndexError("index {index} is out of bounds for dimension 0 with size {size}", tmp0, int64(100))`)
	check := strings.Index(s, "if uint64(tmp0)")
	load := strings.Index(s[check:], "v0_f32[")
	assert.Positive(t, load, "the gathered load follows the check")
}
