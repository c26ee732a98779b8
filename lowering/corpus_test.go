package lowering_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/decompose"
)

// walkPipeline is the default pipeline with decompose after functionalize,
// as Inductor sees graphs after AOTAutograd's decompositions: composite ops
// (matmul, linear, layer norm, eval batch norm) reach lowering as core ops.
const walkPipeline = "fakeprop,functionalize,decompose,align,dce"

// TestCorpusWalk lowers every graph under testdata/ (the real-world corpus,
// the scenarios, every txtar member) after walkPipeline.
// A graph either lowers (and its program verifies) or fails with
// no-lowering naming the op that blocks it; any other error, or a panic,
// fails the test. Graphs the pipeline itself rejects are counted apart.
func TestCorpusWalk(t *testing.T) {
	graphs, err := testgraphs.Collect("../testdata")
	require.NoError(t, err)
	require.NotEmpty(t, graphs)
	var lowered, pipelineFailed int
	blocked := map[string][]string{} // op → graphs it blocks
	for _, tg := range graphs {
		res, err := fx.Parse(tg.Name, tg.Src, fx.Options{Lookup: ops.LookupSchema})
		if err != nil || len(res.Module.Graphs) == 0 {
			pipelineFailed++
			continue
		}
		for gi, g := range res.Module.Graphs {
			name := fmt.Sprintf("%s#%d", tg.Name, gi)
			if !runPipeline(g, tg.InputTypes(g)) {
				pipelineFailed++
				continue
			}
			p, err := lowerNoPanic(t, name, g)
			switch {
			case err == nil:
				lowered++
				assert.NoError(t, lowering.Verify(p), "%s: Lower's program fails Verify:\n%s", name, p)
			case lowering.IsNoLowering(err):
				op := blockingOp(g, err)
				blocked[op] = append(blocked[op], name)
			default:
				t.Errorf("%s: Lower failed with an error other than no-lowering: %v", name, err)
			}
		}
	}
	t.Logf("lowered %d graphs; %d blocked by no-lowering; %d did not pass the pipeline",
		lowered, countBlocked(blocked), pipelineFailed)
	ops := make([]string, 0, len(blocked))
	for op := range blocked {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool {
		if len(blocked[ops[i]]) != len(blocked[ops[j]]) {
			return len(blocked[ops[i]]) > len(blocked[ops[j]])
		}
		return ops[i] < ops[j]
	})
	for _, op := range ops {
		t.Logf("  %-50s blocks %d", op, len(blocked[op]))
	}
	assert.Greater(t, lowered, 20, "most regression graphs should lower")
}

// runPipeline types unannotated inputs and runs the default pipeline;
// false when it reports an error (scenarios of failures do).
func runPipeline(g *ir.Graph, types map[string]ir.Type) (ok bool) {
	for _, in := range g.Inputs {
		if t, found := types[in.Name]; found && !in.Type.IsKnown() {
			in.Type = t
		}
	}
	pipe, err := passes.Parse(walkPipeline)
	if err != nil {
		return false
	}
	ctx := passes.NewContext(passes.Config{})
	_, err = (&passes.Manager{}).Run(pipe, ctx, g)
	return err == nil && !ctx.Diags.HasErrors()
}

func lowerNoPanic(t *testing.T, name string, g *ir.Graph) (p *lowering.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: Lower panicked: %v", name, r)
			err = fmt.Errorf("panic")
		}
	}()
	return lowering.Lower(g, lowering.Options{})
}

// blockingOp names the op of the node a no-lowering diagnostic is about.
func blockingOp(g *ir.Graph, err error) string {
	var d *diag.Diagnostic
	if errors.As(err, &d) {
		for _, n := range g.Nodes {
			if n.Name == d.Node {
				return n.Target
			}
		}
	}
	return "(graph: " + firstLine(err.Error()) + ")"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func countBlocked(m map[string][]string) int {
	n := 0
	for _, gs := range m {
		n += len(gs)
	}
	return n
}
