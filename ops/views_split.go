package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Multi-result views (split, split_with_sizes, chunk, unbind) and
// view.dtype.

// narrowView is self narrowed to [start, start+length) along dim.
func narrowView(self *ir.TensorType, dim int, start, length sym.Expr) *ir.TensorType {
	shape, strides := copyExprs(self.Shape), copyExprs(stridesOf(self))
	shape[dim] = length
	return viewOf(self, shape, strides, sym.Add(offsetOf(self), sym.Mul(start, strides[dim])))
}

// splitRule adapts a multi-result view rule over self and its wrapped dim.
func splitRule(f func(env *Env, c *Call, self *ir.TensorType, dim int) ([]ir.Type, error)) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		self, dim, err := splitSelf(c)
		if err != nil {
			return nil, err
		}
		return f(env, c, self, dim)
	}
}

func splitSelf(c *Call) (*ir.TensorType, int, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, 0, err
	}
	if self.Rank() == 0 {
		return nil, 0, Errorf(CodeDim, "", "split expects at least a 1-dimensional tensor")
	}
	dim, err := c.Dim("dim", self.Rank())
	return self, dim, err
}

// numResults is how many list elements the graph names, for splits whose
// count is symbolic (PyTorch fixes it from the size hint when tracing).
func numResults(c *Call) int {
	if c.Node == nil {
		return 0
	}
	return len(c.Node.Results)
}

// metaSplit is split.Tensor: chunks of split_size, the last one smaller.
var metaSplit = splitRule(func(env *Env, c *Call, self *ir.TensorType, dim int) ([]ir.Type, error) {
	size, err := c.SymInt("split_size")
	if err != nil {
		return nil, err
	}
	if v, ok := size.Const(); ok && v < 0 {
		return nil, Errorf(CodeShape, "", "split expects split_size be non-negative, but got split_size=%d", v)
	}
	return env.splitEven(c, self, dim, size)
})

// splitEven cuts dim into pieces of size, the last one smaller (split,
// chunk).
func (env *Env) splitEven(c *Call, self *ir.TensorType, dim int, size sym.Expr) ([]ir.Type, error) {
	dimSize := self.Shape[dim]
	n, err := env.splitCount(dimSize, size, c)
	if err != nil {
		return nil, err
	}
	out := make([]ir.Type, n)
	for i := 0; i < n; i++ {
		length := size
		if i == n-1 {
			length = sym.Sub(dimSize, sym.Mul(sym.Const(int64(n-1)), size))
		}
		out[i] = ir.TensorOf(narrowView(self, dim, sym.Mul(sym.Const(int64(i)), size), length))
	}
	return out, nil
}

// splitCount is max(ceil(dim_size / split_size), 1), taken from the graph's
// result count when the sizes are symbolic.
func (env *Env) splitCount(dimSize, size sym.Expr, c *Call) (int, error) {
	a, aok := dimSize.Const()
	b, bok := size.Const()
	switch {
	case aok && bok && b == 0:
		if a != 0 {
			return 0, Errorf(CodeShape, "", "split_size can only be 0 if dimension size is 0, but got dimension size of %d", a)
		}
		return 1, nil
	case aok && bok:
		return int(max((a+b-1)/b, 1)), nil
	}
	if n, ok := sym.CeilDiv(dimSize, size).Const(); ok {
		return int(max(n, 1)), nil
	}
	if n := numResults(c); n > 0 {
		return n, nil
	}
	return 0, fmt.Errorf("split of symbolic size %s by %s: the number of pieces is not known", dimSize, size)
}

var metaSplitWithSizes = splitRule(func(env *Env, c *Call, self *ir.TensorType, dim int) ([]ir.Type, error) {
	sizes, err := c.SymInts("split_sizes")
	if err != nil {
		return nil, err
	}
	if eq, ok := env.eqSize(product2sum(sizes), self.Shape[dim]); ok && !eq {
		return nil, Errorf(CodeShape, "the split sizes must add up to the size of the dimension",
			"split_with_sizes expects split_sizes to sum exactly to %s (input tensor's size at dimension %d), but got split_sizes=%s",
			self.Shape[dim], dim, shapeString(sizes))
	}
	out := make([]ir.Type, len(sizes))
	start := sym.Expr(c0)
	for i, s := range sizes {
		out[i] = ir.TensorOf(narrowView(self, dim, start, s))
		start = sym.Add(start, s)
	}
	return out, nil
})

