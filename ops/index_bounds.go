package ops

import (
	"fmt"
	"strconv"
	"strings"
)

// IndexBounds is how an op checks each index it reads from a tensor, as
// ATen's CPU kernels do (TensorAdvancedIndexing.cpp, cpu/IndexKernel.cpp,
// ScatterGatherKernel.cpp): the range it accepts and the IndexError it
// raises. interp raises it; lowering turns it into the loop IR's check.
type IndexBounds struct {
	// Neg accepts -size <= i < size, counting negatives from the end
	// (advanced indexing, index_fill); otherwise 0 <= i < size.
	Neg bool
	// Msg is PyTorch's message with IndexPlaceholder, DimPlaceholder and
	// SizePlaceholder standing for the values.
	Msg string
}

// The placeholders of IndexBounds.Msg.
const (
	IndexPlaceholder = "{index}"
	DimPlaceholder   = "{dim}"
	SizePlaceholder  = "{size}"
)

const (
	msgOutOfBounds = "index " + IndexPlaceholder + " is out of bounds for dimension " + DimPlaceholder + " with size " + SizePlaceholder
	msgOutOfRange  = "index out of range in self"
	// ATen's embedding_bag check (max mode, padding_idx, float64); fbgemm's
	// fast path (float32 sum or mean) says "Index {position} of input takes
	// value {index} which is not in the valid range [0, {size})", which needs
	// a placeholder for the position that checks do not have
	msgBagIndex = "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be " + IndexPlaceholder
)

// indexBounds lists every op that reads indices from a tensor.
var indexBounds = func() map[string]IndexBounds {
	t := map[string]IndexBounds{
		"embedding":                   {Msg: msgOutOfRange},
		"_embedding_bag":              {Msg: msgBagIndex},
		"_embedding_bag_forward_only": {Msg: msgBagIndex},
		"_embedding_bag_backward":     {Msg: msgBagIndex},
		"index_select":                {Msg: msgOutOfRange},
		"gather":                      {Msg: msgOutOfBounds},
		"index.Tensor":                {Neg: true, Msg: msgOutOfBounds},
		"_unsafe_index.Tensor":        {Neg: true, Msg: msgOutOfBounds},
		"index_put":                   {Neg: true, Msg: msgOutOfBounds},
		"_unsafe_index_put":           {Neg: true, Msg: msgOutOfBounds},
		"scatter.src":                 {Msg: msgOutOfBounds},
		"scatter.value":               {Msg: msgOutOfBounds},
		"scatter.reduce":              {Msg: msgOutOfBounds},
		"scatter_add":                 {Msg: msgOutOfBounds},
		"scatter_reduce.two":          {Msg: msgOutOfBounds},
		"index_add":                   {Msg: msgOutOfRange},
		"index_copy":                  {Msg: "index_copy_(): " + msgOutOfBounds},
		"index_fill.int_Scalar":       {Neg: true, Msg: msgOutOfBounds},
		"index_fill.int_Tensor":       {Neg: true, Msg: msgOutOfBounds},
	}
	out := make(map[string]IndexBounds, len(t))
	for name, b := range t {
		if !strings.Contains(name, ".") {
			name += ".default"
		}
		out["aten::"+name] = b
	}
	return out
}()

// IndexBoundsOf is the index check of a qualified op name.
// An in-place variant (`index_add_`) checks as its functional op does.
func IndexBoundsOf(op string) (IndexBounds, bool) {
	b, ok := indexBounds[op]
	if !ok {
		if name, ov, found := strings.Cut(op, "."); found && strings.HasSuffix(name, "_") {
			b, ok = indexBounds[strings.TrimSuffix(name, "_")+"."+ov]
		}
	}
	return b, ok
}

// MustIndexBounds is IndexBoundsOf for an op known to have a check.
func MustIndexBounds(op string) IndexBounds {
	b, ok := IndexBoundsOf(op)
	if !ok {
		panic("ops: no index bounds declared for " + op)
	}
	return b
}

// Accepts reports whether index i is in range for a dim of size.
func (b IndexBounds) Accepts(i, size int64) bool {
	lo := int64(0)
	if b.Neg {
		lo = -size
	}
	return i >= lo && i < size
}

// Check returns i, wrapped into [0, size) when negatives count from the
// end, or PyTorch's error.
func (b IndexBounds) Check(i, size int64, dim int) (int64, error) {
	if !b.Accepts(i, size) {
		return 0, fmt.Errorf("%s", b.Message(i, size, dim))
	}
	if i < 0 {
		i += size
	}
	return i, nil
}

// Message is the error for index i along dim of size.
func (b IndexBounds) Message(i, size int64, dim int) string {
	return strings.NewReplacer(IndexPlaceholder, strconv.FormatInt(i, 10), DimPlaceholder, strconv.Itoa(dim),
		SizePlaceholder, strconv.FormatInt(size, 10)).Replace(b.Msg)
}
