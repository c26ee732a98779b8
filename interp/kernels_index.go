package interp

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Indexing: advanced indexing (index.Tensor, index_put), index_select,
// gather and the scatter family, embedding (aten/src/ATen/native/
// TensorAdvancedIndexing.cpp, Indexing.cpp). Out-of-range indices fail
// with PyTorch's message; duplicate indices without accumulate keep the
// last write, as the sequential CPU kernel does.

// elem reads element o of t in the lane of dt (float or int).
func elemAdd(dst *Tensor, do int64, src *Tensor, so int64, accumulate bool, scale float64) {
	if dst.DType.IsFloat() {
		v := loadF(src.DType, src.Storage.Data, so) * scale
		if accumulate {
			v = roundTo(opmath(dst.DType), loadF(dst.DType, dst.Storage.Data, do)+v)
		}
		storeF(dst.DType, dst.Storage.Data, do, v)
		return
	}
	v := loadI(src.DType, src.Storage.Data, so) * int64(scale)
	if accumulate {
		v += loadI(dst.DType, dst.Storage.Data, do)
	}
	storeI(dst.DType, dst.Storage.Data, do, v)
}

// advancedIndex is advanced indexing's check (index.Tensor, index_put):
// negatives count from the end.
var advancedIndex = ops.MustIndexBounds("aten::index.Tensor")

// advIndex is the geometry of self[indices]: for every result element (row
// major) the offset it reads in self.
type advIndex struct {
	shape []int64
	offs  []int64
}

// expandMasks replaces bool/uint8 masks by the long indices of their
// nonzero elements, one per mask dim.
func expandMasks(self *Tensor, indices []*Tensor) ([]*Tensor, error) {
	var out []*Tensor
	for _, ix := range indices {
		if ix == nil || ix.DType != ir.Bool && ix.DType != ir.U8 {
			out = append(out, ix)
			continue
		}
		d := len(out)
		for k, s := range ix.Shape {
			if d+k >= self.Dim() || self.Shape[d+k] != s {
				return nil, fmt.Errorf("The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d", ints(ix.Shape), k, ints(self.Shape), d+k)
			}
		}
		vals := ix.Ints()
		cols := make([][]int64, ix.Dim())
		for i, v := range vals {
			if v == 0 {
				continue
			}
			for k, x := range unravel(int64(i), ix.Shape) {
				cols[k] = append(cols[k], x)
			}
		}
		for _, col := range cols {
			out = append(out, FromInts(ir.I64, []int64{int64(len(col))}, col))
		}
	}
	return out, nil
}

// planIndex computes self[indices] as PyTorch's advanced indexing does:
// the broadcast index shape replaces the indexed dims in place when they
// are adjacent, else goes first.
func planIndex(self *Tensor, raw []*Tensor) (*advIndex, error) {
	indices, err := expandMasks(self, raw)
	if err != nil {
		return nil, err
	}
	lay, err := layoutIndex(self, indices)
	if err != nil || lay == nil {
		if err == nil {
			return &advIndex{shape: clone64(self.Shape), offs: self.offsets()}, nil
		}
		return nil, err
	}
	return lay.offsets(self)
}

// indexLayout places the broadcast index dims among self's other dims.
type indexLayout struct {
	before, after []int   // self's unindexed dims before and after the index dims
	bshape        []int64 // broadcast shape of the index tensors
	idx           [][]int64
	shape         []int64 // the result's shape
}

