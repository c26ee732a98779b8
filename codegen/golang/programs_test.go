package golang

import (
	"go/format"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/stretchr/testify/require"
)

const (
	f32  = ir.F32
	bf16 = ir.BF16
	i32  = ir.I32
	i64  = ir.I64
)

// wave is n deterministic float values in about [-scale, scale].
func wave(n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = scale * math.Sin(float64(i)*0.7+0.3) * (1 + float64(i%5)/7)
	}
	return out
}

func f32s(t *interp.Tensor) []float32 {
	fs := t.Floats()
	out := make([]float32, len(fs))
	for i, f := range fs {
		out[i] = float32(f)
	}
	return out
}

// requireSameF32 compares float32 values bit for bit (NaN equals NaN).
func requireSameF32(t *testing.T, want []float32, got *interp.Tensor) {
	t.Helper()
	g := f32s(got)
	require.Len(t, g, len(want))
	for i := range want {
		if want[i] != want[i] {
			require.True(t, g[i] != g[i], "element %d: want NaN, got %v", i, g[i])
			continue
		}
		require.Equal(t, math.Float32bits(want[i]), math.Float32bits(g[i]), "element %d: want %v, got %v", i, want[i], g[i])
	}
}

// casePointwiseF32: out = maximum(x·y + 1.5, -|x|) with y broadcast along
// rows, unrolled by vec=4 (37 columns leave a remainder).
func casePointwiseF32() *genCase {
	b := newProg("pointwise_f32")
	x := b.input("x", f32, c(4), c(37))
	y := b.input("y", f32, c(37))
	o := b.output("out", f32, c(4), c(37))
	k := b.kernel(c(4), c(37))
	k.k.Vec = 4
	idx := add(mul(v("x0"), c(37)), v("x1"))
	a := k.load(x, f32, idx)
	s := k.call("add", f32, k.call("mul", f32, a, k.load(y, f32, v("x1"))), k.fconst(f32, 1.5))
	k.store(o, idx, k.call("maximum", f32, s, k.call("neg", f32, k.call("abs", f32, a))))
	xv := wave(148, 3)
	xv[5], xv[77] = math.NaN(), math.Inf(-1)
	xt, yt := interp.FromFloats(f32, []int64{4, 37}, xv), interp.FromFloats(f32, []int64{37}, wave(37, 2))
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt, "y": yt}, check: func(t *testing.T, r *runResult) {
		xs, ys := f32s(xt), f32s(yt)
		want := make([]float32, len(xs))
		for i, xv := range xs {
			s := xv*ys[i%37] + 1.5
			n := -float32(math.Abs(float64(xv)))
			want[i] = max(s, n)
		}
		requireSameF32(t, want, r.output(t, 0))
	}}
}

// caseReducedFloats: bf16 in f32 registers, rounded by casts and by ops
// typed bf16; f16 and f8 stores.
func caseReducedFloats() *genCase {
	b := newProg("reduced_floats")
	x := b.input("x", bf16, c(64))
	y := b.input("y", bf16, c(64))
	o0 := b.output("fused", bf16, c(64))
	o1 := b.output("eager", bf16, c(64))
	o2 := b.output("half", ir.F16, c(64))
	o3 := b.output("f8", ir.F8E4M3FN, c(64))
	k := b.kernel(c(64))
	xl, yl := k.load(x, bf16, v("x0")), k.load(y, bf16, v("x0"))
	xf, yf := k.cast(f32, xl), k.cast(f32, yl)
	x3 := k.call("mul", f32, xf, k.fconst(f32, 3))
	k.store(o0, v("x0"), k.cast(bf16, k.call("add", f32, x3, yf)))
	k.store(o1, v("x0"), k.call("add", bf16, xl, yl))
	k.store(o2, v("x0"), k.cast(ir.F16, x3))
	k.store(o3, v("x0"), k.cast(ir.F8E4M3FN, yf))
	xt := interp.FromFloats(bf16, []int64{64}, wave(64, 300))
	yt := interp.FromFloats(bf16, []int64{64}, wave(64, 1.7))
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt, "y": yt}, check: func(t *testing.T, r *runResult) {
		xs, ys := f32s(xt), f32s(yt)
		var fused, eager, half, f8 []float64
		for i := range xs {
			fused = append(fused, float64(xs[i]*3+ys[i]))
			eager = append(eager, float64(xs[i]+ys[i]))
			half = append(half, float64(xs[i]*3))
			f8 = append(f8, float64(ys[i]))
		}
		// FromFloats rounds through float32 into the dtype, as c10 does.
		require.Equal(t, interp.FromFloats(bf16, []int64{64}, fused).Storage.Data, r.output(t, 0).Storage.Data)
		require.Equal(t, interp.FromFloats(bf16, []int64{64}, eager).Storage.Data, r.output(t, 1).Storage.Data)
		require.Equal(t, interp.FromFloats(ir.F16, []int64{64}, half).Storage.Data, r.output(t, 2).Storage.Data)
		require.Equal(t, interp.FromFloats(ir.F8E4M3FN, []int64{64}, f8).Storage.Data, r.output(t, 3).Storage.Data)
	}}
}

