package golang

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// simdSpecials are the f32 bit patterns that can tell lanes from scalar
// code: quiet and signalling NaNs with payloads and both signs, ±0, ±inf,
// denormals, the extremes, ±1 and ordinary values.
var simdSpecials = []uint32{
	0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001, 0xff812345, // NaNs
	0x00000000, 0x80000000, 0x7f800000, 0xff800000, // ±0, ±inf
	0x00000001, 0x80000001, 0x007fffff, 0x00800000, // denormals, smallest normal
	0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, // ±max, ±1
	0x3f000000, 0x40000000, 0x0da24260, 0x40490fd0, 0xc0200000, 0x7149f2ca, // 0.5, 2, 1e-30, π, -2.5, 1e30
}

// simdOps are the graph's outputs: every lane function, the peepholes
// (neg∘maximum, abs∘neg), products and quotients by ±1 (which Go's
// compiler rewrites), relu, leaky_relu and where over each comparison,
// broadcasts of a column (a load invariant along the row), and the
// benchmark's chain. %s is the FX type annotation.
var simdOps = []string{
	"add = torch.ops.aten.add.Tensor(x, y)",
	"sub = torch.ops.aten.sub.Tensor(x, y)",
	"mul = torch.ops.aten.mul.Tensor(x, y)",
	"div = torch.ops.aten.div.Tensor(x, y)",
	"neg = torch.ops.aten.neg.default(x)",
	"abs_1 = torch.ops.aten.abs.default(x)",
	"maximum = torch.ops.aten.maximum.default(x, y)",
	"minimum = torch.ops.aten.minimum.default(x, y)",
	"relu = torch.ops.aten.relu.default(x)",
	"mx = torch.ops.aten.maximum.default(y, x)",
	"negmax = torch.ops.aten.neg.default(mx)",
	"nx = torch.ops.aten.neg.default(y)",
	"absneg = torch.ops.aten.abs.default(nx)",
	"leaky = torch.ops.aten.leaky_relu.default(x, 0.01)",
	"by_m1 = torch.ops.aten.mul.Tensor(x, -1)",
	"by_1 = torch.ops.aten.mul.Tensor(x, 1)",
	"over_1 = torch.ops.aten.div.Tensor(x, 1)",
	"over_m1 = torch.ops.aten.div.Tensor(x, -1)",
	"over_4 = torch.ops.aten.div.Tensor(x, 4)",
	"bias = torch.ops.aten.add.Tensor(x, b)",
	"bmax = torch.ops.aten.maximum.default(b, y)",
	"c1 = torch.ops.aten.mul.Tensor(x, 1.5)",
	"c2 = torch.ops.aten.add.Tensor(c1, x)",
	"c3 = torch.ops.aten.sub.Tensor(c2, 0.25)",
	"c4 = torch.ops.aten.maximum.default(c3, x)",
	"c5 = torch.ops.aten.neg.default(c4)",
	"c6 = torch.ops.aten.abs.default(c5)",
	"c7 = torch.ops.aten.mul.Tensor(c6, 0.5)",
	"chain = torch.ops.aten.add.Tensor(c7, 1.0)",
	"sq = torch.ops.aten.pow.Tensor_Scalar(x, 2)",
	"exp_1 = torch.ops.aten.exp.default(x)",
	"tanh_1 = torch.ops.aten.tanh.default(x)",
	"sqrt_1 = torch.ops.aten.sqrt.default(x)",
	"recip = torch.ops.aten.reciprocal.default(x)",
	"rsqrt_1 = torch.ops.aten.rsqrt.default(x)",
	"sigmoid_1 = torch.ops.aten.sigmoid.default(x)",
	"erf_1 = torch.ops.aten.erf.default(x)",
	"log_1 = torch.ops.aten.log.default(x)",
	"log1p_1 = torch.ops.aten.log1p.default(x)",
	"expm1_1 = torch.ops.aten.expm1.default(x)",
	"sin_1 = torch.ops.aten.sin.default(x)",
	"cos_1 = torch.ops.aten.cos.default(x)",
}

