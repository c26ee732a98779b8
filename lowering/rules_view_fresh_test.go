package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/passes"
)

// TestViewWithFreshStorageCopiesItsLayout: a layout view (transpose) whose
// result a pass left with storage of its own is a copy of the transposed
// elements, not of the input in row-major order (which a Dynamo graph's
// rewrite once produced: wrong values, no error).
func TestViewWithFreshStorageCopiesItsLayout(t *testing.T) {
	g, _ := fxtest.Run(t, "fresh.fx", `
def forward(self, x: "f32[2, 3]"):
    transpose: "f32[3, 2]" = torch.ops.aten.transpose.int(x, 0, 1)
    mul: "f32[3, 2]" = torch.ops.aten.mul.Tensor(transpose, 2.0)
    return (mul,)
`, defaultPipeline, passes.Config{})
	for _, n := range g.Nodes {
		if n.Name == "transpose" {
			tt := *n.Results[0].Type.Tensor
			tt.Storage = 1 << 20 // fresh: no other value's
			tt.Strides = ir.ContiguousStrides(tt.Shape)
			n.Results[0].Type = ir.TensorOf(&tt)
		}
	}
	p, err := lowering.Lower(g, lowering.Options{Name: "g"})
	require.NoError(t, err)
	require.NoError(t, lowering.Verify(p), "%s", p)
	inputs, err := interp.MakeInputs(g, interp.Options{Seed: 7})
	require.NoError(t, err)
	before := interp.CopyValues(inputs)
	res, err := interp.Run(g, inputs, interp.Options{Seed: 7})
	require.NoError(t, err)
	e := newLoopEval(t, p, res.Sym, before)
	require.Empty(t, e.run(p))
	r := p.Outputs[0]
	e.compare(r.Name, r.Layout.DType, res.Outputs[0].(*interp.Tensor).Floats(), e.gather(r.Buffer, r.Layout))
}