// caseInt32: integer ops wrap at 32 bits; Python floor division and
// remainder; C fmod; a narrowing cast; shifts.
func caseInt32() *genCase {
	b := newProg("int32_wrap")
	x := b.input("x", i32, c(16))
	y := b.input("y", i32, c(16))
	outs := []*lowering.Buffer{b.output("wrap", i32, c(16)), b.output("floordiv", i32, c(16)),
		b.output("remainder", i32, c(16)), b.output("fmod", i32, c(16)), b.output("narrow", ir.I8, c(16)),
		b.output("shl", i32, c(16))}
	k := b.kernel(c(16))
	xl, yl := k.load(x, i32, v("x0")), k.load(y, i32, v("x0"))
	k.store(outs[0], v("x0"), k.call("add", i32, k.call("mul", i32, xl, yl), k.iconst(i32, math.MaxInt32)))
	k.store(outs[1], v("x0"), k.call("floordiv", i32, xl, yl))
	k.store(outs[2], v("x0"), k.call("remainder", i32, xl, yl))
	k.store(outs[3], v("x0"), k.call("fmod", i32, xl, yl))
	k.store(outs[4], v("x0"), k.cast(ir.I8, xl))
	k.store(outs[5], v("x0"), k.call("lshift", i32, xl, k.iconst(i32, 4)))
	xv := []int64{7, -7, 7, -7, 100000, -100000, math.MaxInt32, math.MinInt32, 300, -129, 0, 5, 65536, -1, 12345678, 9}
	yv := []int64{2, 2, -2, -2, 70000, 3, 2, -1, 7, 5, 3, -5, 65536, 1, -4321, 9}
	xt, yt := interp.FromInts(i32, []int64{16}, xv), interp.FromInts(i32, []int64{16}, yv)
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt, "y": yt}, check: func(t *testing.T, r *runResult) {
		var wrap, fdiv, rem, fmod, narrow, shl []int64
		for i := range xv {
			a, d := int32(xv[i]), int32(yv[i])
			wrap = append(wrap, int64(a*d+math.MaxInt32))
			q := a / d
			if a%d != 0 && (a < 0) != (d < 0) {
				q--
			}
			fdiv = append(fdiv, int64(q))
			rem = append(rem, int64(a-q*d))
			fmod = append(fmod, int64(a%d))
			narrow = append(narrow, int64(int8(a)))
			shl = append(shl, int64(a<<4))
		}
		for i, want := range [][]int64{wrap, fdiv, rem, fmod, narrow, shl} {
			require.Equal(t, want, r.output(t, i).Ints(), "output %d", i)
		}
	}}
}

// caseZeroDiv: integer division by zero fails as PyTorch's CPU kernels do.
func caseZeroDiv() *genCase {
	b := newProg("zero_div")
	x := b.input("x", i64, c(4))
	y := b.input("y", i64, c(4))
	o := b.output("out", i64, c(4))
	k := b.kernel(c(4))
	k.store(o, v("x0"), k.call("floordiv", i64, k.load(x, i64, v("x0")), k.load(y, i64, v("x0"))))
	return &genCase{prog: b.p, wantErr: "kernel0: ZeroDivisionError", inputs: map[string]*interp.Tensor{
		"x": interp.FromInts(i64, []int64{4}, []int64{1, 2, 3, 4}),
		"y": interp.FromInts(i64, []int64{4}, []int64{1, 0, 1, 1}),
	}}
}

