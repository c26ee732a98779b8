package decompose

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

const maskedScatterSrc = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3][3, 1]cpu", m: "b8[2, 3][3, 1]cpu", s: "f32[6][1]cpu"):
        ms = torch.ops.aten.masked_scatter.default(x, m, s)
        return (ms,)
`

// What a decomposition emits is decomposed in turn: masked_scatter emits
// _unsafe_masked_index, whose rule emits clamp, whose rule emits
// maximum/minimum; none of the three is left, and the remarks say who
// expanded what, outermost first.
func TestEmittedOpsDecomposed(t *testing.T) {
	g, ctx := run(t, "fakeprop,functionalize,decompose", maskedScatterSrc)
	for _, n := range g.Nodes {
		r := byOp[n.Target]
		assert.True(t, r == nil || r.Whole(), "%s (%s) is left decomposable", n.Name, n.Target)
	}
	var msgs []string
	for _, d := range ctx.Remarks("decompose") {
		msgs = append(msgs, d)
	}
	assert.Equal(t, []string{
		"decompose: ms (aten::masked_scatter.default) became reshape, cumsum, sub, reshape, _unsafe_masked_index, reshape, where, view",
		"decompose: ms__unsafe_masked_index (aten::_unsafe_masked_index.default) became clamp, _unsafe_index, bitwise_not, masked_fill",
		"decompose: ms__unsafe_masked_index_clamp (aten::clamp.default) became scalar_tensor, maximum, scalar_tensor, minimum",
	}, msgs)
}

// A rule that emits its own op, directly or through another rule, would
// expand forever: the pass stops with an error naming the chain.
func TestRuleLoopIsAnError(t *testing.T) {
	silu, sig := byOp["aten::silu.default"], byOp["aten::sigmoid.default"]
	saved := silu.build
	defer func() { silu.build = saved }()
	emit := func(op string) buildFunc {
		return func(e *emitter, c *ops.Call) []*ir.Value {
			return []*ir.Value{e.call(op, []ir.Arg{val(e.tensorArg(c, "self"))})}
		}
	}
	silu.build = emit("aten::silu.default")
	g := fxtest.Parse(t, "t.fx", siluSrc)
	_, err := fxtest.RunPipeline(t, g, "fakeprop,functionalize,decompose", passes.Config{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the decomposition of aten::silu.default emits aten::silu.default again (aten::silu.default -> aten::silu.default): the table loops")

	// silu -> sigmoid -> silu: sigmoid has no row, so one is added here.
	require.Nil(t, sig)
	byOp["aten::sigmoid.default"] = &Rule{Op: "aten::sigmoid.default", build: emit("aten::silu.default")}
	defer delete(byOp, "aten::sigmoid.default")
	silu.build = emit("aten::sigmoid.default")
	g = fxtest.Parse(t, "t.fx", siluSrc)
	_, err = fxtest.RunPipeline(t, g, "fakeprop,functionalize,decompose", passes.Config{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(aten::silu.default -> aten::sigmoid.default -> aten::silu.default): the table loops")
}
