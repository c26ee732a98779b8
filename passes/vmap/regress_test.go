package vmap_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	"github.com/kiln-compiler/kiln/passes/functionalize/fztest"
	"github.com/kiln-compiler/kiln/passes/vmap"
)

const caseDir = "../../testdata/vmap"

// TestRegressions runs every case in testdata/vmap: printed graph,
// remarks, diagnostics, and, when the pipeline succeeds, the per-element
// check on random inputs.
func TestRegressions(t *testing.T) {
	fztest.RunCases(t, caseDir, func(t *testing.T, c *fztest.Case, r *fztest.Result) {
		if !r.Failed {
			CheckPerElement(t, c, r.Graph)
		}
	})
}

// CheckPerElement is vmap's correctness criterion: for random inputs, the
// batched graph's outputs equal running the case's unbatched (eager) graph
// on each batch element and stacking the results along out_dims, and the
// batched inputs end as the per-element runs leave them.
func CheckPerElement(t *testing.T, c *fztest.Case, batched *ir.Graph) {
	t.Helper()
	p := vmapStep(t, c.Pipeline)
	ref := c.Run(t, "fakeprop").Graph
	inDims := perValue(p.InDims(), len(batched.Inputs), func(i int) bool { return batched.Inputs[i].Type.Kind == ir.KindTensor })
	outDims := perValue(p.OutDims(), len(batched.Outputs), func(int) bool { return true })
	for _, seed := range fztest.Seeds {
		opts := interp.Options{Seed: seed, CheckTypes: !hasInplaceView(batched)}
		bin, err := interp.MakeInputs(batched, opts)
		require.NoError(t, err)
		res, err := interp.Run(batched, bin, opts)
		require.NoError(t, err, "batched graph:\n%s", batched)
		rin, err := interp.MakeInputs(batched, opts)
		require.NoError(t, err)
		for b := int64(0); b < p.Size(); b++ {
			elem := make([]any, len(rin))
			fresh, err := interp.MakeInputs(batched, opts)
			require.NoError(t, err)
			for i := range rin {
				elem[i] = fresh[i]
				if !inDims[i].None {
					elem[i] = at(t, rin[i], inDims[i].Dim, b)
				}
			}
			got, err := interp.Run(ref, elem, interp.Options{Seed: seed})
			require.NoError(t, err, "unbatched graph on element %d", b)
			for j, want := range got.Outputs {
				out := res.Outputs[j]
				if !outDims[j].None {
					out = at(t, out, outDims[j].Dim, b)
				}
				if m := interp.Compare(want, out, nil); m != nil {
					t.Fatalf("%s: seed %d: output %d, element %d: the batched graph differs from the unbatched one: %v", c.File, seed, j, b, m)
				}
			}
		}
		for i := range rin {
			if !inDims[i].None {
				if m := interp.Compare(rin[i], res.Inputs[i], nil); m != nil {
					t.Fatalf("%s: seed %d: batched input %d ends differently: %v", c.File, seed, i, m)
				}
			}
		}
	}
}

// hasInplaceView reports an in-place view op (transpose_): the value it
// re-shapes carries its final metadata at every use, as fakeprop types
// it, so runtime type checks would fail on earlier uses.
func hasInplaceView(g *ir.Graph) bool {
	for _, n := range g.Nodes {
		if op, ok := n.Op.(*ops.Op); ok && op != nil && op.Kind == ops.KindView && op.IsInplace() {
			return true
		}
	}
	return false
}

func vmapStep(t *testing.T, pipeline string) *vmap.Pass {
	pl, err := passes.Parse(pipeline)
	require.NoError(t, err)
	for _, s := range pl.Steps {
		if p, ok := s.Pass.(*vmap.Pass); ok {
			return p
		}
	}
	t.Fatalf("pipeline %q has no vmap", pipeline)
	return nil
}

// perValue spreads a single spec over every value it applies to.
func perValue(specs []vmap.DimSpec, n int, applies func(int) bool) []vmap.DimSpec {
	if len(specs) == n {
		return specs
	}
	out := make([]vmap.DimSpec, n)
	for i := range out {
		out[i] = vmap.DimSpec{None: true}
		if applies(i) {
			out[i] = specs[0]
		}
	}
	return out
}

// at is element b of x along dim d: a view sharing x's storage.
func at(t *testing.T, x any, d int64, b int64) any {
	tt, ok := x.(*interp.Tensor)
	if !ok {
		return x
	}
	dim, err := ops.WrapDim(d, len(tt.Shape))
	require.NoError(t, err)
	shape := append(append([]int64(nil), tt.Shape[:dim]...), tt.Shape[dim+1:]...)
	strides := append(append([]int64(nil), tt.Strides[:dim]...), tt.Strides[dim+1:]...)
	v, err := tt.View(shape, strides, tt.Offset+b*tt.Strides[dim])
	require.NoError(t, err)
	return v
}
