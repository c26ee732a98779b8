package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// Each case lowers a graph and runs the program against interp on the
// same inputs (checkLowering); index inputs are given explicitly so that
// duplicates and negative indices occur.

func serialKernels(p *lowering.Program) []string {
	var out []string
	for _, k := range p.Kernels {
		if k.Serial {
			out = append(out, k.Name)
		}
	}
	return out
}

func TestIndexPutLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[5, 4, 3][12, 3, 1]cpu", i: "i64[6][1]cpu", j: "i64[2, 1][1, 1]cpu", v: "f32[6, 1, 3][3, 3, 1]cpu", w: "f32[3][1]cpu", k: "i64[3][1]cpu", w4: "f32[1, 4][4, 1]cpu", kk: "i64[3][1]cpu"):
        acc: "f32[5, 4, 3][12, 3, 1]cpu" = torch.ops.aten.index_put.default(x, [i], v, True)
        put: "f32[5, 4, 3][12, 3, 1]cpu" = torch.ops.aten.index_put.default(x, [j, None, k], w4)
        adj: "f32[5, 4, 3][12, 3, 1]cpu" = torch.ops.aten.index_put.default(x, [None, kk, kk], w, True)
        return (acc, put, adj)
`
	p := checkLowering(t, src, map[string][]int64{
		"i":  {0, 2, -1, 2, 2, 0}, // duplicates accumulate; -1 is row 4
		"j":  {1, -5},
		"k":  {0, -1, 1},
		"kk": {0, -1, 0}, // (0, 0) twice
	})
	// copy, scatter per index_put: the accumulating scatters run serially.
	require.Len(t, p.Kernels, 6)
	assert.Equal(t, []string{"kernel1", "kernel5"}, serialKernels(p))
	assert.Contains(t, p.Kernels[1].String(), "serial")
}

func TestIndexPutBoolMaskRefused(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][3, 1]cpu", m: "b8[4][1]cpu", i: "i64[1][1]cpu", v: "f32[1][1]cpu"):
        put: "f32[4, 3][3, 1]cpu" = torch.ops.aten.index_put.default(x, [m, i], v)
        return (put,)
`
	// fakeprop lets a mask through only when dynamic output shapes are
	// captured (PyTorch's index_put runs nonzero on it). A mask alone is a
	// where (TestIndexPutMaskLowering); beside an index tensor, the
	// positions the index pairs with depend on the mask's data.
	res, err := fx.Parse("mask.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	g := res.Module.Graphs[0]
	pipe, err := passes.Parse(defaultPipeline)
	require.NoError(t, err)
	ctx := passes.NewContext(passes.Config{CaptureDynamicOutputShapeOps: true})
	_, err = (&passes.Manager{VerifyEach: true}).Run(pipe, ctx, g)
	require.NoError(t, err)
	require.False(t, ctx.Diags.HasErrors(), "%v", ctx.Diags.Items)
	_, err = lowering.Lower(g, lowering.Options{})
	require.Error(t, err)
	assert.True(t, lowering.IsNoLowering(err), "%v", err)
	assert.Contains(t, err.Error(), "boolean mask")
	assert.Contains(t, err.Error(), "torch.where")
}

func TestScatterFamilyLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][3, 1]cpu", ix: "i64[3, 2][2, 1]cpu", s: "f32[3, 3][3, 1]cpu"):
        sc: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter.src(x, 0, ix, s)
        sv: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter.value(x, 0, ix, 2.5)
        sa: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter_add.default(x, 0, ix, s)
        sm: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter.reduce(x, 0, ix, s, reduce = "multiply")
        rsum: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter_reduce.two(x, 0, ix, s, "sum", include_self = False)
        rprod: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter_reduce.two(x, 0, ix, s, "prod")
        rmax: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter_reduce.two(x, 0, ix, s, "amax", include_self = False)
        rmin: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter_reduce.two(x, 0, ix, s, "amin")
        return (sc, sv, sa, sm, rsum, rprod, rmax, rmin)
