package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Convolution (direct, any number of spatial dims, groups, dilation; not
// transposed) and 2-d pooling, accumulated in float64.

// spatialParam expands an int[] parameter to n values (one value repeats).
func spatialParam(c *call, name string, n int, def int64) ([]int64, error) {
	if !c.has(name) || c.isNone(name) {
		return repeatN(def, n), nil
	}
	v, err := c.intList(name)
	if err != nil {
		return nil, err
	}
	switch len(v) {
	case 0:
		return nil, nil
	case 1:
		return repeatN(v[0], n), nil
	case n:
		return v, nil
	}
	return nil, fmt.Errorf("expected %s to be a single integer value or a list of %d values, got %s", name, n, ints(v))
}

func repeatN(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// convGeom is one convolution's geometry.
type convGeom struct {
	n, cin, cout, groups      int64
	in, k, out                []int64
	stride, padding, dilation []int64
}

func kConvolution(c *call) ([]any, error) {
	x, w, err := c.tensor2("input", "weight")
	if err != nil {
		return nil, err
	}
	bias, err := c.optTensor("bias")
	if err != nil {
		return nil, err
	}
	if c.has("transposed") {
		tr, err := c.bool("transposed")
		if err != nil {
			return nil, err
		}
		if tr {
			return kConvTranspose(c, x, w, bias)
		}
	}
	unbatched := x.Dim() == w.Dim()-1
	if unbatched {
		x, _ = unsqueeze(x, 0)
	}
	if x.Dim() != w.Dim() || x.Dim() < 3 {
		return nil, fmt.Errorf("Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead",
			w.Dim(), w.Dim(), ints(w.Shape), x.Dim(), ints(x.Shape))
	}
	if err := sameDTypes(x, w); err != nil {
		return nil, err
	}
	sp := x.Dim() - 2
	g := &convGeom{n: x.Shape[0], cin: x.Shape[1], cout: w.Shape[0], in: x.Shape[2:], k: w.Shape[2:]}
	if g.groups, err = c.int("groups"); err != nil {
		return nil, err
	}
	if g.stride, err = spatialParam(c, "stride", sp, 1); err != nil {
		return nil, err
	}
	if g.dilation, err = spatialParam(c, "dilation", sp, 1); err != nil {
		return nil, err
	}
	if g.padding, err = convPadding(c, sp, g); err != nil {
		return nil, err
	}
	if g.groups <= 0 || g.cin != w.Shape[1]*g.groups || g.cout%g.groups != 0 {
		return nil, fmt.Errorf("Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d channels instead",
			g.groups, ints(w.Shape), ints(x.Shape), w.Shape[1]*g.groups, g.cin)
	}
	for i := range g.in {
		o := (g.in[i]+2*g.padding[i]-g.dilation[i]*(g.k[i]-1)-1)/g.stride[i] + 1
		if o <= 0 {
			return nil, fmt.Errorf("Calculated output size is too small")
		}
		g.out = append(g.out, o)
	}
	out := g.run(x.Floats(), w.Floats())
	if bias != nil {
		bv := bias.Floats()
		per := numel(g.out)
		for i := range out {
			out[i] += bv[(int64(i)/per)%g.cout]
		}
	}
	shape := append([]int64{g.n, g.cout}, g.out...)
	res := FromFloatsOn(x.DType, shape, out, x.Device())
	if convChannelsLast(x, w) {
		if res, err = cloneAs(res, "channels_last"); err != nil {
			return nil, err
		}
	}
	if unbatched {
		res, _ = squeezeDims(res, []int64{0})
	}
	return one(res)
}

// convChannelsLast is the convolution's output memory format, the rule
// fakeprop types it with (ops' meta_conv pick_memory_format): a
// channels-last input gives a channels-last output (a transformer's NHWC
// permute before a depthwise conv, testdata/dynamo/hf_convnext).
func convChannelsLast(x, w *Tensor) bool {
	if x.Dim() != 4 {
		return false // channels_last_3d outputs: not modelled
	}
	return ops.ConvChannelsLast(x.staticType(), w.staticType())
}

// convPadding reads padding as ints or as 'valid' / 'same'.
func convPadding(c *call, sp int, g *convGeom) ([]int64, error) {
	if x, err := c.val("padding"); err == nil {
		if s, ok := x.(string); ok {
			switch s {
			case "valid":
				return repeatN(0, sp), nil
			case "same":
				p := make([]int64, sp)
				for i := range p {
					p[i] = g.dilation[i] * (g.k[i] - 1) / 2
				}
				return p, nil
			}
			return nil, fmt.Errorf("Invalid padding string: '%s'", s)
		}
	}
	return spatialParam(c, "padding", sp, 0)
}

// run computes the convolution over row-major arrays, parallel over
// (batch, output channel) planes.
func (g *convGeom) run(x, w []float64) []float64 {
	perOut, perIn, perK := numel(g.out), numel(g.in), numel(g.k)
	out := make([]float64, g.n*g.cout*perOut)
	cinG, coutG := g.cin/g.groups, g.cout/g.groups
	sp := len(g.in)
	// precomputed multi-indices of every output position and kernel tap
	outIdx, kIdx := indexTable(g.out), indexTable(g.k)
	parallelRows(g.n*g.cout, perOut*cinG*perK, func(lo, hi int64) {
		pos := make([]int64, sp)
		for plane := lo; plane < hi; plane++ {
			n, co := plane/g.cout, plane%g.cout
			grp := co / coutG
			for o := int64(0); o < perOut; o++ {
				oi := outIdx[o*int64(sp):]
				sum := 0.0
				for kk := int64(0); kk < perK; kk++ {
					ki := kIdx[kk*int64(sp):]
					flat, inside := int64(0), true
					for d := 0; d < sp; d++ {
						pos[d] = oi[d]*g.stride[d] - g.padding[d] + ki[d]*g.dilation[d]
						if pos[d] < 0 || pos[d] >= g.in[d] {
							inside = false
							break
						}
						flat = flat*g.in[d] + pos[d]
					}
					if !inside {
						continue
					}
					for ci := int64(0); ci < cinG; ci++ {
						sum += x[(n*g.cin+grp*cinG+ci)*perIn+flat] * w[(co*cinG+ci)*perK+kk]
					}
				}
				out[plane*perOut+o] = sum
			}
		}
	})
	return out
}

// indexTable lists the multi-index of every element of shape, flattened.
func indexTable(shape []int64) []int64 {
	n := numel(shape)
	out := make([]int64, 0, n*int64(len(shape)))
	for i := int64(0); i < n; i++ {
		out = append(out, unravel(i, shape)...)
	}
	return out
}

// poolGeom is one 2-d pooling's parameters.
type poolGeom struct {
	k, st, pad, dil []int64
	ceil, countPad  bool
	divisor         int64 // avg_pool2d's divisor_override; 0 when None
}

func poolArgs(c *call, avg bool) (*poolGeom, error) {
	g := &poolGeom{dil: []int64{1, 1}, countPad: true}
	var err error
	if g.k, err = spatialParam(c, "kernel_size", 2, 1); err != nil {
		return nil, err
	}
	if g.st, err = spatialParam(c, "stride", 2, 0); err != nil {
		return nil, err
	}
	if len(g.st) == 0 || g.st[0] == 0 {
		g.st = g.k
	}
	if g.pad, err = spatialParam(c, "padding", 2, 0); err != nil {
		return nil, err
	}
	if !avg {
		if g.dil, err = spatialParam(c, "dilation", 2, 1); err != nil {
			return nil, err
		}
	}
	if g.ceil, err = c.bool("ceil_mode"); err != nil {
		return nil, err
	}
	if avg && c.has("count_include_pad") {
		if g.countPad, err = c.bool("count_include_pad"); err != nil {
			return nil, err
		}
	}
	if avg && c.has("divisor_override") {
		d, ok, err := c.optInt("divisor_override")
		if err != nil {
			return nil, err
		}
		if ok && d == 0 {
			return nil, fmt.Errorf("divisor must be not zero")
		}
		if ok {
			g.divisor = d
		}
	}
	return g, nil
}

// pool2d is max or average pooling over the last two dims.
func pool2d(c *call, avg bool) ([]any, error) {
	x, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if x.Dim() != 3 && x.Dim() != 4 {
		return nil, fmt.Errorf("non-empty 3D or 4D (batch mode) tensor expected for input")
	}
	g, err := poolArgs(c, avg)
	if err != nil {
		return nil, err
	}
	h, w := x.Shape[x.Dim()-2], x.Shape[x.Dim()-1]
	oh, ow := poolOut(h, g.k[0], g.pad[0], g.st[0], g.dil[0], g.ceil), poolOut(w, g.k[1], g.pad[1], g.st[1], g.dil[1], g.ceil)
	planes := numel(x.Shape) / max(h*w, 1)
	xs := x.Floats()
	vals := make([]float64, planes*oh*ow)
	idx := make([]int64, len(vals))
	win := make([]int64, len(vals)) // offset within the window (low-memory max pool)
	for p := int64(0); p < planes; p++ {
		for i := int64(0); i < oh; i++ {
			for j := int64(0); j < ow; j++ {
				o := p*oh*ow + i*ow + j
				vals[o], idx[o], win[o] = g.window(xs[p*h*w:(p+1)*h*w], h, w, i, j, avg)
			}
		}
	}
	shape := append(clone64(x.Shape[:x.Dim()-2]), oh, ow)
	out := FromFloatsOn(x.DType, shape, vals, x.Device())
	switch c.op.Schema.Name {
	case "max_pool2d_with_indices":
		return []any{out, FromInts(ir.I64, shape, idx)}, nil
	case "_low_memory_max_pool_with_offsets":
		return []any{out, FromInts(ir.I8, shape, win)}, nil
	}
	return one(out)
}

// window pools output element (i, j) of one plane: the max with its flat
// index and offset in the window (a NaN wins, the last one), or the mean.
func (g *poolGeom) window(plane []float64, h, w, i, j int64, avg bool) (float64, int64, int64) {
	best, at, sum, cnt, wo := math.Inf(-1), int64(-1), 0.0, int64(0), int64(0)
	h0, w0 := i*g.st[0]-g.pad[0], j*g.st[1]-g.pad[1]
	for a := int64(0); a < g.k[0]; a++ {
		for b := int64(0); b < g.k[1]; b++ {
			r, col := h0+a*g.dil[0], w0+b*g.dil[1]
			if avg && g.countPad && r < h+g.pad[0] && col < w+g.pad[1] {
				cnt++
			}
			if r < 0 || r >= h || col < 0 || col >= w {
				continue
			}
			v := plane[r*w+col]
			switch {
			case avg:
				sum += v
				if !g.countPad {
					cnt++
				}
			case v > best || v != v || at < 0:
				best, at, wo = v, r*w+col, a*g.k[1]+b
			}
		}
	}
	if avg {
		if g.divisor != 0 {
			cnt = g.divisor
		}
		return sum / float64(max(cnt, 1)), 0, 0
	}
	return best, at, wo
}

// poolOut is pooling_output_shape.
func poolOut(in, k, pad, stride, dil int64, ceil bool) int64 {
	num := in + 2*pad - dil*(k-1) - 1
	if ceil {
		num += stride - 1
	}
	out := num/stride + 1
	if ceil && (out-1)*stride >= in+pad {
		out--
	}
	return out
}

func init() {
	register(kConvolution, "convolution", "conv1d", "conv2d", "conv3d", "conv2d.padding", "conv1d.padding", "conv3d.padding")
	register(func(c *call) ([]any, error) { return pool2d(c, false) }, "max_pool2d", "max_pool2d_with_indices",
		"prims::_low_memory_max_pool_with_offsets")
	register(func(c *call) ([]any, error) { return pool2d(c, true) }, "avg_pool2d")
}

// staticType is t's shape, strides and device as a type, for the rules
// ops computes layouts with.
func (t *Tensor) staticType() *ir.TensorType {
	consts := func(xs []int64) []sym.Expr {
		out := make([]sym.Expr, len(xs))
		for i, x := range xs {
			out[i] = sym.Const(x)
		}
		return out
	}
	return &ir.TensorType{DType: t.DType, Shape: consts(t.Shape), Strides: consts(t.Strides),
		Offset: sym.Const(t.Offset), Device: t.Device()}
}