// caseBroadcastIndex: a transposed (strided) store, a row-broadcast load
// (invariant along the inner loop) and an index value.
func caseBroadcastIndex() *genCase {
	b := newProg("broadcast_index")
	x := b.input("x", f32, c(3), c(5))
	bias := b.input("bias", f32, c(3))
	o := b.output("out", f32, c(5), c(3))
	k := b.kernel(c(3), c(5))
	xl := k.load(x, f32, add(mul(v("x0"), c(5)), v("x1")))
	bl := k.load(bias, f32, v("x0"))
	ix := k.index(f32, add(mul(v("x0"), c(10)), v("x1")))
	k.store(o, add(mul(v("x1"), c(3)), v("x0")), k.call("add", f32, k.call("add", f32, xl, bl), ix))
	xt, bt := interp.FromFloats(f32, []int64{3, 5}, wave(15, 4)), interp.FromFloats(f32, []int64{3}, []float64{100, 200, 300})
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt, "bias": bt}, check: func(t *testing.T, r *runResult) {
		xs, bs := f32s(xt), f32s(bt)
		want := make([]float32, 15)
		for i := range 3 {
			for j := range 5 {
				want[j*3+i] = xs[i*5+j] + bs[i] + float32(i*10+j)
			}
		}
		requireSameF32(t, want, r.output(t, 0))
	}}
}

// caseViewDType: one f32 buffer read as i32 (same size) and as bf16
// (different size: the high half of each float), plus a bitcast back.
func caseViewDType() *genCase {
	b := newProg("view_dtype")
	x := b.input("x", f32, c(8))
	o0 := b.output("bits", i32, c(8))
	o1 := b.output("high_half", f32, c(8))
	o2 := b.output("abs", f32, c(8))
	k := b.kernel(c(8))
	bits := k.load(x, i32, v("x0"))
	bits.Access.DType = i32 // reads the f32 buffer's bytes as int32
	masked := k.call("bitwise_and", i32, bits, k.iconst(i32, 0x7FFFFFFF))
	k.store(o0, v("x0"), masked)
	hi := k.load(x, bf16, add(mul(c(2), v("x0")), c(1)))
	k.store(o1, v("x0"), k.cast(f32, hi))
	k.store(o2, v("x0"), k.emit(&lowering.Instr{Op: lowering.OpBitcast, DType: f32, Args: []*lowering.Instr{masked}}))
	xt := interp.FromFloats(f32, []int64{8}, []float64{1.5, -2.25, 3.1415927, -0.0, 1e-40, -7e30, math.Inf(-1), 0.1})
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt}, check: func(t *testing.T, r *runResult) {
		var wantBits []int64
		var high, abs []float32
		for _, f := range f32s(xt) {
			u := math.Float32bits(f)
			wantBits = append(wantBits, int64(int32(u&0x7FFFFFFF)))
			high = append(high, math.Float32frombits(u&0xFFFF0000))
			abs = append(abs, float32(math.Abs(float64(f))))
		}
		require.Equal(t, wantBits, r.output(t, 0).Ints())
		requireSameF32(t, high, r.output(t, 1))
		requireSameF32(t, abs, r.output(t, 2))
	}}
}

// caseVarMean: var_mean over rows in two reduction stages and an epilogue,
// checked against interp's var_mean.correction.
func caseVarMean() *genCase {
	b := newProg("var_mean")
	x := b.input("x", f32, c(6), c(50))
	ov := b.output("var", f32, c(6))
	om := b.output("mean", f32, c(6))
	k := b.kernel(c(6)).stage(c(50))
	k.k.Stages = k.k.Stages[1:]
	row := add(mul(v("x0"), c(50)), v("r0"))
	sum := k.reduce(lowering.ReduceSum, f32, k.load(x, f32, row))
	k.stage(c(50))
	d := k.call("sub", f32, k.load(x, f32, row), k.call("truediv", f32, sum, k.fconst(f32, 50)))
	sq := k.reduce(lowering.ReduceSum, f32, k.call("mul", f32, d, d))
	k.stage()
	k.store(ov, v("x0"), k.call("truediv", f32, sq, k.fconst(f32, 49)))
	k.store(om, v("x0"), k.call("truediv", f32, sum, k.fconst(f32, 50)))
	xv := wave(300, 2)
	for i := range xv {
		xv[i] += float64(i / 50) // a different mean per row
	}
	xt := interp.FromFloats(f32, []int64{6, 50}, xv)
	fxSrc := `def forward(self, x: "f32[6, 50]"):
    var_mean = torch.ops.aten.var_mean.correction(x, [1], correction = 1)
    getitem: "f32[6]" = var_mean[0]
    getitem_1: "f32[6]" = var_mean[1]
    return (getitem, getitem_1)
`
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt}, check: func(t *testing.T, r *runResult) {
		want := runFX(t, fxSrc, xt)
		requireClose(t, want[0].(*interp.Tensor), r.output(t, 0))
		requireClose(t, want[1].(*interp.Tensor), r.output(t, 1))
	}}
}

