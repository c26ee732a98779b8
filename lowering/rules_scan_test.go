package lowering_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/passes"
)

// TestScansAgainstInterp evaluates the scan golden graphs (every dtype
// rule, negative dims, 0-d and size-0 tensors, symbolic sizes) with
// loopEval, unfused and fused, against interp.
func TestScansAgainstInterp(t *testing.T) {
	for _, name := range []string{"scan", "scan_symbolic", "scan_extremum", "scan_logcumsumexp"} {
		arch, err := txtar.ParseFile(filepath.Join("../testdata/lowering", name+".txtar"))
		require.NoError(t, err)
		src := fxtest.Section(arch, "input.fx")
		t.Run(name, func(t *testing.T) { checkLowering(t, src, nil) })
		t.Run(name+"_fused", func(t *testing.T) { checkFused(t, src, nil) })
	}
}

// TestScanIntegerWraps: an i8 result wraps as ATen's (int8) store of its
// int64 running sum does; torch 2.15.0 prints
// torch.cumsum(torch.tensor([127, 1, 1], dtype=torch.int32), 0, dtype=torch.int8)
// -> tensor([127, -128, -127], dtype=torch.int8).
func TestScanIntegerWraps(t *testing.T) {
	p := checkLowering(t, `class GraphModule(torch.nn.Module):
    def forward(self, i: "i32[3]"):
        cumsum: "i8[3]" = torch.ops.aten.cumsum.default(i, 0, dtype = torch.int8)
        return (cumsum,)
`, map[string][]int64{"i": {127, 1, 1}})
	assert.Contains(t, p.String(), "scan sum(")
}

// TestScanBadInput: what kiln refuses, with PyTorch's words where eager
// raises, and never a panic.
func TestScanBadInput(t *testing.T) {
	for _, c := range []struct{ name, body, code, msg string }{
		{"bool", `cumsum: "b8[3, 4]" = torch.ops.aten.cumsum.default(x, 0, dtype = torch.bool)`,
			"dtype", `"cumsum_out_cpu" not implemented for 'Bool'`},
		{"bool_prod", `cumsum: "b8[3, 4]" = torch.ops.aten.cumprod.default(x, 1, dtype = torch.bool)`,
			"dtype", `"cumprod_out_cpu" not implemented for 'Bool'`},
		{"complex", `cumsum: "c64[3, 4]" = torch.ops.aten.cumsum.default(x, 0, dtype = torch.complex64)`,
			lowering.CodeNoLowering, "kiln scans float and integer results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3, 4]\"):\n        " + c.body +
				"\n        return (cumsum,)\n"
			g := compile(t, c.name+".fx", src, defaultPipeline)
			_, err := lowering.Lower(g, lowering.Options{Name: "g"})
			var d *diag.Diagnostic
			require.ErrorAs(t, err, &d)
			assert.Equal(t, c.code, d.Code)
			assert.Contains(t, d.Message, c.msg)
			assert.NotEmpty(t, d.Hint)
			assert.Equal(t, 3, d.Pos.Line, "positioned at the call")
		})
	}
	// torch.logcumsumexp(torch.tensor([1, 2]), 0) raises
	// "logcumsumexp_out_cpu" not implemented for 'Long' (torch 2.15.0).
	g := compile(t, "lcse.fx", "class GraphModule(torch.nn.Module):\n    def forward(self, i: \"i64[4]\"):\n"+
		"        logcumsumexp: \"i64[4]\" = torch.ops.aten.logcumsumexp.default(i, 0)\n        return (logcumsumexp,)\n", defaultPipeline)
	_, err := lowering.Lower(g, lowering.Options{Name: "g"})
	var d *diag.Diagnostic
	require.ErrorAs(t, err, &d)
	assert.Equal(t, "dtype", d.Code)
	assert.Equal(t, `"logcumsumexp_out_cpu" not implemented for 'Long'`, d.Message)
	// A dim out of range never reaches lowering: fakeprop says what
	// PyTorch says.
	src := "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3, 4]\"):\n        cumsum: \"f32[3, 4]\" = torch.ops.aten.cumsum.default(x, -3)\n        return (cumsum,)\n"
	_, ctx := fxtest.Run(t, "dim.fx", src, defaultPipeline, passes.Config{})
	require.True(t, ctx.Diags.HasErrors())
	assert.Contains(t, ctx.Diags.Items[0].Message, "Dimension out of range (expected to be in range of [-2, 1], but got -3)")
}