// layoutIndex builds the layout; nil when no dim is indexed.
func layoutIndex(self *Tensor, indices []*Tensor) (*indexLayout, error) {
	if len(indices) > self.Dim() {
		return nil, fmt.Errorf("too many indices for tensor of dimension %d (got %d)", self.Dim(), len(indices))
	}
	var shapes [][]int64
	first, last, adjacent := -1, -1, true
	for d, ix := range indices {
		if ix == nil {
			continue
		}
		if ix.DType.IsFloat() {
			return nil, fmt.Errorf("tensors used as indices must be long, int, byte or bool tensors")
		}
		if first >= 0 && d != last+1 {
			adjacent = false
		}
		if first < 0 {
			first = d
		}
		last = d
		shapes = append(shapes, ix.Shape)
	}
	if first < 0 {
		return nil, nil
	}
	bshape, err := broadcastShapes(shapes...)
	if err != nil {
		return nil, fmt.Errorf("shape mismatch: indexing tensors could not be broadcast together with shapes %v", shapes)
	}
	lay := &indexLayout{bshape: bshape, idx: make([][]int64, len(indices))}
	for d, ix := range indices {
		if ix != nil {
			lay.idx[d] = expandTo(ix, bshape).Ints()
		}
	}
	for d := 0; d < self.Dim(); d++ {
		switch {
		case d < len(indices) && indices[d] != nil:
		case adjacent && d < first:
			lay.before = append(lay.before, d)
		default:
			lay.after = append(lay.after, d)
		}
	}
	lay.shape = []int64{}
	for _, d := range lay.before {
		lay.shape = append(lay.shape, self.Shape[d])
	}
	lay.shape = append(lay.shape, bshape...)
	for _, d := range lay.after {
		lay.shape = append(lay.shape, self.Shape[d])
	}
	return lay, nil
}

// offsets walks the result row-major (with a counter, not unravelling)
// and gives the offset in self each element reads.
func (lay *indexLayout) offsets(self *Tensor) (*advIndex, error) {
	shape := lay.shape
	n := numel(shape)
	ai := &advIndex{shape: shape, offs: make([]int64, n)}
	mi := make([]int64, len(shape))
	nb := len(lay.before)
	for i := int64(0); i < n; i++ {
		if i > 0 {
			for k := len(shape) - 1; k >= 0; k-- {
				mi[k]++
				if mi[k] < shape[k] {
					break
				}
				mi[k] = 0
			}
		}
		off := self.Offset
		for k, d := range lay.before {
			off += mi[k] * self.Strides[d]
		}
		bi := int64(0)
		for k := range lay.bshape {
			bi = bi*lay.bshape[k] + mi[nb+k]
		}
		for d, col := range lay.idx {
			if col == nil {
				continue
			}
			v, err := advancedIndex.Check(col[bi], self.Shape[d], d)
			if err != nil {
				return nil, err
			}
			off += v * self.Strides[d]
		}
		for k, d := range lay.after {
			off += mi[nb+len(lay.bshape)+k] * self.Strides[d]
		}
		ai.offs[i] = off
	}
	return ai, nil
}

func kIndex(c *call) ([]any, error) {
	self, indices, err := selfAnd(c, c.tensors, "indices")
	if err != nil {
		return nil, err
	}
	ai, err := planIndex(self, indices)
	if err != nil {
		return nil, err
	}
	out, err := Empty(self.DType, ai.shape, nil, self.Device())
	if err != nil {
		return nil, err
	}
	for i, o := range ai.offs {
		elemAdd(out, int64(i), self, o, false, 1)
	}
	return one(out)
}

// kIndexPut is index_put: a clone of self with values written (or added)
// at self[indices].
func kIndexPut(c *call) ([]any, error) {
	self, indices, err := selfAnd(c, c.tensors, "indices")
	if err != nil {
		return nil, err
	}
	values, err := c.tensor("values")
	if err != nil {
		return nil, err
	}
	acc, err := c.bool("accumulate")
	if err != nil {
		return nil, err
	}
	if values.DType != self.DType {
		return nil, fmt.Errorf("Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
			scalarTypeName(self.DType), scalarTypeName(values.DType))
	}
	out, err := cloneAs(self, "")
	if err != nil {
		return nil, err
	}
	ai, err := planIndex(out, indices)
	if err != nil {
		return nil, err
	}
	if _, err := broadcastShapes(ai.shape, values.Shape); err != nil || len(values.Shape) > len(ai.shape) {
		return nil, fmt.Errorf("shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s", ints(values.Shape), ints(ai.shape))
	}
	vo := expandTo(values, ai.shape).offsets()
	for i, o := range ai.offs {
		elemAdd(out, o, values, vo[i], acc, 1)
	}
	return one(out)
}

