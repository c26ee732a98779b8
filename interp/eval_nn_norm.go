package interp

import (
	"fmt"
)

// native_group_norm and its backward: input [N, C, *] is normalized over
// each of `group` groups of C/group channels and the spatial dims, then
// scaled and shifted per channel; mean and rstd are [N, group].

func init() {
	register(kGroupNorm, "native_group_norm")
	register(kGroupNormBackward, "native_group_norm_backward")
}

// groupDims reads N, C, HxW and group and checks them against x.
func groupDims(c *call, x *Tensor) (n, ch, hw, g int64, err error) {
	dims, err := c.ints("N", "C", "HxW", "group")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	n, ch, hw, g = dims[0], dims[1], dims[2], dims[3]
	if g <= 0 || ch%g != 0 {
		return 0, 0, 0, 0, fmt.Errorf("Expected number of channels in input to be divisible by num_groups, but got input of shape %v and num_groups=%d", x.Shape, g)
	}
	if n*ch*hw != x.Numel() {
		return 0, 0, 0, 0, fmt.Errorf("Expect input to have %d elements", n*ch*hw)
	}
	return n, ch, hw, g, nil
}

func kGroupNorm(c *call) ([]any, error) {
	x, w, b, eps, err := normArgs(c)
	if err != nil {
		return nil, err
	}
	n, ch, hw, g, err := groupDims(c, x)
	if err != nil {
		return nil, err
	}
	out, means, rstds := normalizeRows(contiguous(x).Floats(), n*g, ch/g*hw, eps, floatsOrNil(w), floatsOrNil(b),
		func(k int64) int64 { return (k / hw) % ch })
	dev := x.Device()
	return []any{FromFloatsOn(x.DType, x.Shape, out, dev), FromFloatsOn(x.DType, []int64{n, g}, means, dev),
		FromFloatsOn(x.DType, []int64{n, g}, rstds, dev)}, nil
}

// kGroupNormBackward is layer norm's backward over each group, the
// weight being per channel: dx = rstd/M·(M·gw - Σgw - x̂·Σgw·x̂).
func kGroupNormBackward(c *call) ([]any, error) {
	dy, x, err := c.tensor2("grad_out", "input")
	if err != nil {
		return nil, err
	}
	mean, rstd, err := c.tensor2("mean", "rstd")
	if err != nil {
		return nil, err
	}
	w, err := c.optTensor("weight")
	if err != nil {
		return nil, err
	}
	mask, err := boolArgs(c, "output_mask")
	if err != nil {
		return nil, err
	}
	n, ch, hw, g, err := groupDims(c, x)
	if err != nil {
		return nil, err
	}
	xs, gs, ms, rs, ws := contiguous(x).Floats(), contiguous(dy).Floats(), mean.Floats(), rstd.Floats(), floatsOrNil(w)
	dx, dw, db := make([]float64, len(xs)), make([]float64, ch), make([]float64, ch)
	size := ch / g * hw
	for r := int64(0); r < n*g; r++ {
		sumG, sumGX := 0.0, 0.0
		for i := r * size; i < (r+1)*size; i++ {
			k := (i / hw) % ch
			xh := (xs[i] - ms[r]) * rs[r]
			gw := gs[i]
			if ws != nil {
				gw *= ws[k]
			}
			sumG += gw
			sumGX += gw * xh
			dw[k] += gs[i] * xh
			db[k] += gs[i]
		}
		for i := r * size; i < (r+1)*size; i++ {
			xh := (xs[i] - ms[r]) * rs[r]
			gw := gs[i]
			if ws != nil {
				gw *= ws[(i/hw)%ch]
			}
			dx[i] = rs[r] / float64(size) * (float64(size)*gw - sumG - xh*sumGX)
		}
	}
	res := []any{nil, nil, nil}
	dev := x.Device()
	if len(mask) > 0 && mask[0] {
		res[0] = FromFloatsOn(x.DType, x.Shape, dx, dev)
	}
	if len(mask) > 1 && mask[1] {
		res[1] = FromFloatsOn(x.DType, []int64{ch}, dw, dev)
	}
	if len(mask) > 2 && mask[2] {
		res[2] = FromFloatsOn(x.DType, []int64{ch}, db, dev)
	}
	return res, nil
}