// simdPolys are outputs computed by rt's float32 formulas (the exp, tanh
// and erf polynomials; rsqrt and sigmoid in float32 steps, as ATen's CPU
// kernels), which differ from interp's float64 functions by up to 1.5
// ulp: they must agree bit for bit across builds, and with interp within
// that.
var simdPolys = map[string]bool{"exp_1": true, "tanh_1": true, "rsqrt_1": true, "sigmoid_1": true, "erf_1": true,
	"log_1": true, "log1p_1": true, "expm1_1": true, "sin_1": true, "cos_1": true}

var simdCompares = []string{"eq", "ne", "lt", "le", "gt", "ge"}

// simdTemps are the values of simdOps that are not outputs (so a
// maximum under a neg has one use and folds).
var simdTemps = map[string]bool{"mx": true, "nx": true, "c1": true, "c2": true, "c3": true, "c4": true, "c5": true, "c6": true, "c7": true}

// simdRows × simdCols: every (x, y) pair of specials appears once; rows
// of 37 are four 8-lane steps and a 5-element scalar tail.
const simdRows, simdCols = 23, 37

func simdGraph() (src string, outputs []string) {
	ann := fmt.Sprintf(`"f32[%d, %d][%d, 1]cpu"`, simdRows, simdCols, simdCols)
	var lines []string
	add := func(stmt string, out bool) {
		name, rhs, _ := strings.Cut(stmt, " = ")
		lines = append(lines, fmt.Sprintf("        %s: %s = %s", name, ann, rhs))
		if out {
			outputs = append(outputs, name)
		}
	}
	for _, s := range simdOps {
		name, _, _ := strings.Cut(s, " ")
		add(s, !simdTemps[name])
	}
	// bf16 values live in float32 registers: a cast to bf16 rounds the
	// lanes' bits (castLanes), a cast back is nothing
	lines = append(lines, fmt.Sprintf("        to_bf16: %s = torch.ops.aten._to_copy.default(x, dtype = torch.bfloat16)",
		strings.Replace(ann, "f32", "bf16", 1)))
	add("bf16_back = torch.ops.aten._to_copy.default(to_bf16, dtype = torch.float32)", true)
	for _, cmp := range simdCompares {
		boolAnn := strings.Replace(ann, "f32", "b8", 1)
		lines = append(lines, fmt.Sprintf("        is_%s: %s = torch.ops.aten.%s.Tensor(x, y)", cmp, boolAnn, cmp))
		add(fmt.Sprintf("where_%s = torch.ops.aten.where.self(is_%s, x, y)", cmp, cmp), true)
	}
	src = fmt.Sprintf("class GraphModule(torch.nn.Module):\n    def forward(self, x: %s, y: %s, b: \"f32[%d, 1][1, 1]cpu\"):\n%s\n        return (%s,)\n",
		ann, ann, simdRows, strings.Join(lines, "\n"), strings.Join(outputs, ", "))
	return src, outputs
}

// f32Bits builds a tensor from raw bit patterns (NaN payloads kept).
func f32Bits(shape []int64, bits func(i int) uint32) *interp.Tensor {
	t := interp.MustEmpty(ir.F32, shape...)
	for i := range int(t.Numel()) {
		binary.LittleEndian.PutUint32(t.Storage.Data[4*i:], bits(i))
	}
	return t
}

func bitsOf(t *interp.Tensor) []uint32 {
	out := make([]uint32, t.Numel())
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(t.Storage.Data[4*i:])
	}
	return out
}

// buildVariant builds the module in dir with extra environment.
func buildVariant(t *testing.T, goBin, dir, bin string, env ...string) string {
	cmd := goCmd(goBin, dir, "build", "-o", bin, ".")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %v:\n%s", env, out)
	return bin
}