// dimIndex reads self, dim and a 0/1-d index for index_select and
// friends.
func dimIndex(c *call) (self *Tensor, w int, ix []int64, err error) {
	self, d, err := c.selfInt("dim")
	if err != nil {
		return nil, 0, nil, err
	}
	if w, err = wrapDim(d, self.Dim()); err != nil {
		return nil, 0, nil, err
	}
	index, err := c.tensor("index")
	if err != nil {
		return nil, 0, nil, err
	}
	if index.Dim() > 1 {
		return nil, 0, nil, fmt.Errorf("index_select(): Index is supposed to be a vector")
	}
	size := int64(1)
	if self.Dim() > 0 {
		size = self.Shape[w]
	}
	bounds := ops.MustIndexBounds(c.op.QualifiedName())
	ix = index.Ints()
	for i, v := range ix {
		if ix[i], err = bounds.Check(v, size, w); err != nil {
			return nil, 0, nil, err
		}
	}
	return self, w, ix, nil
}

func kIndexSelect(c *call) ([]any, error) {
	self, d, ix, err := dimIndex(c)
	if err != nil {
		return nil, err
	}
	parts := make([]*Tensor, len(ix))
	for i, v := range ix {
		if self.Dim() == 0 {
			parts[i] = self
			continue
		}
		p, _ := sliceView(self, int64(d), &v, ptr(v+1), 1)
		parts[i] = p
	}
	shape := clone64(self.Shape)
	if self.Dim() > 0 {
		shape[d] = int64(len(ix))
	}
	out, err := Empty(self.DType, shape, nil, self.Device())
	if err != nil {
		return nil, err
	}
	if self.Dim() == 0 {
		return one(contiguous(self))
	}
	for i, p := range parts {
		dst, _ := sliceView(out, int64(d), ptr(int64(i)), ptr(int64(i+1)), 1)
		if err := copyTensor(dst, p); err != nil {
			return nil, err
		}
	}
	return one(out)
}

func ptr(v int64) *int64 { return &v }

// scatterArgs reads self, dim and index, with gather/scatter's shape check.
func scatterArgs(c *call, other string) (*Tensor, int, *Tensor, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, 0, nil, err
	}
	d, err := c.int("dim")
	if err != nil {
		return nil, 0, nil, err
	}
	w, err := wrapDim(d, self.Dim())
	if err != nil {
		return nil, 0, nil, err
	}
	index, err := c.tensor("index")
	if err != nil {
		return nil, 0, nil, err
	}
	if index.DType != ir.I64 && index.DType != ir.I32 { // PyTorch 2.15 takes int32 too
		op := c.op.Schema.Name
		if strings.HasPrefix(op, "scatter") {
			op = "scatter" // every scatter variant checks as scatter()
		}
		return nil, 0, nil, fmt.Errorf("%s(): Expected dtype int32/int64 for index", op)
	}
	if index.Dim() != self.Dim() && !(index.Dim() <= 1 && self.Dim() <= 1) {
		return nil, 0, nil, fmt.Errorf("Index tensor must have the same number of dimensions as %s tensor", other)
	}
	for i := 0; i < index.Dim(); i++ {
		if i != w && index.Shape[i] > self.Shape[i] {
			return nil, 0, nil, fmt.Errorf("Size does not match at dimension %d expected index %s to be smaller than self %s apart from dimension %d",
				i, ints(index.Shape), ints(self.Shape), w)
		}
	}
	return self, w, index, nil
}

// gatherScatter is gather's and the scatter family's check: no negatives.
var gatherScatter = ops.MustIndexBounds("aten::gather.default")

