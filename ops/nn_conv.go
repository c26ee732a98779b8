package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Convolution, pooling, upsampling and attention meta rules, after
// torch/_meta_registrations.py (meta_conv, max_pool2d_with_indices,
// pooling_output_shape, upsample_*, scaled-dot-product attention).

// spatialParam reads an int[N] parameter, broadcasting a single value.
func spatialParam(c *Call, name string, n int, def []sym.Expr) ([]sym.Expr, error) {
	v, err := c.SymInts(name)
	if err != nil {
		return nil, err
	}
	switch {
	case len(v) == 0:
		return def, nil
	case len(v) == 1 && n > 1:
		out := make([]sym.Expr, n)
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	case len(v) != n:
		return nil, Errorf(CodeShape, "", "%s must have %d elements, got %d", name, n, len(v))
	}
	return v, nil
}

// metaConvolution is convolution(input, weight, bias, stride, padding,
// dilation, transposed, output_padding, groups) and convNd(...).
func metaConvolution(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "input", "weight")
	if err != nil {
		return nil, err
	}
	in, w := ts[0], ts[1]
	n := in.Rank() - 2
	if n < 1 || w.Rank() != in.Rank() {
		return nil, Errorf(CodeShape, "", "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead",
			w.Rank(), w.Rank(), shapeString(w.Shape), in.Rank(), shapeString(in.Shape))
	}
	ones, zeros := constList(n, 1), constList(n, 0)
	stride, err := spatialParam(c, "stride", n, ones)
	if err != nil {
		return nil, err
	}
	pad, err := spatialParam(c, "padding", n, zeros)
	if err != nil {
		return nil, err
	}
	dil, err := spatialParam(c, "dilation", n, ones)
	if err != nil {
		return nil, err
	}
	groups := sym.Expr(c1)
	if c.Has("groups") {
		if groups, err = c.SymInt("groups"); err != nil {
			return nil, err
		}
	}
	transposed := false
	if c.Has("transposed") {
		if transposed, err = c.Bool("transposed"); err != nil {
			return nil, err
		}
	}
	shape, err := env.convShape(c, in, w, convGeometry{stride, pad, dil, groups}, transposed)
	if err != nil {
		return nil, err
	}
	for i, s := range shape[2:] {
		if v, ok := s.Const(); ok && v <= 0 {
			return nil, Errorf(CodeShape, "", "Calculated output size %s is too small (dimension %d)", shapeString(shape), i+2)
		}
	}
	out := env.Contiguous(in.DType, shape, in.Device)
	if ConvChannelsLast(in, w) {
		out.Strides = env.StridesFor("channels_last", out)
	}
	return one(out), nil
}

// ConvChannelsLast is the output memory format FakeTensor's convolution
// picks (fake_impls.py conv: _conv_determine_backend_memory_format): a
// channels-last input or weight makes a batched 4-d output channels-last,
// on the CPU too. Checked on PyTorch 2.15, eager and FakeTensorMode alike,
// for regular, depthwise and 1x1 convolutions in float32, float64 and
// bfloat16; an unbatched input stays contiguous (fake_impls' mem_fmt None).
func ConvChannelsLast(in, w *ir.TensorType) bool {
	cl := func(t *ir.TensorType) bool { return SuggestMemoryFormat(t) == "channels_last" }
	return in.Rank() == w.Rank() && (cl(in) || cl(w))
}

func constList(n int, v int64) []sym.Expr {
	out := make([]sym.Expr, n)
	for i := range out {
		out[i] = sym.Const(v)
	}
	return out
}

// poolSize is pooling_output_shape.
func (env *Env) poolSize(in, k, pad, stride, dil sym.Expr, ceil bool) sym.Expr {
	num := sym.Sub(sym.Sub(sym.Add(in, sym.Mul(sym.Const(2), pad)), sym.Mul(dil, sym.Sub(k, c1))), c1)
	if ceil {
		num = sym.Add(num, sym.Sub(stride, c1))
	}
	out := sym.Add(sym.FloorDiv(num, stride), c1)
	if ceil {
		if ge, ok := env.decide(sym.Ge(sym.Mul(sym.Sub(out, c1), stride), sym.Add(in, pad))); ok && ge {
			out = sym.Sub(out, c1)
		}
	}
	return out
}

