package lowering

import (
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/lit"
	"github.com/kiln-compiler/kiln/ir"
	_ "github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
)

const fusionCaseDir = "../testdata/fusion"

// A fusion case is a txtar archive:
//
//	comment         what the case shows
//	-- input.fx --  the FX graph
//	-- pipeline --  optional: the passes to run (default schedPipeline)
//	-- env --       optional: symbol values for the evaluation ("s0=5";
//	                "int_range=3" draws integer inputs from [0, 3))
//	-- checks --    assertions, one a line: "kernels N", "stages N" (of
//	                kernel0), "recomputes N", "calls FN N", "stores N",
//	                "buffers N", "max-instrs N" (per kernel), "serial N"
//	                (kernels), "remark TEXT"
//	-- output --    the expected dump after Fuse and PlanBuffers
//
// Every case is lowered, checked with Verify and schedCheck before and
// after fusion and after planning, and evaluated before and after: the
// outputs and mutated inputs must agree. `go test ./lowering -update`
// (the flag the lowering golden tests define) rewrites output.
func TestFusionCases(t *testing.T) {
	fxtest.ForEach(t, fusionCaseDir, func(t *testing.T, path string) {
		arch, err := txtar.ParseFile(path)
		require.NoError(t, err)
		g := schedCompile(t, path, fxtest.Section(arch, "input.fx"), strings.TrimSpace(fxtest.Section(arch, "pipeline")))
		p, err := Lower(g, Options{Name: "g"})
		require.NoError(t, err)
		require.NoError(t, Verify(p), "pre-fusion:\n%s", p)
		env := parseEnv(t, fxtest.Section(arch, "env"))
		before := outputBuffers(p)
		want := schedRun(t, p, env, 3)
		stats, err := Fuse(p, FuseOptions{})
		require.NoError(t, err)
		require.NoError(t, Verify(p), "fused:\n%s", p)
		schedCheck(t, p, before)
		requireClose(t, want, schedRun(t, p, env, 3))
		PlanBuffers(p)
		require.NoError(t, Verify(p), "planned:\n%s", p)
		requireClose(t, want, schedRun(t, p, env, 3))
		runChecks(t, p, stats, fxtest.Section(arch, "checks"))
		lit.Golden{File: path, Archive: arch, Names: []string{"output"}}.Check(t, map[string]string{"output": p.String()}, updating())
	})
}

// updating reads the -update flag the lowering golden tests define.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// schedPipeline is the pipeline fusion cases run by default.
const schedPipeline = "fakeprop,functionalize,align,dce"

// schedCompile parses src and runs pipeline ("": schedPipeline) on it.
func schedCompile(t *testing.T, file, src, pipeline string) *ir.Graph {
	t.Helper()
	if pipeline == "" {
		pipeline = schedPipeline
	}
	return fxtest.Compile(t, file, src, pipeline)
}

func parseEnv(t *testing.T, s string) map[string]int64 {
	env := map[string]int64{}
	for _, f := range strings.Fields(s) {
		name, val, ok := strings.Cut(f, "=")
		require.True(t, ok, "env: %q", f)
		v, err := strconv.ParseInt(val, 10, 64)
		require.NoError(t, err)
		env[name] = v
	}
	return env
}

func runChecks(t *testing.T, p *Program, stats FuseStats, checks string) {
	all := func(pred func(*Instr) bool) int {
		n := 0
		for _, k := range p.Kernels {
			if k.Extern == nil {
				n += countInstrs(k, pred)
			}
		}
		return n
	}
	for _, line := range strings.Split(strings.TrimSpace(checks), "\n") {
		word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		num := func(s string) int {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			require.NoError(t, err, "check %q", line)
			return n
		}
		switch word {
		case "kernels":
			assert.Len(t, p.Kernels, num(rest), "%s\n%s", line, p)
		case "stages":
			assert.Len(t, p.Kernels[0].Stages, num(rest), "%s\n%s", line, p)
		case "recomputes":
			assert.Equal(t, num(rest), stats.Recomputes, line)
		case "buffers":
			assert.Len(t, p.Buffers, num(rest), line)
		case "stores":
			assert.Equal(t, num(rest), all(func(in *Instr) bool { return in.Op == OpStore }), line)
		case "calls":
			fn, n, _ := strings.Cut(rest, " ")
			assert.Equal(t, num(n), all(isCall(fn)), "%s\n%s", line, p)
		case "max-instrs":
			for _, k := range p.Kernels {
				assert.LessOrEqual(t, countInstrs(k, func(*Instr) bool { return true }), num(rest), "%s: %s", line, k.Name)
			}
		case "serial":
			n := 0
			for _, k := range p.Kernels {
				if k.Serial {
					n++
				}
			}
			assert.Equal(t, num(rest), n, "%s\n%s", line, p)
		case "remark":
			assert.Contains(t, p.Remarks, rest)
		default:
			t.Fatalf("unknown check %q", line)
		}
	}
}