// simdModule lowers graph src as simd_ops, writes it as a module in a
// temporary folder and returns the case, the folder and its lanes file.
func simdModule(t *testing.T, src string) (fxCase, string, string) {
	c := fxProgram(t, "simd_ops", src)
	dir := t.TempDir()
	require.NoError(t, WriteModule(dir, "kilngen", []*lowering.Program{c.prog}))
	lanes, err := os.ReadFile(filepath.Join(dir, "graphs", "simd_ops", "simd_ops_simd.go"))
	require.NoError(t, err, "no lanes file:\n%s", c.prog)
	return c, dir, string(lanes)
}

// simdVariants builds the module in dir with and without
// GOEXPERIMENT=simd and runs it on the inputs in: the SIMD build's n
// outputs, and, by name, those of the same binary with 8 lanes only
// ("simd-avx2", the same as "simd" on a CPU without AVX-512) and with
// KILN_SIMD=off ("simd-off"), and of the scalar build ("scalar").
func simdVariants(t *testing.T, goBin, dir, in string, n int) ([][]uint32, map[string][][]uint32) {
	simd, others := simdVariantOutputs(t, goBin, dir, in, slices.Repeat([]ir.DType{ir.F32}, n))
	ob := map[string][][]uint32{}
	for name, ts := range others {
		ob[name] = allBits(ts)
	}
	return allBits(simd), ob
}

// requireVariantsSame requires every variant's outputs bit for bit the
// SIMD build's (simdVariants), NaN payloads included.
func requireVariantsSame(t *testing.T, simd [][]uint32, others map[string][][]uint32) {
	t.Helper()
	for name, got := range others {
		for o := range got {
			requireSameBits(t, got[o], simd[o], func(int) bool { return false }, "simd vs %s, output %d", name, o)
		}
	}
}

// allBits is each float32 tensor's bits.
func allBits(ts []*interp.Tensor) [][]uint32 {
	res := make([][]uint32, len(ts))
	for i, x := range ts {
		res[i] = bitsOf(x)
	}
	return res
}

// simdVariantOutputs is simdVariants for outputs of the given dtypes, as
// tensors (a bf16 output's bits are not float32's).
func simdVariantOutputs(t *testing.T, goBin, dir, in string, dts []ir.DType) ([]*interp.Tensor, map[string][]*interp.Tensor) {
	binDir := t.TempDir()
	simdBin := buildVariant(t, goBin, dir, filepath.Join(binDir, "simd"), "GOEXPERIMENT=simd")
	return runOutputs(t, simdBin, in, dts), map[string][]*interp.Tensor{
		"simd-avx2": runOutputs(t, simdBin, in, dts, "KILN_SIMD=avx2"),
		"simd-off":  runOutputs(t, simdBin, in, dts, "KILN_SIMD=off"),
		"scalar":    runOutputs(t, buildVariant(t, goBin, dir, filepath.Join(binDir, "scalar"), "GOEXPERIMENT="), in, dts),
	}
}

// runVariant runs one binary and returns its n float32 outputs' bits.
func runVariant(t *testing.T, bin, in string, n int, env ...string) [][]uint32 {
	return allBits(runOutputs(t, bin, in, slices.Repeat([]ir.DType{ir.F32}, n), env...))
}

// runOutputs runs one binary and loads its outputs, one per dtype.
func runOutputs(t *testing.T, bin, in string, dts []ir.DType, env ...string) []*interp.Tensor {
	out := t.TempDir()
	cmd := exec.Command(bin, "-graph", "simd_ops", "-inputs", in, "-o", out)
	cmd.Env = append(os.Environ(), env...)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	var res []*interp.Tensor
	for i, dt := range dts {
		x, err := interp.LoadNPY(filepath.Join(out, fmt.Sprintf("out%d.npy", i)), dt)
		require.NoError(t, err)
		res = append(res, x)
	}
	return res
}

