package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Meta rules for 3-d pooling (max_pool3d_with_indices, avg_pool3d, adaptive
// 3-d pooling) and fractional max pooling: metaPool2d's rule over three
// spatial dims, the result in the input's suggested memory format.

// metaPool3d is [N,] C, and each spatial size pooled.
func metaPool3d(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 4 && self.Rank() != 5 {
		return nil, Errorf(CodeShape, "", "non-empty 4D or 5D (batch mode) tensor expected for input")
	}
	k, err := spatialParam(c, "kernel_size", 3, nil)
	if err != nil || k == nil {
		return nil, Errorf(CodeShape, "", "%s: kernel_size must either be a single int, or a tuple of three ints", c.Op.Schema.Name)
	}
	stride, err := spatialParam(c, "stride", 3, k)
	if err != nil {
		return nil, err
	}
	pad, err := spatialParam(c, "padding", 3, constList(3, 0))
	if err != nil {
		return nil, err
	}
	dil := constList(3, 1)
	if c.Has("dilation") {
		if dil, err = spatialParam(c, "dilation", 3, dil); err != nil {
			return nil, err
		}
	}
	ceil, err := c.Bool("ceil_mode")
	if err != nil {
		return nil, err
	}
	r := self.Rank()
	shape := copyExprs(self.Shape[:r-3])
	for i := 0; i < 3; i++ {
		shape = append(shape, env.poolSize(self.Shape[r-3+i], k[i], pad[i], stride[i], dil[i], ceil))
	}
	return poolResults(env, c, self, shape), nil
}

// metaAdaptivePool3d replaces the three spatial sizes by output_size.
func metaAdaptivePool3d(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.SymInts("output_size")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 4 && self.Rank() != 5 || len(size) != 3 {
		return nil, Errorf(CodeShape, "", "%s(): Expected 4D or 5D tensor, but got %s", c.Op.Schema.Name, shapeString(self.Shape))
	}
	shape := append(copyExprs(self.Shape[:self.Rank()-3]), size...)
	return poolResults(env, c, self, shape), nil
}

// metaFractionalMaxPool is (values, int64 indices) over output_size.
func metaFractionalMaxPool(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.SymInts("output_size")
	if err != nil {
		return nil, err
	}
	if self.Rank() < len(size)+1 {
		return nil, Errorf(CodeShape, "", "%s(): expected a %dD or %dD input", c.Op.Schema.Name, len(size)+1, len(size)+2)
	}
	shape := append(copyExprs(self.Shape[:self.Rank()-len(size)]), size...)
	return poolResults(env, c, self, shape), nil
}

// poolResults is the pooled values in self's suggested memory format, and
// int64 indices alike when the op returns them.
func poolResults(env *Env, c *Call, self *ir.TensorType, shape []sym.Expr) []ir.Type {
	res := []ir.Type{ir.TensorOf(env.layoutLike(self.DType, shape, self))}
	if len(c.Op.Schema.Returns) == 2 {
		res = append(res, ir.TensorOf(env.layoutLike(ir.I64, copyExprs(shape), self)))
	}
	return res
}
