package ops

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Indexing meta rules, after torch/_meta_registrations.py (meta_index_Tensor,
// index_put, gather, scatter, index_select) and the scatter inverses'
// clone_preserve_strides (TensorShape.cpp).

// indexResult computes advanced indexing's result type for self[indices].
func (env *Env) indexResult(c *Call, self *ir.TensorType, indices []*ir.TensorType) (*ir.TensorType, error) {
	if len(indices) == 0 {
		return nil, Errorf(CodeShape, "", "at least one index must be provided")
	}
	expanded, err := env.expandMasks(c, self, indices)
	if err != nil {
		return nil, err
	}
	if len(expanded) > self.Rank() {
		return nil, Errorf(CodeDim, "", "too many indices for tensor of dimension %d (got %d)", self.Rank(), len(expanded))
	}
	for len(expanded) < self.Rank() {
		expanded = append(expanded, nil)
	}
	var shapes [][]sym.Expr
	for _, ix := range expanded {
		if ix != nil {
			shapes = append(shapes, ix.Shape)
		}
	}
	repl, err := env.BroadcastShapes(shapes...)
	if err != nil {
		return nil, Errorf(CodeShape, "", "shape mismatch: indexing tensors could not be broadcast together with shapes %s", shapesString(shapes))
	}
	src := self
	if !contiguousSubspace(expanded) {
		src, expanded = transposeToFront(self, expanded)
	}
	st := stridesOf(src)
	var shape, strides []sym.Expr
	replaced := false
	for d, ix := range expanded {
		switch {
		case ix == nil:
			shape, strides = append(shape, src.Shape[d]), append(strides, st[d])
		case !replaced:
			replaced = true
			for _, s := range repl {
				shape, strides = append(shape, s), append(strides, c0)
			}
		}
	}
	restrided := &ir.TensorType{DType: self.DType, Shape: shape, Strides: strides, Device: self.Device}
	return env.Fresh(self.DType, copyExprs(shape), env.ElementwiseStrides(shape, []*ir.TensorType{restrided}), self.Device), nil
}

func shapesString(shapes [][]sym.Expr) string {
	s := ""
	for i, sh := range shapes {
		if i > 0 {
			s += ", "
		}
		s += shapeString(sh)
	}
	return s
}

// expandMasks replaces each bool/uint8 mask by its nonzero() columns, which
// makes the result size data-dependent.
func (env *Env) expandMasks(c *Call, self *ir.TensorType, indices []*ir.TensorType) ([]*ir.TensorType, error) {
	var out []*ir.TensorType
	for i, ix := range indices {
		if ix == nil || (ix.DType != ir.Bool && ix.DType != ir.U8) {
			if ix != nil && ix.DType != ir.I64 && ix.DType != ir.I32 && ix.DType != ir.I8 {
				return nil, Errorf(CodeDType, "", "tensors used as indices must be long, int, byte or bool tensors")
			}
			out = append(out, ix)
			continue
		}
		k := len(out)
		if k+ix.Rank() > self.Rank() {
			return nil, Errorf(CodeDim, "", "too many indices for tensor of dimension %d", self.Rank())
		}
		for j := range ix.Shape {
			if eq, known := env.eqSize(ix.Shape[j], self.Shape[k+j]); known && !eq {
				return nil, Errorf(CodeShape, "", "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d",
					shapeString(ix.Shape), i, shapeString(self.Shape), k+j)
			}
		}
		n, err := env.dynamicSize(c, "aten.nonzero.default", ix.Numel())
		if err != nil {
			return nil, err
		}
		for range ix.Shape {
			out = append(out, env.Contiguous(ir.I64, []sym.Expr{n}, ix.Device))
		}
	}
	return out, nil
}

// contiguousSubspace reports whether the non-None indices are adjacent.
func contiguousSubspace(indices []*ir.TensorType) bool {
	state := 0
	for _, ix := range indices {
		switch {
		case state == 0 && ix != nil:
			state = 1
		case state == 1 && ix == nil:
			state = 2
		case state == 2 && ix != nil:
			return false
		}
	}
	return true
}

// transposeToFront permutes the indexed dims of self to the front.
func transposeToFront(self *ir.TensorType, indices []*ir.TensorType) (*ir.TensorType, []*ir.TensorType) {
	var dims []int
	var out []*ir.TensorType
	for pass := 0; pass < 2; pass++ {
		for d, ix := range indices {
			if (ix != nil) == (pass == 0) {
				dims, out = append(dims, d), append(out, ix)
			}
		}
	}
	return permuteView(self, dims), out
}

func metaIndex(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	indices, err := c.Tensors("indices")
	if err != nil {
		return nil, err
	}
	return env.indexResult(c, self, indices)
}

// metaIndexPut is index_put(_): values must broadcast to the indexed shape;
// the functional form is a preserve-format clone of self.
func metaIndexPut(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	indices, err := c.Tensors("indices")
	if err != nil {
		return nil, err
	}
	values, err := c.Tensor("values")
	if err != nil {
		return nil, err
	}
	if values.DType != self.DType {
		return nil, Errorf(CodeDType, "cast the values to self's dtype",
			"Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.", ScalarTypeName(self.DType), ScalarTypeName(values.DType))
	}
	if !slices.ContainsFunc(indices, isMask) {
		// A mask's indexing result has as many rows as it has true
		// elements: PyTorch's fake index_put (empty_like(self)) checks
		// nothing, and runs without capture_dynamic_output_shape_ops. Eager
		// checks the values against either (a mask's result only once it
		// has the data); kiln checks them where the shape is known, against
		// integer indices, with eager's message.
		indexed, err := env.indexResult(c, self, indices)
		if err != nil {
			return nil, err
		}
		if b, err := env.BroadcastShapes(indexed.Shape, values.Shape); err != nil || !sym.EqualLists(b, indexed.Shape) {
			return nil, Errorf(CodeShape, "", "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
				shapeString(values.Shape), shapeString(indexed.Shape))
		}
	}
	if c.Op.IsInplace() {
		return self.Clone(), nil
	}
	return env.castTo(self, self.DType, self.Device, "")
}

// isMask: an index of bool or uint8 selects by its true elements.
func isMask(t *ir.TensorType) bool { return t != nil && (t.DType == ir.Bool || t.DType == ir.U8) }

// dimIndex checks gather's and scatter's dim and reads their int32 or
// int64 index.
func dimIndex(c *Call, self *ir.TensorType, op string) (*ir.TensorType, error) {
	if _, err := c.Dim("dim", self.Rank()); err != nil {
		return nil, err
	}
	index, err := c.Tensor("index")
	if err != nil {
		return nil, err
	}
	if index.DType != ir.I64 && index.DType != ir.I32 { // PyTorch 2.15 takes int32 too
		return nil, Errorf(CodeDType, "", "%s(): Expected dtype int32/int64 for index", op)
	}
	return index, nil
}

func metaGather(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	index, err := dimIndex(c, self, "gather")
	if err != nil {
		return nil, err
	}
	if index.Rank() != self.Rank() && !(index.Rank() <= 1 && self.Rank() <= 1) {
		return nil, Errorf(CodeShape, "", "Index tensor must have the same number of dimensions as input tensor")
	}
	return env.Contiguous(self.DType, copyExprs(index.Shape), self.Device), nil
}

// metaScatter is scatter / scatter_add / scatter_reduce (and in-place
// forms): self's shape, row-major.
func metaScatter(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if _, err := dimIndex(c, self, "scatter"); err != nil {
		return nil, err
	}
	if c.Has("src") {
		src, err := c.Tensor("src")
		if err != nil {
			return nil, err
		}
		if src.DType != self.DType {
			return nil, Errorf(CodeDType, "", "scatter(): Expected self.dtype to be equal to src.dtype")
		}
	}
	if c.Op.IsInplace() {
		return self.Clone(), nil
	}
	return env.Contiguous(self.DType, copyExprs(self.Shape), self.Device), nil
}

// metaIndexSelect replaces dim's size by index.numel().
func metaIndexSelect(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dim, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	index, err := c.Tensor("index")
	if err != nil {
		return nil, err
	}
	if index.Rank() > 1 {
		return nil, Errorf(CodeShape, "", "index_select(): Index is supposed to be a vector")
	}
	shape := copyExprs(self.Shape)
	if self.Rank() > 0 {
		shape[dim] = index.Numel()
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaIndexLike is index_add/index_copy/index_fill: self's type (a clone
// for the functional forms).
func metaIndexLike(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if c.Op.IsInplace() {
		return self.Clone(), nil
	}
	return env.castTo(self, self.DType, self.Device, "")
}

// metaMaskedFill is masked_fill(_): self's dtype over the broadcast of self
// and mask, row-major (expand + clone(contiguous) + masked_fill_).
func metaMaskedFill(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "self", "mask")
	if err != nil {
		return nil, err
	}
	self, mask := ts[0], ts[1]
	if mask.DType != ir.Bool {
		return nil, Errorf(CodeDType, "", "masked_fill_ only supports boolean masks, but got mask with dtype %s", mask.DType.Name())
	}
	if c.Arg("value").Kind == ir.ArgValue {
		if v, _ := c.Tensor("value"); v != nil && v.Rank() != 0 {
			return nil, Errorf(CodeShape, "", "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", v.Rank())
		}
	}
	shape, err := env.BroadcastShapes(self.Shape, mask.Shape)
	if err != nil {
		return nil, err
	}
	if c.Op.IsInplace() {
		if !sym.EqualLists(shape, self.Shape) {
			return nil, Errorf(CodeShape, "", "output with shape %s doesn't match the broadcast shape %s", shapeString(self.Shape), shapeString(shape))
		}
		return one(self.Clone()), nil
	}
	return one(env.Contiguous(self.DType, shape, self.Device)), nil
}

// scatterInverse builds slice_scatter / select_scatter / diagonal_scatter /
// as_strided_scatter: src must match the view of self the inverse writes,
// and the result is clone_preserve_strides(self).
func scatterInverse(view selfRuleFunc) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		ts, err := tensorsOf(c, "self", "src")
		if err != nil {
			return nil, err
		}
		self, src := ts[0], ts[1]
		v, err := view(env, c, self)
		if err != nil {
			return nil, err
		}
		if !sym.EqualLists(v.Shape, src.Shape) {
			if b, err := env.BroadcastShapes(v.Shape, src.Shape); err != nil || !sym.EqualLists(b, v.Shape) {
				return nil, Errorf(CodeShape, "", "expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
					shapeString(src.Shape), shapeString(v.Shape))
			}
		}
		return one(env.clonePreserveStrides(self)), nil
	}
}

// clonePreserveStrides keeps self's exact strides and offset in fresh
// storage, unless self overlaps itself (expanded), which clones densely.
func (env *Env) clonePreserveStrides(self *ir.TensorType) *ir.TensorType {
	for i, s := range stridesOf(self) {
		if isConst(s, 0) && !isOne(self.Shape[i]) {
			return env.Fresh(self.DType, copyExprs(self.Shape), env.PreserveStrides(self), self.Device)
		}
	}
	t := env.Fresh(self.DType, copyExprs(self.Shape), copyExprs(stridesOf(self)), self.Device)
	t.Offset = offsetOf(self)
	return t
}

// errNoTensor reports a missing tensor argument.
func errNoTensor(c *Call, name string) error {
	return fmt.Errorf("%s: %s is None", c.Op.QualifiedName(), name)
}