// TestSIMDBitExact builds one module four ways (GOEXPERIMENT=simd, whose
// pointwise loops run on 16 lanes on a CPU with AVX-512; the same binary
// with 8 lanes only and with KILN_SIMD=off; no experiment; no experiment with
// GOAMD64=v3, where Go may fuse a*b+c) and requires every output bit for
// bit equal across them, NaN payloads included, and equal to interp (the
// oracle) bit for bit except for which NaN a NaN result is.
func TestSIMDBitExact(t *testing.T) {
	goBin := goTool(t)
	src, outputs := simdGraph()
	c, dir, lanes := simdModule(t, src)
	main, err := os.ReadFile(filepath.Join(dir, "graphs", "simd_ops", "simd_ops.go"))
	require.NoError(t, err)
	require.NotContains(t, string(main), "scalar only", "every kernel of this graph qualifies")
	for _, op := range []string{".Add(", ".Sub(", ".Mul(", ".Div(", ".AsUint32x8().Xor(sign)", ".AsUint32x8().AndNot(sign)",
		"_m_x.Min(", "_x.Min(", ".Merge(", ".Equal(", ".NotEqual(", ".Less(", ".LessEqual(", ".Greater(",
		".GreaterEqual(", "archsimd.BroadcastFloat32x8(s", "_x := v57.AsUint32x8().Xor(sign)", ".ConvertToInt32(",
		"func kernel0AVX512(", "_x.AsUint32x16().Or(", ".AsUint32x16().AndNot(sign)", ".ToBits() == 0", "_y.Scale(", "(0xffff0000)",
		// polynomial coefficients read from memory (memOperands), exp's rare path called
		"MulAdd(v81_z, archsimd.LoadFloat32x8(&kx8ErfT6m1))", "archsimd.LoadFloat32x16(&kx16ErfQ12)",
		"= rt.Splat16(rt.ErfQ12)", "= rt.ExpClampedF32x16(", "= rt.ExpClampedF32x8("} {
		assert.Contains(t, lanes, op, "lane operation %s is exercised", op)
	}

	n := len(simdSpecials)
	shape := []int64{simdRows, simdCols}
	x := f32Bits(shape, func(i int) uint32 { return simdSpecials[i%n] })
	y := f32Bits(shape, func(i int) uint32 { return simdSpecials[(i%n+i/n)%n] })
	b := f32Bits([]int64{simdRows, 1}, func(i int) uint32 { return simdSpecials[(3*i)%n] })
	in := t.TempDir()
	for name, v := range map[string]*interp.Tensor{"x": x, "y": y, "b": b} {
		require.NoError(t, interp.SaveNPY(filepath.Join(in, name+".npy"), v))
	}

	binDir := t.TempDir()
	simdBin := buildVariant(t, goBin, dir, filepath.Join(binDir, "simd"), "GOEXPERIMENT=simd")
	status, err := exec.Command(simdBin, "-simd").Output()
	require.NoError(t, err)
	if !strings.Contains(string(status), "avx512:") {
		t.Logf("this CPU runs no 16 lanes (%s): the comparison checks fewer loops", status)
	}
	variants := map[string][][]uint32{
		"simd":      runVariant(t, simdBin, in, len(outputs)),
		"simd-avx2": runVariant(t, simdBin, in, len(outputs), "KILN_SIMD=avx2"),
		"simd-off":  runVariant(t, simdBin, in, len(outputs), "KILN_SIMD=off"),
		"scalar":    runVariant(t, buildVariant(t, goBin, dir, filepath.Join(binDir, "scalar"), "GOEXPERIMENT="), in, len(outputs)),
		"scalar-v3": runVariant(t, buildVariant(t, goBin, dir, filepath.Join(binDir, "v3"), "GOEXPERIMENT=", "GOAMD64=v3"), in, len(outputs)),
	}
	// Which of two NaN operands a commutative add or mul returns is the
	// register allocator's choice (ADDSS and VADDPS both return their
	// first operand, and Go may swap operands of either): only there may
	// payloads differ. Every other NaN must be the scalar loop's bits.
	xb, yb, bb := bitsOf(x), bitsOf(y), bitsOf(b)
	twoNaNs := map[string]func(i int) bool{
		"add":  func(i int) bool { return isNaNBits(xb[i]) && isNaNBits(yb[i]) },
		"mul":  func(i int) bool { return isNaNBits(xb[i]) && isNaNBits(yb[i]) },
		"bias": func(i int) bool { return isNaNBits(xb[i]) && isNaNBits(bb[i/simdCols]) },
	}
	strict := func(int) bool { return false }
	for _, name := range []string{"simd-off", "scalar", "scalar-v3"} {
		for o, out := range outputs {
			requireSameBits(t, variants["scalar"][o], variants[name][o], strict, "%s vs scalar, output %s", name, out)
			loose := twoNaNs[out]
			if loose == nil {
				loose = strict
			}
			for _, lanes := range []string{"simd", "simd-avx2"} {
				requireSameBits(t, variants[name][o], variants[lanes][o], loose, "%s vs %s, output %s", lanes, name, out)
			}
		}
	}
	res, err := interp.Run(c.g, []any{x, y, b}, interp.Options{})
	require.NoError(t, err)
	anyNaN := func(int) bool { return true }
	for o, out := range outputs {
		want := bitsOf(res.Outputs[o].(*interp.Tensor))
		if simdPolys[out] {
			requireWithinUlp(t, want, variants["simd"][o], 1.5, "interp vs simd, output %s", out)
			continue
		}
		requireSameBits(t, want, variants["simd"][o], anyNaN, "interp vs simd, output %s", out)
	}
}

