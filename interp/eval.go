package interp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// kernels maps qualified op names ("aten::add.Tensor") to eval kernels.
// Each kernels_*.go file registers its family in init. In-place variants
// (add_), *_copy variants of views and _foreach_ ops are derived from
// their functional kernel by lookupKernel, so they need no entry.
var kernels = map[string]kernel{}

// register adds k under every name; a duplicate is a programming error.
func register(k kernel, names ...string) {
	for _, name := range names {
		if !strings.Contains(name, "::") {
			name = "aten::" + name
		}
		if !strings.Contains(name[strings.Index(name, "::")+2:], ".") {
			name += ".default"
		}
		if _, dup := kernels[name]; dup {
			panic("interp: duplicate kernel " + name)
		}
		kernels[name] = k
	}
}

// lookupKernel finds op's kernel, deriving in-place, view-copy and foreach
// kernels from functional ones.
func lookupKernel(op *ops.Op) kernel {
	name := op.QualifiedName()
	if k := kernels[name]; k != nil {
		return k
	}
	s := op.Schema
	if strings.HasPrefix(s.Name, "_foreach_") {
		return foreachKernel(op)
	}
	if op.IsInplace() && op.Kind != ops.KindView && op.Functional != "" {
		if fop := ops.Lookup(op.Functional); fop != nil {
			if fk := lookupKernel(fop); fk != nil {
				return inplaceKernel(fk)
			}
		}
	}
	if fop := ops.FunctionalOfOut(op); fop != nil && !op.IsInplace() {
		if fk := lookupKernel(fop); fk != nil {
			return outKernel(fk)
		}
	}
	if base, ok := strings.CutSuffix(s.Name, "_copy"); ok {
		if vk := kernels[s.Namespace+"::"+base+"."+s.Overload]; vk != nil {
			return viewCopyKernel(vk)
		}
	}
	return nil
}

// HasKernel reports whether the interpreter can evaluate op.
func HasKernel(op *ops.Op) bool { return lookupKernel(op) != nil }

