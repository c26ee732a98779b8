package interp

import (
	"fmt"
)

// Registration of view kernels, and the ops that change a tensor's
// metadata in place (transpose_, unsqueeze_, as_strided_, resize_): those
// mutate the tensor object itself, so every later use of that value sees
// the new geometry, while views made earlier keep theirs, as in eager
// PyTorch.

// selfK adapts a kernel over self.
func selfK(f func(c *call, t *Tensor) (*Tensor, error)) kernel {
	return func(c *call) ([]any, error) {
		t, err := c.tensor(c.op.Schema.Params[0].Name)
		if err != nil {
			return nil, err
		}
		return oneT(f(c, t))
	}
}

// selfList adapts a kernel returning a list of views.
func selfList(f func(c *call, t *Tensor) ([]any, error)) kernel {
	return func(c *call) ([]any, error) {
		t, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		list, err := f(c, t)
		if err != nil {
			return nil, err
		}
		return one(list)
	}
}

// mutateMeta makes a metadata-mutating op from a view rule: self takes the
// view's geometry and is returned.
func mutateMeta(view kernel) kernel {
	return func(c *call) ([]any, error) {
		self, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		outs, err := view(c)
		if err != nil {
			return nil, err
		}
		v := outs[0].(*Tensor)
		self.Shape, self.Strides, self.Offset, self.DType = v.Shape, v.Strides, v.Offset, v.DType
		return one(self)
	}
}

// listK adapts f over self and the int list parameter name.
func listK(name string, f func(t *Tensor, list []int64) (*Tensor, error)) func(c *call, t *Tensor) (*Tensor, error) {
	return func(c *call, t *Tensor) (*Tensor, error) {
		list, err := c.intList(name)
		if err != nil {
			return nil, err
		}
		return f(t, list)
	}
}

func kReshape(c *call, t *Tensor) (*Tensor, error) {
	name := "shape"
	if !c.has(name) {
		name = "size"
	}
	return listK(name, reshape)(c, t)
}

// kFlatten is flatten.using_ints: dims start_dim..end_dim merged, as a
// reshape (a view where the strides allow, a copy otherwise). A 0-d
// tensor flattens to [1].
func kFlatten(c *call, t *Tensor) (*Tensor, error) {
	d, err := c.ints("start_dim", "end_dim")
	if err != nil {
		return nil, err
	}
	if t.Dim() == 0 {
		return reshape(t, []int64{1})
	}
	start, end := d[0], d[1]
	if start < 0 {
		start += int64(t.Dim())
	}
	if end < 0 {
		end += int64(t.Dim())
	}
	if start < 0 || end >= int64(t.Dim()) || start > end {
		return nil, fmt.Errorf("flatten: dims %d..%d out of range for rank %d", d[0], d[1], t.Dim())
	}
	size := append([]int64{}, t.Shape[:start]...)
	n := int64(1)
	for _, s := range t.Shape[start : end+1] {
		n *= s
	}
	size = append(append(size, n), t.Shape[end+1:]...)
	return reshape(t, size)
}

func kViewDType(c *call, t *Tensor) (*Tensor, error) {
	dt, _, err := c.dtype("dtype")
	if err != nil {
		return nil, err
	}
	return viewDType(t, dt)
}

func kViewAs(c *call, t *Tensor) (*Tensor, error) {
	other, err := c.tensor("other")
	if err != nil {
		return nil, err
	}
	return viewShape(t, other.Shape)
}

func kTranspose(c *call, t *Tensor) (*Tensor, error) {
	d, err := c.ints("dim0", "dim1")
	if err != nil {
		return nil, err
	}
	return transposeDims(t, d[0], d[1])
}

func kT(c *call, t *Tensor) (*Tensor, error) {
	if t.Dim() > 2 {
		return nil, fmt.Errorf("t() expects a tensor with <= 2 dimensions, but self is %dD", t.Dim())
	}
	if t.Dim() < 2 {
		return t.Alias(), nil
	}
	return transposeDims(t, 0, 1)
}

