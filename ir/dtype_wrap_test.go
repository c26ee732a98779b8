package ir

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// WrapInt agrees with PyTorch's integer casts: torch.tensor([300, -129,
// 70000, 2**31+5, 2**32+7, -1]).to(dt).to(torch.int64), torch 2.15.0.
func TestWrapIntAsPyTorchCasts(t *testing.T) {
	vals := []int64{300, -129, 70000, 1<<31 + 5, 1<<32 + 7, -1}
	for dt, want := range map[DType][]int64{
		U8:   {44, 127, 112, 5, 7, 255},
		I8:   {44, 127, 112, 5, 7, -1},
		I16:  {300, -129, 4464, 5, 7, -1},
		U16:  {300, 65407, 4464, 5, 7, 65535},
		I32:  {300, -129, 70000, -2147483643, 7, -1},
		U32:  {300, 4294967167, 70000, 2147483653, 7, 4294967295},
		Bool: {1, 1, 1, 1, 1, 1},
		I64:  vals,
	} {
		got := make([]int64, len(vals))
		for i, v := range vals {
			got[i] = dt.WrapInt(v)
		}
		assert.Equal(t, want, got, dt.Name())
	}
	assert.Equal(t, int64(0), Bool.WrapInt(0))
}
