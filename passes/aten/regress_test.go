package aten_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	_ "github.com/kiln-compiler/kiln/passes/aten"
	_ "github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
	"github.com/kiln-compiler/kiln/passes/functionalize/fztest"
)

// The cases are Dynamo graphs PyTorch printed (tools/aten_cases/gen.py),
// one per rewrite kind, in fztest's txtar format; `go test -update`
// rewrites output.fx, remarks and diagnostics.
const caseDir = "../../testdata/aten"

// eagerSeed is the interp input seed the eager sections were computed on
// (gen.py's SEED).
const eagerSeed = 1

// TestRegressions runs every case and checks the rewritten graph three
// ways: its printout, remarks and diagnostics against the case's; its
// outputs, run by interp, against PyTorch eager's on the same inputs
// (the eager section: interp cannot run the Dynamo-level graph itself);
// and the passes after it (functionalize, decompose) translation-validated
// through interp on the rewritten graph.
func TestRegressions(t *testing.T) {
	fztest.RunCases(t, caseDir, func(t *testing.T, c *fztest.Case, r *fztest.Result) {
		require.False(t, r.Failed, "the pipeline failed:\n%s", r.Diagnostics())
		if why := c.Section("novalidate"); why != "" {
			t.Logf("not validated: %s", why)
			return
		}
		want, err := parseEager(c.Section("eager"))
		require.NoError(t, err)
		got := runInterp(t, r.Graph)
		require.Len(t, got, len(want), "outputs")
		for i := range want {
			require.Nil(t, interp.Compare(want[i], got[i], nil), "output %d against PyTorch eager", i)
		}
		after := c.Run(t, c.Pipeline+",functionalize,decompose")
		require.False(t, after.Failed, "%s", after.Diagnostics())
		for _, seed := range fztest.Seeds {
			require.NoError(t, fztest.Equivalent(r.Graph, after.Graph, seed), "seed %d", seed)
		}
	})
}

func runInterp(t *testing.T, g *ir.Graph) []any {
	t.Helper()
	opts := interp.Options{Seed: eagerSeed}
	in, err := interp.MakeInputs(g, opts)
	require.NoError(t, err)
	res, err := interp.Run(g, in, opts)
	require.NoError(t, err)
	return res.Outputs
}

// parseEager reads the eager section: a line per output,
// `out0 f32[2, 3] v v v ...`, values in row-major order.
func parseEager(text string) ([]any, error) {
	var outs []any
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		_, rest, _ := strings.Cut(line, " ")
		ann, vals, _ := strings.Cut(rest, "] ")
		if !strings.HasSuffix(ann, "]") {
			ann += "]"
		}
		typ, err := ir.ParseType(ann)
		if err != nil || typ.Kind != ir.KindTensor {
			return nil, fmt.Errorf("eager line %q: %v", line, err)
		}
		shape := make([]int64, len(typ.Tensor.Shape))
		for i, s := range typ.Tensor.Shape {
			shape[i], _ = s.Const()
		}
		var xs []float64
		for _, f := range strings.Fields(vals) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, fmt.Errorf("eager line %q: %v", line, err)
			}
			xs = append(xs, x)
		}
		outs = append(outs, tensorOf(typ.Tensor.DType, shape, xs))
	}
	return outs, nil
}

func tensorOf(dt ir.DType, shape []int64, xs []float64) *interp.Tensor {
	if dt.IsFloat() {
		return interp.FromFloats(dt, shape, xs)
	}
	is := make([]int64, len(xs))
	for i, x := range xs {
		is[i] = int64(math.Round(x))
	}
	return interp.FromInts(dt, shape, is)
}
