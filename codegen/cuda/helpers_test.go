package cuda_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/lit"
	"github.com/kiln-compiler/kiln/internal/tooltest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	_ "github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
)

// defaultPipeline is what `kiln compile` runs before lowering.
const defaultPipeline = "fakeprop,functionalize,decompose,align,dce"

// compileFX parses an FX graph and runs the pipeline.
func compileFX(t *testing.T, file, src, pipeline string) *ir.Graph {
	t.Helper()
	return fxtest.Compile(t, file, src, pipeline)
}

// lowerFused lowers g, fuses and plans (buffers, shared code), verifying each step.
func lowerFused(t *testing.T, g *ir.Graph) *lowering.Program {
	t.Helper()
	p, err := lowering.Lower(g, lowering.Options{Name: "g"})
	require.NoError(t, err)
	require.NoError(t, lowering.Verify(p), "%s", p)
	_, err = lowering.Fuse(p, lowering.FuseOptions{})
	require.NoError(t, err)
	lowering.Plan(p)
	require.NoError(t, lowering.Verify(p), "%s", p)
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// needTool skips the test when a compiler is missing (fails under CI,
// which installs it: see internal/tooltest).
func needTool(t *testing.T, name string) { tooltest.Need(t, name) }

// emulate compiles src with g++ in emulation mode and runs it on inDir,
// returning the output folder.
func emulate(t *testing.T, src, inDir string, args ...string) string {
	t.Helper()
	return runOK(t, buildEmulated(t, src), inDir, args...)
}

// runOK runs an emulated program that must succeed; its output folder.
func runOK(t *testing.T, bin, inDir string, args ...string) string {
	t.Helper()
	run := runEmulated(t, bin, inDir, args...)
	require.Zero(t, run.code, "emulated program failed:\n%s", run.output)
	return run.outDir
}

// emulatedRun is what an emulated program left: its output folder, its
// stdout and stderr interleaved, its stderr alone and its exit code.
type emulatedRun struct {
	outDir, output, stderr string
	code                   int
}

// runEmulated runs bin on inDir and a fresh output folder (within two
// minutes); a program that may fail, or exits nonzero, is the caller's to
// judge.
func runEmulated(t *testing.T, bin, inDir string, args ...string) emulatedRun {
	t.Helper()
	run := emulatedRun{outDir: filepath.Join(t.TempDir(), "out")}
	require.NoError(t, os.Mkdir(run.outDir, 0o755))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{inDir, run.outDir}, args...)...)
	var output, stderr bytes.Buffer
	cmd.Stdout = &output
	cmd.Stderr = io.MultiWriter(&output, &stderr)
	err := cmd.Run()
	run.output, run.stderr = output.String(), stderr.String()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s", run.output)
		run.code = exit.ExitCode()
	}
	return run
}

// buildEmulated compiles src with g++ in emulation mode.
func buildEmulated(t *testing.T, src string) string {
	t.Helper()
	needTool(t, "g++")
	dir := t.TempDir()
	cu := filepath.Join(dir, "prog.cu")
	require.NoError(t, os.WriteFile(cu, []byte(src), 0o644))
	bin := filepath.Join(dir, "prog")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "g++", "-x", "c++", "-DKILN_EMULATE", "-O1", "-ffp-contract=off", "-o", bin, cu).CombinedOutput()
	require.NoError(t, err, "g++ failed:\n%s\n%s", firstLines(string(out), 40), numbered(src))
	return bin
}

// ptx compiles src to PTX with clang.
func ptx(t *testing.T, src string) string {
	t.Helper()
	needTool(t, "clang")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := cuda.PTX(ctx, src)
	require.NoError(t, err, "%s", numbered(src))
	return out
}

// saveInputs writes one .npy per tensor input of p; SymInt values come
// back as NAME=VALUE arguments.
func saveInputs(t *testing.T, p *lowering.Program, vals []any) (dir string, args []string) {
	t.Helper()
	dir = t.TempDir()
	require.Len(t, vals, len(p.Inputs))
	for i, in := range p.Inputs {
		switch v := vals[i].(type) {
		case *interp.Tensor:
			require.NoError(t, interp.SaveNPY(filepath.Join(dir, in.Name+".npy"), v))
		case int64:
			args = append(args, fmt.Sprintf("%s=%d", in.Name, v))
		default:
			t.Fatalf("input %s: unsupported value %T", in.Name, v)
		}
	}
	return dir, args
}

// loadOutput reads out<i>.npy as dt.
func loadOutput(t *testing.T, dir, file string, dt ir.DType) *interp.Tensor {
	t.Helper()
	got, err := interp.LoadNPY(filepath.Join(dir, file), dt)
	require.NoError(t, err)
	return got
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

// numbered prints the kernels part of a source with line numbers, for
// failure messages.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%5d  %s\n", i+1, l)
	}
	s := b.String()
	if i := strings.Index(s, "---- kernels ----"); i > 0 {
		return s[i:]
	}
	return s
}

// loweringCaseCUDA is the CUDA of testdata/lowering/NAME's input.fx,
// lowered and fused.
func loweringCaseCUDA(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("../../testdata/lowering", name)
	arch, err := txtar.ParseFile(path)
	require.NoError(t, err)
	src, err := cuda.Generate(lowerFused(t, compileFX(t, path, lit.Section(arch, "input.fx"), defaultPipeline)))
	require.NoError(t, err)
	return src
}

// kernelSource is the text of kernel name in src, up to its closing brace.
func kernelSource(t *testing.T, src, name string) string {
	t.Helper()
	i := strings.Index(src, "extern \"C\" __global__ void "+name+"(")
	require.GreaterOrEqual(t, i, 0, name)
	j := strings.Index(src[i:], "\n}\n")
	return src[i : i+j]
}
