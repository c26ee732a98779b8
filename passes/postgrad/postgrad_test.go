package postgrad_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
	_ "github.com/kiln-compiler/kiln/passes/postgrad"
)

// Which sums of a product fold into addmm: post_grad.py's conditions
// (torch 2.15) on a LoRA-like graph, both operand orders, and the cases it
// refuses.
const graph = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[6, 8]", w: "f32[8, 5]", b: "f32[5]", y: "f32[6, 5]", yt: "f32[5, 6]", big: "f32[2, 6, 5]", d: "f64[6, 5]"):
        mm: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        bias: "f32[6, 5]" = torch.ops.aten.add.Tensor(mm, b)
        mm_1: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        swapped: "f32[6, 5]" = torch.ops.aten.add.Tensor(y, mm_1)
        alias: "f32[6, 5]" = torch.ops.aten.alias.default(swapped)
        mm_2: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        two_uses: "f32[6, 5]" = torch.ops.aten.add.Tensor(mm_2, y)
        again: "f32[6, 5]" = torch.ops.aten.mul.Tensor(mm_2, 2)
        mm_3: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        alpha: "f32[6, 5]" = torch.ops.aten.add.Tensor(mm_3, y, alpha = 2)
        mm_4: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        grows: "f32[2, 6, 5]" = torch.ops.aten.add.Tensor(mm_4, big)
        mm_5: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        promotes: "f64[6, 5]" = torch.ops.aten.add.Tensor(mm_5, d)
        mm_6: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        t: "f32[6, 5]" = torch.ops.aten.t.default(yt)
        transposed: "f32[6, 5]" = torch.ops.aten.add.Tensor(t, mm_6)
        mm_7: "f32[6, 5]" = torch.ops.aten.mm.default(x, w)
        product_first: "f32[6, 5]" = torch.ops.aten.add.Tensor(mm_7, t)
        return (bias, alias, two_uses, again, alpha, grows, promotes, transposed, product_first)
`

func TestAddOfProductFolds(t *testing.T) {
	before := fxtest.Compile(t, "lora.fx", graph, "fakeprop,functionalize,decompose,dce")
	after, ctx := fxtest.Run(t, "lora.fx", graph, "fakeprop,functionalize,decompose,postgrad,dce", passes.Config{})
	assert.Equal(t, []string{
		"postgrad: bias = mm + b is one addmm (addmm): the add needs no kernel",
		"postgrad: swapped = mm_1 + y is one addmm (addmm_1): the add needs no kernel",
		// the product first, the sum is row-major as addmm's (torch 2.15:
		// (mm + yt.t()).stride() is (5, 1), (yt.t() + mm).stride() (1, 6))
		"postgrad: product_first = mm_7 + t_permute is one addmm (addmm_2): the add needs no kernel",
	}, ctx.Remarks("postgrad"))
	targets := map[string]string{}
	for _, n := range after.Nodes {
		targets[n.Name] = n.Target
	}
	for _, kept := range []string{"two_uses", "alpha", "grows", "promotes", "transposed"} {
		assert.Equal(t, "aten::add.Tensor", targets[kept], "%s stays an add", kept)
	}
	for _, gone := range []string{"mm", "mm_1", "bias", "swapped", "mm_7", "product_first"} {
		assert.NotContains(t, targets, gone, "%s was folded away", gone)
	}
	// The alias returned stays a view of the sum's storage.
	var alias *ir.Node
	for _, n := range after.Nodes {
		if n.Name == "alias" {
			alias = n
		}
	}
	require.NotNil(t, alias)
	src := alias.Args[0].Value
	assert.Equal(t, src.Type.Tensor.Storage, alias.Results[0].Type.Tensor.Storage, "alias and addmm share a storage")

	// Translation validation: the same outputs, within float32's
	// tolerance (addmm adds the bias once, to the product it holds).
	for seed := uint64(1); seed <= 3; seed++ {
		opts := interp.Options{Seed: seed, CheckTypes: true}
		inputs, err := interp.MakeInputs(before, opts)
		require.NoError(t, err)
		want, err := interp.Run(before, inputs, opts)
		require.NoError(t, err)
		got, err := interp.Run(after, inputs, opts)
		require.NoError(t, err)
		for i := range want.Outputs {
			if m := interp.Compare(want.Outputs[i], got.Outputs[i], interp.DefaultTolerance); m != nil {
				t.Errorf("seed %d: output %d: %s", seed, i, m)
			}
		}
	}
}