// metaPool2d covers max_pool2d(_with_indices), the inductor low-memory
// form, and avg_pool2d.
func metaPool2d(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 3 && self.Rank() != 4 {
		return nil, Errorf(CodeShape, "", "non-empty 3D or 4D (batch mode) tensor expected for input")
	}
	k, err := spatialParam(c, "kernel_size", 2, nil)
	if err != nil || k == nil {
		return nil, Errorf(CodeShape, "", "max_pool2d: kernel_size must either be a single int, or a tuple of two ints")
	}
	stride, err := spatialParam(c, "stride", 2, k)
	if err != nil {
		return nil, err
	}
	pad, err := spatialParam(c, "padding", 2, constList(2, 0))
	if err != nil {
		return nil, err
	}
	dil := constList(2, 1)
	if c.Has("dilation") {
		if dil, err = spatialParam(c, "dilation", 2, dil); err != nil {
			return nil, err
		}
	}
	ceil, err := c.Bool("ceil_mode")
	if err != nil {
		return nil, err
	}
	r := self.Rank()
	shape := copyExprs(self.Shape[:r-2])
	for i := 0; i < 2; i++ {
		shape = append(shape, env.poolSize(self.Shape[r-2+i], k[i], pad[i], stride[i], dil[i], ceil))
	}
	out := env.layoutLike(self.DType, shape, self)
	res := []ir.Type{ir.TensorOf(out)}
	if len(c.Op.Schema.Returns) == 2 {
		idxDT := ir.I64
		if c.Op.Schema.Namespace == "prims" {
			idxDT = ir.I8
		}
		idx := env.layoutLike(idxDT, copyExprs(shape), self)
		res = append(res, ir.TensorOf(idx))
	}
	return res, nil
}

// metaUpsample covers upsample_{bilinear,nearest}2d(.vec): output_size or
// floor(input * scale).
func metaUpsample(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor(c.Op.Schema.Params[0].Name)
	if err != nil {
		return nil, err
	}
	if in.Rank() < 3 {
		return nil, Errorf(CodeShape, "", "upsample expects a batched input with spatial dims, got %dD", in.Rank())
	}
	n := in.Rank() - 2
	shape := copyExprs(in.Shape[:2])
	if !c.IsNone("output_size") {
		size, err := c.SymInts("output_size")
		if err != nil {
			return nil, err
		}
		if len(size) != n {
			return nil, Errorf(CodeShape, "", "It is expected output_size equals to %d, but got size %d", n, len(size))
		}
		shape = append(shape, size...)
	} else {
		a := c.Arg("scale_factors")
		if !a.IsSequence() || len(a.Elems) != n {
			return nil, Errorf(CodeShape, "", "Must specify exactly one of output_size and scale_factors")
		}
		for i, e := range a.Elems {
			v, ok := in.Shape[2+i].Const()
			if !ok || e.Kind != ir.ArgFloat {
				return nil, Errorf(CodeUnsupported, "", "upsample with a scale factor over a symbolic size is not modelled")
			}
			shape = append(shape, sym.Const(int64(float64(v)*e.Float)))
		}
	}
	return one(env.layoutLike(in.DType, shape, in)), nil
}

// metaSDPA is scaled_dot_product_attention: [..., L, Ev].
func metaSDPA(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "query", "key", "value")
	if err != nil {
		return nil, err
	}
	q, v := ts[0], ts[2]
	if q.Rank() < 2 || v.Rank() < 2 {
		return nil, Errorf(CodeShape, "", "scaled_dot_product_attention expects query, key and value to be at least 2D")
	}
	shape := append(copyExprs(q.Shape[:q.Rank()-1]), v.Shape[v.Rank()-1])
	if sdpaFlashOnCPU(c, ts) {
		// _scaled_dot_product_flash_attention_for_cpu: empty_like(query)
		return one(env.Fresh(q.DType, shape, env.PreserveStrides(q), q.Device)), nil
	}
	return one(env.Contiguous(q.DType, shape, q.Device)), nil
}

// flashCPUDTypes are the dtypes the CPU flash kernel takes (float, double,
// bfloat16, half); float8 inputs take the math path.
var flashCPUDTypes = map[ir.DType]bool{ir.F32: true, ir.F64: true, ir.BF16: true, ir.F16: true}

// sdpaFlashOnCPU reports whether PyTorch's CPU backend choice
// (sdp_utils_cpp.cpp, use_flash_attention_cpp) takes the flash kernel for
// this call rather than the math path: 4-D floating inputs, one head size,
// unit stride in the last dim, no dropout. Checked against fake tensors of
// PyTorch 2.15: a transposed query's layout survives only on that path.
func sdpaFlashOnCPU(c *Call, qkv []*ir.TensorType) bool {
	if p, err := c.Float("dropout_p"); err != nil || p != 0 {
		return false
	}
	e := qkv[0].Shape[qkv[0].Rank()-1]
	for _, t := range qkv {
		if !t.Device.IsCPU() || t.Rank() != 4 || !flashCPUDTypes[t.DType] || !sym.Equal(t.Shape[3], e) {
			return false
		}
		if t.Strides == nil || !sym.Equal(t.Strides[3], c1) {
			return false
		}
	}
	return true
}

