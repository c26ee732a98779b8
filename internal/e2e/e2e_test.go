// Package e2e checks kiln end to end: every example graph that kiln can
// lower is compiled to Go, built (all graphs in one module, one build,
// GOEXPERIMENT=simd), run on random inputs on its SIMD lanes and again on
// its scalar loops, and compared with interp on the same inputs.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/codegen/golang"
	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/judged"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/internal/tooltest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elementBudget bounds the elements a graph's tensors may hold: the
// corpus has 67M-element inputs that interp would take minutes on. Larger
// graphs are compiled into the module but not run, unless -e2e.full.
const elementBudget = 1 << 20

var full = flag.Bool("e2e.full", false, "run every graph, however large (minutes)")

// interpSeed seeds interp's inputs and random ops; the generated binary
// gets it as -seed, so random ops draw the same numbers.
const interpSeed = 7

// candidate is a graph that lowered, with the interp run to compare with.
type candidate struct {
	name   string
	prog   *driver.Program
	inputs []any // before the run
	want   *interp.Result
	graph  *ir.Graph
	small  bool // within elementBudget
}

// outcome is a graph's fate, for the summary table.
type outcome struct{ name, status, detail string }

func TestEndToEnd(t *testing.T) {
	goTool := tooltest.Need(t, "go")
	graphs, err := testgraphs.Collect("../../testdata")
	require.NoError(t, err)
	var cands []*candidate
	var outcomes []outcome
	for _, tg := range graphs {
		c, o := prepare(t, tg)
		outcomes = append(outcomes, o...)
		cands = append(cands, c...)
	}
	require.NotEmpty(t, cands)
	dir := t.TempDir()
	progs := make([]*driver.Program, len(cands))
	for i, c := range cands {
		progs[i] = c.prog
	}
	require.NoError(t, golang.WriteModule(filepath.Join(dir, "mod"), "kilngen", driver.LoopPrograms(progs)))
	bin := filepath.Join(dir, "kilngen")
	// The SIMD build (the one kiln's benchmarks time): each graph runs on
	// its lanes, and the graphs within the element budget run again with
	// KILN_SIMD=avx2 where the CPU has AVX-512 (8 lanes only) and with
	// KILN_SIMD=off, on the scalar loops alone (the scalar float32 GEMM
	// would take minutes on corpus 041's products, past go test's default
	// 10-minute timeout under -e2e.full). Off amd64 the lanes compile
	// away and both runs are the scalar loops.
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOEXPERIMENT=simd")
	build.Dir = filepath.Join(dir, "mod")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build of the generated module:\n%s", out)
	type variant struct{ name, env, what string }
	variants := []variant{{"scalar", "KILN_SIMD=off", "scalar loops (KILN_SIMD=off)"}}
	if status, err := exec.Command(bin, "-simd").Output(); err == nil && strings.Contains(string(status), "avx512:") {
		// The lanes ran on 16 where they could: run the 8-lane loops too.
		variants = append(variants, variant{"avx2", "KILN_SIMD=avx2", "8 lanes only (KILN_SIMD=avx2)"})
	}
	for i, c := range cands {
		if c.want == nil {
			outcomes = append(outcomes, outcome{c.name, "built", "too large for interp: compiled into the module, not run"})
			continue
		}
		o := check(t, bin, filepath.Join(dir, fmt.Sprintf("run%d", i)), c, "")
		for _, v := range variants {
			if o.status != "ok" || !c.small {
				break
			}
			if r := check(t, bin, filepath.Join(dir, fmt.Sprintf("run%d-%s", i, v.name)), c, v.env); r.status != "ok" {
				o = r
				o.detail = v.what + ": " + o.detail
			}
		}
		outcomes = append(outcomes, o)
	}
	counts := map[string]int{}
	for _, o := range outcomes {
		counts[o.status]++
		t.Logf("%-10s %s  %s", o.status, o.name, o.detail)
	}
	t.Logf("summary: %v", counts)
	assert.Zero(t, counts["MISMATCH"]+counts["RUN-FAIL"], "generated code disagrees with interp")
	// a golden output a pass printed must parse back (an unknown device
	// once printed as device(type=''))
	assert.Zero(t, counts["skipped"], "example graphs that do not parse")
	assert.GreaterOrEqual(t, counts["ok"], 320, "graphs compiled, run and matched end to end (330 since the aten pass lowers Dynamo graphs)")
}

// prepare compiles one example file and runs interp on it.
func prepare(t *testing.T, tg testgraphs.Graph) ([]*candidate, []outcome) {
	name := strings.TrimPrefix(tg.Name, "../../testdata/")
	res, err := driver.Parse(driver.Input{Name: tg.Name, Src: tg.Src}, nil)
	if err != nil {
		return nil, []outcome{{name, "skipped", "does not parse"}}
	}
	types := map[string]ir.Type{}
	for _, g := range res.Module.Graphs {
		for k, v := range tg.InputTypes(g) {
			types[k] = v
		}
	}
	run, err := driver.Compile(driver.Input{Name: tg.Name, Src: tg.Src}, driver.Options{
		Pipeline: driver.CompilePipeline, InputTypes: types,
		Config: passes.Config{CaptureScalarOutputs: true, CaptureDynamicOutputShapeOps: true}})
	if err != nil {
		return nil, []outcome{{name, "pass-error", firstLine(err.Error())}}
	}
	if run.Diags.HasErrors() {
		return nil, []outcome{{name, "stopped", "passes stop on its intended diagnostic: " + firstError(run.Diags)}}
	}
	progs, err := driver.Backend(run, driver.BackendOptions{})
	require.NoError(t, err, name)
	var cands []*candidate
	var outs []outcome
	for _, d := range run.Diags.Items {
		if d.Severity == diag.Error {
			outs = append(outs, outcome{name, "no-lowering", firstLine(d.Message)})
		}
	}
	for _, p := range progs {
		gname := name + "#" + p.Name()
		p.Loop.Name = sanitize(name) + "_" + p.Name()
		c, o := runInterp(gname, p)
		if o.status == "too-large" {
			c = &candidate{name: gname, prog: p, graph: p.Graph}
		}
		if c == nil {
			outs = append(outs, o)
			continue
		}
		cands = append(cands, c)
	}
	return cands, outs
}

