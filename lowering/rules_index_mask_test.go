package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/lowering"
)

// index_put with one boolean mask lowers to a pointwise where; each case
// runs against interp (random masks: some true, some false).

func TestIndexPutMaskLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][3, 1]cpu", m: "b8[4, 3][3, 1]cpu", s: "f32[][]cpu", r: "b8[4][1]cpu", row: "f32[3][1]cpu", y: "f32[2, 4, 3][12, 3, 1]cpu", v: "f32[1, 3][3, 1]cpu", u: "u8[4, 3][3, 1]cpu", xt: "f32[3, 4][1, 3]cpu"):
        full = torch.ops.aten.index_put.default(x, [m], s)
        rows = torch.ops.aten.index_put.default(x, [r], row)
        mid = torch.ops.aten.index_put.default(y, [None, r], v, True)
        byte = torch.ops.aten.index_put.default(x, [u], s, True)
        t = torch.ops.aten.permute.default(xt, [1, 0])
        strided = torch.ops.aten.index_put.default(t, [m], s)
        return (full, rows, mid, byte, strided)
`
	p := checkLoweringDynamic(t, src, map[string][]int64{"u": {0, 1, 2, 0, 0, 255, 1, 0, 0, 3, 0, 1}})
	require.Len(t, p.Kernels, 5, "one pointwise kernel each, no copy of self")
	for _, k := range p.Kernels {
		assert.False(t, k.Serial, "%s: a mask names each position once", k.Name)
		assert.Contains(t, k.String(), "where(")
	}
	assert.Empty(t, p.Remarks, "static mask sizes need no assumption")
}

func TestIndexPutMaskSymbolic(t *testing.T) {
	// Corpus 017's shape: the mask's size is another symbol's expression.
	// PyTorch requires it to equal self's; the kernel reads the mask
	// clamped and as false past its end, and says so in a remark.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", x: "i64[1, s0][s0, 1]cpu", s1: "Sym(s1)", lab: "i64[1, s1][s1, 1]cpu"):
        eq = torch.ops.aten.eq.Scalar(lab, 0)
        fill = torch.ops.aten.full.default([], -100, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        put = torch.ops.aten.index_put.default(x, [eq], fill)
        return (put,)
`
	p := checkLoweringDynamic(t, src, map[string][]int64{"lab": {0, 3, 0, 0, 5, 0, 1, 0}})
	require.Len(t, p.Remarks, 1)
	assert.Contains(t, p.Remarks[0], "boolean mask size s1 taken to equal the indexed size s0")
	assert.Contains(t, p.String(), "Min(")
}

func TestIndexPutMaskPerElementValuesRefused(t *testing.T) {
	// Values with one row per true element (here 2 rows, which fakeprop
	// would reject for a mask of unknown count) depend on which elements
	// are true: no where form. Lowered straight from the annotated
	// printout, as fakeprop stops earlier.
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][3, 1]cpu", m: "b8[4][1]cpu", v: "f32[2, 3][3, 1]cpu"):
        put: "f32[4, 3][3, 1]cpu" = torch.ops.aten.index_put.default(x, [m], v)
        return (put,)
`
	g := fxtest.Parse(t, "pervalue.fx", src)
	_, err := lowering.Lower(g, lowering.Options{})
	require.Error(t, err)
	assert.True(t, lowering.IsNoLowering(err), "%v", err)
	assert.Contains(t, err.Error(), "values of shape [2, 3]")
}
