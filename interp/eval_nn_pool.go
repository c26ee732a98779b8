package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// adaptive_max_pool2d (+backward), im2col and col2im over [N,] C, H, W
// planes.

func init() {
	register(kAdaptiveMaxPool2d, "adaptive_max_pool2d")
	register(kAdaptiveMaxPool2dBackward, "adaptive_max_pool2d_backward")
	register(kIm2col, "im2col")
	register(kCol2im, "col2im")
}

// adaptiveWindow is ATen's start_index/end_index: [floor(o·in/out),
// ceil((o+1)·in/out)).
func adaptiveWindow(o, in, out int64) (lo, hi int64) {
	lo = o * in / out
	hi = ((o+1)*in + out - 1) / out
	return lo, hi
}

// kAdaptiveMaxPool2d takes each window's first maximum (NaN wins) and its
// index h·W + w in the input plane.
func kAdaptiveMaxPool2d(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.intList("output_size")
	if err != nil {
		return nil, err
	}
	if (self.Dim() != 3 && self.Dim() != 4) || len(size) != 2 {
		return nil, fmt.Errorf("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: %v", self.Shape)
	}
	h, w := self.Shape[self.Dim()-2], self.Shape[self.Dim()-1]
	oh, ow := size[0], size[1]
	planes := numel(self.Shape[:self.Dim()-2])
	xs := contiguous(self).Floats()
	vals, idx := make([]float64, planes*oh*ow), make([]float64, planes*oh*ow)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			h0, h1 := adaptiveWindow(i, h, oh)
			for j := int64(0); j < ow; j++ {
				w0, w1 := adaptiveWindow(j, w, ow)
				best, at := math.Inf(-1), h0*w+w0
				for y := h0; y < h1; y++ {
					for x := w0; x < w1; x++ {
						v := xs[p*h*w+y*w+x]
						if v > best || v != v {
							best, at = v, y*w+x
							if v != v {
								y, x = h1, w1
							}
						}
					}
				}
				k := p*oh*ow + i*ow + j
				vals[k], idx[k] = best, float64(at)
			}
		}
	}
	shape := append(clone64(self.Shape[:self.Dim()-2]), oh, ow)
	dev := self.Device()
	return []any{FromFloatsOn(self.DType, shape, vals, dev), FromFloatsOn(ir.I64, shape, idx, dev)}, nil
}

// kAdaptiveMaxPool2dBackward adds each gradient at its index in the plane.
func kAdaptiveMaxPool2dBackward(c *call) ([]any, error) {
	g, self, err := c.tensor2("grad_output", "self")
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor("indices")
	if err != nil {
		return nil, err
	}
	if self.Dim() < 2 || g.Dim() != self.Dim() {
		return nil, fmt.Errorf("adaptive_max_pool2d_backward: grad_output of %dD for input of %dD", g.Dim(), self.Dim())
	}
	plane := self.Shape[self.Dim()-2] * self.Shape[self.Dim()-1]
	oplane := g.Shape[g.Dim()-2] * g.Shape[g.Dim()-1]
	gs, ix := contiguous(g).Floats(), contiguous(idx).Ints()
	res := make([]float64, self.Numel())
	for k, v := range gs {
		p := int64(k) / max(oplane, 1)
		if ix[k] < 0 || ix[k] >= plane {
			return nil, fmt.Errorf("adaptive_max_pool2d_backward: index %d out of the plane of %d", ix[k], plane)
		}
		res[p*plane+ix[k]] += v
	}
	return one(FromFloatsOn(g.DType, self.Shape, res, self.Device()))
}

// unfoldGeom is im2col/col2im's four int[2] parameters.
type unfoldGeom struct{ k, d, p, s [2]int64 }