func kSlice(c *call, t *Tensor) (*Tensor, error) {
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	var bounds [2]*int64
	for i, name := range []string{"start", "end"} {
		v, ok, err := c.optInt(name)
		if err != nil {
			return nil, err
		}
		if ok {
			bounds[i] = &v
		}
	}
	step, err := c.int("step")
	if err != nil {
		return nil, err
	}
	return sliceView(t, dim, bounds[0], bounds[1], step)
}

func kNarrow(c *call, t *Tensor) (*Tensor, error) {
	p, err := c.ints("dim", "start", "length")
	if err != nil {
		return nil, err
	}
	dim, start, length := p[0], p[1], p[2]
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	if start < 0 {
		start += t.Shape[d]
	}
	if start < 0 || length < 0 || start+length > t.Shape[d] {
		return nil, fmt.Errorf("start (%d) + length (%d) exceeds dimension size (%d).", start, length, t.Shape[d])
	}
	end := start + length
	return sliceView(t, dim, &start, &end, 1)
}

func kSelect(c *call, t *Tensor) (*Tensor, error) {
	p, err := c.ints("dim", "index")
	if err != nil {
		return nil, err
	}
	return selectView(t, p[0], p[1])
}

// kSqueeze covers squeeze (every size-1 dim), squeeze.dim (int) and
// squeeze.dims, which some schemas spell `int[] dim`.
func kSqueeze(c *call, t *Tensor) (*Tensor, error) {
	for _, name := range []string{"dims", "dim"} {
		if c.has(name) {
			return listK(name, func(t *Tensor, dims []int64) (*Tensor, error) { return squeezeDims(t, nz(dims)) })(c, t)
		}
	}
	return squeezeDims(t, nil)
}

func kUnsqueeze(c *call, t *Tensor) (*Tensor, error) {
	d, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	return unsqueeze(t, d)
}

func kDiagonal(c *call, t *Tensor) (*Tensor, error) {
	p, err := c.ints("offset", "dim1", "dim2")
	if err != nil {
		return nil, err
	}
	return diagonal(t, p[0], p[1], p[2])
}

// sizeStride reads as_strided's and _reshape_alias's size and stride.
func sizeStride(c *call) (size, stride []int64, err error) {
	if size, err = c.intList("size"); err != nil {
		return nil, nil, err
	}
	stride, err = c.intList("stride")
	return size, stride, err
}

func kAsStrided(c *call, t *Tensor) (*Tensor, error) {
	size, stride, err := sizeStride(c)
	if err != nil {
		return nil, err
	}
	if len(size) != len(stride) {
		return nil, fmt.Errorf("mismatch in length of strides and shape")
	}
	off, ok, err := c.optInt("storage_offset")
	if err != nil {
		return nil, err
	}
	if !ok {
		off = t.Offset
	}
	for i, s := range stride {
		if s < 0 {
			return nil, fmt.Errorf("as_strided: Negative strides are not supported at the moment, got strides: %s", ints(stride))
		}
		if size[i] < 0 {
			return nil, fmt.Errorf("Trying to create tensor with negative dimension %d: %s", size[i], ints(size))
		}
	}
	return t.View(size, stride, off)
}

func kReshapeAlias(c *call, t *Tensor) (*Tensor, error) {
	size, stride, err := sizeStride(c)
	if err != nil {
		return nil, err
	}
	return t.View(size, stride, t.Offset)
}

func kUnfold(c *call, t *Tensor) (*Tensor, error) {
	p, err := c.ints("dimension", "size", "step")
	if err != nil {
		return nil, err
	}
	return unfold(t, p[0], p[1], p[2])
}

func kAlias(c *call, t *Tensor) (*Tensor, error) { return t.Alias(), nil }

func kSplit(c *call, t *Tensor) ([]any, error) {
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	if c.has("split_sizes") {
		sizes, err := c.intList("split_sizes")
		if err != nil {
			return nil, err
		}
		return splitSizes(t, sizes, dim)
	}
	size, err := c.int("split_size")
	if err != nil {
		return nil, err
	}
	return splitEven(t, size, dim)
}

