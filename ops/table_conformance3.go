package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// A third batch the conformance table asked for; layouts checked against
// PyTorch 2.15's fake tensors (row-major unless said).
func conformanceTable3() []Entry {
	return []Entry{
		{Schema: "linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False) -> Tensor", Kind: KindExtern, Meta: metaPinv},
		{Schema: "max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor", Kind: KindNN, Meta: selfRule(metaUnpool)},
		{Schema: "max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding) -> Tensor", Kind: KindNN, Meta: selfRule(metaUnpool)},
		{Schema: "block_diag(Tensor[] tensors) -> Tensor", Kind: KindShape, Meta: metaBlockDiag},
		{Schema: "ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> Tensor", Kind: KindExtern, Meta: func(env *Env, c *Call) ([]ir.Type, error) {
			c3, err := c.Tensor("input3")
			if err != nil {
				return nil, err
			}
			return one(colMajor(env, c3.DType, copyExprs(c3.Shape), c3.Device)), nil
		}},
		{Schema: "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)", Kind: KindNN, Meta: metaGroupNorm},
		{Schema: "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", Kind: KindIndexing, Meta: func(env *Env, c *Call) ([]ir.Type, error) {
			self, err := c.Tensor("self")
			if err != nil {
				return nil, err
			}
			mask, err := c.Tensor("mask")
			if err != nil {
				return nil, err
			}
			shape, err := env.BroadcastShapes(self.Shape, mask.Shape)
			if err != nil {
				return nil, err
			}
			return one(env.Contiguous(self.DType, shape, self.Device)), nil
		}},
		{Schema: "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", Kind: KindFactory, Meta: metaSpace},
		{Schema: "logspace(Scalar start, Scalar end, int steps, float base=10., *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", Kind: KindFactory, Meta: metaSpace},
	}
}

// metaPinv is the pseudo-inverse: [..., n, m] for [..., m, n], row-major.
func metaPinv(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, m, n, err := matrix(c, "self")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(a.DType, with(batch, n, m), a.Device)), nil
}

// metaUnpool replaces the spatial dims by output_size.
func metaUnpool(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	size, err := c.SymInts("output_size")
	if err != nil {
		return nil, err
	}
	if self.Rank() < len(size)+1 {
		return nil, Errorf(CodeShape, "", "%s: input must have at least %d dimensions", c.Op.Schema.Name, len(size)+1)
	}
	shape := append(copyExprs(self.Shape[:self.Rank()-len(size)]), size...)
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaBlockDiag stacks matrices on a diagonal: a 1-D tensor is one row,
// a 0-D one is 1×1; the dtype is the promotion of all.
func metaBlockDiag(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := c.Tensors("tensors")
	if err != nil {
		return nil, err
	}
	rows, cols := sym.Const(0), sym.Const(0)
	dt, dev := ir.F32, ir.CPU
	for i, t := range ts {
		switch t.Rank() {
		case 0:
			rows, cols = sym.Add(rows, sym.Const(1)), sym.Add(cols, sym.Const(1))
		case 1:
			rows, cols = sym.Add(rows, sym.Const(1)), sym.Add(cols, t.Shape[0])
		case 2:
			rows, cols = sym.Add(rows, t.Shape[0]), sym.Add(cols, t.Shape[1])
		default:
			return nil, Errorf(CodeShape, "", "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %d has %d dimensions", i, t.Rank())
		}
		if i == 0 {
			dt, dev = t.DType, t.Device
		} else if dt, err = PromoteTypes(dt, t.DType); err != nil {
			return nil, err
		}
	}
	return one(env.Contiguous(dt, []sym.Expr{rows, cols}, dev)), nil
}

// metaGroupNorm is (output like input, mean and rstd of shape [N, group]).
func metaGroupNorm(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	n, err := c.SymInt("N")
	if err != nil {
		return nil, err
	}
	g, err := c.Int("group")
	if err != nil {
		return nil, err
	}
	stat := []sym.Expr{n, sym.Const(g)}
	return types(env.Contiguous(in.DType, copyExprs(in.Shape), in.Device),
		env.Contiguous(in.DType, stat, in.Device), env.Contiguous(in.DType, copyExprs(stat), in.Device)), nil
}

// metaSpace is linspace/logspace: steps points in the given dtype (the
// default float dtype when none).
func metaSpace(env *Env, c *Call) ([]ir.Type, error) {
	steps, err := c.Int("steps")
	if err != nil {
		return nil, err
	}
	if steps < 0 {
		return nil, Errorf(CodeInvalidArgVal, "", "number of steps must be non-negative")
	}
	dt, dev, err := factoryOptions(c, ir.F32, ir.CPU)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, []sym.Expr{sym.Const(steps)}, dev)), nil
}
