package lowering

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

// TestFuseCorpus fuses and plans every graph under testdata/ that lowers:
// the result must pass Verify and schedCheck, and, where the test
// evaluator can run the program (known functions, small sizes, symbols
// bound to 4), compute what the unfused program computes.
func TestFuseCorpus(t *testing.T) {
	var fused, evaluated, before, after int
	testgraphs.ForEach(t, "../testdata", func(tg testgraphs.Graph, gi int, g *ir.Graph) {
		pipe, err := passes.Parse("fakeprop,functionalize,align,dce")
		require.NoError(t, err)
		ctx := passes.NewContext(passes.Config{})
		if _, err := (&passes.Manager{}).Run(pipe, ctx, g); err != nil || ctx.Diags.HasErrors() {
			return
		}
		p, err := Lower(g, Options{})
		if err != nil || Verify(p) != nil {
			return // Lower's own tests report these
		}
		name := fmt.Sprintf("%s#%d", tg.Name, gi)
		env := map[string]int64{}
		for _, s := range p.Syms {
			env[s] = 4
		}
		outs := outputBuffers(p)
		want, why := schedTryRun(t, p, env)
		stats, err := Fuse(p, FuseOptions{})
		require.NoError(t, err, name)
		require.NoError(t, Verify(p), "%s fused:\n%s", name, p)
		schedCheck(t, p, outs)
		PlanBuffers(p)
		require.NoError(t, Verify(p), "%s planned:\n%s", name, p)
		fused++
		before += stats.KernelsBefore
		after += stats.KernelsAfter
		if why != "" {
			return
		}
		got, why := schedTryRun(t, p, env)
		require.Empty(t, why, name)
		t.Run(name, func(t *testing.T) { requireClose(t, want, got) })
		evaluated++
	})
	t.Logf("fused %d graphs (%d kernels -> %d); %d evaluated before and after", fused, before, after, evaluated)
	assert.Greater(t, fused, 20)
	assert.Greater(t, evaluated, 10)
}