// scanProgram is out[x0, r0] = cumsum over r0 of in[x0, r0]: the store
// in the scan's stage writes every prefix.
func scanProgram() *lowering.Program {
	in := &lowering.Buffer{ID: 0, Name: "in", DType: ir.F32, Size: sym.Const(12), Kind: lowering.BufInput, Align: 16}
	out := &lowering.Buffer{ID: 1, Name: "buf1", DType: ir.F32, Size: sym.Const(12), Kind: lowering.BufOutput, Align: 64}
	idx := sym.Add(sym.Mul(sym.Const(4), sym.Symbol("x0")), sym.Symbol("r0"))
	load := &lowering.Instr{ID: 0, Op: lowering.OpLoad, DType: ir.F32, Access: &lowering.Access{Buffer: in, DType: ir.F32, Index: idx}}
	scan := &lowering.Instr{ID: 1, Op: lowering.OpScan, Reduce: lowering.ReduceSum, DType: ir.F32, Args: []*lowering.Instr{load}}
	st := &lowering.Instr{ID: 2, Op: lowering.OpStore, DType: ir.F32, Args: []*lowering.Instr{scan}, Access: &lowering.Access{Buffer: out, DType: ir.F32, Index: idx}}
	k := &lowering.Kernel{Name: "kernel0", Outer: []sym.Expr{sym.Const(3)}, Vec: 1, Stages: []*lowering.Stage{
		{Reduce: []sym.Expr{sym.Const(4)}, Body: []*lowering.Instr{load, scan, st}},
	}}
	return &lowering.Program{Name: "p", Buffers: []*lowering.Buffer{in, out}, Kernels: []*lowering.Kernel{k},
		Outputs: []*lowering.Result{{Name: "out", Buffer: out}}}
}

func TestVerifyScan(t *testing.T) {
	p := scanProgram()
	require.NoError(t, lowering.Verify(p))
	assert.Contains(t, p.String(), "tmp1 = scan sum(tmp0) : f32")
	body := func(p *lowering.Program) []*lowering.Instr { return p.Kernels[0].Stages[0].Body }
	requireVerifyRejects(t, scanProgram, []verifyCase{
		{"scan in an outer stage", func(p *lowering.Program) {
			p.Kernels[0].Stages[0].Reduce = nil
			body(p)[0].Access.Index = sym.Symbol("x0")
			body(p)[2].Access.Index = sym.Symbol("x0")
		}, "tmp1: scan in stage 0, which has 0 reduce ranges (want 1)"},
		{"scan over two ranges", func(p *lowering.Program) {
			p.Kernels[0].Stages[0].Reduce = []sym.Expr{sym.Const(2), sym.Const(2)}
		}, "tmp1: scan in stage 0, which has 2 reduce ranges (want 1)"},
		{"scan by argmax", func(p *lowering.Program) {
			body(p)[1].Reduce = lowering.ReduceArgMax
		}, "tmp1: scan by argmax (want sum, prod, max, min or logaddexp)"},
		{"scan value after its loop", func(p *lowering.Program) {
			st := body(p)[2]
			p.Kernels[0].Stages[0].Body = body(p)[:2]
			st.Access.Index = sym.Symbol("x0")
			p.Kernels[0].Stages = append(p.Kernels[0].Stages, &lowering.Stage{Body: []*lowering.Instr{st}})
		}, "tmp2: argument tmp1 lives only inside stage 0's reduction loop"},
	})
}

