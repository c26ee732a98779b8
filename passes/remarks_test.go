package passes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
	"github.com/kiln-compiler/kiln/passes"
)

func init() {
	register("t-chatty", nil, nil, func(ctx *passes.Context, g *ir.Graph) (bool, error) {
		for i := range 5 {
			ctx.Remark(g.Nodes[0], "t", "remark %d", i)
			ctx.RemarkAt(g.Pos, "x", "t", "input remark")
		}
		ctx.Warn(g.Nodes[0], "t-warn", "", "a warning is never dropped")
		return false, nil
	})
}

// A pass keeps limits.RemarksPerPass remarks per graph and says in one
// remark how many it made; warnings are never dropped; 0 keeps all.
func TestRemarksPerPassBound(t *testing.T) {
	defer func(old int) { limits.RemarksPerPass = old }(limits.RemarksPerPass)
	run := func(limit int) []diag.Diagnostic {
		limits.RemarksPerPass = limit
		pipe, err := passes.Parse("t-chatty,t-chatty")
		require.NoError(t, err)
		ctx := passes.NewContext(passes.Config{})
		_, err = (&passes.Manager{}).Run(pipe, ctx, graph(t))
		require.NoError(t, err)
		return ctx.Diags.Items
	}
	items := run(3)
	var kept []string
	for _, d := range items {
		kept = append(kept, string(d.Code)+": "+d.Message)
	}
	assert.Equal(t, []string{
		"t: remark 0", "t: input remark", "t: remark 1", "t-warn: a warning is never dropped",
		"limit: t-chatty made 10 remarks; the first 3 are listed (-max-remarks=N lists more, 0 all)",
	}, kept[:5])
	assert.Len(t, kept, 10, "each run of the pass has its own budget")
	assert.Len(t, run(0), 22)
}