func kChunk(c *call, t *Tensor) ([]any, error) {
	p, err := c.ints("chunks", "dim")
	if err != nil {
		return nil, err
	}
	chunks, dim := p[0], p[1]
	if chunks <= 0 {
		return nil, fmt.Errorf("chunk expects `chunks` to be greater than 0, got: %d", chunks)
	}
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	size := (t.Shape[d] + chunks - 1) / chunks
	if size == 0 {
		size = 1
	}
	return splitEven(t, size, dim)
}

func kUnbind(c *call, t *Tensor) ([]any, error) {
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	d, err := wrapDim(dim, t.Dim())
	if err != nil {
		return nil, err
	}
	out := make([]any, t.Shape[d])
	for i := range out {
		v, err := selectView(t, int64(d), int64(i))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// kResize is resize_: self takes the new size with contiguous strides; the
// storage grows (in place, so every alias sees it) when it is too small.
func kResize(c *call) ([]any, error) {
	self, size, err := c.selfIntList("size")
	if err != nil {
		return nil, err
	}
	strides := ContiguousStrides(size)
	need := storageElems(size, strides, self.Offset) * int64(self.DType.ItemSize())
	if need > int64(len(self.Storage.Data)) {
		if need > maxElems {
			return nil, fmt.Errorf("resize_ to %s is too large for the interpreter", ints(size))
		}
		grown := make([]byte, need)
		copy(grown, self.Storage.Data)
		self.Storage.Data = grown
	}
	self.Shape, self.Strides = clone64(size), strides
	return one(self)
}

// kResizeFunctional is resize, the functional form functionalization
// makes of resize_: a clone of self resized as resize_ would.
func kResizeFunctional(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	clone, err := cloneAs(self, "")
	if err != nil {
		return nil, err
	}
	return kResize(c.with(map[string]any{"self": clone}))
}

// kContiguous returns self when it is already contiguous, else a copy.
func kContiguous(c *call, t *Tensor) (*Tensor, error) {
	format, err := c.str("memory_format")
	if err != nil {
		return nil, err
	}
	if format == "" || format == "contiguous_format" {
		if t.IsContiguous() {
			return t, nil
		}
		return contiguous(t), nil
	}
	return cloneAs(t, format)
}

func init() {
	register(selfK(listK("size", viewShape)), "view", "_unsafe_view")
	register(selfK(kViewDType), "view.dtype")
	register(selfK(kReshape), "reshape")
	register(selfK(kFlatten), "flatten.using_ints")
	register(selfK(kViewAs), "view_as")
	register(selfK(listK("dims", permute)), "permute")
	register(selfK(kTranspose), "transpose.int")
	register(selfK(kT), "t")
	register(selfK(listK("size", expand)), "expand")
	register(selfK(kSlice), "slice.Tensor")
	register(selfK(kNarrow), "narrow")
	register(selfK(kSelect), "select.int")
	register(selfK(kSqueeze), "squeeze", "squeeze.dim", "squeeze.dims")
	register(selfK(kUnsqueeze), "unsqueeze")
	register(selfK(kDiagonal), "diagonal")
	register(selfK(kAsStrided), "as_strided")
	register(selfK(kReshapeAlias), "_reshape_alias")
	register(selfK(kUnfold), "unfold")
	register(selfK(kAlias), "alias", "detach", "lift_fresh")
	register(selfList(kSplit), "split.Tensor", "split_with_sizes")
	register(selfList(kChunk), "chunk")
	register(selfList(kUnbind), "unbind.int")
	register(selfK(kContiguous), "contiguous")
	register(mutateMeta(selfK(kTranspose)), "transpose_")
	register(mutateMeta(selfK(kT)), "t_")
	register(mutateMeta(selfK(kSqueeze)), "squeeze_", "squeeze_.dim", "squeeze_.dims")
	register(mutateMeta(selfK(kUnsqueeze)), "unsqueeze_")
	register(mutateMeta(selfK(kAsStrided)), "as_strided_")
	register(mutateMeta(selfK(kAlias)), "detach_")
	register(kResize, "resize_")
	register(kResizeFunctional, "resize")
}
