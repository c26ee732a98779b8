package cuda_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// fvals are n reproducible values in about [-3, 3].
func fvals(n int, seed float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 3 * math.Sin(seed+1.7*float64(i)+0.3*float64(i*i%7))
	}
	return out
}

// runHand generates p, runs it emulated on the given inputs (by input
// name) and returns out<i>.npy as tensors of the outputs' dtypes.
func runHand(t *testing.T, p *lowering.Program, inputs map[string]*interp.Tensor, args ...string) []*interp.Tensor {
	t.Helper()
	require.NoError(t, lowering.Verify(p), "%s", p)
	src, err := cuda.Generate(p)
	require.NoError(t, err)
	dir := t.TempDir()
	for name, v := range inputs {
		require.NoError(t, interp.SaveNPY(filepath.Join(dir, name+".npy"), v))
	}
	outDir := emulate(t, src, dir, args...)
	outs := make([]*interp.Tensor, len(p.Outputs))
	for i, r := range p.Outputs {
		outs[i] = loadOutput(t, outDir, "out"+itoa(i)+".npy", r.Layout.DType)
	}
	return outs
}

func assertClose(t *testing.T, dt ir.DType, shape []int64, want []float64, got *interp.Tensor) {
	t.Helper()
	w := interp.FromFloats(dt, shape, want)
	if m := interp.CompareTensors(w, got, interp.DefaultTolerance(dt)); m != nil {
		t.Error(m)
	}
}

// TestPointwiseChainBroadcast: exp(x*2 + y) with y broadcast along rows,
// and where(x > y, x, y), vectorized 4 lanes per thread.
func TestPointwiseChainBroadcast(t *testing.T) {
	b := newProg(t)
	x, y := b.input("x", ir.F32, "8", "16"), b.input("y", ir.F32, "16")
	o0, o1 := b.output(ir.F32, "8", "16"), b.output(ir.F32, "8", "16")
	k := b.kernel(4, "8", "16")
	xv, yv := k.load(x, ir.F32, "16*x0 + x1"), k.load(y, ir.F32, "x1")
	e := k.call("exp", ir.F32, k.call("add", ir.F32, k.call("mul", ir.F32, xv, k.fconst(ir.F32, 2)), yv))
	k.store(o0, "16*x0 + x1", e)
	k.store(o1, "16*x0 + x1", k.call("where", ir.F32, k.call("gt", ir.Bool, xv, yv), xv, yv))
	xs, ys := fvals(128, 1), fvals(16, 2)
	outs := runHand(t, b.p, map[string]*interp.Tensor{
		"x": interp.FromFloats(ir.F32, []int64{8, 16}, xs), "y": interp.FromFloats(ir.F32, []int64{16}, ys)})
	w0, w1 := make([]float64, 128), make([]float64, 128)
	for i := range w0 {
		xv, yv := float64(float32(xs[i])), float64(float32(ys[i%16]))
		w0[i] = math.Exp(float64(float32(xv*2)) + yv)
		w1[i] = math.Max(xv, yv)
	}
	assertClose(t, ir.F32, []int64{8, 16}, w0, outs[0])
	assertClose(t, ir.F32, []int64{8, 16}, w1, outs[1])
}

