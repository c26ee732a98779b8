package golang

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/stretchr/testify/require"
)

// TestSIMDTransposedTiles: kernels that read x.t() (a stride along the
// stored dimension) run in tiles transposed in registers: 16 rows of
// 16×16 tiles on AVX-512 (the default run on a CPU with it), 8 rows of 8×8
// ones below them and in the KILN_SIMD=avx2 run; the held-out
// scale_column (an arange viewed, a column scaled through a transposed
// select, x.t() added: index lanes, an index comparison, the float32 of
// an index), and a pointwise chain on it with a per-row operand
// (broadcast once per row), fused into the same kernel. 19 rows of 27:
// one tile of 16 rows (11 columns left) or two of 8 (3 left), three rows
// left; 27 rows of 35: 16 rows, then 8 (16 lanes: two tiles and three
// columns left), three rows left; so every tail runs on the scalar loop.
// The SIMD build, the same binary with 8 lanes only and with
// KILN_SIMD=off, a scalar build and interp give the same bits (interp
// may pick another NaN). The graph is make_fx's print of (torch 2.15.0;
// the same text for both shapes but for the sizes):
//
//	a = torch.arange(x.numel(), dtype=torch.float32).view(x.shape[1], x.shape[0])
//	a.transpose(0, 1).select(0, 1).mul_(2)
//	col = a + x.t()
//	return col, torch.maximum(col * 2 - b, torch.zeros(())) / (b + 3)
func TestSIMDTransposedTiles(t *testing.T) {
	goBin := goTool(t)
	for _, sz := range [][2]int{{19, 27}, {27, 35}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) { transposedTiles(t, goBin, sz[0], sz[1]) })
	}
}

// transposedTiles runs TestSIMDTransposedTiles's graph with x of shape
// [c, r] (the outputs are [r, c]).
func transposedTiles(t *testing.T, goBin string, r, c int) {
	src := strings.NewReplacer("{R}", fmt.Sprint(r), "{C}", fmt.Sprint(c), "{N}", fmt.Sprint(r*c)).Replace(`class f(torch.nn.Module):
    def forward(self, x_1: "f32[{C}, {R}]", b_1: "f32[{R}, 1]"):
        arange: "f32[{N}]" = torch.ops.aten.arange.default({N}, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        view: "f32[{R}, {C}]" = torch.ops.aten.view.default(arange, [{R}, {C}]);  arange = None
        transpose: "f32[{C}, {R}]" = torch.ops.aten.transpose.int(view, 0, 1)
        select: "f32[{R}]" = torch.ops.aten.select.int(transpose, 0, 1);  transpose = None
        mul_: "f32[{R}]" = torch.ops.aten.mul_.Tensor(select, 2);  select = mul_ = None
        t: "f32[{R}, {C}]" = torch.ops.aten.t.default(x_1);  x_1 = None
        add: "f32[{R}, {C}]" = torch.ops.aten.add.Tensor(view, t);  view = t = None
        mul: "f32[{R}, {C}]" = torch.ops.aten.mul.Tensor(add, 2)
        sub: "f32[{R}, {C}]" = torch.ops.aten.sub.Tensor(mul, b_1);  mul = None
        zeros: "f32[]" = torch.ops.aten.zeros.default([], device = device(type='cpu'), pin_memory = False)
        maximum: "f32[{R}, {C}]" = torch.ops.aten.maximum.default(sub, zeros);  sub = zeros = None
        add_1: "f32[{R}, 1]" = torch.ops.aten.add.Tensor(b_1, 3);  b_1 = None
        div: "f32[{R}, {C}]" = torch.ops.aten.div.Tensor(maximum, add_1);  maximum = add_1 = None
        return (add, div)
`)
	c0, dir, lanes := simdModule(t, src)
	for _, tr := range []string{"rt.Transpose8x8(", "rt.Transpose16x16("} {
		require.Equal(t, 1, strings.Count(lanes, tr), "the kernel runs in tiles of both widths:\n%s", lanes)
	}
	for _, op := range []string{".ConvertToFloat32()", ".Equal(w", ".Merge(", "kIota1", "archsimd.LoadFloat32x16(", "archsimd.BroadcastInt32x16("} {
		require.Contains(t, lanes, op, "lanes:\n%s", lanes)
	}

	n := len(simdSpecials)
	x := f32Bits([]int64{int64(c), int64(r)}, func(i int) uint32 {
		if i%5 == 3 {
			return simdSpecials[i%n]
		}
		return math.Float32bits(float32(math.Sin(float64(i)*0.7) * 9))
	})
	b := f32Bits([]int64{int64(r), 1}, func(i int) uint32 { return math.Float32bits(float32(i)*0.75 - 6) })
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x_1.npy"), x))
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "b_1.npy"), b))
	simd, variants := simdVariants(t, goBin, dir, in, 2)
	res, err := interp.Run(c0.g, []any{x, b}, interp.Options{})
	require.NoError(t, err)
	variants["interp"] = [][]uint32{bitsOf(res.Outputs[0].(*interp.Tensor)), bitsOf(res.Outputs[1].(*interp.Tensor))}
	for name, got := range variants {
		for o := range got {
			requireSameBits(t, got[o], simd[o], func(int) bool { return name == "interp" }, "output %d: simd vs %s", o, name)
		}
	}
}
