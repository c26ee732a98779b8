package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Meta rules for adaptive max pooling, im2col and col2im.

// metaLayoutOf is name.new_empty(name.shape) in name's suggested memory
// format (pooling backward).
func metaLayoutOf(name string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		t, err := c.Tensor(name)
		if err != nil || t == nil {
			return nil, err
		}
		return one(env.layoutLike(t.DType, copyExprs(t.Shape), t)), nil
	}
}

// metaAdaptiveMaxPool2d is (values, int64 indices) over output_size; a
// batched input keeps its suggested memory format.
func metaAdaptiveMaxPool2d(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.SymInts("output_size")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 3 && self.Rank() != 4 || len(size) != 2 {
		return nil, Errorf(CodeShape, "", "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: %s", shapeString(self.Shape))
	}
	shape := append(copyExprs(self.Shape[:self.Rank()-2]), size...)
	if self.Rank() == 3 {
		return types(env.Contiguous(self.DType, shape, self.Device), env.Contiguous(ir.I64, copyExprs(shape), self.Device)), nil
	}
	return types(env.layoutLike(self.DType, shape, self), env.layoutLike(ir.I64, copyExprs(shape), self)), nil
}

// unfoldBlocks is the number of sliding positions along spatial dim i:
// (n + 2p - d(k-1) - 1) / s + 1.
func unfoldBlocks(c *Call, n sym.Expr, i int) (sym.Expr, error) {
	vals := map[string]int64{}
	for _, name := range []string{"kernel_size", "dilation", "padding", "stride"} {
		v, err := c.Ints(name)
		if err != nil {
			return sym.Expr{}, err
		}
		if len(v) != 2 {
			return sym.Expr{}, Errorf(CodeInvalidArgVal, "", "%s(): only 2D %s supported", c.Op.Schema.Name, name)
		}
		vals[name] = v[i]
	}
	k, d, pad, s := vals["kernel_size"], vals["dilation"], vals["padding"], vals["stride"]
	if s <= 0 {
		return sym.Expr{}, Errorf(CodeInvalidArgVal, "", "%s(): stride should be greater than zero, but got stride=%d", c.Op.Schema.Name, s)
	}
	num := sym.Add(n, sym.Const(2*pad-d*(k-1)-1))
	return sym.Add(sym.FloorDiv(num, sym.Const(s)), sym.Const(1)), nil
}

// metaIm2col is [N,] C·kh·kw, L (the sliding blocks), row-major.
func metaIm2col(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	r := self.Rank()
	if r != 3 && r != 4 {
		return nil, Errorf(CodeShape, "", "Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and non-zero dimensions, but got: %s", shapeString(self.Shape))
	}
	k, err := c.Ints("kernel_size")
	if err != nil {
		return nil, err
	}
	bh, err := unfoldBlocks(c, self.Shape[r-2], 0)
	if err != nil {
		return nil, err
	}
	bw, err := unfoldBlocks(c, self.Shape[r-1], 1)
	if err != nil {
		return nil, err
	}
	shape := append(copyExprs(self.Shape[:r-3]), sym.Mul(self.Shape[r-3], sym.Const(k[0]*k[1])), sym.Mul(bh, bw))
	return one(env.Contiguous(self.DType, shape, self.Device)), nil
}

// metaCol2im is [N,] C, H, W with C the rows over kh·kw, row-major.
func metaCol2im(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	r := self.Rank()
	if r != 2 && r != 3 {
		return nil, Errorf(CodeShape, "", "Expected 2D or 3D (batch mode) tensor for input with possible 0 batch size and non-zero dimensions, but got: %s", shapeString(self.Shape))
	}
	size, err := c.SymInts("output_size")
	if err != nil {
		return nil, err
	}
	k, err := c.Ints("kernel_size")
	if err != nil {
		return nil, err
	}
	if len(size) != 2 || len(k) != 2 {
		return nil, Errorf(CodeInvalidArgVal, "", "col2im(): only 2D output_size and kernel_size supported")
	}
	shape := append(copyExprs(self.Shape[:r-2]), sym.FloorDiv(self.Shape[r-2], sym.Const(k[0]*k[1])), size[0], size[1])
	return one(env.Contiguous(self.DType, shape, self.Device)), nil
}