// KernelNames lists the ops with a kernel of their own, sorted.
func KernelNames() []string {
	out := make([]string, 0, len(kernels))
	for k := range kernels {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// eval evaluates node n.
func (m *machine) eval(n *ir.Node) ([]any, error) {
	switch n.Form {
	case ir.FormOp:
		op, ok := n.Op.(*ops.Op)
		if !ok || op == nil {
			return nil, noEval(n, "is not in kiln's registry, so the interpreter cannot bind its arguments")
		}
		k := lookupKernel(op)
		if k == nil {
			return nil, noEval(n, "has no eval kernel")
		}
		k = withFloatDispatch(op.Schema.Name, withComplex(op, k)) // eval_special_cephes.go, eval_complex_split.go
		bound, err := ops.Bind(n)
		if err != nil {
			return nil, err
		}
		outs, err := k(&call{m: m, n: n, op: op, args: bound.Args})
		if err != nil {
			return nil, err
		}
		if (op.Schema.VarRet || len(n.Results) > 1) && len(outs) == 1 {
			if list, ok := outs[0].([]any); ok {
				return list, nil
			}
		}
		return outs, nil
	case ir.FormOperator:
		return m.evalOperator(n)
	case ir.FormMethod:
		return m.evalMethod(n)
	case ir.FormGetAttr:
		return m.evalGetAttr(n)
	}
	if n.Form == ir.FormFunction {
		// a Dynamo-level call (torch._C._nn.linear): the aten pass makes ATen ops of it
		return nil, noEval(n, "is an opaque call (a Dynamo-level graph runs after -passes fakeprop,aten)")
	}
	return nil, noEval(n, "is an opaque call")
}

// inplaceKernel runs the functional kernel and writes its result into
// self, with PyTorch's checks: the result must keep self's shape and be
// castable to its dtype, and self may not overlap itself or an input.
// outKernel runs an out= variant (`mul.out`): the functional kernel, its
// results copied into the out tensors, which are the results.
func outKernel(fk kernel) kernel {
	return func(c *call) ([]any, error) {
		outs, err := fk(c)
		if err != nil {
			return nil, err
		}
		names := ops.OutParams(c.op)
		if len(outs) != len(names) {
			return nil, fmt.Errorf("%s: %d results for %d out tensors", c.op.Schema.Name, len(outs), len(names))
		}
		res := make([]any, len(names))
		for i, name := range names {
			dst, err := c.tensor(name)
			if err != nil {
				return nil, err
			}
			src, ok := outs[i].(*Tensor)
			if !ok || !equal64(src.Shape, dst.Shape) {
				return nil, fmt.Errorf("%s: out tensor %s does not have the result's shape (resizing out= tensors is not modelled)", c.op.Schema.Name, name)
			}
			if err := copyTensor(dst, src); err != nil {
				return nil, err
			}
			res[i] = dst
		}
		return res, nil
	}
}

func inplaceKernel(fk kernel) kernel {
	return func(c *call) ([]any, error) {
		selfName := c.op.Schema.Params[0].Name
		self, err := c.tensor(selfName)
		if err != nil {
			return nil, err
		}
		if err := checkWritable(self, c); err != nil {
			return nil, err
		}
		fc := c
		if self.Conj || self.Neg { // the kernel reads self's values; the write goes through the bits
			r, err := resolveConj(self)
			if err != nil {
				return nil, err
			}
			fc = c.with(map[string]any{selfName: r})
		}
		outs, err := fk(fc)
		if err != nil {
			return nil, err
		}
		res, ok := outs[0].(*Tensor)
		if !ok {
			return nil, fmt.Errorf("in-place %s: functional result is %s", c.op.Schema.Name, describe(outs[0]))
		}
		if !equal64(res.Shape, self.Shape) {
			return nil, fmt.Errorf("output with shape %s doesn't match the broadcast shape %s", ints(self.Shape), ints(res.Shape))
		}
		if !ops.CanCast(res.DType, self.DType) {
			return nil, fmt.Errorf("result type %s can't be cast to the desired output type %s",
				scalarTypeName(res.DType), scalarTypeName(self.DType))
		}
		if err := copyTensor(self, res); err != nil {
			return nil, err
		}
		return one(self)
	}
}

// checkWritable is assert_no_internal_overlap on self and
// assert_no_partial_overlap between self and every tensor input.
func checkWritable(self *Tensor, c *call) error {
	if self.hasInternalOverlap() {
		return fmt.Errorf("unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.")
	}
	for _, p := range c.op.Schema.Params[1:] {
		x, err := c.val(p.Name)
		if err != nil {
			continue
		}
		if t, ok := x.(*Tensor); ok && partialOverlap(self, t) {
			return fmt.Errorf("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.")
		}
	}
	return nil
}

// viewCopyKernel is a *_copy op: the view, materialized contiguously.
func viewCopyKernel(vk kernel) kernel {
	return func(c *call) ([]any, error) {
		outs, err := vk(c)
		if err != nil {
			return nil, err
		}
		for i, o := range outs {
			outs[i] = materialize(o)
		}
		return outs, nil
	}
}

// materialize replaces every tensor in x by a contiguous copy.
func materialize(x any) any {
	switch v := x.(type) {
	case *Tensor:
		return contiguous(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = materialize(e)
		}
		return out
	}
	return x
}

// copyTensor writes src, broadcast to dst's shape, into dst, converting
// dtypes as copy_ does (floats to ints truncate; anything to bool tests
// for nonzero).
func copyTensor(dst, src *Tensor) error {
	if _, err := broadcastShapes(dst.Shape, src.Shape); err != nil || len(src.Shape) > len(dst.Shape) {
		return fmt.Errorf("output with shape %s doesn't match the broadcast shape %s", ints(dst.Shape), ints(src.Shape))
	}
	for i := range src.Shape {
		d := len(dst.Shape) - len(src.Shape) + i
		if src.Shape[i] != 1 && src.Shape[i] != dst.Shape[d] {
			return fmt.Errorf("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d",
				dst.Shape[d], src.Shape[i], d)
		}
	}
	if src.Storage == dst.Storage {
		src = contiguous(src) // read everything before writing
	}
	view := expandTo(src, dst.Shape)
	parallelChunks(dst.Numel(), func(lo, hi int64) { copyChunk(dst, view, lo, hi) })
	return nil
}

func copyChunk(dst, src *Tensor, lo, hi int64) {
	n := min(hi-lo, chunkSize)
	so, do := make([]int64, n), make([]int64, n)
	sit := newOffsetIter(src.Shape, src.Strides, src.Offset, lo)
	dit := newOffsetIter(dst.Shape, dst.Strides, dst.Offset, lo)
	sb, db := src.Storage.Data, dst.Storage.Data
	fl := make([]float64, n)
	il := make([]int64, n)
	// The conjugate and negative bits: the value read is conj(stored) or
	// -stored on a source with the bit, and a destination with it stores
	// conj(value) or -value.
	conj := src.Conj != dst.Conj && src.DType.IsComplex() && dst.DType.IsComplex()
	neg := src.Neg != dst.Neg
	for start := lo; start < hi; start += n {
		k := min(hi-start, n)
		sit.fill(so[:k])
		dit.fill(do[:k])
		switch {
		case conj || neg:
			copyWithBits(dst, src, do[:k], so[:k], conj, neg)
		case src.DType == dst.DType:
			sz := int64(src.DType.ItemSize())
			for i := int64(0); i < k; i++ {
				copy(db[do[i]*sz:(do[i]+1)*sz], sb[so[i]*sz:(so[i]+1)*sz])
			}
		case src.DType.IsComplex() && dst.DType.IsComplex():
			// Both parts convert (c64 -> c128); the float lane would keep
			// only the real part.
			for i := int64(0); i < k; i++ {
				storeC(dst.DType, db, do[i], loadC(src.DType, sb, so[i]))
			}
		case src.DType.IsFloat() || src.DType.IsComplex(): // complex to real keeps the real part
			gatherF(src.DType, sb, so[:k], fl[:k])
			scatterF(dst.DType, db, do[:k], fl[:k])
		default:
			gatherI(src.DType, sb, so[:k], il[:k])
			scatterI(dst.DType, db, do[:k], il[:k])
		}
	}
}

// contiguous returns a row-major copy of t (PyTorch's clone with
// contiguous_format); it always copies.
func contiguous(t *Tensor) *Tensor {
	out, err := Empty(t.DType, t.Shape, nil, t.Device())
	if err != nil {
		panic(err) // t already exists, so its size is valid
	}
	if err := copyTensor(out, t); err != nil {
		panic(err)
	}
	return out
}

// cloneAs copies t into a fresh tensor with the layout a memory_format asks
// for: preserve_format keeps a dense layout (or t's dim order), contiguous
// is row-major, channels_last is NHWC.
func cloneAs(t *Tensor, format string) (*Tensor, error) {
	strides, err := stridesForFormat(t, format)
	if err != nil {
		return nil, err
	}
	out, err := Empty(t.DType, t.Shape, strides, t.Device())
	if err != nil {
		return nil, err
	}
	return out, copyTensor(out, t)
}

// stridesForFormat is the layout of empty_like(t, memory_format=format).
func stridesForFormat(t *Tensor, format string) ([]int64, error) {
	switch format {
	case "", "preserve_format":
		if t.isNonOverlappingAndDense() {
			return clone64(t.Strides), nil
		}
		return iterStrides(t.Shape, [][]int64{t.Strides}), nil
	case "contiguous_format":
		return ContiguousStrides(t.Shape), nil
	case "channels_last", "channels_last_3d":
		return channelsLast(t.Shape)
	}
	return nil, fmt.Errorf("unsupported memory format torch.%s", format)
}

// channelsLast is NHWC (or NDHWC) strides for a 4-d (5-d) shape.
func channelsLast(shape []int64) ([]int64, error) {
	n := len(shape)
	if n != 4 && n != 5 {
		return nil, fmt.Errorf("required rank 4 tensor to use channels_last format")
	}
	st := make([]int64, n)
	acc := int64(1)
	order := append([]int{1}, make([]int, 0, n)...)
	for d := n - 1; d >= 2; d-- {
		order = append(order, d)
	}
	order = append(order, 0) // innermost first: C, W, H, (D), N
	for _, d := range order {
		st[d] = acc
		acc *= max(shape[d], 1)
	}
	return st, nil
}
