package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConvolutionKeepsChannelsLast: PyTorch 2.15's CPU convolution gives a
// channels-last output for a channels-last input or weight (eager and
// FakeTensor alike; testdata/opcases conv2d_*_channels_last): strides
// (36, 1, 12, 4) for a [2, 4, 3, 3] result. interp's result had
// row-major strides, and a later view of ConvNeXt's permute failed.
func TestConvolutionKeepsChannelsLast(t *testing.T) {
	vals := make([]float64, 2*5*5*3)
	for i := range vals {
		vals[i] = float64(i%7) - 3
	}
	w := make([]float64, 4*3*3*3)
	for i := range w {
		w[i] = float64(i%5) - 2
	}
	res := runGraph(t, `
def forward(self, x: "f32[2, 5, 5, 3]", w: "f32[4, 3, 3, 3]"):
    permute: "f32[2, 3, 5, 5][75, 1, 15, 3]" = torch.ops.aten.permute.default(x, [0, 3, 1, 2])
    convolution: "f32[2, 4, 3, 3][36, 1, 12, 4]" = torch.ops.aten.convolution.default(permute, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    return (convolution,)
`, f32([]int64{2, 5, 5, 3}, vals...), f32([]int64{4, 3, 3, 3}, w...))
	assert.Equal(t, []int64{36, 1, 12, 4}, res.Outputs[0].(*Tensor).Strides)
}
