package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Meta rules for searchsorted/bucketize, isin, median/nanmedian of all
// elements, histc and masked_scatter_backward.

// metaSearch is searchsorted/bucketize: int64 (int32 with out_int32) of
// the searched values' shape (a Scalar gives a 0-dim result).
func metaSearch(values string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		dt := ir.I64
		if c.Has("out_int32") {
			small, err := c.Bool("out_int32")
			if err != nil {
				return nil, err
			}
			if small {
				dt = ir.I32
			}
		}
		var dev ir.Device
		for _, p := range c.Op.Schema.Params {
			if t, err := c.Tensor(p.Name); err == nil && t != nil && p.Name != values {
				dev = t.Device
				break
			}
		}
		shape := []sym.Expr{}
		if c.Arg(values).Kind == ir.ArgValue {
			v, err := c.Tensor(values)
			if err != nil {
				return nil, err
			}
			shape = copyExprs(v.Shape)
		}
		return one(env.Contiguous(dt, shape, dev)), nil
	}
}

// metaIsin is a bool tensor of elements' shape (0-dim for a Scalar).
func metaIsin(env *Env, c *Call) ([]ir.Type, error) {
	shape, dev := []sym.Expr{}, ir.CPU
	if c.Has("elements") {
		e, err := c.Tensor("elements")
		if err != nil {
			return nil, err
		}
		shape, dev = copyExprs(e.Shape), e.Device
	} else if t, err := c.Tensor("test_elements"); err == nil && t != nil {
		dev = t.Device
	}
	return one(env.Contiguous(ir.Bool, shape, dev)), nil
}

// metaScalarOfSelf is a 0-dim tensor of self's dtype (median of all).
func metaScalarOfSelf(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return env.Contiguous(self.DType, []sym.Expr{}, self.Device), nil
}

// metaHistc is [bins] of self's dtype.
func metaHistc(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	bins, err := c.Int("bins")
	if err != nil {
		return nil, err
	}
	if bins <= 0 {
		return nil, Errorf(CodeInvalidArgVal, "", "torch.histc: bins must be > 0, but got %d for dimension 0", bins)
	}
	return env.Contiguous(self.DType, []sym.Expr{sym.Const(bins)}, self.Device), nil
}

// metaMaskedScatterBackward is grad_output's dtype over sizes, row-major.
func metaMaskedScatterBackward(env *Env, c *Call) ([]ir.Type, error) {
	g, err := c.Tensor("grad_output")
	if err != nil {
		return nil, err
	}
	sizes, err := c.SymInts("sizes")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(g.DType, sizes, g.Device)), nil
}

// metaMultinomial is int64 [num_samples] for a 1-d self, [rows, num_samples]
// for a 2-d one.
func metaMultinomial(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	n, err := c.SymInt("num_samples")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 1 && self.Rank() != 2 {
		return nil, Errorf(CodeShape, "", "prob_dist must be 1 or 2 dim")
	}
	shape := append(copyExprs(self.Shape[:self.Rank()-1]), n)
	return env.Contiguous(ir.I64, shape, self.Device), nil
}

// metaRandint is a factory whose dtype defaults to int64 (the schema's
// dtype=4).
func metaRandint(env *Env, c *Call) ([]ir.Type, error) {
	size, err := c.SymInts("size")
	if err != nil {
		return nil, err
	}
	if err := env.checkSizes(size); err != nil {
		return nil, err
	}
	dt, dev := ir.I64, ir.CPU
	if !c.IsNone("dtype") && c.Arg("dtype").Kind != ir.ArgInt {
		if dt, _, err = c.DType("dtype"); err != nil {
			return nil, err
		}
	}
	if d, ok, err := c.Device("device"); err != nil {
		return nil, err
	} else if ok {
		dev = d
	}
	return one(env.Contiguous(dt, size, dev)), nil
}
