package ops

import (
	"sort"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Casts, copies and clones: aten/src/ATen/native/TensorConversions.cpp
// (_to_copy, to), TensorFactories.cpp (empty_like's preserve_format), Copy.cpp
// (copy_ and the meta-device rule), prims convert_element_type.

// IsNonOverlappingAndDense is TensorImpl's is_non_overlapping_and_dense:
// sorted by stride (size-1 dims last), the strides are dense.
func IsNonOverlappingAndDense(env *Env, t *ir.TensorType) bool {
	n := t.Rank()
	st := stridesOf(t)
	if n == 1 {
		return env.cmpExpr(t.Shape[0], sym.Const(2)) == -1 || isConst(st[0], 1)
	}
	perm := identityPerm(n)
	small := func(d int) bool { return env.cmpExpr(t.Shape[d], sym.Const(2)) == -1 }
	sort.SliceStable(perm, func(i, j int) bool {
		a, b := perm[i], perm[j]
		switch {
		case small(a):
			return false
		case small(b):
			return true
		}
		return env.cmpExpr(st[a], st[b]) == -1
	})
	require := sym.Expr(c1)
	for _, d := range perm {
		if small(d) {
			return true
		}
		if !sym.Equal(st[d], require) {
			return false
		}
		require = sym.Mul(require, t.Shape[d])
	}
	return true
}

// PreserveStrides is empty_like's torch.preserve_format: a dense tensor
// keeps its strides; any other keeps its dim order with dense strides.
func (env *Env) PreserveStrides(t *ir.TensorType) []sym.Expr {
	if IsNonOverlappingAndDense(env, t) {
		return copyExprs(stridesOf(t))
	}
	return env.ElementwiseStrides(t.Shape, []*ir.TensorType{t})
}

// StridesFor is the layout a memory_format argument asks for: "" and
// preserve_format keep t's layout, contiguous_format is row-major,
// channels_last is NHWC.
func (env *Env) StridesFor(format string, t *ir.TensorType) []sym.Expr {
	switch format {
	case "contiguous_format":
		return ir.ContiguousStrides(t.Shape)
	case "channels_last", "channels_last_3d":
		if perm := channelsLastPerm(t.Rank()); perm != nil {
			return stridesInOrder(t.Shape, perm)
		}
		return ir.ContiguousStrides(t.Shape)
	}
	return env.PreserveStrides(t)
}

// checkMetaCopy fails a copy whose source is meta and destination is not.
func checkMetaCopy(src ir.Device, dst ir.Device) error {
	if src.IsMeta() && dst.Known() && !dst.IsMeta() {
		return Errorf(CodeMetaCopy,
			"the source has shapes and no data: keep the meta model out of the module tree, create it on demand, or use module.to_empty(device=...) and initialise it",
			"Cannot copy out of meta tensor; no data!")
	}
	return nil
}

// castTo is the result of copying self into dtype/device/memory_format.
func (env *Env) castTo(self *ir.TensorType, dt ir.DType, dev ir.Device, format string) (*ir.TensorType, error) {
	if dt == ir.Invalid {
		dt = self.DType
	}
	if !dev.Known() {
		dev = self.Device
	}
	if err := checkMetaCopy(self.Device, dev); err != nil {
		return nil, err
	}
	return env.Fresh(dt, copyExprs(self.Shape), env.StridesFor(format, self), dev), nil
}

func metaToCopy(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dt, dev, err := dtypeDevice(c)
	if err != nil {
		return nil, err
	}
	return env.castTo(self, dt, dev, c.Enum("memory_format"))
}

// metaTo covers the to.* overloads: a no-op returns self (an alias) unless
// copy=True; otherwise it is _to_copy.
func metaTo(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dt, dev, err := dtypeDevice(c)
	if err != nil {
		return nil, err
	}
	if c.Has("other") {
		other, err := c.Tensor("other")
		if err != nil {
			return nil, err
		}
		dt, dev = other.DType, other.Device
	}
	cp, err := c.Bool("copy")
	if err != nil {
		return nil, err
	}
	format := c.Enum("memory_format")
	same := (dt == ir.Invalid || dt == self.DType) && (!dev.Known() || dev == self.Device)
	if same && !cp && (format == "" || format == "preserve_format") {
		return viewOf(self, copyExprs(self.Shape), copyExprs(stridesOf(self)), offsetOf(self)), nil
	}
	return env.castTo(self, dt, dev, format)
}

func metaConvertElementType(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dt, _, err := c.DType("dtype")
	if err != nil {
		return nil, err
	}
	return env.castTo(self, dt, self.Device, "")
}

func metaDevicePut(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dev, _, err := c.Device("device")
	if err != nil {
		return nil, err
	}
	return env.castTo(self, self.DType, dev, "")
}

// metaContiguous is Tensor.contiguous: self itself when it is already
// contiguous in the memory format (TensorBase::contiguous returns *this),
// else a clone in that format.
func metaContiguous(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	format := c.Enum("memory_format")
	already := false
	switch format {
	case "", "contiguous_format":
		already = IsContiguous(self)
	case "channels_last", "channels_last_3d":
		already = IsChannelsLast(self)
	}
	if already {
		return viewOf(self, copyExprs(self.Shape), copyExprs(stridesOf(self)), offsetOf(self)), nil
	}
	return env.castTo(self, self.DType, self.Device, format)
}

func metaClone(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return env.castTo(self, self.DType, self.Device, c.Enum("memory_format"))
}

// metaCopyFunctional is copy(self, src): a clone of self (its layout and
// dtype) holding src's values broadcast to self's shape.
func metaCopyFunctional(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	src, err := c.Tensor("src")
	if err != nil {
		return nil, err
	}
	if err := env.checkCopySrc(self, src); err != nil {
		return nil, err
	}
	return env.castTo(self, self.DType, self.Device, "")
}

// metaCopyInplace is copy_(self, src): self, after checking that src
// broadcasts to it and that no data leaves a meta tensor.
func metaCopyInplace(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	src, err := c.Tensor("src")
	if err != nil {
		return nil, err
	}
	if err := checkMetaCopy(src.Device, self.Device); err != nil {
		return nil, err
	}
	if err := env.checkCopySrc(self, src); err != nil {
		return nil, err
	}
	return self.Clone(), nil
}

func (env *Env) checkCopySrc(self, src *ir.TensorType) error {
	shape, err := env.BroadcastShapes(self.Shape, src.Shape)
	if err != nil {
		return err
	}
	if !sym.EqualLists(shape, self.Shape) {
		return Errorf(CodeShape, "", "output with shape %s doesn't match the broadcast shape %s", shapeString(self.Shape), shapeString(shape))
	}
	return nil
}

// metaFillLike is fill.Scalar / fill.Tensor / zero: a preserve-format copy of self.
func metaFillLike(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return env.castTo(self, self.DType, self.Device, "")
}

// metaSelfInplace returns self unchanged: fill_, zero_, and other in-place
// ops that keep their type.
func metaSelfInplace(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return self.Clone(), nil
}

// metaResize is resize_: self with a new row-major shape in its storage.
func metaResize(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	size, err := c.SymInts("size")
	if err != nil {
		return nil, err
	}
	for _, s := range size {
		if v, ok := s.Const(); ok && v < 0 {
			return nil, Errorf(CodeShape, "", "Trying to create tensor with negative dimension %d: %s", v, shapeString(size))
		}
	}
	t := viewOf(self, size, ir.ContiguousStrides(size), offsetOf(self))
	if f := c.Enum("memory_format"); f == "channels_last" || f == "channels_last_3d" {
		t.Strides = env.StridesFor(f, t)
	}
	return t, nil
}

// metaResizeFunctional is resize: resize_'s sizes and strides in a
// tensor of its own (PyTorch's result does not share self's storage).
func metaResizeFunctional(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	t, err := metaResize(env, c, self)
	if err != nil {
		return nil, err
	}
	return env.Fresh(t.DType, t.Shape, t.Strides, t.Device), nil
}

// dtypeDevice reads the dtype= and device= of a conversion (Invalid and
// the zero Device for None).
func dtypeDevice(c *Call) (ir.DType, ir.Device, error) {
	dt, _, err := c.DType("dtype")
	if err != nil {
		return ir.Invalid, ir.Device{}, err
	}
	dev, _, err := c.Device("device")
	return dt, dev, err
}