// TestCumExtremum: cummax / cummin values and indices as torch 2.15.0
// prints them for ties (the later index wins), NaNs (the index moves to
// each later NaN) and signed zeros (the value is the element's own):
//
//	torch.cummax(torch.tensor([1., 3., 3., nan, 2., nan, 5.]), 0)
//	  -> values [1, 3, 3, nan, nan, nan, nan], indices [0, 1, 2, 3, 3, 5, 5]
//	torch.cummin(torch.tensor([0.0, -0.0, 1.0]), 0) -> [0, -0, -0], [0, 1, 1]
//	torch.cummax(torch.tensor([-0.0, 0.0, -0.0]), 0) -> [-0, 0, -0], [0, 1, 2]
//	torch.cummax(torch.tensor([1, 3, 2], dtype=torch.int8), 0) -> [1, 3, 3], [0, 1, 1]
func TestCumExtremum(t *testing.T) {
	src := `class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[7]", b: "f32[3]", c: "f32[3]", d: "i8[3]"):
        cummax = torch.ops.aten.cummax.default(a, 0)
        getitem: "f32[7]" = cummax[0]
        getitem_1: "i64[7]" = cummax[1]
        cummin = torch.ops.aten.cummin.default(b, -1)
        getitem_2: "f32[3]" = cummin[0]
        getitem_3: "i64[3]" = cummin[1]
        cummax_1 = torch.ops.aten.cummax.default(c, 0)
        getitem_4: "f32[3]" = cummax_1[0]
        getitem_5: "i64[3]" = cummax_1[1]
        cummax_2 = torch.ops.aten.cummax.default(d, 0)
        getitem_6: "i8[3]" = cummax_2[0]
        getitem_7: "i64[3]" = cummax_2[1]
        return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5, getitem_6, getitem_7)
`
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	floats := map[string][]float64{"a": {1, 3, 3, nan, 2, nan, 5}, "b": {0, negZero, 1}, "c": {negZero, 0, negZero}}
	ints := map[string][]int64{"d": {1, 3, 2}}
	override := func(name string, tt *interp.Tensor) *interp.Tensor {
		if v, ok := floats[name]; ok {
			return interp.FromFloats(tt.DType, tt.Shape, v)
		}
		if v, ok := ints[name]; ok {
			return interp.FromInts(tt.DType, tt.Shape, v)
		}
		return tt
	}
	for _, fuse := range []bool{false, true} {
		runChecked(t, src, checkOpts{override: override, fuse: fuse}) // against interp
		_, p, inputs := lowerChecked(t, src, checkOpts{override: override, fuse: fuse})
		kernels := 4 // one kernel per op
		if fuse {
			kernels = 1 // independent scans over one (empty) outer space join (fuse_horizontal.go)
		}
		require.Len(t, p.Kernels, kernels, "%s", p)
		e := newLoopEval(t, p, map[string]int64{}, inputs)
		require.Empty(t, e.run(p))
		got := make([][]float64, len(p.Outputs))
		for i, r := range p.Outputs {
			got[i] = e.gather(r.Buffer, r.Layout)
		}
		bits := func(xs []float64) []uint64 {
			out := make([]uint64, len(xs))
			for i, x := range xs {
				if x != x {
					x = nan
				}
				out[i] = math.Float64bits(x)
			}
			return out
		}
		want := [][]float64{{1, 3, 3, nan, nan, nan, nan}, {0, 1, 2, 3, 3, 5, 5}, {0, negZero, negZero}, {0, 1, 1},
			{negZero, 0, negZero}, {0, 1, 2}, {1, 3, 3}, {0, 1, 1}}
		for i := range want {
			assert.Equal(t, bits(want[i]), bits(got[i]), "output %d (fuse=%v): %v", i, fuse, got[i])
		}
	}
}

// TestLogCumSumExpSpecials: infinities, NaN and a spread exp underflows
// on, as torch 2.15.0 prints torch.logcumsumexp(torch.tensor(v), 0):
//
//	[-inf, -inf, 0] -> [-inf, -inf, 0]     [inf, inf, 1] -> [inf, inf, inf]
//	[1, nan, 2] -> [1, nan, nan]           [-1000, 0, -1000] -> [-1000, 0, 0]
//	[0, 1, 2] -> [0, 1.31326162815094, 2.4076058864593506]
func TestLogCumSumExpSpecials(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[15]"):
        view: "f32[5, 3]" = torch.ops.aten.view.default(x, [5, 3])
        logcumsumexp: "f32[5, 3]" = torch.ops.aten.logcumsumexp.default(view, 1)
        return (logcumsumexp,)
`
	in := []float64{-inf, -inf, 0, inf, inf, 1, 1, nan, 2, -1000, 0, -1000, 0, 1, 2}
	want := []float64{-inf, -inf, 0, inf, inf, inf, 1, nan, nan, -1000, 0, 0, 0, 1.31326162815094, 2.4076058864593506}
	for _, fuse := range []bool{false, true} {
		o := checkOpts{fuse: fuse, override: func(_ string, tt *interp.Tensor) *interp.Tensor {
			return interp.FromFloats(tt.DType, tt.Shape, in)
		}}
		runChecked(t, src, o) // against interp
		_, p, inputs := lowerChecked(t, src, o)
		e := newLoopEval(t, p, map[string]int64{}, inputs)
		require.Empty(t, e.run(p))
		got := e.gather(p.Outputs[0].Buffer, p.Outputs[0].Layout)
		for i := range want {
			if math.IsNaN(want[i]) {
				assert.True(t, math.IsNaN(got[i]), "element %d: %v", i, got[i])
				continue
			}
			assert.Equal(t, float32(want[i]), float32(got[i]), "element %d", i)
		}
	}
}