func isNaNBits(u uint32) bool { return u&0x7f800000 == 0x7f800000 && u&0x7fffff != 0 }

// requireWithinUlp compares f32 values to within maxUlp units in the last
// place of want (NaN where want is NaN, the same infinity).
func requireWithinUlp(t *testing.T, want, got []uint32, maxUlp float64, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		w, g := math.Float32frombits(want[i]), math.Float32frombits(got[i])
		if w != w || math.IsInf(float64(w), 0) || w == 0 {
			require.True(t, (w != w && g != g) || w == g, "element %d: want %v, got %v: %s", i, w, g, fmt.Sprintf(msg, args...))
			continue
		}
		ulp := float64(math.Nextafter32(float32(math.Abs(float64(w))), float32(math.Inf(1)))) - math.Abs(float64(w))
		require.LessOrEqual(t, math.Abs(float64(g)-float64(w))/ulp, maxUlp, "element %d: want %v, got %v: %s", i, w, g, fmt.Sprintf(msg, args...))
	}
}

// requireSameBits compares f32 bit patterns; at elements where anyNaN
// holds, any NaN matches any NaN.
func requireSameBits(t *testing.T, want, got []uint32, anyNaN func(i int) bool, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want))
	bad := 0
	var first string
	for i := range want {
		if want[i] == got[i] || (isNaNBits(want[i]) && isNaNBits(got[i]) && anyNaN(i)) {
			continue
		}
		if bad == 0 {
			first = fmt.Sprintf("element %d: want %08x (%v), got %08x (%v)", i, want[i], math.Float32frombits(want[i]),
				got[i], math.Float32frombits(got[i]))
		}
		bad++
	}
	require.Zero(t, bad, "%s: %d elements differ; first %s", fmt.Sprintf(msg, args...), bad, first)
}