func product2sum(es []sym.Expr) sym.Expr {
	s := sym.Expr(c0)
	for _, e := range es {
		s = sym.Add(s, e)
	}
	return s
}

// metaChunk is chunk: split by ceil(size / chunks).
var metaChunk = splitRule(func(env *Env, c *Call, self *ir.TensorType, dim int) ([]ir.Type, error) {
	chunks, err := c.Int("chunks")
	if err != nil {
		return nil, err
	}
	if chunks <= 0 {
		return nil, Errorf(CodeInvalidArgVal, "", "chunk expects `chunks` to be greater than 0, got: %d", chunks)
	}
	return env.splitEven(c, self, dim, sym.CeilDiv(self.Shape[dim], sym.Const(chunks)))
})

var metaUnbind = splitRule(func(env *Env, c *Call, self *ir.TensorType, dim int) ([]ir.Type, error) {
	n64, ok := self.Shape[dim].Const()
	n := int(n64)
	if !ok {
		if n = numResults(c); n == 0 {
			return nil, fmt.Errorf("unbind of symbolic size %s: the number of pieces is not known", self.Shape[dim])
		}
	}
	st := stridesOf(self)
	out := make([]ir.Type, n)
	for i := range out {
		off := sym.Add(offsetOf(self), sym.Mul(sym.Const(int64(i)), st[dim]))
		out[i] = ir.TensorOf(viewOf(self, removeAt(self.Shape, dim), removeAt(st, dim), off))
	}
	return out, nil
})

// ruleViewDType is view.dtype: same bytes, another element type. Between
// element sizes the last dim and the storage offset are rescaled, and
// PyTorch's checks apply.
func ruleViewDType(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dt, _, err := c.DType("dtype")
	if err != nil {
		return nil, err
	}
	from, to := self.DType.ItemSize(), dt.ItemSize()
	shape, strides, off := copyExprs(self.Shape), copyExprs(stridesOf(self)), offsetOf(self)
	out := func() *ir.TensorType {
		t := viewOf(self, shape, strides, off)
		t.DType = dt
		return t
	}
	if from == to {
		return out(), nil
	}
	hint := "view(dtype) between element sizes needs a contiguous last dim whose size and offset divide evenly"
	if self.Rank() == 0 {
		return nil, Errorf(CodeDType, hint, "self.dim() cannot be 0 to view %s as %s (different element sizes)", ScalarTypeName(self.DType), ScalarTypeName(dt))
	}
	last := self.Rank() - 1
	if from > to {
		ratio := sym.Const(int64(from / to))
		for i := 0; i < last; i++ {
			strides[i] = sym.Mul(strides[i], ratio)
		}
		shape[last] = sym.Mul(shape[last], ratio)
		off = sym.Mul(off, ratio)
		return out(), nil
	}
	r := int64(to / from)
	ratio := sym.Const(r)
	if !isConst(strides[last], 1) {
		return nil, Errorf(CodeDType, hint, "self.stride(-1) must be 1 to view %s as %s (different element sizes), but got %s", ScalarTypeName(self.DType), ScalarTypeName(dt), strides[last])
	}
	if notDivisible(shape[last], r) {
		return nil, Errorf(CodeDType, hint, "self.size(-1) must be divisible by %d to view %s as %s (different element sizes), but got %s", r, ScalarTypeName(self.DType), ScalarTypeName(dt), shape[last])
	}
	if notDivisible(off, r) {
		return nil, Errorf(CodeDType, hint, "self.storage_offset() must be divisible by %d to view %s as %s (different element sizes), but got %s", r, ScalarTypeName(self.DType), ScalarTypeName(dt), off)
	}
	for i := 0; i < last; i++ {
		strides[i] = sym.FloorDiv(strides[i], ratio)
	}
	shape[last] = sym.FloorDiv(shape[last], ratio)
	off = sym.FloorDiv(off, ratio)
	return out(), nil
}

// notDivisible reports that e % r is known to be nonzero. A symbolic
// remainder is assumed zero, as PyTorch would guard on the size hint.
func notDivisible(e sym.Expr, r int64) bool {
	m, ok := sym.Mod(e, sym.Const(r)).Const()
	return ok && m != 0
}
