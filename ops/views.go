package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// View meta rules, after aten/src/ATen/native/TensorShape.cpp. A view shares
// its input's storage and carries its own sizes, strides and storage offset.

// viewOf returns a view of self with new geometry in the same storage.
func viewOf(self *ir.TensorType, shape, strides []sym.Expr, offset sym.Expr) *ir.TensorType {
	return &ir.TensorType{DType: self.DType, Shape: shape, Strides: strides, Offset: offset, Device: self.Device, Storage: self.Storage}
}

func offsetOf(t *ir.TensorType) sym.Expr { return t.Offset }

// one wraps a single tensor result.
func one(t *ir.TensorType) []ir.Type { return []ir.Type{ir.TensorOf(t)} }

// selfRuleFunc is a meta rule over self's type with one tensor result.
type selfRuleFunc = func(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error)

// selfEntry makes table rows of kind whose meta rule is over self.
func selfEntry(kind Kind) func(schema string, rule selfRuleFunc) Entry {
	return func(schema string, rule selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: kind, Meta: selfRule(rule)}
	}
}

// selfRule adapts a rule over self's type.
func selfRule(f selfRuleFunc) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		self, err := c.Tensor(c.Op.Schema.Params[0].Name)
		if err != nil {
			return nil, err
		}
		if self == nil {
			return nil, fmt.Errorf("%s: self is None", c.Op.QualifiedName())
		}
		t, err := f(env, c, self)
		if err != nil {
			return nil, err
		}
		return one(t), nil
	}
}

// copied turns a view rule into its *_copy variant: same shape, fresh
// contiguous storage.
func copied(rule MetaFunc) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		res, err := rule(env, c)
		if err != nil {
			return nil, err
		}
		for i, r := range res {
			if r.Kind == ir.KindTensor {
				res[i] = ir.TensorOf(env.Contiguous(r.Tensor.DType, r.Tensor.Shape, r.Tensor.Device))
			}
		}
		return res, nil
	}
}

// InferSize is infer_size: resolve one -1 and check the element count.
func (env *Env) InferSize(size []sym.Expr, numel sym.Expr) ([]sym.Expr, error) {
	out := copyExprs(size)
	infer := -1
	known := c1
	for i, s := range size {
		if isConst(s, -1) {
			if infer >= 0 {
				return nil, Errorf(CodeShape, "", "only one dimension can be inferred")
			}
			infer = i
			continue
		}
		if v, ok := s.Const(); ok && v < 0 {
			return nil, Errorf(CodeShape, "", "invalid shape dimension %d", v)
		}
		known = sym.Mul(known, s)
	}
	if infer >= 0 {
		if isConst(known, 0) {
			return nil, Errorf(CodeShape, "", "cannot reshape tensor of %s elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", numel, shapeString(size))
		}
		out[infer] = sym.FloorDiv(numel, known)
		known = sym.Mul(known, out[infer])
	}
	if eq, ok := env.eqSize(known, numel); ok && !eq {
		return nil, Errorf(CodeShape, "the new shape must hold as many elements as the input",
			"shape '%s' is invalid for input of size %s", shapeString(size), numel)
	}
	return out, nil
}

