package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// Copies, casts, clones, fills and the view-inverse scatters
// (aten/src/ATen/native/Copy.cpp, TensorConversions.cpp,
// TensorShape.cpp's *_scatter). A copy out of a meta tensor has no data
// to copy and fails with PyTorch's message.

const metaCopyMsg = "Cannot copy out of meta tensor; no data!"

// toCopy is _to_copy: a fresh tensor of dtype on dev, keeping t's layout
// (preserve_format) unless format asks for another.
func toCopy(t *Tensor, dt ir.DType, dev ir.Device, format string) (*Tensor, error) {
	if t.Device().IsMeta() && !dev.IsMeta() {
		return nil, fmt.Errorf("%s", metaCopyMsg)
	}
	strides, err := stridesForFormat(t, format)
	if err != nil {
		return nil, err
	}
	out, err := Empty(dt, t.Shape, strides, dev)
	if err != nil {
		return nil, err
	}
	return out, copyTensor(out, t)
}

// castOpts reads self, then dtype, device and memory_format with self's
// as defaults.
func castOpts(c *call) (self *Tensor, dt ir.DType, dev ir.Device, format string, err error) {
	if self, err = c.tensor("self"); err != nil {
		return
	}
	if dt, dev, err = factoryOpts(c, self.DType, self.Device()); err != nil {
		return
	}
	format, err = c.str("memory_format")
	return
}

func kToCopy(c *call) ([]any, error) {
	self, dt, dev, format, err := castOpts(c)
	if err != nil {
		return nil, err
	}
	return oneT(toCopy(self, dt, dev, format))
}

// kTo is Tensor.to: self itself when nothing changes and copy=False.
func kTo(c *call) ([]any, error) {
	self, dt, dev, format, err := castOpts(c)
	if err != nil {
		return nil, err
	}
	if c.has("other") {
		other, err := c.tensor("other")
		if err != nil {
			return nil, err
		}
		dt, dev = other.DType, other.Device()
	}
	force := false
	if c.has("copy") {
		if force, err = c.bool("copy"); err != nil {
			return nil, err
		}
	}
	sameFormat := format == "" || format == "preserve_format" || format == "contiguous_format" && self.IsContiguous()
	if !force && dt == self.DType && sameDevice(dev, self.Device()) && sameFormat {
		return one(self)
	}
	return oneT(toCopy(self, dt, dev, format))
}

// sameDevice treats cuda and cuda:0 alike, as the current device.
func sameDevice(a, b ir.Device) bool {
	if a.Type != b.Type {
		return false
	}
	return a.Index == b.Index || a.Index <= 0 && b.Index <= 0
}

func kConvertElementType(c *call) ([]any, error) {
	a, err := c.tensor("a")
	if err != nil {
		return nil, err
	}
	dt, _, err := c.dtype("dtype")
	if err != nil {
		return nil, err
	}
	return oneT(toCopy(a, dt, a.Device(), ""))
}

func kDevicePut(c *call) ([]any, error) {
	a, err := c.tensor("a")
	if err != nil {
		return nil, err
	}
	dev, _, err := c.device("device")
	if err != nil {
		return nil, err
	}
	return oneT(toCopy(a, a.DType, dev, ""))
}

func kClone(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	format, err := c.str("memory_format")
	if err != nil {
		return nil, err
	}
	return oneT(cloneAs(self, format))
}

// copyChecked is copy_'s checks before copyTensor.
func copyChecked(dst, src *Tensor) error {
	if src.Device().IsMeta() && !dst.Device().IsMeta() {
		return fmt.Errorf("%s", metaCopyMsg)
	}
	if dst.hasInternalOverlap() {
		return fmt.Errorf("unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.")
	}
	if partialOverlap(dst, src) {
		return fmt.Errorf("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.")
	}
	if dst.Device().IsMeta() {
		_, err := broadcastShapes(dst.Shape, src.Shape)
		return err // a copy into meta only checks shapes
	}
	return copyTensor(dst, src)
}

func kCopyInplace(c *call) ([]any, error) {
	self, src, err := c.tensor2("self", "src")
	if err != nil {
		return nil, err
	}
	if err := copyChecked(self, src); err != nil {
		return nil, err
	}
	return one(self)
}

// kCopy is the functional copy: self's clone with src copied in.
func kCopy(c *call) ([]any, error) {
	self, src, err := c.tensor2("self", "src")
	if err != nil {
		return nil, err
	}
	if src.Device().IsMeta() && !self.Device().IsMeta() {
		return nil, fmt.Errorf("%s", metaCopyMsg)
	}
	out, err := cloneAs(self, "")
	if err != nil {
		return nil, err
	}
	return oneT(out, copyTensor(out, src))
}

// kFill is the functional fill: a tensor like self holding value.
func kFill(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	v, err := c.val("value")
	if err != nil {
		return nil, err
	}
	if t, ok := v.(*Tensor); ok && t.Dim() != 0 {
		return nil, fmt.Errorf("fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.", t.Dim())
	}
	s, err := asScalar(v, "value")
	if err != nil {
		return nil, err
	}
	strides, _ := stridesForFormat(self, "")
	return oneT(filled(self.DType, self.Shape, strides, self.Device(), s))
}

func kZero(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	strides, _ := stridesForFormat(self, "")
	return oneT(filled(self.DType, self.Shape, strides, self.Device(), int64(0)))
}

// scatterInto is a view inverse: a clone of self whose view (picked by
// pick) holds src.
func scatterInto(c *call, name string, pick func(c *call, out *Tensor) (*Tensor, error)) ([]any, error) {
	self, src, err := c.tensor2("self", "src")
	if err != nil {
		return nil, err
	}
	out, err := cloneAs(self, "")
	if err != nil {
		return nil, err
	}
	view, err := pick(c, out)
	if err != nil {
		return nil, err
	}
	if !equal64(view.Shape, src.Shape) {
		return nil, fmt.Errorf("%s: expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
			name, ints(src.Shape), ints(view.Shape))
	}
	return oneT(out, copyTensor(view, src))
}

func init() {
	register(kToCopy, "_to_copy")
	register(kTo, "to.dtype", "to.device", "to.dtype_layout", "to.other")
	register(kConvertElementType, "prims::convert_element_type")
	register(kDevicePut, "prims::device_put")
	register(kClone, "clone")
	register(func(c *call) ([]any, error) {
		t, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		return oneT(cloneAs(t, ""))
	}, "lift_fresh_copy")
	register(kCopyInplace, "copy_")
	register(kCopy, "copy")
	register(kFill, "fill.Scalar", "fill.Tensor")
	register(kZero, "zero")
	register(func(c *call) ([]any, error) { return scatterInto(c, "slice_scatter", kSlice) }, "slice_scatter")
	register(func(c *call) ([]any, error) { return scatterInto(c, "select_scatter", kSelect) }, "select_scatter")
	register(func(c *call) ([]any, error) { return scatterInto(c, "diagonal_scatter", kDiagonal) }, "diagonal_scatter")
	register(func(c *call) ([]any, error) { return scatterInto(c, "as_strided_scatter", kAsStrided) }, "as_strided_scatter")
}
