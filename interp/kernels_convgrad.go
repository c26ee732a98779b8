package interp

import "fmt"

// Transposed convolution and convolution_backward. Both come from one walk
// over the (input element, weight element, output element) triples of a
// direct convolution: the forward sums x·w into out, the input gradient
// sums g·w into x's place, the weight gradient sums g·x into w's place, and
// a transposed convolution is the input gradient of the direct convolution
// whose output has the transposed one's input shape.

// visit calls f(xi, wi, oi) for every tap of the direct convolution g
// (row-major flat indices into input, weight and output).
func (g *convGeom) visit(f func(xi, wi, oi int64)) {
	perOut, perIn, perK := numel(g.out), numel(g.in), numel(g.k)
	cinG, coutG := g.cin/g.groups, g.cout/g.groups
	sp := len(g.in)
	outIdx, kIdx := indexTable(g.out), indexTable(g.k)
	for plane := int64(0); plane < g.n*g.cout; plane++ {
		n, co := plane/g.cout, plane%g.cout
		grp := co / coutG
		for o := int64(0); o < perOut; o++ {
			oi := outIdx[o*int64(sp):]
			for kk := int64(0); kk < perK; kk++ {
				ki := kIdx[kk*int64(sp):]
				flat, inside := int64(0), true
				for d := 0; d < sp; d++ {
					p := oi[d]*g.stride[d] - g.padding[d] + ki[d]*g.dilation[d]
					if p < 0 || p >= g.in[d] {
						inside = false
						break
					}
					flat = flat*g.in[d] + p
				}
				if !inside {
					continue
				}
				for ci := int64(0); ci < cinG; ci++ {
					f((n*g.cin+grp*cinG+ci)*perIn+flat, (co*cinG+ci)*perK+kk, plane*perOut+o)
				}
			}
		}
	}
}

// convParams reads stride, padding, dilation, output_padding and groups.
func convParams(c *call, sp int) (stride, pad, dil, outPad []int64, groups int64, err error) {
	if stride, err = spatialParam(c, "stride", sp, 1); err != nil {
		return
	}
	if pad, err = spatialParam(c, "padding", sp, 0); err != nil {
		return
	}
	if dil, err = spatialParam(c, "dilation", sp, 1); err != nil {
		return
	}
	if outPad, err = spatialParam(c, "output_padding", sp, 0); err != nil {
		return
	}
	groups, err = c.int("groups")
	return
}

// kConvTranspose is convolution(transposed=True): weight is
// [C_in, C_out/groups, k...]; out = (in-1)·stride - 2·pad + dil·(k-1) +
// output_padding + 1.
func kConvTranspose(c *call, x, w, bias *Tensor) ([]any, error) {
	if x.Dim() != w.Dim() || x.Dim() < 3 {
		return nil, fmt.Errorf("Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead",
			w.Dim(), w.Dim(), ints(w.Shape), x.Dim(), ints(x.Shape))
	}
	sp := x.Dim() - 2
	stride, pad, dil, outPad, groups, err := convParams(c, sp)
	if err != nil {
		return nil, err
	}
	if groups <= 0 || x.Shape[1] != w.Shape[0] || x.Shape[1]%groups != 0 {
		return nil, fmt.Errorf("Given transposed=1, weight of size %s, expected input%s to have %d channels, but got %d channels instead",
			ints(w.Shape), ints(x.Shape), w.Shape[0], x.Shape[1])
	}
	cout := w.Shape[1] * groups
	// the direct convolution this one is the input gradient of
	g := &convGeom{n: x.Shape[0], cin: cout, cout: x.Shape[1], groups: groups, k: w.Shape[2:], out: x.Shape[2:],
		stride: stride, padding: pad, dilation: dil}
	for i := 0; i < sp; i++ {
		g.in = append(g.in, (x.Shape[2+i]-1)*stride[i]-2*pad[i]+dil[i]*(g.k[i]-1)+outPad[i]+1)
	}
	xs, ws := x.Floats(), w.Floats()
	out := make([]float64, g.n*cout*numel(g.in))
	g.visit(func(xi, wi, oi int64) { out[xi] += xs[oi] * ws[wi] })
	if bias != nil {
		bv, per := bias.Floats(), numel(g.in)
		for i := range out {
			out[i] += bv[(int64(i)/per)%cout]
		}
	}
	return one(FromFloatsOn(x.DType, append([]int64{g.n, cout}, g.in...), out, x.Device()))
}

// kConvBackward is convolution_backward: (grad_input, grad_weight,
// grad_bias), each None where output_mask is false.
func kConvBackward(c *call) ([]any, error) {
	gout, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	x, w, err := c.tensor2("input", "weight")
	if err != nil {
		return nil, err
	}
	tr, err := c.bool("transposed")
	if err != nil {
		return nil, err
	}
	mask, err := boolArgs(c, "output_mask")
	if err != nil {
		return nil, err
	}
	sp := x.Dim() - 2
	stride, pad, dil, _, groups, err := convParams(c, sp)
	if err != nil {
		return nil, err
	}
	g := &convGeom{n: x.Shape[0], cin: x.Shape[1], cout: w.Shape[0], groups: groups, in: x.Shape[2:], k: w.Shape[2:],
		out: gout.Shape[2:], stride: stride, padding: pad, dilation: dil}
	xs, ws, gs := x.Floats(), w.Floats(), gout.Floats()
	gx, gw := make([]float64, len(xs)), make([]float64, len(ws))
	if tr { // the direct convolution maps grad_output's shape to input's
		g.cin, g.cout, g.in, g.out = gout.Shape[1], x.Shape[1], gout.Shape[2:], x.Shape[2:]
		g.visit(func(gi, wi, xi int64) {
			gx[xi] += gs[gi] * ws[wi]
			gw[wi] += gs[gi] * xs[xi]
		})
	} else {
		g.visit(func(xi, wi, gi int64) {
			gx[xi] += gs[gi] * ws[wi]
			gw[wi] += gs[gi] * xs[xi]
		})
	}
	res := []any{nil, nil, nil}
	if len(mask) > 0 && mask[0] {
		res[0] = FromFloatsOn(x.DType, x.Shape, gx, x.Device())
	}
	if len(mask) > 1 && mask[1] {
		res[1] = FromFloatsOn(w.DType, w.Shape, gw, w.Device())
	}
	if len(mask) > 2 && mask[2] {
		co := gout.Shape[1]
		per := numel(gout.Shape[2:])
		gb := make([]float64, co)
		gv := gout.Floats()
		for i, v := range gv {
			gb[(int64(i)/per)%co] += v
		}
		res[2] = FromFloatsOn(gout.DType, []int64{co}, gb, gout.Device())
	}
	return res, nil
}

// boolArgs reads a bool[] parameter.
func boolArgs(c *call, name string) ([]bool, error) {
	v, err := c.val(name)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("argument '%s' must be a list of bools, not %s", name, describe(v))
	}
	out := make([]bool, len(list))
	for i, x := range list {
		b, ok := x.(bool)
		if !ok {
			return nil, fmt.Errorf("argument '%s' must be a list of bools, not %s", name, describe(v))
		}
		out[i] = b
	}
	return out, nil
}

func init() {
	register(kConvBackward, "convolution_backward")
}