`
	p := checkLowering(t, src, map[string][]int64{"ix": {1, 3, 1, 0, 3, 0}})
	// 8 ops: a copy and a scatter each, plus an identity fill for the
	// two include_self=False reductions.
	require.Len(t, p.Kernels, 18)
	assert.Len(t, serialKernels(p), 6, "every combining scatter is serial")
}

func TestScatterIntAmax(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "i32[3][1]cpu", ix: "i64[4][1]cpu", s: "i32[4][1]cpu"):
        rmax: "i32[3][1]cpu" = torch.ops.aten.scatter_reduce.two(x, 0, ix, s, "amax", include_self = False)
        rmin: "i32[3][1]cpu" = torch.ops.aten.scatter_reduce.two(x, 0, ix, s, "amin", include_self = False)
        return (rmax, rmin)
`
	p := checkLowering(t, src, map[string][]int64{"ix": {2, 0, 2, 2}, "x": {7, 8, 9}, "s": {-3, 4, -5, 1}})
	assert.Contains(t, p.String(), "const -2147483648 : i32")
	assert.Contains(t, p.String(), "const 2147483647 : i32")
}

func TestIndexAddCopyFillLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 5][5, 1]cpu", ix: "i64[3][1]cpu", s: "f32[4, 3][3, 1]cpu", jx: "i64[2][1]cpu", t: "f32[2, 5][5, 1]cpu"):
        ia: "f32[4, 5][5, 1]cpu" = torch.ops.aten.index_add.default(x, 1, ix, s, alpha = 2)
        ic: "f32[4, 5][5, 1]cpu" = torch.ops.aten.index_copy.default(x, 0, jx, t)
        fi: "f32[4, 5][5, 1]cpu" = torch.ops.aten.index_fill.int_Scalar(x, -1, ix, -1.5)
        return (ia, ic, fi)
`
	p := checkLowering(t, src, map[string][]int64{"ix": {4, 1, 4}, "jx": {3, 0}})
	assert.Equal(t, []string{"kernel1"}, serialKernels(p), "only index_add combines")
}

func TestIndexFillNegative(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 5][5, 1]cpu", ix: "i64[2][1]cpu"):
        fi: "f32[4, 5][5, 1]cpu" = torch.ops.aten.index_fill.int_Scalar(x, 1, ix, 3)
        return (fi,)
`
	checkLowering(t, src, map[string][]int64{"ix": {-1, 0}})
}

func TestScatterMeanRefused(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu", ix: "i64[2][1]cpu", s: "f32[2][1]cpu"):
        r: "f32[4][1]cpu" = torch.ops.aten.scatter_reduce.two(x, 0, ix, s, "mean")
        return (r,)
`
	g := compile(t, "mean.fx", src, defaultPipeline)
	_, err := lowering.Lower(g, lowering.Options{})
	require.Error(t, err)
	assert.True(t, lowering.IsNoLowering(err), "%v", err)
	assert.Contains(t, err.Error(), "reduce='mean'")
}

func TestBatchNormLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 4, 2, 5][40, 10, 5, 1]cpu", w: "f32[4][1]cpu", b: "f32[4][1]cpu", rm: "f32[4][1]cpu", rv: "f32[4][1]cpu"):
        bn = torch.ops.aten._native_batch_norm_legit_functional.default(x, w, b, rm, rv, True, 0.1, 1e-05)
        y: "f32[3, 4, 2, 5][40, 10, 5, 1]cpu" = bn[0]
        mean: "f32[4][1]cpu" = bn[1]
        rstd: "f32[4][1]cpu" = bn[2]
        nrm: "f32[4][1]cpu" = bn[3]
        nrv: "f32[4][1]cpu" = bn[4]
        ev = torch.ops.aten._native_batch_norm_legit_no_training.default(x, None, b, rm, rv, 0.1, 0.001)
        z: "f32[3, 4, 2, 5][40, 10, 5, 1]cpu" = ev[0]
        ns = torch.ops.aten._native_batch_norm_legit.no_stats(x, w, None, True, 0.1, 1e-05)
        u: "f32[3, 4, 2, 5][40, 10, 5, 1]cpu" = ns[0]
        return (y, mean, rstd, nrm, nrv, z, u)
`
	p := checkLowering(t, src, nil)
	k := p.Kernels[0]
	require.Len(t, k.Outer, 1)
	assert.Equal(t, "4", k.Outer[0].String(), "the channel is the outer range")
	assert.Len(t, k.Stages, 5, "sum, mean, squared deviations, stats, normalize")
}