func runInterp(name string, p *driver.Program) (*candidate, outcome) {
	n := testgraphs.Elements(p.Graph, interp.DefaultSymValue)
	if n > elementBudget && !*full {
		return nil, outcome{name, "too-large", fmt.Sprintf("%d elements", n)}
	}
	opts := interp.Options{Seed: interpSeed}
	inputs, err := interp.MakeInputs(p.Graph, opts)
	if err != nil {
		return nil, outcome{name, "no-interp", firstLine(err.Error())}
	}
	saved := interp.CopyValues(inputs)
	want, err := interp.Run(p.Graph, inputs, opts)
	if err != nil {
		return nil, outcome{name, "no-interp", firstLine(err.Error())}
	}
	return &candidate{name: name, prog: p, inputs: saved, want: want, graph: p.Graph, small: n <= elementBudget}, outcome{}
}

// check runs the generated program on the interp inputs and compares.
func check(t *testing.T, bin, dir string, c *candidate, env string) outcome {
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(in, 0o755))
	args := []string{"-graph", c.prog.Name(), "-inputs", in, "-o", out, "-seed", fmt.Sprint(interpSeed)}
	for i, v := range c.graph.Inputs {
		switch x := c.inputs[i].(type) {
		case *interp.Tensor:
			require.NoError(t, interp.SaveNPY(filepath.Join(in, v.Name+".npy"), x))
		default:
			args = append(args, "-scalar", fmt.Sprintf("%s=%v", v.Name, x))
		}
	}
	for _, s := range sortedKeys(c.want.Sym) {
		args = append(args, "-sym", fmt.Sprintf("%s=%d", s, c.want.Sym[s]))
	}
	var judgedRMS []string
	judgement, _ := judged.Of(c.name)
	cmd := exec.Command(bin, args...)
	if env != "" {
		cmd.Env = append(os.Environ(), env)
	}
	if msg, err := cmd.CombinedOutput(); err != nil {
		return outcome{c.name, "RUN-FAIL", firstLine(string(msg))}
	}
	for i, w := range fxtest.Flatten(c.want.Outputs) {
		wt, ok := w.(*interp.Tensor)
		if !ok {
			continue // scalar outputs are checked by the generated code's own tests
		}
		got, err := interp.LoadNPY(filepath.Join(out, fmt.Sprintf("out%d.npy", i)), wt.DType)
		if err != nil {
			return outcome{c.name, "RUN-FAIL", firstLine(err.Error())}
		}
		if m := interp.CompareTensors(wt, got, judged.Tolerance(c.name, wt.DType)); m != nil {
			if ok, why := judgement.Output(i, wt, got); ok {
				judgedRMS = append(judgedRMS, fmt.Sprintf("output %d: %d of %d elements past rtol/atol, %s", i, m.Bad, m.Total, why))
				continue
			}
			return outcome{c.name, "MISMATCH", fmt.Sprintf("output %d: %s", i, m)}
		}
	}
	for i, param := range c.prog.Loop.Inputs {
		if !param.Mutated {
			continue
		}
		wt := c.want.Inputs[i].(*interp.Tensor)
		got, err := interp.LoadNPY(filepath.Join(out, param.Name+".npy"), wt.DType)
		if err != nil {
			return outcome{c.name, "RUN-FAIL", firstLine(err.Error())}
		}
		if m := interp.CompareTensors(wt, got, judged.Tolerance(c.name, wt.DType)); m != nil {
			if ok, why := judgement.Input(param.Name, wt, got); ok {
				judgedRMS = append(judgedRMS, fmt.Sprintf("mutated input %s: %d of %d elements past rtol/atol, %s", param.Name, m.Bad, m.Total, why))
				continue
			}
			return outcome{c.name, "MISMATCH", fmt.Sprintf("mutated input %s: %s", param.Name, m)}
		}
	}
	detail := fmt.Sprintf("%d kernel(s)", len(c.prog.Loop.Kernels))
	if j, ok := judged.Of(c.name); ok {
		detail += fmt.Sprintf("; compared at rtol %g atol %g, else by RMS: %s", j.Tol.RTol, j.Tol.ATol, strings.Join(judgedRMS, "; "))
	}
	return outcome{c.name, "ok", detail}
}

func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func firstError(l diag.List) string {
	for _, d := range l.Items {
		if d.Severity == diag.Error {
			return firstLine(d.String())
		}
	}
	return ""
}
