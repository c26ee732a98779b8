package golang

import (
	"bytes"
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/stretchr/testify/require"
)

// A genCase is one program run through the generated binary.
type genCase struct {
	prog    *lowering.Program
	inputs  map[string]*interp.Tensor // written as DIR/<name>.npy
	args    []string                  // extra flags (-sym ...)
	wantErr string                    // the run must fail with this on stderr
	check   func(t *testing.T, r *runResult)
}

// runResult is what one run of the binary wrote.
type runResult struct {
	manifest []interp.ManifestEntry
	files    map[string]*interp.Tensor // by file name
	stdout   string
}

// output returns output i (from out<i>.npy).
func (r *runResult) output(t *testing.T, i int) *interp.Tensor {
	t.Helper()
	for _, e := range r.manifest {
		if e.Kind == "output" && e.File == "out"+strconv.Itoa(i)+".npy" {
			return r.files[e.File]
		}
	}
	require.Failf(t, "no output", "out%d.npy is not in the manifest", i)
	return nil
}

// goTool finds the go command or skips.
func goTool(t testing.TB) string {
	path, err := exec.LookPath("go")
	if err != nil {
		if _, serr := os.Stat("/usr/local/go/bin/go"); serr == nil {
			return "/usr/local/go/bin/go"
		}
		t.Skip("the go command is not installed: generated modules cannot be built")
	}
	return path
}

// goEnv runs the go command offline on the generated module.
func goCmd(goBin, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=")
	return cmd
}

// buildModule writes progs as one module and builds it once (with env
// added to the go command's environment: GOEXPERIMENT=simd); it also vets
// the module and checks every generated file is gofmt-clean.
func buildModule(t *testing.T, progs []*lowering.Program, env ...string) string {
	t.Helper()
	goBin := goTool(t)
	dir := t.TempDir()
	require.NoError(t, WriteModule(dir, "kilngen", progs))
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		formatted, err := format.Source(src)
		require.NoError(t, err, path)
		require.Equal(t, string(formatted), string(src), "%s is not gofmt-clean", path)
		return nil
	})
	require.NoError(t, err)
	bin := filepath.Join(dir, "kernels")
	for _, args := range [][]string{{"build", "-o", bin, "."}, {"vet", "./..."}} {
		cmd := goCmd(goBin, dir, args...)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s %v:\n%s", args[0], env, out)
	}
	return bin
}

// run runs one case through the binary.
func (gc *genCase) run(t *testing.T, bin string) {
	t.Helper()
	in, out := t.TempDir(), t.TempDir()
	for name, x := range gc.inputs {
		require.NoError(t, interp.SaveNPY(filepath.Join(in, name+".npy"), x))
	}
	args := append([]string{"-graph", gc.prog.Name, "-inputs", in, "-o", out}, gc.args...)
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if gc.wantErr != "" {
		require.Error(t, err, "the run should fail")
		require.Contains(t, stderr.String(), gc.wantErr)
		return
	}
	require.NoError(t, err, "stderr: %s", stderr.String())
	r := &runResult{files: map[string]*interp.Tensor{}, stdout: stdout.String()}
	raw, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &r.manifest))
	for _, e := range r.manifest {
		if e.File == "" {
			continue
		}
		dt, ok := ir.DTypeFromAbbr(e.DType)
		require.True(t, ok, e.DType)
		x, err := interp.LoadNPY(filepath.Join(out, e.File), dt)
		require.NoError(t, err)
		require.Equal(t, e.Shape, nilIfEmpty(x.Shape))
		r.files[e.File] = x
	}
	gc.check(t, r)
}

func nilIfEmpty(s []int64) []int64 {
	if len(s) == 0 {
		return nil
	}
	return s
}

// parseFX parses an FX graph with the op registry.
func parseFX(t require.TestingT, src string) *ir.Graph {
	res, err := fx.Parse("test.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	require.NotEmpty(t, res.Module.Graphs)
	return res.Module.Graphs[0]
}

// runFX runs an FX graph under interp (the oracle) on the given inputs.
func runFX(t *testing.T, src string, inputs ...any) []any {
	t.Helper()
	out, err := interp.Run(parseFX(t, src), inputs, interp.Options{})
	require.NoError(t, err)
	return out.Outputs
}

// requireClose compares with interp's default tolerance for the dtype.
func requireClose(t *testing.T, want, got *interp.Tensor) {
	t.Helper()
	m := interp.Compare(want, got, interp.DefaultTolerance)
	require.Nil(t, m, "%v", m)
}