// TestReductionStages: a softmax-like three-stage kernel (max, sum of
// exp, normalize), a two-stage mean, and argmax with a NaN and ties.
func TestReductionStages(t *testing.T) {
	const rows, cols = 5, 37
	b := newProg(t)
	x := b.input("x", ir.F32, "5", "37")
	soft, mean, amax := b.output(ir.F32, "5", "37"), b.output(ir.F32, "5"), b.output(ir.I64, "5")
	k := b.kernel(1, "5")
	k.stage("37")
	m := k.reduce(lowering.ReduceMax, ir.F32, k.load(x, ir.F32, "37*x0 + r0"))
	k.stage("37")
	s := k.reduce(lowering.ReduceSum, ir.F32, k.call("exp", ir.F32, k.call("sub", ir.F32, k.load(x, ir.F32, "37*x0 + r0"), m)))
	k.stage("37")
	ex := k.call("exp", ir.F32, k.call("sub", ir.F32, k.load(x, ir.F32, "37*x0 + r0"), m))
	k.store(soft, "37*x0 + r0", k.call("truediv", ir.F32, ex, s))

	k2 := b.kernel(1, "5")
	k2.stage("37")
	sum := k2.reduce(lowering.ReduceSum, ir.F32, k2.load(x, ir.F32, "37*x0 + r0"))
	am := k2.reduce(lowering.ReduceArgMax, ir.I64, k2.load(x, ir.F32, "37*x0 + r0"))
	k2.stage()
	k2.store(mean, "x0", k2.call("truediv", ir.F32, sum, k2.index("37", ir.F32)))
	k2.store(amax, "x0", am)

	xs := fvals(rows*cols, 3)
	xs[2*cols+9], xs[2*cols+20] = math.NaN(), 100 // NaN wins over a larger value
	xs[3*cols+4], xs[3*cols+30] = 50, 50          // the first maximum wins
	outs := runHand(t, b.p, map[string]*interp.Tensor{"x": interp.FromFloats(ir.F32, []int64{rows, cols}, xs)})
	wSoft, wMean, wArg := make([]float64, rows*cols), make([]float64, rows), make([]int64, rows)
	for r := 0; r < rows; r++ {
		row := xs[r*cols : (r+1)*cols]
		mx, sumExp, total := math.Inf(-1), 0.0, 0.0
		for i, v := range row {
			total += v
			if v > mx || math.IsNaN(v) && !math.IsNaN(mx) {
				mx, wArg[r] = v, int64(i)
			}
		}
		for _, v := range row {
			sumExp += math.Exp(v - mx)
		}
		for i, v := range row {
			wSoft[r*cols+i] = math.Exp(v-mx) / sumExp
		}
		wMean[r] = total / cols
	}
	wSoft = wSoft[:]
	for i := 2 * cols; i < 3*cols; i++ {
		wSoft[i] = math.NaN() // a NaN max poisons its row, as in PyTorch
	}
	wMean[2] = math.NaN()
	assertClose(t, ir.F32, []int64{rows, cols}, wSoft, outs[0])
	assertClose(t, ir.F32, []int64{rows}, wMean, outs[1])
	assert.Equal(t, wArg, outs[2].Ints())
}

// TestMatmulExtern: mm with a transposed second operand (strides [1, 7]).
func TestMatmulExtern(t *testing.T) {
	b := newProg(t)
	a, bt := b.input("a", ir.F32, "5", "7"), b.input("bt", ir.F32, "3", "7")
	out := b.output(ir.F32, "5", "3")
	bl := b.layout(ir.F32, "7", "3")
	bl.Strides = b.exprs("1", "7")
	b.p.Kernels = append(b.p.Kernels, &lowering.Kernel{Name: "kernel0", Vec: 1, Extern: &lowering.Extern{
		Op:   "aten::mm.default",
		Args: []lowering.Operand{{Buffer: a, Layout: b.p.Inputs[0].Layout}, {Buffer: bt, Layout: bl}},
		Outs: []lowering.Operand{{Buffer: out, Layout: b.p.Outputs[0].Layout}}, Params: map[string][]int64{}}})
	as, bs := fvals(35, 4), fvals(21, 5)
	outs := runHand(t, b.p, map[string]*interp.Tensor{
		"a": interp.FromFloats(ir.F32, []int64{5, 7}, as), "bt": interp.FromFloats(ir.F32, []int64{3, 7}, bs)})
	want := make([]float64, 15)
	for i := 0; i < 5; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 7; k++ {
				want[i*3+j] += float64(float32(as[i*7+k])) * float64(float32(bs[j*7+k]))
			}
		}
	}
	assertClose(t, ir.F32, []int64{5, 3}, want, outs[0])
}

