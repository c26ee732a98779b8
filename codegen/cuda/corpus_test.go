package cuda_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// corpusBudget bounds the elements of a graph's tensors for the emulated
// run (every thread of every launch runs serially on the CPU).
const corpusBudget = 1 << 20

// TestCorpusEmulated generates CUDA for every graph under testdata/ that
// lowers, runs it emulated and compares with interp: the broadest check
// of the scalar semantics, reductions, externs and host layouts.
func TestCorpusEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles one program per graph")
	}
	needTool(t, "g++")
	graphs, err := testgraphs.Collect("../../testdata")
	require.NoError(t, err)
	run := 0
	for _, tg := range graphs {
		res, err := fx.Parse(tg.Name, tg.Src, fx.Options{Lookup: ops.LookupSchema})
		if err != nil {
			continue
		}
		for gi, g := range res.Module.Graphs {
			for _, in := range g.Inputs {
				if ty, ok := tg.InputTypes(g)[in.Name]; ok && !in.Type.IsKnown() {
					in.Type = ty
				}
			}
			if !lowers(g) || elems(g) > corpusBudget {
				continue
			}
			opts := interp.Options{Seed: 7, DefaultSym: 4}
			inputs, err := interp.MakeInputs(g, opts)
			if err != nil {
				continue
			}
			if _, err := interp.Run(g, interp.CopyValues(inputs), opts); err != nil {
				continue
			}
			run++
			name := strings.ReplaceAll(strings.TrimPrefix(tg.Name, "../../testdata/"), "/", ":")
			t.Run(fmt.Sprintf("%s#%d", name, gi), func(t *testing.T) {
				if why, ok := knownDivergent[name]; ok {
					t.Skip("interp and the lowered program disagree upstream of codegen: " + why)
				}
				t.Parallel()
				checkAgainstInterp(t, g, opts)
			})
		}
	}
	t.Logf("%d graphs generated and run", run)
	assert.Greater(t, run, 20)
}

// knownDivergent are graphs where interp and the lowered program disagree
// for reasons outside codegen (reported to their owners).
var knownDivergent = map[string]string{}

// lowers reports whether g makes it through the pipeline and Lower (a
// graph kiln cannot lower is lowering's business, not codegen's).
func lowers(g *ir.Graph) bool {
	pipe, err := passes.Parse(defaultPipeline)
	if err != nil {
		return false
	}
	ctx := passes.NewContext(passes.Config{})
	if _, err := (&passes.Manager{}).Run(pipe, ctx, g); err != nil || ctx.Diags.HasErrors() {
		return false
	}
	p, err := lowering.Lower(g, lowering.Options{})
	return err == nil && lowering.Verify(p) == nil
}

// elems sums the elements of the graph's annotated tensors (symbols at 4).
func elems(g *ir.Graph) int64 {
	total := int64(0)
	env := map[string]int64{}
	for _, v := range g.Values() {
		if v.Type.Kind != ir.KindTensor {
			continue
		}
		n := int64(1)
		for _, e := range v.Type.Tensor.Shape {
			for _, s := range e.Free() {
				env[s] = 4
			}
			x, err := e.Eval(env)
			if err != nil {
				return 1 << 62
			}
			n *= x
		}
		total += n
	}
	return total
}