// TestSIMDEligibility: which inner loops go on lanes, and why not.
func TestSIMDEligibility(t *testing.T) {
	files, err := GeneratePackage(chainProgram(), "chain", "m/rt")
	require.NoError(t, err)
	require.Len(t, files, 3)
	assert.Equal(t, []string{"chain.go", "chain_simd.go", "chain_nosimd.go"}, []string{files[0].Name, files[1].Name, files[2].Name})
	assert.Contains(t, string(files[0].Src), "i := kernel0AVX2(a0, a1)")
	assert.Contains(t, string(files[1].Src), "//go:build goexperiment.simd && amd64")
	// max(a, b) as min(-b, -a) written out (rt.MinF32x8's steps: a lane
	// function is too big for Go to inline the call)
	assert.Contains(t, string(files[1].Src), "v7_x := v5.AsUint32x8().Xor(sign).AsFloat32x8()")
	assert.Contains(t, string(files[1].Src), "v7 := v7_x.Min(v7_y).Merge(v7_x.AsUint32x8().Or(v7_y.AsUint32x8()).AsFloat32x8(), v7_x.Less(v7_y).Or(v7_x.Greater(v7_y)))")
	assert.Contains(t, string(files[1].Src), "i = kernel0AVX512(a0, a1)")
	assert.Contains(t, string(files[1].Src), "v7 := v7_x.Min(v7_y).Merge(v7_x.AsUint32x16().Or(v7_y.AsUint32x16()).AsFloat32x16(), v7_x.Less(v7_y).Or(v7_x.Greater(v7_y)))")
	assert.Contains(t, string(files[2].Src), "//go:build !(goexperiment.simd && amd64)")
	assert.Contains(t, string(files[2].Src), "func kernel0AVX2(a0 []float32, a1 []float32) int { return 0 }")

	// Generate's single file is scalar and builds on its own.
	single, err := Generate(chainProgram(), "chain")
	require.NoError(t, err)
	assert.NotContains(t, string(single), "AVX2")

	// bf16 and i64 loads keep the peephole kernel scalar.
	files, err = GeneratePackage(casePeepholes().prog, "peep", "m/rt")
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Contains(t, string(files[0].Src), "// scalar only: tmp16: a constant that is not f32")

	// A loop that reads x[i+1] and writes x[i]: reading any element of
	// a written buffer but the one written keeps the loop scalar (lanes
	// read 8 elements before writing any, which is wrong for x[i-1]).
	b := newProg("shift")
	x := b.input("x", f32, c(64))
	b.p.Inputs[0].Mutated = true
	k := b.kernel(c(63))
	k.store(x, v("x0"), k.call("add", f32, k.load(x, f32, add(v("x0"), c(1))), k.fconst(f32, 1)))
	files, err = GeneratePackage(b.p, "shift", "m/rt")
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Contains(t, string(files[0].Src), "// scalar only: buffer x is read and written at different elements")

	// A comparison stored as bool, or an index value, stays scalar.
	b = newProg("cmp")
	x = b.input("x", f32, c(64))
	o := b.output("o", ir.Bool, c(64))
	k = b.kernel(c(64))
	k.store(o, v("x0"), k.call("gt", ir.Bool, k.load(x, f32, v("x0")), k.fconst(f32, 0)))
	files, err = GeneratePackage(b.p, "cmp", "m/rt")
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Contains(t, string(files[0].Src), "// scalar only: tmp3: a store that is not contiguous f32")
}

// A product of two constants where only one is ±1: the rewrite keeps the
// other constant, and the 1's broadcast is not declared (an unused
// variable fails the GOEXPERIMENT=simd build).
func TestSIMDUnitFactorOfConstant(t *testing.T) {
	b := newProg("unit")
	x := b.input("x", f32, c(64))
	o := b.output("o", f32, c(64))
	k := b.kernel(c(64))
	scale := k.call("mul", f32, k.fconst(f32, 1), k.fconst(f32, 0.1))
	k.store(o, v("x0"), k.call("mul", f32, scale, k.load(x, f32, v("x0"))))
	files, err := GeneratePackage(b.p, "unit", "m/rt")
	require.NoError(t, err)
	require.Len(t, files, 3)
	lanes := string(files[1].Src)
	assert.Contains(t, lanes, "v1 := archsimd.BroadcastFloat32x8(float32(0.1))")
	assert.NotContains(t, lanes, "v0 := archsimd.BroadcastFloat32x8(float32(1))")
	assert.Contains(t, lanes, "v2 := v1\n")
}

