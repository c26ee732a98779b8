package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/rt"
)

// Factories (aten/src/ATen/native/TensorFactories.cpp, RangeFactories.cpp):
// the default dtype is float32, full infers its dtype from the fill value,
// arange counts in int64 unless an argument is a float. empty is filled
// with zeros, so that two runs of a graph agree (reading it before writing
// is a bug in the graph either way). Random factories are counter-based
// (kernels_random.go).

// factoryOpts reads dtype and device, with defaults.
func factoryOpts(c *call, defDT ir.DType, defDev ir.Device) (ir.DType, ir.Device, error) {
	dt, ok, err := c.dtype("dtype")
	if err != nil {
		return 0, ir.Device{}, err
	}
	if !ok {
		dt = defDT
	}
	dev, ok, err := c.device("device")
	if err != nil {
		return 0, ir.Device{}, err
	}
	if !ok {
		dev = defDev
	}
	return dt, dev, nil
}

// filled makes a tensor of size filled with v (int64, float64 or bool).
func filled(dt ir.DType, size, strides []int64, dev ir.Device, v any) (*Tensor, error) {
	t, err := Empty(dt, size, strides, dev)
	if err != nil {
		return nil, err
	}
	return t, fillWith(t, v)
}

// fillWith writes the scalar v into every element of t.
func fillWith(t *Tensor, v any) error {
	src := MustEmpty(t.DType)
	switch x := v.(type) {
	case float64:
		storeF(t.DType, src.Storage.Data, 0, x)
	case int64:
		storeI(t.DType, src.Storage.Data, 0, x)
	case bool:
		storeI(t.DType, src.Storage.Data, 0, rt.B2I(x))
	case nil:
	default:
		return fmt.Errorf("cannot fill with %s", describe(v))
	}
	src.Storage.Device = t.Device()
	return copyTensor(t, src)
}

// sizeFactory builds empty/zeros/ones/full/rand: size is the first param.
func sizeFactory(fill func(c *call) (any, error), defDT func(v any) ir.DType) kernel {
	return func(c *call) ([]any, error) {
		size, err := c.intList("size")
		if err != nil {
			return nil, err
		}
		v, err := fill(c)
		if err != nil {
			return nil, err
		}
		dt, dev, err := factoryOpts(c, defDT(v), ir.CPU)
		if err != nil {
			return nil, err
		}
		strides, err := strideArg(c)
		if err != nil {
			return nil, err
		}
		if c.has("memory_format") && strides == nil {
			f, err := c.str("memory_format")
			if err != nil {
				return nil, err
			}
			if f == "channels_last" || f == "channels_last_3d" {
				if strides, err = channelsLast(size); err != nil {
					return nil, err
				}
			}
		}
		return oneT(makeFilled(c, dt, size, strides, dev, v))
	}
}

// strideArg reads the stride= of the *_strided factories (nil without).
func strideArg(c *call) ([]int64, error) {
	if !c.has("stride") {
		return nil, nil
	}
	return c.intList("stride")
}

// makeFilled fills with v, or with random data when v is a randFill.
func makeFilled(c *call, dt ir.DType, size, strides []int64, dev ir.Device, v any) (*Tensor, error) {
	if r, ok := v.(randFill); ok {
		t, err := Empty(dt, size, strides, dev)
		if err != nil {
			return nil, err
		}
		fillRandomOp(c, t, r)
		return t, nil
	}
	return filled(dt, size, strides, dev, v)
}

func constFill(v any) func(*call) (any, error) { return func(*call) (any, error) { return v, nil } }

func floatDefault(any) ir.DType { return ir.F32 }

// scalarDType is the dtype a Python scalar makes: bool, int64 or float32.
func scalarDType(v any) ir.DType {
	switch v.(type) {
	case bool:
		return ir.Bool
	case int64:
		return ir.I64
	}
	return ir.F32
}

// likeFactory builds *_like and new_* factories.
func likeFactory(fill func(c *call) (any, error), newStyle bool) kernel {
	return func(c *call) ([]any, error) {
		self, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		v, err := fill(c)
		if err != nil {
			return nil, err
		}
		dt, dev, err := factoryOpts(c, self.DType, self.Device())
		if err != nil {
			return nil, err
		}
		if newStyle {
			size, err := c.intList("size")
			if err != nil {
				return nil, err
			}
			strides, err := strideArg(c)
			if err != nil {
				return nil, err
			}
			return oneT(makeFilled(c, dt, size, strides, dev, v))
		}
		format := "preserve_format"
		if !c.isNone("memory_format") {
			if format, err = c.str("memory_format"); err != nil {
				return nil, err
			}
		}
		strides, err := stridesForFormat(self, format)
		if err != nil {
			return nil, err
		}
		return oneT(makeFilled(c, dt, self.Shape, strides, dev, v))
	}
}

