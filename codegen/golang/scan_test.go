package golang

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/lowering"
)

// TestScanStaysSerial: a cumsum over a middle dim has the shape column
// lanes take (f32, the reduce range strided along rows), but a scan's
// prefixes must be folded in order, one row after another: its kernel
// gets no lanes function (the sum beside it does), and the SIMD build,
// KILN_SIMD=off and the scalar build give the same bits, within
// tolerance of interp (f32 scans accumulate in f64 on both sides).
func TestScanStaysSerial(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 6, 21][126, 21, 1]cpu", y: "f32[3, 6, 21][126, 21, 1]cpu"):
        mul: "f32[3, 6, 21][126, 21, 1]cpu" = torch.ops.aten.mul.Tensor(x, 2)
        cumsum: "f32[3, 6, 21][126, 21, 1]cpu" = torch.ops.aten.cumsum.default(mul, 1)
        mul_1: "f32[3, 6, 21][126, 21, 1]cpu" = torch.ops.aten.mul.Tensor(y, 3)
        sum_1: "f32[3, 21][21, 1]cpu" = torch.ops.aten.sum.dim_IntList(mul_1, [1])
        return (cumsum, sum_1)
`
	c, dir, lanes := simdModule(t, src)
	var scan, sum string
	for _, k := range c.prog.Kernels {
		for _, st := range k.Stages {
			for _, in := range st.Body {
				switch in.Op {
				case lowering.OpScan:
					scan = k.Name
				case lowering.OpReduce:
					sum = k.Name
				}
			}
		}
	}
	require.NotEmpty(t, scan, "%s", c.prog)
	require.NotEqual(t, scan, sum, "the scan and the sum stay apart:\n%s", c.prog)
	require.Contains(t, lanes, sum+"Cols(", "the sum runs on column lanes")
	require.NotContains(t, lanes, scan+"Cols(", "a scan must not run on column lanes")
	require.NotContains(t, lanes, scan+"Wide(", "a scan must not run on wide lanes")

	shape := []int64{3, 6, 21}
	wave := func(phase float64) *interp.Tensor {
		return f32Bits(shape, func(i int) uint32 { return math.Float32bits(float32(math.Sin(float64(i)*0.7+phase) * 4)) })
	}
	x, y := wave(0), wave(1)
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "y.npy"), y))
	simd, others := simdVariants(t, goBin, dir, in, 2)
	requireVariantsSame(t, simd, others)
	res, err := interp.Run(c.g, []any{x, y}, interp.Options{})
	require.NoError(t, err)
	for o := range simd {
		want := res.Outputs[o].(*interp.Tensor)
		got := f32Bits(want.Shape, func(i int) uint32 { return simd[o][i] })
		require.Nil(t, interp.Compare(want, got, interp.DefaultTolerance), "output %d", o)
	}
}
