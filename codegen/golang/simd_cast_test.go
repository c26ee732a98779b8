package golang

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
)

// bf16Specials are bfloat16 bit patterns: NaNs (payloads, both signs),
// ±0, ±inf, subnormals, the largest finite values, ordinary values.
var bf16Specials = []uint16{
	0x7fc0, 0xffc0, 0x7fc1, 0x7f81, 0xff81, 0x0000, 0x8000, 0x7f80, 0xff80,
	0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3f81, 0x4049, 0xc020,
}

// TestSIMDBF16Buffers: a pointwise loop over bf16 buffers (autocast's
// x * y + 1, and an upcast to f32) runs on lanes: bf16 loads widened,
// the arithmetic in f32, results rounded and stored as bf16 (a narrowing
// store on 16 lanes, rt.StoreBF16x8 on 8). Rows of 37 leave tails at both
// widths. The SIMD build (16 lanes here), 8 lanes only, KILN_SIMD=off and
// a scalar build agree bit for bit on every output; interp within one
// bf16 rounding (it adds in float64, the loops in float32 as eager).
func TestSIMDBF16Buffers(t *testing.T) {
	goBin := goTool(t)
	src := `class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[23, 37][37, 1]cpu", y: "bf16[23, 37][37, 1]cpu"):
        mul: "bf16[23, 37][37, 1]cpu" = torch.ops.aten.mul.Tensor(x, y)
        add: "bf16[23, 37][37, 1]cpu" = torch.ops.aten.add.Tensor(mul, 1)
        up: "f32[23, 37][37, 1]cpu" = torch.ops.aten._to_copy.default(x, dtype = torch.float32)
        return (add, up)
`
	c, dir, lanes := simdModule(t, src)
	main, err := os.ReadFile(filepath.Join(dir, "graphs", "simd_ops", "simd_ops.go"))
	require.NoError(t, err)
	require.NotContains(t, string(main), "scalar only", "the bf16 loop runs on lanes")
	require.Contains(t, lanes, "archsimd.LoadUint16x8((*[8]uint16)(")
	require.Contains(t, lanes, "rt.StoreBF16x8(")
	require.Contains(t, lanes, ".TruncateToUint16().Store((*[16]uint16)(")

	n := len(bf16Specials)
	shape := []int64{23, 37}
	bf := func(bits func(i int) uint16) *interp.Tensor {
		x := interp.MustEmpty(ir.BF16, shape...)
		for i := range int(x.Numel()) {
			binary.LittleEndian.PutUint16(x.Storage.Data[2*i:], bits(i))
		}
		return x
	}
	x := bf(func(i int) uint16 { return bf16Specials[i%n] })
	y := bf(func(i int) uint16 { return bf16Specials[(i%n+i/n)%n] })
	in := t.TempDir()
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "x.npy"), x))
	require.NoError(t, interp.SaveNPY(filepath.Join(in, "y.npy"), y))

	simd, others := simdVariantOutputs(t, goBin, dir, in, []ir.DType{ir.BF16, ir.F32})
	for name, got := range others {
		for o := range got {
			require.Equal(t, simd[o].Storage.Data, got[o].Storage.Data, "simd vs %s, output %d", name, o)
		}
	}
	res, err := interp.Run(c.g, []any{x, y}, interp.Options{})
	require.NoError(t, err)
	for o := range simd {
		require.Nil(t, interp.Compare(res.Outputs[o].(*interp.Tensor), simd[o], interp.DefaultTolerance), "output %d", o)
	}
}