// indexedOffsets maps every index element (row major) to the offset it
// addresses in t: the index value along dim, the element's own position
// elsewhere.
func indexedOffsets(t *Tensor, dim int, index *Tensor) ([]int64, error) {
	vals := index.Ints()
	out := make([]int64, len(vals))
	size := int64(1)
	if t.Dim() > 0 {
		size = t.Shape[dim]
	}
	mi := make([]int64, index.Dim())
	for i, v := range vals {
		if i > 0 {
			for k := len(mi) - 1; k >= 0; k-- {
				mi[k]++
				if mi[k] < index.Shape[k] {
					break
				}
				mi[k] = 0
			}
		}
		w, err := gatherScatter.Check(v, size, dim)
		if err != nil {
			return nil, err
		}
		off := t.Offset
		for k, x := range mi {
			if k == dim {
				x = w
			}
			off += x * t.Strides[k]
		}
		out[i] = off
	}
	return out, nil
}

func kGather(c *call) ([]any, error) {
	self, d, index, err := scatterArgs(c, "input")
	if err != nil {
		return nil, err
	}
	offs, err := indexedOffsets(self, d, index)
	if err != nil {
		return nil, err
	}
	out, err := Empty(self.DType, index.Shape, nil, self.Device())
	if err != nil {
		return nil, err
	}
	for i, o := range offs {
		elemAdd(out, int64(i), self, o, false, 1)
	}
	return one(out)
}

// kScatter covers scatter (src or value, optional reduce), scatter_add
// and scatter_reduce.two.
func kScatter(c *call) ([]any, error) {
	self, d, index, err := scatterArgs(c, "self")
	if err != nil {
		return nil, err
	}
	out, err := cloneAs(self, "")
	if err != nil {
		return nil, err
	}
	var src *Tensor
	if c.has("src") {
		if src, err = c.tensor("src"); err != nil {
			return nil, err
		}
	} else {
		v, err := c.scalar("value")
		if err != nil {
			return nil, err
		}
		if src, err = filled(self.DType, index.Shape, nil, self.Device(), v); err != nil {
			return nil, err
		}
	}
	reduce := ""
	if c.has("reduce") {
		if reduce, err = c.str("reduce"); err != nil {
			return nil, err
		}
	}
	if c.op.Schema.Name == "scatter_add" {
		reduce = "sum"
	}
	includeSelf := true
	if c.has("include_self") {
		if includeSelf, err = c.bool("include_self"); err != nil {
			return nil, err
		}
	}
	offs, err := indexedOffsets(out, d, index)
	if err != nil {
		return nil, err
	}
	srcOffs := make([]int64, len(offs))
	newOffsetIter(index.Shape, src.Strides[:index.Dim()], src.Offset, 0).fill(srcOffs)
	return oneT(out, scatterReduce(out, offs, src, srcOffs, reduce, includeSelf))
}

// scatterReduce applies reduce ("", sum/add, prod/multiply, mean, amax,
// amin) at each target.
func scatterReduce(out *Tensor, offs []int64, src *Tensor, srcOffs []int64, reduce string, includeSelf bool) error {
	type acc struct {
		v     float64
		count int
	}
	accs := map[int64]*acc{}
	var order []int64
	for i, o := range offs {
		x := loadF(src.DType, src.Storage.Data, srcOffs[i])
		a := accs[o]
		if a == nil {
			a = &acc{}
			if reduce != "" && includeSelf {
				a.v, a.count = loadF(out.DType, out.Storage.Data, o), 1
			}
			accs[o] = a
			order = append(order, o)
		}
		switch {
		case reduce == "":
			a.v = x
		case a.count == 0:
			a.v = x
		case reduce == "sum" || reduce == "add" || reduce == "mean":
			a.v += x
		case reduce == "prod" || reduce == "multiply":
			a.v *= x
		case reduce == "amax":
			a.v = maxNaN(a.v, x)
		case reduce == "amin":
			a.v = minNaN(a.v, x)
		default:
			return fmt.Errorf("reduce argument must be either sum, prod, mean, amax or amin, got %s", reduce)
		}
		a.count++
	}
	for _, o := range order {
		a := accs[o]
		v := a.v
		if reduce == "mean" {
			v /= float64(max(a.count, 1))
			if !out.DType.IsFloat() {
				v = float64(floorDivInt(int64(a.v), int64(max(a.count, 1))))
			}
		}
		storeF(out.DType, out.Storage.Data, o, v)
	}
	return nil
}