func fillValue(c *call) (any, error) { return c.scalar("fill_value") }

func kScalarTensor(c *call) ([]any, error) {
	s, err := c.scalar("s")
	if err != nil {
		return nil, err
	}
	dt, dev, err := factoryOpts(c, ir.F32, ir.CPU)
	if err != nil {
		return nil, err
	}
	return oneT(filled(dt, []int64{}, nil, dev, s))
}

// kArange is arange: ceil((end - start) / step) elements start + i·step.
func kArange(c *call) ([]any, error) {
	vals := map[string]any{"start": int64(0), "step": int64(1)}
	for _, name := range []string{"start", "end", "step"} {
		if c.has(name) && !c.isNone(name) {
			v, err := c.scalar(name)
			if err != nil {
				return nil, err
			}
			vals[name] = v
		}
	}
	isFloat := false
	for _, v := range vals {
		if _, ok := v.(float64); ok {
			isFloat = true
		}
	}
	start, _ := num(vals["start"])
	end, _ := num(vals["end"])
	step, _ := num(vals["step"])
	if step == 0 {
		return nil, fmt.Errorf("step must be nonzero")
	}
	if step > 0 && end < start || step < 0 && end > start {
		return nil, fmt.Errorf("upper bound and larger bound inconsistent with step sign")
	}
	defDT := ir.I64
	if isFloat {
		defDT = ir.F32
	}
	dt, dev, err := factoryOpts(c, defDT, ir.CPU)
	if err != nil {
		return nil, err
	}
	n := int64(math.Ceil((end - start) / step))
	return oneT(rangeTensor(dt, dev, n, vals["start"], vals["step"]))
}

// rangeTensor fills start + i·step (ints stay exact; floats in double).
func rangeTensor(dt ir.DType, dev ir.Device, n int64, start, step any) (*Tensor, error) {
	t, err := Empty(dt, []int64{n}, nil, dev)
	if err != nil {
		return nil, err
	}
	si, sok := start.(int64)
	pi, pok := step.(int64)
	sf, _ := num(start)
	pf, _ := num(step)
	for i := int64(0); i < n; i++ {
		if sok && pok {
			storeI(dt, t.Storage.Data, i, si+int64(i)*pi)
		} else {
			storeF(dt, t.Storage.Data, i, sf+float64(i)*pf)
		}
	}
	return t, nil
}

// kIota is prims.iota(length, *, start, step, dtype, device).
func kIota(c *call) ([]any, error) {
	n, err := c.int("length")
	if err != nil {
		return nil, err
	}
	start, err := c.int("start")
	if err != nil {
		return nil, err
	}
	step, err := c.int("step")
	if err != nil {
		return nil, err
	}
	dt, dev, err := factoryOpts(c, ir.I64, ir.CPU)
	if err != nil {
		return nil, err
	}
	return oneT(rangeTensor(dt, dev, n, start, step))
}

func kFull(c *call) ([]any, error) {
	return sizeFactory(fillValue, scalarDType)(c)
}

func init() {
	register(sizeFactory(constFill(nil), floatDefault), "empty.memory_format", "empty_strided", "empty.default")
	register(sizeFactory(constFill(int64(0)), floatDefault), "zeros")
	register(sizeFactory(constFill(int64(1)), floatDefault), "ones")
	register(kFull, "full")
	register(sizeFactory(constFill(randFill{}), floatDefault), "rand")
	register(sizeFactory(constFill(randFill{normal: true}), floatDefault), "randn")
	register(likeFactory(constFill(nil), false), "empty_like")
	register(likeFactory(constFill(int64(0)), false), "zeros_like")
	register(likeFactory(constFill(int64(1)), false), "ones_like")
	register(likeFactory(fillValue, false), "full_like")
	register(likeFactory(constFill(randFill{}), false), "rand_like")
	register(likeFactory(constFill(randFill{normal: true}), false), "randn_like")
	register(likeFactory(constFill(nil), true), "new_empty", "new_empty_strided")
	register(likeFactory(constFill(int64(0)), true), "new_zeros")
	register(likeFactory(constFill(int64(1)), true), "new_ones")
	register(likeFactory(fillValue, true), "new_full")
	register(kScalarTensor, "scalar_tensor")
	register(kArange, "arange", "arange.start", "arange.start_step")
	register(kIota, "prims::iota")
}