// caseSoftmax: max, sum of exp, normalize: three stages of one kernel,
// checked against interp's _softmax.
func caseSoftmax() *genCase {
	b := newProg("softmax")
	x := b.input("x", f32, c(5), c(33))
	o := b.output("out", f32, c(5), c(33))
	k := b.kernel(c(5)).stage(c(33))
	k.k.Stages = k.k.Stages[1:]
	idx := add(mul(v("x0"), c(33)), v("r0"))
	mx := k.reduce(lowering.ReduceMax, f32, k.load(x, f32, idx))
	k.stage(c(33))
	sum := k.reduce(lowering.ReduceSum, f32, k.call("exp", f32, k.call("sub", f32, k.load(x, f32, idx), mx)))
	k.stage(c(33))
	e := k.call("exp", f32, k.call("sub", f32, k.load(x, f32, idx), mx))
	k.store(o, idx, k.call("truediv", f32, e, sum))
	xt := interp.FromFloats(f32, []int64{5, 33}, wave(165, 6))
	fxSrc := `def forward(self, x: "f32[5, 33]"):
    _softmax: "f32[5, 33]" = torch.ops.aten._softmax.default(x, 1, False)
    return (_softmax,)
`
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt}, check: func(t *testing.T, r *runResult) {
		requireClose(t, runFX(t, fxSrc, xt)[0].(*interp.Tensor), r.output(t, 0))
	}}
}

// caseArgMax: first index of the maximum with NaN maximal; argmin; a
// NaN-propagating max.
func caseArgMax() *genCase {
	b := newProg("argmax")
	x := b.input("x", f32, c(4), c(10))
	oa := b.output("argmax", i64, c(4))
	on := b.output("argmin", i64, c(4))
	om := b.output("amax", f32, c(4))
	k := b.kernel(c(4)).stage(c(10))
	k.k.Stages = k.k.Stages[1:]
	l := k.load(x, f32, add(mul(v("x0"), c(10)), v("r0")))
	am := k.reduce(lowering.ReduceArgMax, i64, l)
	an := k.reduce(lowering.ReduceArgMin, i64, l)
	mx := k.reduce(lowering.ReduceMax, f32, l)
	k.stage()
	k.store(oa, v("x0"), am)
	k.store(on, v("x0"), an)
	k.store(om, v("x0"), mx)
	nan := math.NaN()
	xv := []float64{
		1, 5, 3, 5, -2, 0, 5, 1, -2, 4, // ties: first 5 at 1, first -2 at 4
		1, 2, nan, 9, nan, -1, 0, 0, 0, 0, // NaN at 2 wins both
		math.Inf(-1), math.Inf(-1), -3, -3, -3, -3, -3, -3, -3, -3,
		-1, -1, -1, -1, -1, -1, -1, -1, -1, nan,
	}
	xt := interp.FromFloats(f32, []int64{4, 10}, xv)
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt}, check: func(t *testing.T, r *runResult) {
		require.Equal(t, []int64{1, 2, 2, 9}, r.output(t, 0).Ints())
		require.Equal(t, []int64{4, 2, 0, 9}, r.output(t, 1).Ints())
		requireSameF32(t, []float32{5, float32(nan), -3, float32(nan)}, r.output(t, 2))
	}}
}

