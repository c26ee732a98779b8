package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// _batch_norm_with_update and batch_norm_backward (native_batch_norm's
// kernels under their newer names), cdist forward/backward, native dropout's
// backward and bilinear upsampling's backward.

func init() {
	register(kBatchNormWithUpdate, "_batch_norm_with_update")
	register(kBatchNormBackwardNew, "batch_norm_backward")
	register(kUpsampleBilinear2dBackward, "upsample_bilinear2d_backward")
}

// kBatchNormWithUpdate is native_batch_norm in training mode (running
// stats updated in place) with an empty uint8 reserve.
func kBatchNormWithUpdate(c *call) ([]any, error) {
	res, err := kBatchNorm(c.with(map[string]any{"training": true}))
	if err != nil {
		return nil, err
	}
	x, _ := c.tensor("input")
	reserve, err := Empty(ir.U8, []int64{0}, nil, x.Device())
	if err != nil {
		return nil, err
	}
	return append(res, reserve), nil
}

// kBatchNormBackwardNew is native_batch_norm_backward with train = update
// and save_var holding the saved inverse std.
func kBatchNormBackwardNew(c *call) ([]any, error) {
	update, err := c.bool("update")
	if err != nil {
		return nil, err
	}
	sv, err := c.optTensor("save_var")
	if err != nil {
		return nil, err
	}
	var invstd any
	if sv != nil {
		invstd = sv
	}
	return kBatchNormBackward(c.with(map[string]any{"train": update, "save_invstd": invstd}))
}

// cdistRows reads x1 [B, r1, m] and x2 [B, r2, m] (batch dims broadcast
// and flattened) as row-major floats.
func cdistRows(x1, x2 *Tensor) (a, b []float64, batch []int64, r1, r2, m int64, err error) {
	if x1.Dim() < 2 || x2.Dim() < 2 || x1.Shape[x1.Dim()-1] != x2.Shape[x2.Dim()-1] {
		return nil, nil, nil, 0, 0, 0, fmt.Errorf("cdist: X1 and X2 must have the same number of columns, got %v and %v", x1.Shape, x2.Shape)
	}
	batch, err = broadcastShapes(x1.Shape[:x1.Dim()-2], x2.Shape[:x2.Dim()-2])
	if err != nil {
		return nil, nil, nil, 0, 0, 0, err
	}
	r1, r2, m = x1.Shape[x1.Dim()-2], x2.Shape[x2.Dim()-2], x1.Shape[x1.Dim()-1]
	a = contiguous(expandTo(x1, append(clone64(batch), r1, m))).Floats()
	b = contiguous(expandTo(x2, append(clone64(batch), r2, m))).Floats()
	return a, b, batch, r1, r2, m, nil
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// kUpsampleBilinear2dBackward spreads each gradient over its four source
// taps with the forward's weights.
func kUpsampleBilinear2dBackward(c *call) ([]any, error) {
	g, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	inSize, err := c.intList("input_size")
	if err != nil {
		return nil, err
	}
	ac, err := c.bool("align_corners")
	if err != nil {
		return nil, err
	}
	if len(inSize) != 4 || g.Dim() != 4 {
		return nil, fmt.Errorf("upsample_bilinear2d_backward: expected 4D sizes, got %v", inSize)
	}
	size, scales, err := upsampleGeom(c, inSize, 2)
	if err != nil {
		return nil, err
	}
	h, w, oh, ow := inSize[2], inSize[3], size[0], size[1]
	h0, h1, lh := linearTaps(ac, h, oh, scales[0])
	w0, w1, lw := linearTaps(ac, w, ow, scales[1])
	gs := contiguous(g).Floats()
	planes := inSize[0] * inSize[1]
	res := make([]float64, planes*h*w)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			for j := int64(0); j < ow; j++ {
				v := gs[(p*oh+i)*ow+j]
				base := p * h * w
				res[base+h0[i]*w+w0[j]] += (1 - lh[i]) * (1 - lw[j]) * v
				res[base+h0[i]*w+w1[j]] += (1 - lh[i]) * lw[j] * v
				res[base+h1[i]*w+w0[j]] += lh[i] * (1 - lw[j]) * v
				res[base+h1[i]*w+w1[j]] += lh[i] * lw[j] * v
			}
		}
	}
	return one(FromFloatsOn(g.DType, inSize, res, g.Device()))
}