// ComputeStride is TensorUtils.cpp's computeStride: strides for viewing
// (oldShape, oldStride) as newShape without a copy; ok is false when the
// view would need one.
func (env *Env) ComputeStride(oldShape, oldStride, newShape []sym.Expr) ([]sym.Expr, bool) {
	newStride := make([]sym.Expr, len(newShape))
	if len(oldShape) == 0 {
		for i := range newStride {
			newStride[i] = c1
		}
		return newStride, true
	}
	numel := product(oldShape)
	if isConst(numel, 0) {
		// An empty tensor's view is row-major even to its own shape
		// (PyTorch 2.15's fake view of an expanded [0, 5, 5][25, 1, 5]
		// is [25, 5, 1]).
		return ir.ContiguousStrides(newShape), true
	}
	if len(newShape) > 0 {
		os, ok1 := constInts(oldShape)
		ost, ok2 := constInts(oldStride)
		ns, ok3 := constInts(newShape)
		if ok1 && ok2 && ok3 {
			st, ok := refViewStrides(os, ost, ns)
			out := make([]sym.Expr, len(st))
			for i, v := range st {
				out[i] = sym.Const(v)
			}
			return out, ok
		}
	}
	viewD := len(newShape) - 1
	chunkBase := oldStride[len(oldStride)-1]
	tensorNumel, viewNumel := sym.Expr(c1), sym.Expr(c1)
	for td := len(oldShape) - 1; td >= 0; td-- {
		tensorNumel = sym.Mul(tensorNumel, oldShape[td])
		if td == 0 || !isOne(oldShape[td-1]) && !sym.Equal(oldStride[td-1], sym.Mul(tensorNumel, chunkBase)) {
			for viewD >= 0 && (env.cmpExpr(viewNumel, tensorNumel) == -1 || isOne(newShape[viewD])) {
				newStride[viewD] = sym.Mul(viewNumel, chunkBase)
				viewNumel = sym.Mul(viewNumel, newShape[viewD])
				viewD--
			}
			if eq, _ := env.eqSize(viewNumel, tensorNumel); !eq {
				return nil, false
			}
			if td > 0 {
				chunkBase = oldStride[td-1]
				tensorNumel, viewNumel = c1, c1
			}
		}
	}
	return newStride, viewD == -1
}