func readUnfold(c *call) (unfoldGeom, error) {
	var g unfoldGeom
	for i, name := range []string{"kernel_size", "dilation", "padding", "stride"} {
		v, err := c.intList(name)
		if err != nil {
			return g, err
		}
		if len(v) != 2 {
			return g, fmt.Errorf("%s(): only 2D %s supported", c.op.Schema.Name, name)
		}
		*[]*[2]int64{&g.k, &g.d, &g.p, &g.s}[i] = [2]int64{v[0], v[1]}
	}
	return g, nil
}

// blocks is the number of sliding positions along dim i of size n.
func (g unfoldGeom) blocks(i int, n int64) int64 {
	return (n+2*g.p[i]-g.d[i]*(g.k[i]-1)-1)/g.s[i] + 1
}

// each calls f(col, l, y, x) for every column entry: channel-kernel row
// col, block l, and the input row and column it reads (outside the plane
// in the padding).
func (g unfoldGeom) each(ch, h, w int64, f func(col, l, y, x int64)) {
	bh, bw := g.blocks(0, h), g.blocks(1, w)
	for cc := int64(0); cc < ch; cc++ {
		for i := int64(0); i < g.k[0]; i++ {
			for j := int64(0); j < g.k[1]; j++ {
				col := (cc*g.k[0]+i)*g.k[1] + j
				for by := int64(0); by < bh; by++ {
					for bx := int64(0); bx < bw; bx++ {
						y, x := by*g.s[0]-g.p[0]+i*g.d[0], bx*g.s[1]-g.p[1]+j*g.d[1]
						f(col, by*bw+bx, y, x)
					}
				}
			}
		}
	}
}

func kIm2col(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	g, err := readUnfold(c)
	if err != nil {
		return nil, err
	}
	if self.Dim() != 3 && self.Dim() != 4 {
		return nil, fmt.Errorf("Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and non-zero dimensions, but got: %v", self.Shape)
	}
	x := self
	if x.Dim() == 3 {
		x = x.view([]int64{1, x.Shape[0], x.Shape[1], x.Shape[2]}, []int64{0, x.Strides[0], x.Strides[1], x.Strides[2]}, x.Offset)
	}
	n, ch, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	bh, bw := g.blocks(0, h), g.blocks(1, w)
	if bh < 1 || bw < 1 {
		return nil, fmt.Errorf("Given an input with spatial size (%d, %d), kernel_size=%v, dilation=%v, padding=%v, stride=%v, the calculated shape of the array of sliding blocks is [%d, %d], but its components must be at least one.",
			h, w, g.k, g.d, g.p, g.s, bh, bw)
	}
	rows, cols := ch*g.k[0]*g.k[1], bh*bw
	xs := contiguous(x).Floats()
	out := make([]float64, n*rows*cols)
	for b := int64(0); b < n; b++ {
		base := b * ch * h * w
		g.each(ch, h, w, func(col, l, y, xx int64) {
			cc := col / (g.k[0] * g.k[1])
			if y < 0 || y >= h || xx < 0 || xx >= w {
				return
			}
			out[(b*rows+col)*cols+l] = xs[base+cc*h*w+y*w+xx]
		})
	}
	shape := []int64{n, rows, cols}
	if self.Dim() == 3 {
		shape = shape[1:]
	}
	return one(FromFloatsOn(self.DType, shape, out, self.Device()))
}