// embeddingIndex is embedding's check of its indices.
var embeddingIndex = ops.MustIndexBounds("aten::embedding.default")

func kEmbedding(c *call) ([]any, error) {
	weight, indices, err := c.tensor2("weight", "indices")
	if err != nil {
		return nil, err
	}
	if weight.Dim() != 2 {
		return nil, fmt.Errorf("'weight' must be 2-D")
	}
	ix := indices.Ints()
	shape := append(clone64(indices.Shape), weight.Shape[1])
	out, err := Empty(weight.DType, shape, nil, weight.Device())
	if err != nil {
		return nil, err
	}
	for i, v := range ix {
		if _, err := embeddingIndex.Check(v, weight.Shape[0], 0); err != nil {
			return nil, err
		}
		row, _ := selectView(weight, 0, v)
		dst, _ := selectView(out.view([]int64{int64(len(ix)), weight.Shape[1]}, []int64{weight.Shape[1], 1}, 0), 0, int64(i))
		if err := copyTensor(dst, row); err != nil {
			return nil, err
		}
	}
	return one(out)
}

// indexSlot is t's slice at position i of dim d; a 0-dim tensor is its own
// only slot, as PyTorch treats it as one element along dim 0 (the nil
// slice of a 0-dim tensor was issue 11's panic).
func indexSlot(t *Tensor, d int, i int64) (*Tensor, error) {
	if t.Dim() == 0 {
		return t, nil
	}
	return sliceView(t, int64(d), ptr(i), ptr(i+1), 1)
}

// kIndexAddCopyFill covers index_add, index_copy and index_fill.
func kIndexAddCopyFill(c *call) ([]any, error) {
	self, d, ix, err := dimIndex(c)
	if err != nil {
		return nil, err
	}
	out, err := cloneAs(self, "")
	if err != nil {
		return nil, err
	}
	name := c.op.Schema.Name
	for i, v := range ix {
		dst, err := indexSlot(out, d, v)
		if err != nil {
			return nil, err
		}
		if name == "index_fill" {
			val, err := c.scalar("value")
			if err != nil {
				return nil, err
			}
			if err := fillWith(dst, val); err != nil {
				return nil, err
			}
			continue
		}
		source, err := c.tensor("source")
		if err != nil {
			return nil, err
		}
		src, err := indexSlot(source, d, int64(i))
		if err != nil {
			return nil, err
		}
		if src.Numel() != dst.Numel() {
			return nil, fmt.Errorf("%s_(): Source/destination tensor must have same slice shapes. Destination slice shape: %s at dimension %d and source slice shape: %s at dimension %d.",
				name, ints(dst.Shape), d, ints(src.Shape), d)
		}
		alpha := 1.0
		if c.has("alpha") {
			if alpha, err = c.float("alpha"); err != nil {
				return nil, err
			}
		}
		so, do := src.offsets(), dst.offsets()
		for k := range do {
			elemAdd(dst, do[k], src, so[k], name == "index_add", alpha)
		}
	}
	return one(out)
}

func init() {
	register(kIndex, "index.Tensor", "_unsafe_index.Tensor")
	register(kIndexPut, "index_put", "_unsafe_index_put")
	register(inplaceKernel(kIndexPut), "_index_put_impl_")
	register(kIndexSelect, "index_select")
	register(kGather, "gather")
	register(kScatter, "scatter.src", "scatter.value", "scatter.reduce", "scatter.value_reduce", "scatter_add", "scatter_reduce.two")
	register(kEmbedding, "embedding")
	register(kIndexAddCopyFill, "index_add", "index_copy", "index_fill.int_Scalar")
}