// caseMatmul: an extern mm whose second operand is stored transposed.
func caseMatmul() *genCase {
	b := newProg("mm")
	a := b.input("a", f32, c(5), c(7))
	bb := b.buffer(f32, c(21), lowering.BufInput)
	bl := lowering.Layout{DType: f32, Shape: exprs(7, 3), Strides: exprs(1, 7), Offset: c(0)}
	b.p.Inputs = append(b.p.Inputs, &lowering.Param{Name: "b", Buffer: bb, Layout: bl})
	o := b.output("out", f32, c(5), c(3))
	b.p.Kernels = append(b.p.Kernels, &lowering.Kernel{Name: "kernel0", Vec: 1, Extern: &lowering.Extern{
		Op: "aten::mm", Args: []lowering.Operand{{Buffer: a, Layout: contiguous(f32, c(5), c(7))}, {Buffer: bb, Layout: bl}},
		Outs: []lowering.Operand{{Buffer: o, Layout: contiguous(f32, c(5), c(3))}}}})
	at, bt := interp.FromFloats(f32, []int64{5, 7}, wave(35, 1)), interp.FromFloats(f32, []int64{7, 3}, wave(21, 2))
	fxSrc := `def forward(self, a: "f32[5, 7]", b: "f32[7, 3]"):
    mm: "f32[5, 3]" = torch.ops.aten.mm.default(a, b)
    return (mm,)
`
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"a": at, "b": bt}, check: func(t *testing.T, r *runResult) {
		requireClose(t, runFX(t, fxSrc, at, bt)[0].(*interp.Tensor), r.output(t, 0))
	}}
}

// caseConv2d: an extern convolution with stride, padding, dilation,
// groups and bias.
func caseConv2d() *genCase {
	b := newProg("conv2d")
	x := b.input("x", f32, c(2), c(4), c(9), c(9))
	w := b.input("w", f32, c(6), c(2), c(3), c(3))
	bias := b.input("bias", f32, c(6))
	o := b.output("out", f32, c(2), c(6), c(4), c(5))
	b.p.Kernels = append(b.p.Kernels, &lowering.Kernel{Name: "kernel0", Vec: 1, Extern: &lowering.Extern{
		Op: "aten::convolution",
		Args: []lowering.Operand{{Buffer: x, Layout: b.p.Inputs[0].Layout}, {Buffer: w, Layout: b.p.Inputs[1].Layout},
			{Buffer: bias, Layout: b.p.Inputs[2].Layout}},
		Params: map[string][]int64{"stride": {2, 2}, "padding": {1, 1}, "dilation": {2, 1}, "groups": {2},
			"transposed": {0}, "output_padding": {0, 0}},
		Outs: []lowering.Operand{{Buffer: o, Layout: b.p.Outputs[0].Layout}}}})
	xt := interp.FromFloats(f32, []int64{2, 4, 9, 9}, wave(648, 1))
	wt := interp.FromFloats(f32, []int64{6, 2, 3, 3}, wave(108, 0.5))
	bt := interp.FromFloats(f32, []int64{6}, wave(6, 1))
	fxSrc := `def forward(self, x: "f32[2, 4, 9, 9]", w: "f32[6, 2, 3, 3]", bias: "f32[6]"):
    convolution: "f32[2, 6, 4, 5]" = torch.ops.aten.convolution.default(x, w, bias, [2, 2], [1, 1], [2, 1], False, [0, 0], 2)
    return (convolution,)
`
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt, "w": wt, "bias": bt}, check: func(t *testing.T, r *runResult) {
		requireClose(t, runFX(t, fxSrc, xt, wt, bt)[0].(*interp.Tensor), r.output(t, 0))
	}}
}

// symbolicProg: x is f32[s0, 4], s1 a SymInt input; outputs 2·x and
// values computed from the symbols.
func symbolicProg() *lowering.Program {
	b := newProg("symbolic", "s0", "s1")
	x := b.input("x", f32, v("s0"), c(4))
	b.p.Inputs = append(b.p.Inputs, &lowering.Param{Name: "n", Type: ir.SymIntOf(v("s1")), Sym: "s1"})
	o := b.output("out", f32, v("s0"), c(4))
	k := b.kernel(v("s0"), c(4))
	idx := add(mul(v("x0"), c(4)), v("x1"))
	k.store(o, idx, k.call("mul", f32, k.load(x, f32, idx), k.fconst(f32, 2)))
	b.p.Outputs = append(b.p.Outputs,
		&lowering.Result{Name: "numel", Value: mul(v("s0"), c(4))},
		&lowering.Result{Name: "n1", Value: add(v("s1"), c(1))},
		&lowering.Result{Name: "half", Value: 2.5},
		&lowering.Result{Name: "flag", Value: true})
	return b.p
}