func TestNativeBatchNormTrainingUpdatesRunningStats(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[4, 3, 6][18, 6, 1]cpu", rm: "f32[3][1]cpu", rv: "f32[3][1]cpu"):
        bn = torch.ops.aten.native_batch_norm.default(x, None, None, rm, rv, True, 0.2, 1e-05)
        y: "bf16[4, 3, 6][18, 6, 1]cpu" = bn[0]
        return (y,)
`
	p := checkLowering(t, src, nil)
	assert.True(t, p.Inputs[1].Mutated)
	assert.True(t, p.Inputs[2].Mutated)
	assert.False(t, p.Inputs[0].Mutated)
}

func TestResizeLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][1, 4]cpu", y: "f32[2, 6][6, 1]cpu"):
        a: "f32[2, 5][5, 1]cpu" = torch.ops.aten.resize.default(x, [2, 5])
        b: "f32[12][1]cpu" = torch.ops.aten.resize.default(y, [12])
        c: "f32[2, 5][5, 1]cpu" = torch.ops.aten.mul.Tensor(a, 2)
        return (c, b)
`
	p := checkLowering(t, src, nil)
	require.Len(t, p.Kernels, 1, "resize is a view: only mul computes")
}

func TestResizeRefusals(t *testing.T) {
	for name, src := range map[string]string{
		"grow": `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3][3, 1]cpu"):
        a: "f32[8][1]cpu" = torch.ops.aten.resize.default(x, [8])
        return (a,)
`,
		"strided": `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3][6, 2]cpu"):
        a: "f32[4][1]cpu" = torch.ops.aten.resize.default(x, [4])
        return (a,)
`,
	} {
		t.Run(name, func(t *testing.T) {
			g := compile(t, name+".fx", src, defaultPipeline)
			_, err := lowering.Lower(g, lowering.Options{})
			require.Error(t, err)
			assert.True(t, lowering.IsNoLowering(err), "%v", err)
		})
	}
}

func TestTensorConstantRefused(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3][1]cpu"):
        _tensor_constant0: "f32[3][1]cpu" = self._tensor_constant0
        add: "f32[3][1]cpu" = torch.ops.aten.add.Tensor(x, _tensor_constant0)
        return (add,)
`
	g := compile(t, "const.fx", src, defaultPipeline)
	_, err := lowering.Lower(g, lowering.Options{})
	require.Error(t, err)
	assert.True(t, lowering.IsNoLowering(err), "%v", err)
	assert.Contains(t, err.Error(), "the printout has no data for tensor constant self._tensor_constant0; pass it as an input")
	assert.Contains(t, err.Error(), "const.fx:4:")
}

func TestMatVecLowering(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[5, 7][1, 5]cpu", v: "f32[7][1]cpu", u: "bf16[7][1]cpu", w: "bf16[7][1]cpu"):
        mv: "f32[5][1]cpu" = torch.ops.aten.mv.default(a, v)
        dot: "f32[][]cpu" = torch.ops.aten.dot.default(v, v)
        hdot: "bf16[][]cpu" = torch.ops.aten.dot.default(u, w)
        return (mv, dot, hdot)
`
	p := checkLowering(t, src, nil)
	for _, k := range p.Kernels {
		assert.Equal(t, lowering.KernelReduction, k.Kind(), "%s", k)
	}
}

