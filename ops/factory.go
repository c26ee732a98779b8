package ops

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Factory meta rules, after TensorFactories.cpp and torch/_refs: dtype from
// the dtype argument, else the default (float32; full infers it from the
// fill value); device from the device argument, else cpu; row-major
// strides unless a memory format or explicit strides say otherwise. The
// *_like and new_* forms take their defaults from self.

// factoryOptions reads dtype/device with defaults.
func factoryOptions(c *Call, defDType ir.DType, defDevice ir.Device) (ir.DType, ir.Device, error) {
	dt, ok, err := c.DType("dtype")
	if err != nil {
		return ir.Invalid, ir.Device{}, err
	}
	if !ok {
		dt = defDType
	}
	dev, ok, err := c.Device("device")
	if err != nil {
		return ir.Invalid, ir.Device{}, err
	}
	if !ok {
		dev = defDevice
	}
	return dt, dev, nil
}

// checkSizes is the allocation check that no size is negative. A size
// the facts cannot decide, over unbacked symbols (zeros([u0]) after .item()),
// does not stop the trace: PyTorch 2.15 checks it with TORCH_SYM_CHECK,
// which defers it to a runtime assertion and records u0 >= 0, and types the
// result (tools/scenarios/pytorch_messages.py: zeros and new_zeros of an
// unchecked .item() compile under capture_scalar_outputs).
func (env *Env) checkSizes(size []sym.Expr) error {
	for _, s := range size {
		neg, known := env.decide(sym.Lt(s, c0))
		if !known && s.HasUnbacked() {
			if s.IsSymbol() {
				lo, hi := env.Facts.Range(s)
				env.Facts.SetRange(s.Name(), max(lo, 0), hi)
			}
			continue
		}
		if known && neg {
			return Errorf(CodeShape, "", "Trying to create tensor with negative dimension %s: %s", s, shapeString(size))
		}
	}
	return nil
}

// factory builds a rule for a size-taking factory. fill names the fill
// value parameter whose type sets the default dtype (full), or "".
func factory(sizeParam, fill string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		size, err := c.SymInts(sizeParam)
		if err != nil {
			return nil, err
		}
		if err := env.checkSizes(size); err != nil {
			return nil, err
		}
		def := DefaultFloat
		if fill != "" {
			if def, err = fillDType(c.Arg(fill)); err != nil {
				return nil, err
			}
		}
		dt, dev, err := factoryOptions(c, def, ir.CPU)
		if err != nil {
			return nil, err
		}
		t := env.Contiguous(dt, size, dev)
		if err := strideArg(c, t); err != nil {
			return nil, err
		}
		if c.Has("stride") && len(t.Strides) != len(size) {
			return nil, Errorf(CodeShape, "", "mismatch in length of strides and shape")
		}
		if f := c.Enum("memory_format"); f == "channels_last" || f == "channels_last_3d" {
			t.Strides = env.StridesFor(f, t)
		}
		return one(t), nil
	}
}

// strideArg sets t's strides from the stride= of the *_strided factories;
// without one, t keeps its contiguous strides.
func strideArg(c *Call, t *ir.TensorType) error {
	if !c.Has("stride") {
		return nil
	}
	var err error
	t.Strides, err = c.SymInts("stride")
	return err
}

// fillDType is the dtype a fill value implies: float -> default float,
// int -> i64, bool -> bool.
func fillDType(a ir.Arg) (ir.DType, error) {
	dt, err := ScalarArgDType(a)
	if err != nil {
		if a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor {
			return a.Value.Type.Tensor.DType, nil
		}
		return ir.Invalid, err
	}
	return scalarDType(dt), nil
}

// likeFactory is zeros_like / ones_like / empty_like / full_like / rand_like:
// self's shape, dtype and device by default, preserve_format layout.
func likeFactory(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dt, dev, err := factoryOptions(c, self.DType, self.Device)
	if err != nil {
		return nil, err
	}
	return env.Fresh(dt, copyExprs(self.Shape), env.StridesFor(c.Enum("memory_format"), self), dev), nil
}