func caseSymbolic(p *lowering.Program) *genCase {
	xt := interp.FromFloats(f32, []int64{6, 4}, wave(24, 1))
	return &genCase{prog: p, inputs: map[string]*interp.Tensor{"x": xt}, args: []string{"-scalar", "n=3"}, check: func(t *testing.T, r *runResult) {
		var want []float32
		for _, f := range f32s(xt) {
			want = append(want, f*2)
		}
		requireSameF32(t, want, r.output(t, 0))
		vals := map[string]any{}
		for _, e := range r.manifest {
			if e.File == "" {
				vals[e.Name] = e.Value
			}
		}
		require.Equal(t, map[string]any{"numel": float64(24), "n1": float64(4), "half": 2.5, "flag": true}, vals)
	}}
}

// caseSymbolConflict: -sym disagrees with the input's shape.
func caseSymbolConflict(p *lowering.Program) *genCase {
	return &genCase{prog: p, args: []string{"-sym", "s0=5", "-sym", "s1=1"}, wantErr: "input x: dim 0 has size 6, but s0 = 5",
		inputs: map[string]*interp.Tensor{"x": interp.FromFloats(f32, []int64{6, 4}, wave(24, 1))}}
}

// caseMutated: x += 1 in place (the functionalization epilogue), out = 2x
// from the old value; two intermediates, the second reusing the first's
// memory.
func caseMutated() *genCase {
	b := newProg("mutated")
	x := b.input("x", f32, c(10))
	b.p.Inputs[0].Mutated = true
	t1 := b.buffer(f32, c(10), lowering.BufIntermediate)
	t2 := b.buffer(f32, c(10), lowering.BufIntermediate)
	o := b.output("out", f32, c(10))
	t3 := b.buffer(f32, c(10), lowering.BufIntermediate)
	t3.ReuseOf = t1
	k0 := b.kernel(c(10))
	xl := k0.load(x, f32, v("x0"))
	k0.store(t1, v("x0"), k0.call("mul", f32, xl, k0.fconst(f32, 2)))
	k0.store(x, v("x0"), k0.call("add", f32, xl, k0.fconst(f32, 1)))
	k1 := b.kernel(c(10))
	k1.store(t2, v("x0"), k1.load(t1, f32, v("x0")))
	k2 := b.kernel(c(10))
	k2.store(t3, v("x0"), k2.call("neg", f32, k2.load(t2, f32, v("x0"))))
	k3 := b.kernel(c(10))
	k3.store(o, v("x0"), k3.call("neg", f32, k3.load(t3, f32, v("x0"))))
	xt := interp.FromFloats(f32, []int64{10}, wave(10, 5))
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt}, check: func(t *testing.T, r *runResult) {
		var twice, plus []float32
		for _, f := range f32s(xt) {
			twice, plus = append(twice, f*2), append(plus, f+1)
		}
		requireSameF32(t, twice, r.output(t, 0))
		var kinds []string
		for _, e := range r.manifest {
			kinds = append(kinds, e.Kind+":"+e.File)
		}
		require.Equal(t, []string{"output:out0.npy", "mutated-input:x.npy"}, kinds)
		requireSameF32(t, plus, r.files["x.npy"])
	}}
}

func TestGeneratedPrograms(t *testing.T) {
	sp := symbolicProg()
	cases := []*genCase{casePointwiseF32(), caseReducedFloats(), caseInt32(), caseZeroDiv(), caseBroadcastIndex(),
		caseViewDType(), caseVarMean(), caseSoftmax(), caseArgMax(), caseMatmul(), caseConv2d(),
		caseSymbolic(sp), caseSymbolConflict(sp), caseMutated(), caseParallel()}
	var progs []*lowering.Program
	seen := map[*lowering.Program]bool{}
	for _, gc := range cases {
		if !seen[gc.prog] {
			seen[gc.prog] = true
			progs = append(progs, gc.prog)
		}
	}
	bin := buildModule(t, progs)
	for i, gc := range cases {
		t.Run(gc.prog.Name+"_"+string(rune('a'+i)), func(t *testing.T) { gc.run(t, bin) })
	}
	simdBin := buildModule(t, progs, "GOEXPERIMENT=simd")
	for i, gc := range cases {
		t.Run(gc.prog.Name+"_simd_"+string(rune('a'+i)), func(t *testing.T) { gc.run(t, simdBin) })
	}
	t.Run("bench_flag", func(t *testing.T) {
		in := t.TempDir()
		for name, x := range cases[0].inputs {
			require.NoError(t, interp.SaveNPY(filepath.Join(in, name+".npy"), x))
		}
		out, err := exec.Command(bin, "-graph", cases[0].prog.Name, "-inputs", in, "-bench", "3").CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Regexp(t, `^ns/op [0-9]+\n$`, string(out))
	})
}