func ruleView(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	size, err := c.SymInts(c.Op.Schema.Params[1].Name)
	if err != nil {
		return nil, err
	}
	shape, err := env.InferSize(size, self.Numel())
	if err != nil {
		return nil, err
	}
	strides, ok := env.ComputeStride(self.Shape, stridesOf(self), shape)
	if !ok {
		return nil, Errorf(CodeShape, "use .reshape(...) (or call .contiguous() first)",
			"view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
	}
	return viewOf(self, shape, strides, offsetOf(self)), nil
}

// ruleReshape views when it can and copies into a contiguous tensor when it
// cannot (reshape = view, or clone + _unsafe_view).
func ruleReshape(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	size, err := c.SymInts("shape")
	if err != nil {
		return nil, err
	}
	shape, err := env.InferSize(size, self.Numel())
	if err != nil {
		return nil, err
	}
	if strides, ok := env.ComputeStride(self.Shape, stridesOf(self), shape); ok {
		return viewOf(self, shape, strides, offsetOf(self)), nil
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}

func ruleViewAs(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	other, err := c.Tensor("other")
	if err != nil || other == nil {
		return nil, fmt.Errorf("view_as: other: %v", err)
	}
	strides, ok := env.ComputeStride(self.Shape, stridesOf(self), other.Shape)
	if !ok {
		return nil, Errorf(CodeShape, "use .reshape(...) instead",
			"view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
	}
	return viewOf(self, copyExprs(other.Shape), strides, offsetOf(self)), nil
}

func ruleAlias(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return viewOf(self, copyExprs(self.Shape), copyExprs(stridesOf(self)), offsetOf(self)), nil
}

func ruleSlice(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if self.Rank() == 0 {
		return nil, Errorf(CodeDim, "", "slice() cannot be applied to a 0-dim tensor.")
	}
	dim, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	step, err := c.SymInt("step")
	if err != nil {
		return nil, err
	}
	if v, ok := step.Const(); ok && v <= 0 {
		return nil, Errorf(CodeInvalidArgVal, "", "slice step must be positive")
	}
	size := self.Shape[dim]
	start, end, err := env.sliceBounds(c, size)
	if err != nil {
		return nil, err
	}
	shape, strides := copyExprs(self.Shape), copyExprs(stridesOf(self))
	length := sym.Sub(end, start)
	shape[dim] = length
	if !isConst(step, 1) {
		shape[dim] = sym.FloorDiv(sym.Add(length, sym.Sub(step, c1)), step)
	}
	offset := sym.Add(offsetOf(self), sym.Mul(start, strides[dim]))
	strides[dim] = sym.Mul(strides[dim], step)
	return viewOf(self, shape, strides, offset), nil
}

// sliceBounds resolves start and end against size as slice_forward does:
// negative values count from the end, then both clamp into [0, size].
func (env *Env) sliceBounds(c *Call, size sym.Expr) (start, end sym.Expr, err error) {
	start, end = c0, size
	if !c.IsNone("start") {
		if start, err = c.SymInt("start"); err != nil {
			return c0, c0, err
		}
		start = env.clampIndex(start, size)
	}
	if !c.IsNone("end") {
		if end, err = c.SymInt("end"); err != nil {
			return c0, c0, err
		}
		end = env.clampIndex(end, size)
	}
	if env.cmpExpr(end, start) == -1 {
		end = start
	}
	return start, end, nil
}

// clampIndex maps a slice bound into [0, size]: a negative constant counts
// from the end; INT64_MAX-like ends mean "to the end".
func (env *Env) clampIndex(i, size sym.Expr) sym.Expr {
	if v, ok := i.Const(); ok {
		if v >= 1<<62 {
			return size
		}
		if v < 0 {
			i = sym.Add(size, i)
		}
	}
	if env.cmpExpr(i, c0) == -1 {
		return c0
	}
	if cmp := env.cmpExpr(i, size); cmp == 0 || cmp == 1 {
		return size
	}
	return i
}

func ruleSelect(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if self.Rank() == 0 {
		return nil, Errorf(CodeDim, "", "select() cannot be applied to a 0-dim tensor.")
	}
	d, err := c.Int("dim")
	if err != nil {
		return nil, err
	}
	dim, err := WrapDim(d, self.Rank())
	if err != nil {
		return nil, err
	}
	index, err := c.SymInt("index")
	if err != nil {
		return nil, err
	}
	size := self.Shape[dim]
	if v, ok := index.Const(); ok {
		lo, hi := env.cmpExpr(sym.Const(v), sym.Sub(c0, size)), env.cmpExpr(sym.Const(v), size)
		if lo == -1 || hi == 0 || hi == 1 {
			return nil, Errorf(CodeDim, "", "select(): index %d out of range for tensor of size %s at dimension %d", v, shapeString(self.Shape), d)
		}
		if v < 0 {
			index = sym.Add(size, index)
		}
	}
	strides := stridesOf(self)
	offset := sym.Add(offsetOf(self), sym.Mul(index, strides[dim]))
	return viewOf(self, removeAt(self.Shape, dim), removeAt(strides, dim), offset), nil
}

func removeAt(es []sym.Expr, i int) []sym.Expr {
	out := make([]sym.Expr, 0, len(es)-1)
	out = append(out, es[:i]...)
	return append(out, es[i+1:]...)
}

func insertAt(es []sym.Expr, i int, e sym.Expr) []sym.Expr {
	out := make([]sym.Expr, 0, len(es)+1)
	out = append(out, es[:i]...)
	out = append(out, e)
	return append(out, es[i:]...)
}

func ruleNarrow(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if err := needDims(self, "narrow"); err != nil {
		return nil, err
	}
	dim, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	sl, err := c.SymIntArgs("start", "length")
	if err != nil {
		return nil, err
	}
	start, length := sl[0], sl[1]
	if v, ok := start.Const(); ok && v < 0 {
		start = sym.Add(self.Shape[dim], start)
	}
	if env.cmpExpr(sym.Add(start, length), self.Shape[dim]) == 1 {
		return nil, Errorf(CodeShape, "", "start (%s) + length (%s) exceeds dimension size (%s).", start, length, self.Shape[dim])
	}
	shape, strides := copyExprs(self.Shape), copyExprs(stridesOf(self))
	shape[dim] = length
	return viewOf(self, shape, strides, sym.Add(offsetOf(self), sym.Mul(start, strides[dim]))), nil
}

func ruleTranspose(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	d, err := c.IntArgs("dim0", "dim1")
	if err != nil {
		return nil, err
	}
	return transpose(self, d[0], d[1])
}

func transpose(self *ir.TensorType, d0, d1 int64) (*ir.TensorType, error) {
	a, b, err := wrapDimPair(d0, d1, self.Rank())
	if err != nil {
		return nil, err
	}
	shape, strides := copyExprs(self.Shape), copyExprs(stridesOf(self))
	if self.Rank() > 0 {
		shape[a], shape[b] = shape[b], shape[a]
		strides[a], strides[b] = strides[b], strides[a]
	}
	return viewOf(self, shape, strides, offsetOf(self)), nil
}

func ruleT(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if self.Rank() > 2 {
		return nil, Errorf(CodeDim, "use .transpose(dim0, dim1) or .permute(...)", "t() expects a tensor with <= 2 dimensions, but self is %dD", self.Rank())
	}
	if self.Rank() < 2 {
		return ruleAlias(env, c, self)
	}
	return transpose(self, 0, 1)
}

func rulePermute(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dims, err := c.Ints("dims")
	if err != nil {
		return nil, err
	}
	if len(dims) != self.Rank() {
		return nil, Errorf(CodeDim, "give one entry per dimension",
			"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", self.Rank(), len(dims))
	}
	wrapped, err := wrapDims(dims, self.Rank())
	if err != nil {
		return nil, Errorf(CodeDim, "", "permute(): duplicate dims are not allowed.")
	}
	return permuteView(self, wrapped), nil
}

// permuteView is self with its dims in the order dims (wrapped).
func permuteView(self *ir.TensorType, dims []int) *ir.TensorType {
	st := stridesOf(self)
	shape, strides := make([]sym.Expr, len(dims)), make([]sym.Expr, len(dims))
	for i, d := range dims {
		shape[i], strides[i] = self.Shape[d], st[d]
	}
	return viewOf(self, shape, strides, offsetOf(self))
}

// ruleExpand is inferExpandGeometry.
func ruleExpand(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	sizes, err := c.SymInts("size")
	if err != nil {
		return nil, err
	}
	return env.expand(self, sizes)
}

func (env *Env) expand(self *ir.TensorType, sizes []sym.Expr) (*ir.TensorType, error) {
	if len(sizes) < self.Rank() {
		return nil, Errorf(CodeShape, "", "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
			self.DType, shapeString(self.Shape), shapeString(sizes), len(sizes), self.Rank())
	}
	n := len(sizes)
	off := n - self.Rank()
	st := stridesOf(self)
	shape, strides := make([]sym.Expr, n), make([]sym.Expr, n)
	for i := n - 1; i >= 0; i-- {
		d := i - off
		// A 0-d tensor expands with stride 0 in every dim, size-1 dims
		// included: PyTorch gives ones(()).expand(1, 2, 1).stride() == (0, 0, 0).
		size, stride := c1, c0
		if d >= 0 {
			size, stride = self.Shape[d], st[d]
		} else if i+1 < n {
			stride = sym.Mul(shape[i+1], strides[i+1])
		}
		target := sizes[i]
		if isConst(target, -1) {
			if d < 0 {
				return nil, Errorf(CodeShape, "", "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension %d", i)
			}
			target = size
		}
		if eq, known := env.eqSize(size, target); !eq {
			if !isOne(size) && known {
				return nil, Errorf(CodeShape, "only size-1 dims can be expanded",
					"The expanded size of the tensor (%s) must match the existing size (%s) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
					target, size, i, shapeString(sizes), shapeString(self.Shape))
			}
			if isOne(size) {
				size, stride = target, c0
			}
		}
		shape[i], strides[i] = size, stride
	}
	return viewOf(self, shape, strides, offsetOf(self)), nil
}

func ruleUnsqueeze(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dim, err := c.Dim("dim", self.Rank()+1)
	if err != nil {
		return nil, err
	}
	st := stridesOf(self)
	stride := sym.Expr(c1)
	if dim < self.Rank() {
		stride = sym.Mul(self.Shape[dim], st[dim])
	}
	return viewOf(self, insertAt(self.Shape, dim, c1), insertAt(st, dim, stride), offsetOf(self)), nil
}

// ruleSqueeze covers squeeze.default (every size-1 dim), squeeze.dim and
// squeeze.dims (the named dims that have size 1).
func ruleSqueeze(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	drop := map[int]bool{}
	if c.Has("dim") {
		dims, err := c.Ints("dim")
		if err != nil {
			return nil, err
		}
		wrapped, err := wrapDims(dims, self.Rank())
		if err != nil {
			return nil, err
		}
		for _, d := range wrapped {
			drop[d] = self.Rank() > 0 && isOne(self.Shape[d])
		}
	} else {
		for d, s := range self.Shape {
			drop[d] = isOne(s)
		}
	}
	st := stridesOf(self)
	var shape, strides []sym.Expr
	for d := range self.Shape {
		if !drop[d] {
			shape, strides = append(shape, self.Shape[d]), append(strides, st[d])
		}
	}
	if shape == nil {
		shape, strides = []sym.Expr{}, []sym.Expr{}
	}
	return viewOf(self, shape, strides, offsetOf(self)), nil
}

func ruleAsStrided(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	size, err := c.SymInts("size")
	if err != nil {
		return nil, err
	}
	stride, err := c.SymInts("stride")
	if err != nil {
		return nil, err
	}
	if len(size) != len(stride) {
		return nil, Errorf(CodeShape, "", "mismatch in length of strides and shape")
	}
	offset := offsetOf(self)
	if !c.IsNone("storage_offset") {
		if offset, err = c.SymInt("storage_offset"); err != nil {
			return nil, err
		}
	}
	return viewOf(self, size, stride, offset), nil
}

func ruleDiagonal(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	p, err := c.IntArgs("offset", "dim1", "dim2")
	if err != nil {
		return nil, err
	}
	off := p[0]
	a, b, err := wrapDimPair(p[1], p[2], self.Rank())
	if err != nil {
		return nil, err
	}
	if a == b {
		return nil, Errorf(CodeDim, "", "diagonal dimensions cannot be identical %d, %d", p[1], p[2])
	}
	st := stridesOf(self)
	var size, offset sym.Expr
	if off >= 0 {
		size = sym.Max(sym.Min(self.Shape[a], sym.Sub(self.Shape[b], sym.Const(off))), c0)
		offset = sym.Add(offsetOf(self), sym.Mul(sym.Const(off), st[b]))
	} else {
		size = sym.Max(sym.Min(sym.Add(self.Shape[a], sym.Const(off)), self.Shape[b]), c0)
		offset = sym.Add(offsetOf(self), sym.Mul(sym.Const(-off), st[a]))
	}
	if isConst(size, 0) {
		offset = offsetOf(self)
	}
	hi, lo := max(a, b), min(a, b)
	shape := removeAt(removeAt(self.Shape, hi), lo)
	strides := removeAt(removeAt(st, hi), lo)
	shape = append(shape, size)
	strides = append(strides, sym.Add(st[a], st[b]))
	return viewOf(self, shape, strides, offset), nil
}

func ruleUnfold(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	d, err := c.Int("dimension")
	if err != nil {
		return nil, err
	}
	ss, err := c.SymIntArgs("size", "step")
	if err != nil {
		return nil, err
	}
	size, step := ss[0], ss[1]
	dim, err := WrapDim(d, self.Rank())
	if err != nil {
		return nil, err
	}
	st := stridesOf(self)
	if self.Rank() == 0 {
		return viewOf(self, []sym.Expr{size}, []sym.Expr{c1}, offsetOf(self)), nil
	}
	if env.cmpExpr(size, self.Shape[dim]) == 1 {
		return nil, Errorf(CodeShape, "", "maximum size for tensor at dimension %d is %s but size is %s", dim, self.Shape[dim], size)
	}
	shape, strides := copyExprs(self.Shape), copyExprs(st)
	shape[dim] = sym.Add(sym.FloorDiv(sym.Sub(self.Shape[dim], size), step), c1)
	strides[dim] = sym.Mul(st[dim], step)
	return viewOf(self, append(shape, size), append(strides, st[dim]), offsetOf(self)), nil
}