// TestSymbolicSize: s0 is bound from the input's shape; the column means
// of x*x over s0 rows.
func TestSymbolicSize(t *testing.T) {
	b := newProg(t, "s0")
	x := b.input("x", ir.F32, "s0", "3")
	tmp := &lowering.Buffer{ID: len(b.p.Buffers), Name: "buf9", DType: ir.F32, Size: b.expr("3*s0"), Kind: lowering.BufIntermediate, Align: 64}
	b.p.Buffers = append(b.p.Buffers, tmp)
	out := b.output(ir.F32, "3")
	k := b.kernel(1, "s0", "3")
	xv := k.load(x, ir.F32, "3*x0 + x1")
	k.store(tmp, "3*x0 + x1", k.call("mul", ir.F32, xv, xv))
	k2 := b.kernel(1, "3")
	k2.stage("s0")
	s := k2.reduce(lowering.ReduceSum, ir.F32, k2.load(tmp, ir.F32, "3*r0 + x0"))
	k2.stage()
	k2.store(out, "x0", k2.call("truediv", ir.F32, s, k2.index("s0", ir.F32)))
	xs := fvals(18, 6)
	outs := runHand(t, b.p, map[string]*interp.Tensor{"x": interp.FromFloats(ir.F32, []int64{6, 3}, xs)})
	want := make([]float64, 3)
	for i, v := range xs {
		f := float64(float32(v))
		want[i%3] += f * f / 6
	}
	assertClose(t, ir.F32, []int64{3}, want, outs[0])
}

// TestReducedAndIntDTypes: bf16 and f16 round trips through f32 math
// (8 lanes: one 16-byte vector per thread), and i32 arithmetic with
// Python floor division, remainder, wrapping and shifts.
func TestReducedAndIntDTypes(t *testing.T) {
	b := newProg(t)
	h, f, a := b.input("h", ir.BF16, "64"), b.input("f", ir.F16, "64"), b.input("a", ir.I32, "40")
	oh, of := b.output(ir.BF16, "64"), b.output(ir.F16, "64")
	odiv, omod, owrap, oshl := b.output(ir.I32, "40"), b.output(ir.I32, "40"), b.output(ir.I32, "40"), b.output(ir.I32, "40")
	for _, io := range []struct{ in, out *lowering.Buffer }{{h, oh}, {f, of}} {
		k := b.kernel(8, "64")
		v := k.cast(k.load(io.in, io.in.DType, "x0"), ir.F32)
		r := k.call("add", ir.F32, k.call("mul", ir.F32, v, k.fconst(ir.F32, 3)), k.fconst(ir.F32, 0.1))
		k.store(io.out, "x0", k.cast(r, io.in.DType))
	}
	k := b.kernel(4, "40")
	av := k.load(a, ir.I32, "x0")
	k.store(odiv, "x0", k.call("floordiv", ir.I32, av, k.iconst(ir.I32, -3)))
	k.store(omod, "x0", k.call("remainder", ir.I32, av, k.iconst(ir.I32, -3)))
	k.store(owrap, "x0", k.call("mul", ir.I32, av, k.iconst(ir.I32, 1<<30)))
	k.store(oshl, "x0", k.call("lshift", ir.I32, av, k.index("Mod(x0 + 40, 40)", ir.I32)))
	hs, fs := fvals(64, 7), fvals(64, 8)
	as := make([]int64, 40)
	for i := range as {
		as[i] = int64(i*37%23) - 11
	}
	ht, ft := interp.FromFloats(ir.BF16, []int64{64}, hs), interp.FromFloats(ir.F16, []int64{64}, fs)
	outs := runHand(t, b.p, map[string]*interp.Tensor{"h": ht, "f": ft, "a": interp.FromInts(ir.I32, []int64{40}, as)})
	for i, src := range []*interp.Tensor{ht, ft} {
		want := src.Floats()
		for j, v := range want {
			want[j] = float64(float32(float32(v)*3) + 0.1)
		}
		w := interp.FromFloats(src.DType, []int64{64}, want) // rounded into the dtype: exact match expected
		assert.Equal(t, w.Floats(), outs[i].Floats(), src.DType.Abbr())
	}
	wdiv, wmod, wwrap, wshl := make([]int64, 40), make([]int64, 40), make([]int64, 40), make([]int64, 40)
	for i, v := range as {
		wdiv[i] = int64(math.Floor(float64(v) / -3))
		wmod[i] = v - wdiv[i]*-3
		wwrap[i] = int64(int32(v * (1 << 30)))
		if i < 32 {
			wshl[i] = int64(int32(v << i))
		}
	}
	assert.Equal(t, wdiv, outs[2].Ints(), "floordiv")
	assert.Equal(t, wmod, outs[3].Ints(), "remainder")
	assert.Equal(t, wwrap, outs[4].Ints(), "wrapping mul")
	assert.Equal(t, wshl, outs[5].Ints(), "lshift (0 past the width)")
}
