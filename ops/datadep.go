package ops

import (
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Data-dependent ops, after torch/_subclasses/fake_impls.py: without
// capture, PyTorch raises DataDependentOutputException /
// DynamicOutputShapeException (Dynamo's messages below); with capture,
// results get fresh unbacked symbols with their range facts.

const (
	hintCaptureScalar = "run with -capture-scalar-outputs (torch._dynamo.config.capture_scalar_outputs = True) to trace the value as an unbacked symbol, or keep the .item() call out of the compiled region"
	hintCaptureDyn    = "run with -capture-dynamic-output-shape-ops (torch._dynamo.config.capture_dynamic_output_shape_ops = True) to give the size an unbacked symbol, or keep the op out of the compiled region"
	hintMetaItem      = "materialise the tensor on a real device before the call, or avoid the data-dependent call"
)

// errMetaItem is .item() on a meta tensor.
func errMetaItem() *Error {
	return &Error{Code: CodeMetaItem, Hint: hintMetaItem, Msg: "Tensor.item() cannot be called on meta tensors", Arg: "self"}
}

// metaLocalScalarDense is _local_scalar_dense / item: a one-element
// tensor's value, which fake tensors do not have.
func metaLocalScalarDense(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if self.Device.IsMeta() {
		return nil, errMetaItem()
	}
	if v, ok := self.Numel().Const(); ok && v != 1 {
		return nil, Errorf(CodeShape, "", "a Tensor with %d elements cannot be converted to Scalar", v)
	}
	if !env.CaptureScalarOutputs {
		return nil, Errorf(CodeDataDep, hintCaptureScalar,
			"data dependent operator: %s; to enable, set torch._dynamo.config.capture_scalar_outputs = True", c.Op.PyName())
	}
	switch {
	case self.DType.IsFloat():
		return []ir.Type{{Kind: ir.KindSymFloat, Sym: env.NewUnbackedFloat()}}, nil
	case self.DType == ir.Bool:
		u := env.NewUnbackedInt(0, 1)
		return []ir.Type{ir.SymBoolOf(sym.Eq(u, c1))}, nil
	case self.DType.IsInt():
		return []ir.Type{ir.SymIntOf(env.NewUnbackedInt(math.MinInt64, math.MaxInt64))}, nil
	}
	return nil, Errorf(CodeUnsupported, "", "local_scalar_dense/item NYI for %s", self.DType)
}

// dynamicSize is the size of a data-dependent output: an error without
// capture, else a fresh u<N> in [0, max] (max unbounded when symbolic).
func (env *Env) dynamicSize(c *Call, pyName string, max sym.Expr) (sym.Expr, error) {
	if !env.CaptureDynamicOutputShapeOps {
		return c0, Errorf(CodeDynShape, hintCaptureDyn,
			"dynamic shape operator: %s; to enable, set torch._dynamo.config.capture_dynamic_output_shape_ops = True", pyName)
	}
	hi := int64(Unbounded)
	if v, ok := max.Const(); ok {
		hi = v
	}
	u := env.NewUnbackedInt(0, hi)
	env.MarkSizeLike(u.Name())
	return u, nil
}

// metaNonzero is nonzero: i64 [u0, ndim] with strides [1, u0].
func metaNonzero(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	n, err := env.dynamicSize(c, c.Op.PyName(), self.Numel())
	if err != nil {
		return nil, err
	}
	r := sym.Const(int64(self.Rank()))
	return env.Fresh(ir.I64, []sym.Expr{n, r}, []sym.Expr{c1, n}, self.Device), nil
}

// metaMaskedSelect is masked_select: self's dtype, [u0].
func metaMaskedSelect(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	mask, err := c.Tensor("mask")
	if err != nil {
		return nil, err
	}
	shape, err := env.BroadcastShapes(self.Shape, mask.Shape)
	if err != nil {
		return nil, err
	}
	n, err := env.dynamicSize(c, c.Op.PyName(), product(shape))
	if err != nil {
		return nil, err
	}
	return env.Contiguous(self.DType, []sym.Expr{n}, self.Device), nil
}

// metaUnique covers _unique, _unique2, unique_dim, unique_consecutive:
// (values [u0], inverse (self's shape or [0]), counts ([u0] or [0])).
func metaUnique(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	n, err := env.dynamicSize(c, c.Op.PyName(), self.Numel())
	if err != nil {
		return nil, err
	}
	valShape := []sym.Expr{n}
	if c.Has("dim") && !c.IsNone("dim") {
		dim, err := c.Dim("dim", self.Rank())
		if err != nil {
			return nil, err
		}
		if err := needDims(self, c.Op.Schema.Name); err != nil {
			return nil, err
		}
		valShape = copyExprs(self.Shape)
		valShape[dim] = n
	}
	res := []ir.Type{ir.TensorOf(env.Contiguous(self.DType, valShape, self.Device))}
	flags := []struct {
		name  string
		shape []sym.Expr
	}{{"return_inverse", copyExprs(self.Shape)}, {"return_counts", []sym.Expr{n}}}
	for _, f := range flags {
		if len(res) >= len(c.Op.Schema.Returns) {
			break
		}
		shape := []sym.Expr{c0}
		if c.Has(f.name) {
			if on, _ := c.Bool(f.name); on {
				shape = f.shape
			}
		}
		res = append(res, ir.TensorOf(env.Contiguous(ir.I64, shape, self.Device)))
	}
	return res, nil
}

// metaRepeatInterleave is repeat_interleave.Tensor: [output_size] when
// given, else a data-dependent size.
func metaRepeatInterleave(env *Env, c *Call) ([]ir.Type, error) {
	rep, err := c.Tensor("repeats")
	if err != nil {
		return nil, err
	}
	var n sym.Expr
	if !c.IsNone("output_size") {
		if n, err = c.SymInt("output_size"); err != nil {
			return nil, err
		}
	} else if n, err = env.dynamicSize(c, c.Op.PyName(), sym.Const(Unbounded)); err != nil {
		return nil, err
	}
	return one(env.Contiguous(rep.DType, []sym.Expr{n}, rep.Device)), nil
}

// metaBincount is bincount: [u0] of i64 (or the weights' float dtype).
func metaBincount(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	n, err := env.dynamicSize(c, c.Op.PyName(), sym.Const(Unbounded))
	if err != nil {
		return nil, err
	}
	dt := ir.I64
	if w, _ := c.Tensor("weights"); w != nil {
		dt = ir.F64
		if w.DType.IsFloat() {
			dt = w.DType
		}
	}
	return env.Contiguous(dt, []sym.Expr{n}, self.Device), nil
}

// metaRepeatInterleaveSelfInt is repeat_interleave.self_int: not data
// dependent; a flattened or dim-scaled copy.
func metaRepeatInterleaveSelfInt(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	r, err := c.SymInt("repeats")
	if err != nil {
		return nil, err
	}
	if c.IsNone("dim") {
		return env.Contiguous(self.DType, []sym.Expr{sym.Mul(self.Numel(), r)}, self.Device), nil
	}
	dim, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	if self.Rank() == 0 {
		return env.Contiguous(self.DType, []sym.Expr{r}, self.Device), nil
	}
	shape := copyExprs(self.Shape)
	shape[dim] = sym.Mul(shape[dim], r)
	return env.Contiguous(self.DType, shape, self.Device), nil
}