// caseParallel: sizes past rt.SerialWork, so chunks split across
// goroutines (mid-row for the pointwise kernel); odd row length with vec=8.
func caseParallel() *genCase {
	const rows, cols = 300, 257
	b := newProg("parallel")
	x := b.input("x", f32, c(rows), c(cols))
	o := b.output("scaled", f32, c(rows), c(cols))
	s := b.output("rowsum", ir.F64, c(rows))
	k := b.kernel(c(rows), c(cols))
	k.k.Vec = 8
	idx := add(mul(v("x0"), c(cols)), v("x1"))
	k.store(o, idx, k.call("sub", f32, k.call("mul", f32, k.load(x, f32, idx), k.fconst(f32, 3)), k.index(f32, v("x0"))))
	r := b.kernel(c(rows)).stage(c(cols))
	r.k.Stages = r.k.Stages[1:]
	sum := r.reduce(lowering.ReduceSum, ir.F64, r.cast(ir.F64, r.load(x, f32, add(mul(v("x0"), c(cols)), v("r0")))))
	r.stage()
	r.store(s, v("x0"), sum)
	xt := interp.FromFloats(f32, []int64{rows, cols}, wave(rows*cols, 10))
	return &genCase{prog: b.p, inputs: map[string]*interp.Tensor{"x": xt}, check: func(t *testing.T, res *runResult) {
		xs := f32s(xt)
		want := make([]float32, len(xs))
		sums := make([]float64, rows)
		for i, f := range xs {
			want[i] = f*3 - float32(i/cols)
			sums[i/cols] += float64(f)
		}
		requireSameF32(t, want, res.output(t, 0))
		require.Equal(t, sums, res.output(t, 1).Floats())
	}}
}

// TestGenerateDeterministic: the same programs give byte-identical
// modules, gofmt-clean.
func TestGenerateDeterministic(t *testing.T) {
	progs := []*lowering.Program{caseVarMean().prog, caseMatmul().prog, symbolicProg(), caseParallel().prog}
	a, b := t.TempDir(), t.TempDir()
	require.NoError(t, WriteModule(a, "m", progs))
	require.NoError(t, WriteModule(b, "m", progs))
	for _, p := range progs {
		one, err := Generate(p, "pkg")
		require.NoError(t, err)
		two, err := Generate(p, "pkg")
		require.NoError(t, err)
		require.Equal(t, one, two)
		formatted, err := format.Source(one)
		require.NoError(t, err)
		require.Equal(t, string(formatted), string(one))
		name := PackageName(p.Name)
		fa, err := os.ReadFile(filepath.Join(a, "graphs", name, name+".go"))
		require.NoError(t, err)
		fb, err := os.ReadFile(filepath.Join(b, "graphs", name, name+".go"))
		require.NoError(t, err)
		require.Equal(t, fa, fb)
	}
}

// TestGenerateErrors: unsupported input is an error, never a panic.
func TestGenerateErrors(t *testing.T) {
	b := newProg("bad")
	x := b.input("x", ir.C64, c(4))
	o := b.output("out", ir.C64, c(4))
	k := b.kernel(c(4))
	k.store(o, v("x0"), k.load(x, ir.C64, v("x0")))
	_, err := Generate(b.p, "bad")
	require.ErrorContains(t, err, "dtype c64 is not supported")

	b = newProg("badfn")
	x = b.input("x", f32, c(4))
	o = b.output("out", f32, c(4))
	k = b.kernel(c(4))
	k.store(o, v("x0"), k.call("bitwise_and", f32, k.load(x, f32, v("x0")), k.load(x, f32, v("x0"))))
	_, err = Generate(b.p, "badfn")
	require.ErrorContains(t, err, `function "bitwise_and" is not defined on float32 operands`)

	_, err = Generate(symbolicProg(), "not a name")
	require.ErrorContains(t, err, "not an identifier")
}