// TestSIMDColumns: reductions over a middle dimension (sum of a product,
// softmax, amax) run eight outputs on column lanes (a max first on
// VMAXPS, again on the exact lanes where a NaN or a zero result needs
// them: the inputs below take both paths); the SIMD build, the
// same binary with KILN_SIMD=off and a scalar build give the same bits,
// and interp's values within assert_close's tolerance. Rows of 21 leave
// a tail of 5 outputs per row to the scalar loop.
func TestSIMDColumns(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 6, 21][126, 21, 1]cpu"):
        mul: "f32[3, 6, 21][126, 21, 1]cpu" = torch.ops.aten.mul.Tensor(x, 2)
        sum_1: "f32[3, 21][21, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [1])
        soft: "f32[3, 6, 21][126, 21, 1]cpu" = torch.ops.aten._softmax.default(x, 1, False)
        amax: "f32[3, 21][21, 1]cpu" = torch.ops.aten.amax.default(x, [1])
        return (sum_1, soft, amax)
`
	c, dir, lanes := simdModule(t, src)
	require.Contains(t, lanes, "Cols(v", "the reductions run on column lanes:\n%s", lanes)
	require.Regexp(t, `acc\d+ = rt.MaxF32x8\(acc\d+, `, lanes, "a max on column lanes")
	require.Regexp(t, `acc\d+ = acc\d+.Max\(v\d+\)\n\s*q\d+ = q\d+.Or\(`, lanes, "a max on VMAXPS with a record of NaNs, then")
	require.Regexp(t, `acc\d+ = acc\d+.Add\(`, lanes, "a sum on column lanes")

	shape := []int64{3, 6, 21}
	// Specials (NaNs among them) in the first of the three batches; the
	// other two take the VMAXPS path throughout.
	x := f32Bits(shape, func(i int) uint32 {
		if i < 126 && i%17 == 3 {
			return simdSpecials[i%len(simdSpecials)]
		}
		return math.Float32bits(float32(math.Sin(float64(i)*0.7) * 4))
	})
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	simd, others := simdVariants(t, goBin, dir, in, 3)
	requireVariantsSame(t, simd, others)
	// A dynamic size (a sum over rows of an s0-row input, as corpus 103's
	// backward has) reaches the column lanes as a parameter: the SIMD
	// build compiles.
	sym := fxProgram(t, "simd_sym", `class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", y: "f32[s0, 32][32, 1]cpu"):
        sum_1: "f32[32][1]cpu" = torch.ops.aten.sum.dim_IntList(y, [0])
        return (sum_1,)
`)
	symDir := t.TempDir()
	require.NoError(t, WriteModule(symDir, "kilngen", []*lowering.Program{sym.prog}))
	symLanes, err := os.ReadFile(filepath.Join(symDir, "graphs", "simd_sym", "simd_sym_simd.go"))
	require.NoError(t, err, "no lanes file:\n%s", sym.prog)
	require.Contains(t, string(symLanes), "s0 int64, x0 int64")
	buildVariant(t, goBin, symDir, filepath.Join(t.TempDir(), "sym"), "GOEXPERIMENT=simd")

	requireCloseToInterp(t, c, x, simd)
}

// requireCloseToInterp runs c's graph in interp on x and requires each
// output (bits, in order) within assert_close's default tolerance of it.
func requireCloseToInterp(t *testing.T, c fxCase, x *interp.Tensor, outs [][]uint32) {
	t.Helper()
	res, err := interp.Run(c.g, []any{x}, interp.Options{})
	require.NoError(t, err)
	for o := range outs {
		want := res.Outputs[o].(*interp.Tensor)
		got := f32Bits(want.Shape, func(i int) uint32 { return outs[o][i] })
		require.Nil(t, interp.Compare(want, got, interp.DefaultTolerance), "output %d", o)
	}
}