// metaSDPAEfficient is _scaled_dot_product_efficient_attention: output
// [B, H, M, Kv] laid out as [B, M, H, Kv], logsumexp [B, H, ceil(M/32)*32]
// (M on the CPU, 0 when not requested), seed and offset.
func metaSDPAEfficient(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "query", "key", "value")
	if err != nil {
		return nil, err
	}
	q, v := ts[0], ts[2]
	if q.Rank() != 4 {
		return nil, Errorf(CodeShape, "", "query must be 4D [B, H, M, K]")
	}
	b, h, m, kv := q.Shape[0], q.Shape[1], q.Shape[2], v.Shape[3]
	out := env.Contiguous(q.DType, []sym.Expr{b, h, m, kv}, q.Device)
	out.Strides = stridesInOrder(out.Shape, []int{0, 2, 1, 3})
	lse := sym.Expr(c0)
	if want, err := c.Bool("compute_log_sumexp"); err == nil && want {
		lse = sym.Mul(sym.CeilDiv(m, sym.Const(32)), sym.Const(32))
		if q.Device.IsCPU() {
			lse = m
		}
	}
	return []ir.Type{ir.TensorOf(out), ir.TensorOf(env.Contiguous(ir.F32, []sym.Expr{b, h, lse}, q.Device)),
		ir.TensorOf(env.Contiguous(ir.I64, []sym.Expr{}, ir.Meta)), ir.TensorOf(env.Contiguous(ir.I64, []sym.Expr{}, ir.Meta))}, nil
}

// metaSDPAFlash is _scaled_dot_product_flash_attention's nine results.
func metaSDPAFlash(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "query", "key", "value")
	if err != nil {
		return nil, err
	}
	q, k := ts[0], ts[1]
	if q.Rank() != 4 {
		return nil, Errorf(CodeShape, "", "query must be 4D [B, H, M, K]")
	}
	b, h, m := q.Shape[0], q.Shape[1], q.Shape[2]
	out := env.Fresh(q.DType, copyExprs(q.Shape), env.PreserveStrides(q), q.Device)
	none := ir.Type{Kind: ir.KindNone}
	return []ir.Type{ir.TensorOf(out), ir.TensorOf(env.Contiguous(ir.F32, []sym.Expr{b, h, m}, q.Device)), none, none,
		ir.SymIntOf(m), ir.SymIntOf(k.Shape[2]),
		ir.TensorOf(env.Contiguous(ir.I64, []sym.Expr{}, ir.Meta)), ir.TensorOf(env.Contiguous(ir.I64, []sym.Expr{}, ir.Meta)),
		ir.TensorOf(env.Contiguous(q.DType, []sym.Expr{c0}, q.Device))}, nil
}

// convGeometry is a convolution's stride, padding, dilation and groups.
type convGeometry struct {
	stride, pad, dil []sym.Expr
	groups           sym.Expr
}

// convShape is the output shape of a convolution (ConvUtils.h
// conv_output_size / conv_input_size for transposed ones).
func (env *Env) convShape(c *Call, in, w *ir.TensorType, g convGeometry, transposed bool) ([]sym.Expr, error) {
	n := in.Rank() - 2
	stride, pad, dil, groups := g.stride, g.pad, g.dil, g.groups
	shape := []sym.Expr{in.Shape[0], w.Shape[0]}
	if transposed {
		outPad, err := spatialParam(c, "output_padding", n, constList(n, 0))
		if err != nil {
			return nil, err
		}
		shape[1] = sym.Mul(w.Shape[1], groups)
		for i := 0; i < n; i++ {
			// (in-1)*stride - 2*pad + dil*(k-1) + output_padding + 1
			s := sym.Sub(sym.Mul(sym.Sub(in.Shape[2+i], c1), stride[i]), sym.Mul(sym.Const(2), pad[i]))
			s = sym.Add(sym.Add(s, sym.Mul(dil[i], sym.Sub(w.Shape[2+i], c1))), sym.Add(outPad[i], c1))
			shape = append(shape, s)
		}
		return shape, nil
	}
	if eq, known := env.eqSize(in.Shape[1], sym.Mul(w.Shape[1], groups)); known && !eq {
		return nil, Errorf(CodeShape, "", "Given groups=%s, weight of size %s, expected input%s to have %s channels, but got %s channels instead",
			groups, shapeString(w.Shape), shapeString(in.Shape), sym.Mul(w.Shape[1], groups), in.Shape[1])
	}
	for i := 0; i < n; i++ {
		// (in + 2*pad - dil*(k-1) - 1) // stride + 1
		num := sym.Sub(sym.Sub(sym.Add(in.Shape[2+i], sym.Mul(sym.Const(2), pad[i])), sym.Mul(dil[i], sym.Sub(w.Shape[2+i], c1))), c1)
		shape = append(shape, sym.Add(sym.FloorDiv(num, stride[i]), c1))
	}
	return shape, nil
}
