package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// nn meta rules: softmax family (SoftMax.cpp meta: row-major output),
// normalization (refs native_layer_norm / native_batch_norm), convolution
// and pooling (ConvUtils.h, Pool.h output sizes; suggest_memory_format
// layouts), upsampling, attention, embedding.

// metaSoftmax covers _softmax/_log_softmax(self, dim, half_to_float) and
// softmax.int/log_softmax.int(self, dim, dtype).
func metaSoftmax(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if _, err := c.Dim("dim", self.Rank()); err != nil {
		return nil, err
	}
	dt := self.DType
	if c.Has("half_to_float") {
		h, err := c.Bool("half_to_float")
		if err != nil {
			return nil, err
		}
		if h {
			dt = ir.F32
		}
	}
	if d, ok, _ := c.DType("dtype"); ok {
		dt = d
	}
	if c.Has("input_dtype") {
		if d, ok, _ := c.DType("input_dtype"); ok {
			dt = d
		}
	}
	return env.Contiguous(dt, copyExprs(self.Shape), self.Device), nil
}

// SuggestMemoryFormat is suggest_memory_format: channels-last when the
// strides are like NHWC (NDHWC), else contiguous. With constant sizes and
// strides it is c10's is_channels_last_strides_2d_s4 / _3d_s5, ambiguous
// layouts included (testdata/memformat: PyTorch's answers); with symbolic
// ones, laid out NHWC and not also row-major.
func SuggestMemoryFormat(t *ir.TensorType) string {
	cl := false
	if shape, strides, ok := constLayout(t); ok {
		cl = stridesLikeChannelsLast(shape, strides)
	} else {
		cl = IsChannelsLast(t) && !IsContiguous(t)
	}
	switch {
	case !cl:
		return "contiguous_format"
	case t.Rank() == 5:
		return "channels_last_3d"
	}
	return "channels_last"
}

// stridesLikeChannelsLast is c10's is_channels_last_strides_2d_s4 (and
// _3d_s5): strides non-decreasing from C through the spatial dims (last
// first) to N, where a size-1 dim does not grow the bound; a zero C stride,
// or N's stride equal to C's (N111), is contiguous.
func stridesLikeChannelsLast(shape, strides []int64) bool {
	var order []int
	switch len(shape) {
	case 4:
		order = []int{1, 3, 2, 0}
	case 5:
		order = []int{1, 4, 3, 2, 0}
	default:
		return false
	}
	if strides[1] == 0 {
		return false
	}
	lo := int64(0)
	for _, d := range order {
		if shape[d] == 0 || strides[d] < lo || d == 0 && lo == strides[1] {
			return false
		}
		lo = strides[d] * shape[d]
	}
	return true
}

// constLayout is t's sizes and strides when all are constants.
func constLayout(t *ir.TensorType) (shape, strides []int64, ok bool) {
	st := stridesOf(t)
	shape, strides = make([]int64, len(t.Shape)), make([]int64, len(st))
	for i, e := range t.Shape {
		if shape[i], ok = e.Const(); !ok {
			return nil, nil, false
		}
	}
	for i, e := range st {
		if strides[i], ok = e.Const(); !ok {
			return nil, nil, false
		}
	}
	return shape, strides, len(shape) == len(strides)
}

// layoutLike allocates shape with the memory format src suggests.
func (env *Env) layoutLike(dt ir.DType, shape []sym.Expr, src *ir.TensorType) *ir.TensorType {
	t := env.Contiguous(dt, shape, src.Device)
	if f := SuggestMemoryFormat(src); f != "contiguous_format" && len(shape) == src.Rank() {
		t.Strides = env.StridesFor(f, t)
	}
	return t
}

// metaNativeLayerNorm returns (out, mean, rstd); mean and rstd keep the
// normalized dims as size 1 and are float32 for reduced-precision input
// off the CPU (the refs' computation dtype).
func metaNativeLayerNorm(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	norm, err := c.SymInts("normalized_shape")
	if err != nil {
		return nil, err
	}
	axis, err := normalizedAxis(in, norm)
	if err != nil {
		return nil, err
	}
	for i, s := range norm {
		if eq, known := env.eqSize(in.Shape[axis+i], s); known && !eq {
			return nil, normalizedShapeError(in, norm)
		}
	}
	statShape := copyExprs(in.Shape[:axis])
	for range norm {
		statShape = append(statShape, c1)
	}
	statDT := in.DType
	if in.DType.IsReducedFloat() && !in.Device.IsCPU() {
		statDT = ir.F32
	}
	out := env.Contiguous(in.DType, copyExprs(in.Shape), in.Device)
	return []ir.Type{ir.TensorOf(out), ir.TensorOf(env.Contiguous(statDT, statShape, in.Device)),
		ir.TensorOf(env.Contiguous(statDT, copyExprs(statShape), in.Device))}, nil
}

func metaLayerNorm(env *Env, c *Call) ([]ir.Type, error) {
	res, err := metaNativeLayerNorm(env, c)
	if err != nil {
		return nil, err
	}
	return res[:1], nil
}