// The scheduler must not fuse through a scatter: a serial kernel stays
// its own kernel (one origin), and the fused program still computes what
// interp does.
func TestScatterSurvivesFusion(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3][3, 1]cpu", ix: "i64[4, 3][3, 1]cpu", s: "f32[4, 3][3, 1]cpu", i: "i64[4][1]cpu"):
        y: "f32[4, 3][3, 1]cpu" = torch.ops.aten.mul.Tensor(x, 2)
        sa: "f32[4, 3][3, 1]cpu" = torch.ops.aten.scatter_add.default(y, 0, ix, s)
        z: "f32[4, 3][3, 1]cpu" = torch.ops.aten.add.Tensor(sa, 1)
        acc: "f32[4, 3][3, 1]cpu" = torch.ops.aten.index_put.default(z, [i], s, True)
        w: "f32[4, 3][3, 1]cpu" = torch.ops.aten.mul.Tensor(acc, 3)
        return (w,)
`
	p := checkFused(t, src, map[string][]int64{"ix": {0, 0, 0, 3, 0, 3, 1, 1, 1, 3, 3, 3}, "i": {1, 1, 0, 1}})
	serial := 0
	for _, k := range p.Kernels {
		if k.Serial {
			serial++
			assert.Len(t, k.Origins, 1, "%s", k)
		}
	}
	assert.Equal(t, 2, serial)
}

// In-place forms reach lowering functionalized: the functional op, then
// the copy_ epilogue writing the input back.
func TestInplaceScatterOnInput(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[5, 2][2, 1]cpu", i: "i64[3][1]cpu", v: "f32[3, 2][2, 1]cpu", ix: "i64[3, 2][2, 1]cpu"):
        index_put_: "f32[5, 2][2, 1]cpu" = torch.ops.aten.index_put_.default(x, [i], v, True)
        scatter_add_: "f32[5, 2][2, 1]cpu" = torch.ops.aten.scatter_add_.default(x, 0, ix, v)
        return (x,)
`
	p := checkLowering(t, src, map[string][]int64{"i": {4, -1, 0}, "ix": {0, 1, 0, 1, 4, 4}})
	assert.True(t, p.Inputs[0].Mutated)
}

func TestBatchNormEvalForms(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f16[2, 3, 5][15, 5, 1]cpu", w: "f16[3][1]cpu", rm: "f32[3][1]cpu", rv: "f32[3][1]cpu"):
        bn: "f16[2, 3, 5][15, 5, 1]cpu" = torch.ops.aten.batch_norm.default(x, w, None, rm, rv, False, 0.1, 1e-05, True)
        nb = torch.ops.aten.native_batch_norm.default(x, None, w, rm, rv, False, 0.1, 1e-03)
        y: "f16[2, 3, 5][15, 5, 1]cpu" = nb[0]
        return (bn, y)
`
	p := checkLowering(t, src, nil)
	for _, in := range p.Inputs {
		assert.False(t, in.Mutated, "eval mode leaves %s alone", in.Name)
	}
}

// Off the CPU, inference batch norm returns the running mean and
// 1/sqrt(running_var+eps) as its saved stats; on the CPU they are empty.
func TestBatchNormEvalStatsByDevice(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4][12, 4, 1]cuda:0", rm: "f32[3][1]cuda:0", rv: "f32[3][1]cuda:0", h: "f32[2, 3][3, 1]cpu", hm: "f32[3][1]cpu", hv: "f32[3][1]cpu"):
        ev = torch.ops.aten._native_batch_norm_legit_no_training.default(x, None, None, rm, rv, 0.1, 1e-05)
        y = ev[0]
        mean = ev[1]
        rstd = ev[2]
        cp = torch.ops.aten._native_batch_norm_legit_no_training.default(h, None, None, hm, hv, 0.1, 1e-05)
        z = cp[0]
        empty = cp[1]
        return (y, mean, rstd, z, empty)
`
	p := checkLowering(t, src, nil)
	require.Len(t, p.Outputs, 5)
	assert.Equal(t, "3", p.Outputs[1].Layout.Shape[0].String())
	assert.Equal(t, "0", p.Outputs[4].Layout.Shape[0].String())
}