func kCol2im(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.intList("output_size")
	if err != nil {
		return nil, err
	}
	g, err := readUnfold(c)
	if err != nil {
		return nil, err
	}
	if self.Dim() != 2 && self.Dim() != 3 || len(size) != 2 {
		return nil, fmt.Errorf("Expected 2D or 3D (batch mode) tensor for input with possible 0 batch size and non-zero dimensions, but got: %v", self.Shape)
	}
	batched := self.Dim() == 3
	n := int64(1)
	if batched {
		n = self.Shape[0]
	}
	rows, cols := self.Shape[self.Dim()-2], self.Shape[self.Dim()-1]
	kk := g.k[0] * g.k[1]
	if rows%kk != 0 {
		return nil, fmt.Errorf("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=%d and kernel_size=%v", rows, g.k)
	}
	ch, h, w := rows/kk, size[0], size[1]
	if g.blocks(0, h)*g.blocks(1, w) != cols {
		return nil, fmt.Errorf("Given output_size=%v, kernel_size=%v, dilation=%v, padding=%v, stride=%v, expected size of input's dimension 2 to match the calculated number of sliding blocks %d * %d = %d, but got input.size(2)=%d.",
			size, g.k, g.d, g.p, g.s, g.blocks(0, h), g.blocks(1, w), g.blocks(0, h)*g.blocks(1, w), cols)
	}
	xs := contiguous(self).Floats()
	out := make([]float64, n*ch*h*w)
	for b := int64(0); b < n; b++ {
		g.each(ch, h, w, func(col, l, y, x int64) {
			cc := col / kk
			if y < 0 || y >= h || x < 0 || x >= w {
				return
			}
			out[((b*ch+cc)*h+y)*w+x] += xs[(b*rows+col)*cols+l]
		})
	}
	shape := []int64{n, ch, h, w}
	if !batched {
		shape = shape[1:]
	}
	return one(FromFloatsOn(self.DType, shape, out, self.Device()))
}

func init() {
	register(kAdaptiveAvgPool3d, "_adaptive_avg_pool3d")
	register(kAdaptiveAvgPool3dBackward, "_adaptive_avg_pool3d_backward")
}

// adaptive3d calls f(plane, out index, in index, window size) for every
// input element of every output window of a [.., D, H, W] → [.., od, oh,
// ow] adaptive pooling.
func adaptive3d(in, out []int64, planes int64, f func(o, i int64, n float64)) {
	d, h, w, od, oh, ow := in[0], in[1], in[2], out[0], out[1], out[2]
	for p := int64(0); p < planes; p++ {
		for a := int64(0); a < od; a++ {
			d0, d1 := adaptiveWindow(a, d, od)
			for b := int64(0); b < oh; b++ {
				h0, h1 := adaptiveWindow(b, h, oh)
				for e := int64(0); e < ow; e++ {
					w0, w1 := adaptiveWindow(e, w, ow)
					n := float64((d1 - d0) * (h1 - h0) * (w1 - w0))
					o := ((p*od+a)*oh+b)*ow + e
					for z := d0; z < d1; z++ {
						for y := h0; y < h1; y++ {
							for x := w0; x < w1; x++ {
								f(o, ((p*d+z)*h+y)*w+x, n)
							}
						}
					}
				}
			}
		}
	}
}

func kAdaptiveAvgPool3d(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.intList("output_size")
	if err != nil {
		return nil, err
	}
	r := self.Dim()
	if (r != 4 && r != 5) || len(size) != 3 {
		return nil, fmt.Errorf("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got %v", self.Shape)
	}
	planes := numel(self.Shape[:r-3])
	xs := contiguous(self).Floats()
	out := make([]float64, planes*numel(size))
	adaptive3d(self.Shape[r-3:], size, planes, func(o, i int64, n float64) { out[o] += xs[i] / n })
	return one(FromFloatsOn(self.DType, append(clone64(self.Shape[:r-3]), size...), out, self.Device()))
}

func kAdaptiveAvgPool3dBackward(c *call) ([]any, error) {
	g, self, err := c.tensor2("grad_output", "self")
	if err != nil {
		return nil, err
	}
	r := self.Dim()
	if (r != 4 && r != 5) || g.Dim() != r {
		return nil, fmt.Errorf("adaptive_avg_pool3d_backward: grad_output of %dD for input of %dD", g.Dim(), r)
	}
	planes := numel(self.Shape[:r-3])
	gs := contiguous(g).Floats()
	out := make([]float64, self.Numel())
	adaptive3d(self.Shape[r-3:], g.Shape[r-3:], planes, func(o, i int64, n float64) { out[i] += gs[o] / n })
	return one(FromFloatsOn(g.DType, self.Shape, out, self.Device()))
}
