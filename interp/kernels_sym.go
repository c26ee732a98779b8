package interp

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"

	"github.com/kiln-compiler/kiln/ops"
)

// Symbolic-size queries, runtime assertions, data-dependent ops
// (.item(), nonzero, masked_select) and the _foreach_ family.

// itemOf is Tensor.item(): one element as a Python number.
func itemOf(t *Tensor) ([]any, error) {
	if t.Device().IsMeta() {
		return nil, fmt.Errorf("Tensor.item() cannot be called on meta tensors")
	}
	if t.Numel() != 1 {
		return nil, fmt.Errorf("a Tensor with %d elements cannot be converted to Scalar", t.Numel())
	}
	return one(tensorItem(t))
}

func kItem(c *call) ([]any, error) {
	t, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	return itemOf(t)
}

// dimQuery reads size/stride at a dim.
func dimQuery(stride bool) kernel {
	return func(c *call) ([]any, error) {
		t, d, err := c.selfInt("dim")
		if err != nil {
			return nil, err
		}
		w, err := wrapDim(d, t.Dim())
		if err != nil {
			return nil, err
		}
		if t.Dim() == 0 {
			return one(int64(1))
		}
		if stride {
			return one(t.Strides[w])
		}
		return one(t.Shape[w])
	}
}

func kAssertScalar(c *call) ([]any, error) {
	v, err := c.val("self")
	if err != nil {
		return nil, err
	}
	ok, err := truth(v)
	if err != nil {
		return nil, err
	}
	if !ok {
		msg, _ := c.str("assert_msg")
		if msg == "" {
			msg = "Runtime assertion failed"
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return nil, nil
}

func kAssertAsync(c *call) ([]any, error) {
	t, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if t.Numel() != 1 {
		return nil, fmt.Errorf("Boolean value of Tensor with more than one value is ambiguous")
	}
	if x, _ := num(tensorItem(t)); x == 0 {
		msg := "Expected Tensor with single nonzero value, but got zero"
		if c.has("assert_msg") {
			if m, _ := c.str("assert_msg"); m != "" {
				msg = m
			}
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return nil, nil
}

// kConstrainRange checks min <= size <= max.
func kConstrainRange(c *call) ([]any, error) {
	v, err := c.int("size")
	if err != nil {
		return nil, err
	}
	lo, hasLo, err := c.optInt("min")
	if err != nil {
		return nil, err
	}
	hi, hasHi, err := c.optInt("max")
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(c.op.Schema.Name, "_for_size") && !hasLo {
		lo, hasLo = 0, true
	}
	if hasLo && v < lo || hasHi && v > hi {
		return nil, fmt.Errorf("Invalid value range for %d between [%d, %d]", v, lo, hi)
	}
	return nil, nil
}

// kAssertTensorMetadata checks dtype and sizes when given.
func kAssertTensorMetadata(c *call) ([]any, error) {
	t, err := c.tensor("a")
	if err != nil {
		return nil, err
	}
	if dt, ok, err := c.dtype("dtype"); err != nil {
		return nil, err
	} else if ok && dt != t.DType {
		return nil, fmt.Errorf("Tensor dtype mismatch! Expected: %s, Got: %s", dt, t.DType)
	}
	if size, ok, err := c.optIntList("size"); err != nil {
		return nil, err
	} else if ok && !equal64(size, t.Shape) {
		return nil, fmt.Errorf("Tensor sizes mismatch! Expected: %s, Got: %s", ints(size), ints(t.Shape))
	}
	return nil, nil
}

// kNonzero lists the indices of nonzero elements, one row each.
func kNonzero(c *call) ([]any, error) {
	t, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	vals := t.Floats()
	var idx []int64
	n := int64(0)
	for i, v := range vals {
		if v != 0 {
			idx = append(idx, unravel(int64(i), t.Shape)...)
			n++
		}
	}
	out, err := Empty(ir.I64, []int64{n, int64(t.Dim())}, nil, t.Device())
	if err != nil {
		return nil, err
	}
	for i, v := range idx {
		storeI(out.DType, out.Storage.Data, int64(i), v)
	}
	return one(out)
}

// kMaskedSelect picks self's elements where mask (broadcast) is true.
func kMaskedSelect(c *call) ([]any, error) {
	self, mask, err := c.tensor2("self", "mask")
	if err != nil {
		return nil, err
	}
	shape, err := broadcastShapes(self.Shape, mask.Shape)
	if err != nil {
		return nil, err
	}
	s, m := expandTo(self, shape), expandTo(mask, shape)
	so, mv := s.offsets(), m.Ints()
	sz := int64(self.DType.ItemSize())
	var data []byte
	for i, o := range so {
		if mv[i] != 0 {
			data = append(data, self.Storage.Data[o*sz:(o+1)*sz]...)
		}
	}
	n := int64(len(data)) / sz
	return one(&Tensor{DType: self.DType, Shape: []int64{n}, Strides: []int64{1}, Storage: &Storage{Data: data, Device: self.Device()}})
}

// foreachKernel runs a _foreach_ op element by element through the kernel
// of its per-tensor op: list parameters are indexed, others passed whole;
// in-place forms (`_foreach_add_`) write each result into self[i].
func foreachKernel(op *ops.Op) kernel {
	s := op.Schema
	base := strings.TrimPrefix(s.Name, "_foreach_")
	inplace := strings.HasSuffix(base, "_")
	base = strings.TrimSuffix(base, "_")
	var elem *ops.Op
	for _, ov := range []string{"Tensor", s.Overload, "Scalar", "default", "Tensor_Tensor", "Tensor_Scalar"} {
		if e := ops.Lookup("aten::" + base + "." + ov); e != nil && kernels[e.QualifiedName()] != nil {
			elem = e
			break
		}
	}
	if elem == nil {
		return nil
	}
	ek := kernels[elem.QualifiedName()]
	return func(c *call) ([]any, error) {
		n, err := foreachLen(c)
		if err != nil {
			return nil, err
		}
		results := make([]any, n)
		for i := 0; i < n; i++ {
			over, err := foreachArgs(c, elem, i)
			if err != nil {
				return nil, err
			}
			sub := &call{m: c.m, n: c.n, op: elem, over: over}
			outs, err := ek(sub)
			if err != nil {
				return nil, err
			}
			results[i] = outs[0]
			if inplace {
				dst := over[elem.Schema.Params[0].Name].(*Tensor)
				if err := copyTensor(dst, outs[0].(*Tensor)); err != nil {
					return nil, err
				}
			}
		}
		if inplace { // returns () in the schema; post-grad graphs still getitem it
			x, _ := c.val(c.op.Schema.Params[0].Name)
			return one(x)
		}
		return one(results)
	}
}

func foreachLen(c *call) (int, error) {
	for _, p := range c.op.Schema.Params {
		x, err := c.val(p.Name)
		if err != nil {
			return 0, err
		}
		if list, ok := x.([]any); ok && p.Type.List {
			return len(list), nil
		}
	}
	return 0, fmt.Errorf("%s: no list argument", c.op.QualifiedName())
}

// foreachArgs maps the foreach op's parameters, in order, onto the
// per-tensor op's, taking element i of each list; keyword parameters with
// the same name pass through; the rest take their defaults.
func foreachArgs(c *call, elem *ops.Op, i int) (map[string]any, error) {
	over := map[string]any{}
	var rest []any
	for _, p := range c.op.Schema.Params {
		x, err := c.val(p.Name)
		if err != nil {
			return nil, err
		}
		if list, ok := x.([]any); ok && p.Type.List {
			if i >= len(list) {
				return nil, fmt.Errorf("Tensor lists must have the same number of tensors, got %d and more", len(list))
			}
			x = list[i]
		}
		if elem.Schema.Param(p.Name) != nil {
			over[p.Name] = x
		} else {
			rest = append(rest, x)
		}
	}
	for _, p := range elem.Schema.Params {
		if _, ok := over[p.Name]; ok || p.KwOnly || len(rest) == 0 {
			continue
		}
		over[p.Name], rest = rest[0], rest[1:]
	}
	for _, p := range elem.Schema.Params {
		if _, ok := over[p.Name]; ok || !p.HasDef {
			continue
		}
		d, err := ops.DefaultArg(p)
		if err != nil {
			return nil, err
		}
		v, err := c.m.evalArg(d)
		if err != nil {
			return nil, err
		}
		over[p.Name] = v
	}
	return over, nil
}

func init() {
	register(kItem, "_local_scalar_dense", "item")
	register(dimQuery(false), "sym_size.int")
	register(dimQuery(true), "sym_stride.int")
	register(func(c *call) ([]any, error) {
		t, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		return one(t.Numel())
	}, "sym_numel")
	register(func(c *call) ([]any, error) {
		t, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		return one(t.Offset)
	}, "sym_storage_offset")
	register(kAssertScalar, "_assert_scalar")
	register(kAssertAsync, "_assert_async", "_assert_async.msg")
	register(kConstrainRange, "sym_constrain_range", "sym_constrain_range_for_size")
	register(kAssertTensorMetadata, "_assert_tensor_metadata")
	register(kNonzero, "nonzero")
	register(kMaskedSelect, "masked_select")
}
