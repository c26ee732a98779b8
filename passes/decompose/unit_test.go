package decompose

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
)

func run(t *testing.T, pipeline, src string) (*ir.Graph, *passes.Context) {
	t.Helper()
	return fxtest.Run(t, "t.fx", src, pipeline, passes.Config{})
}

const siluSrc = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu"):
        silu = torch.ops.aten.silu.default(x)
        neg = torch.ops.aten.neg.default(silu)
        return (neg,)
`

// A decomposition that does not reproduce the op's type leaves the node
// whole, warns, and leaves no trace: no new nodes, no names taken.
func TestMismatchKeepsNodeWhole(t *testing.T) {
	r := byOp["aten::silu.default"]
	saved := r.build
	defer func() { r.build = saved }()
	r.build = func(e *emitter, c *ops.Call) []*ir.Value {
		return []*ir.Value{e.cast(e.unary("sigmoid", e.tensorArg(c, "self")), ir.F64)}
	}
	g, ctx := run(t, "fakeprop,functionalize,decompose", siluSrc)
	want, _ := run(t, "fakeprop,functionalize", siluSrc)
	assert.Equal(t, want.String(), g.String())
	var warned []string
	for _, d := range ctx.Diags.Items {
		if d.Severity == diag.Warning {
			warned = append(warned, d.Code+": "+d.Message)
		}
	}
	assert.Equal(t, []string{"decompose-failed: silu (aten::silu.default) kept whole: its decomposition failed: it gives f64[4][1]cpu for silu, which PyTorch's op types f32[4][1]cpu"}, warned)
	// The names the failed attempt took are free again.
	assert.Equal(t, "silu_sigmoid", ir.NewNamer(g).Fresh("silu_sigmoid"))
}

// decompose needs types and a functional graph: the pipeline parser
// refuses it before fakeprop or functionalize.
func TestOrdering(t *testing.T) {
	_, err := passes.Parse("decompose")
	assert.ErrorContains(t, err, "decompose must run after fakeprop")
	_, err = passes.Parse("fakeprop,decompose")
	assert.ErrorContains(t, err, "decompose must run after functionalize")
	_, err = passes.Parse("fakeprop,functionalize,decompose")
	assert.NoError(t, err)
}

// A second run finds nothing to decompose: every op a decomposition
// emits is core (or deliberately whole).
func TestIdempotent(t *testing.T) {
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[2, 3, 8][24, 8, 1]cuda:0", w: "bf16[6, 8][8, 1]cuda:0", b: "bf16[6][1]cuda:0"):
        linear = torch.ops.aten.linear.default(x, w, b)
        gelu = torch.ops.aten.gelu.default(linear)
        _softmax = torch.ops.aten._softmax.default(gelu, -1, False)
        hardswish = torch.ops.aten.hardswish.default(_softmax)
        return (hardswish,)
`
	once, _ := run(t, "fakeprop,functionalize,decompose", src)
	twice, ctx := run(t, "fakeprop,functionalize,decompose,decompose", src)
	assert.Equal(t, once.String(), twice.String())
	assert.Len(t, ctx.Remarks("decompose"), 4, "only the first run decomposes")
	for _, n := range twice.Nodes {
		r := byOp[n.Target]
		assert.True(t, r == nil || r.Whole(), "%s (%s) is left decomposable", n.Name, n.Target)
	}
}

// Views of a decomposed result keep sharing its storage: the replacement
// takes the original result's storage id.
func TestStorageAdopted(t *testing.T) {
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8][8, 1]cpu", w: "f32[8, 6][6, 1]cpu"):
        matmul = torch.ops.aten.matmul.default(x, w)
        view = torch.ops.aten.view.default(matmul, [24])
        return (view,)
`
	g, _ := run(t, "fakeprop,functionalize,decompose", src)
	byName := map[string]*ir.Value{}
	for _, v := range g.Values() {
		byName[v.Name] = v
	}
	require.Contains(t, byName, "matmul_mm")
	assert.Equal(t, byName["view"].Type.Tensor.Storage, byName["matmul_mm"].Type.Tensor.Storage)
}