// newFactory is new_zeros / new_ones / new_empty / new_full /
// new_empty_strided: self's dtype and device by default, a given size.
func newFactory(fill string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		self, err := c.Tensor("self")
		if err != nil {
			return nil, err
		}
		size, err := c.SymInts("size")
		if err != nil {
			return nil, err
		}
		if err := env.checkSizes(size); err != nil {
			return nil, err
		}
		dt, dev, err := factoryOptions(c, self.DType, self.Device)
		if err != nil {
			return nil, err
		}
		t := env.Contiguous(dt, size, dev)
		if err := strideArg(c, t); err != nil {
			return nil, err
		}
		return one(t), nil
	}
}

// metaScalarTensor is scalar_tensor: a 0-dim tensor of the default float
// dtype whatever the scalar's type.
func metaScalarTensor(env *Env, c *Call) ([]ir.Type, error) {
	dt, dev, err := factoryOptions(c, DefaultFloat, ir.CPU)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, []sym.Expr{}, dev)), nil
}

// metaArange is arange: length ceil((end - start) / step); an integer
// dtype when start, end and step are all integers.
func metaArange(env *Env, c *Call) ([]ir.Type, error) {
	start, end, step := ir.IntArg(0), c.Arg("end"), ir.IntArg(1)
	if c.Has("start") {
		start = c.Arg("start")
	}
	if c.Has("step") {
		step = c.Arg("step")
	}
	def := ir.I64
	for _, a := range []ir.Arg{start, end, step} {
		dt, err := ScalarArgDType(a)
		if err != nil {
			return nil, err
		}
		if dt.IsFloat() {
			def = DefaultFloat
		}
	}
	dt, dev, err := factoryOptions(c, def, ir.CPU)
	if err != nil {
		return nil, err
	}
	n, err := arangeLength(start, end, step)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, []sym.Expr{n}, dev)), nil
}

func arangeLength(start, end, step ir.Arg) (sym.Expr, error) {
	if start.Kind == ir.ArgFloat || end.Kind == ir.ArgFloat || step.Kind == ir.ArgFloat {
		f := func(a ir.Arg) float64 {
			if a.Kind == ir.ArgFloat {
				return a.Float
			}
			return float64(a.Int)
		}
		if f(step) == 0 {
			return c0, Errorf(CodeInvalidArgVal, "", "step must be nonzero")
		}
		n := math.Ceil((f(end) - f(start)) / f(step))
		if n < 0 {
			return c0, Errorf(CodeInvalidArgVal, "", "upper bound and larger bound inconsistent with step sign")
		}
		return sym.Const(int64(n)), nil
	}
	s, err := ArgSymInt(start)
	if err != nil {
		return c0, fmt.Errorf("arange start: %w", err)
	}
	e, err := ArgSymInt(end)
	if err != nil {
		return c0, fmt.Errorf("arange end: %w", err)
	}
	st, err := ArgSymInt(step)
	if err != nil {
		return c0, fmt.Errorf("arange step: %w", err)
	}
	if isConst(st, 0) {
		return c0, Errorf(CodeInvalidArgVal, "", "step must be nonzero")
	}
	n := sym.CeilDiv(sym.Sub(e, s), st)
	if v, ok := n.Const(); ok && v < 0 {
		return c0, Errorf(CodeInvalidArgVal, "", "upper bound and larger bound inconsistent with step sign")
	}
	return n, nil
}

// metaIota is prims.iota: a 1-d tensor of length elements.
func metaIota(env *Env, c *Call) ([]ir.Type, error) {
	n, err := c.SymInt("length")
	if err != nil {
		return nil, err
	}
	dt, dev, err := factoryOptions(c, ir.I64, ir.CPU)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, []sym.Expr{n}, dev)), nil
}

// metaRandperm is randperm(n): a permutation of 0..n-1, int64 unless dtype
// says otherwise (the schema's default 4 is ScalarType::Long).
func metaRandperm(env *Env, c *Call) ([]ir.Type, error) {
	n, err := c.SymInt("n")
	if err != nil {
		return nil, err
	}
	if err := env.checkSizes([]sym.Expr{n}); err != nil {
		return nil, err
	}
	dt, dev, err := factoryOptions(c, ir.I64, ir.CPU)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, []sym.Expr{n}, dev)), nil
}