// metaBatchNorm covers native_batch_norm and the _native_batch_norm_legit
// forms: out keeps the input's layout; save_mean/save_invstd are [C],
// except in inference on the CPU, where they are [0] (native_batch_norm_helper
// in torch/_decomp/decompositions.py: "Very annoying inconsistency where
// CPU and CUDA give different shapes"); the functional form adds the new
// running stats.
func metaBatchNorm(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	if in.Rank() < 2 {
		return nil, Errorf(CodeShape, "", "Expected 2D or more input (got %dD input)", in.Rank())
	}
	training := false
	if c.Has("training") {
		if training, err = c.Bool("training"); err != nil {
			return nil, err
		}
	}
	statDT := in.DType
	if in.DType.IsReducedFloat() {
		statDT = ir.F32
	}
	stat := []sym.Expr{in.Shape[1]}
	if !training && in.Device.IsCPU() {
		stat = []sym.Expr{c0}
	}
	out := env.layoutLike(in.DType, copyExprs(in.Shape), in)
	res := []ir.Type{ir.TensorOf(out), ir.TensorOf(env.Contiguous(statDT, stat, in.Device)),
		ir.TensorOf(env.Contiguous(statDT, copyExprs(stat), in.Device))}
	for _, name := range []string{"running_mean", "running_var"} {
		if len(res) >= len(c.Op.Schema.Returns) {
			break
		}
		rm, err := c.Tensor(name)
		if err != nil || rm == nil {
			return nil, err
		}
		res = append(res, ir.TensorOf(env.Contiguous(rm.DType, copyExprs(rm.Shape), rm.Device)))
	}
	return res, nil
}

// metaBatchNormSimple is batch_norm: out only.
func metaBatchNormSimple(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	return one(env.layoutLike(in.DType, copyExprs(in.Shape), in)), nil
}

// metaEmbedding is embedding(weight, indices): indices' shape + [dim].
func metaEmbedding(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "weight", "indices")
	if err != nil {
		return nil, err
	}
	w, idx := ts[0], ts[1]
	if w.Rank() != 2 {
		return nil, Errorf(CodeShape, "", "'weight' must be 2-D")
	}
	if idx.DType != ir.I64 && idx.DType != ir.I32 {
		return nil, Errorf(CodeDType, "", "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding)", idx.DType)
	}
	shape := append(copyExprs(idx.Shape), w.Shape[1])
	return one(env.Contiguous(w.DType, shape, w.Device)), nil
}

// metaDropout is native_dropout: (output, bool mask) like input.
func metaDropout(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	strides := env.PreserveStrides(in)
	return []ir.Type{ir.TensorOf(env.Fresh(in.DType, copyExprs(in.Shape), strides, in.Device)),
		ir.TensorOf(env.Fresh(ir.Bool, copyExprs(in.Shape), copyExprs(strides), in.Device))}, nil
}

// metaPad is constant_pad_nd / pad: each pair (left, right) grows a
// trailing dim; the result is in self's suggested memory format, or a
// preserve-format clone of the narrowed self when no pad is positive.
func metaPad(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	pad, err := c.SymInts("pad")
	if err != nil {
		return nil, err
	}
	if len(pad)%2 != 0 || len(pad)/2 > self.Rank() {
		return nil, Errorf(CodeShape, "", "Length of pad must be even but instead it equals %d", len(pad))
	}
	shape := copyExprs(self.Shape)
	for i := 0; i < len(pad)/2; i++ {
		d := self.Rank() - 1 - i
		shape[d] = sym.Add(shape[d], sym.Add(pad[2*i], pad[2*i+1]))
		if v, ok := shape[d].Const(); ok && v < 0 {
			return nil, Errorf(CodeShape, "", "The input size %s, plus negative padding %s and %s resulted in a negative output size, which is invalid. Check dimension %d of your input.", self.Shape[d], pad[2*i], pad[2*i+1], d)
		}
	}
	if allNonPositive(pad) {
		// PyTorch's meta narrows and clones (preserve format) when no pad
		// grows the tensor.
		narrowed := &ir.TensorType{DType: self.DType, Shape: shape, Strides: copyExprs(stridesOf(self)), Device: self.Device}
		return env.Fresh(self.DType, copyExprs(shape), env.PreserveStrides(narrowed), self.Device), nil
	}
	return env.layoutLike(self.DType, shape, self), nil
}

// allNonPositive reports whether every pad is a constant <= 0.
func allNonPositive(pad []sym.Expr) bool {
	for _, p := range pad {
		if v, ok := p.Const(); !ok || v > 0 {
			return false
		}
	}
	return true
}

// normalizedAxis is the first normalized dim of a layer/RMS norm over the
// trailing dims norm names; an input of lower rank is eager's error.
func normalizedAxis(in *ir.TensorType, norm []sym.Expr) (int, error) {
	axis := in.Rank() - len(norm)
	if axis < 0 {
		return 0, normalizedShapeError(in, norm)
	}
	return axis, nil
}

// normalizedShapeError is eager layer_norm's message (PyTorch 2.15:
// "Given normalized_shape=[5], expected input with shape [*, 5], but got
// input of size[2, 3, 4]").
func normalizedShapeError(in *ir.TensorType, norm []sym.Expr) error {
	ns := shapeString(norm)
	return Errorf(CodeShape, "", "Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s",
		ns, ns[1:len(ns)-1], shapeString(in.Shape))
}
