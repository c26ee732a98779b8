package ops

// Facts the functionalize pass needs about views, beyond Op.ViewInverse:
// how a mutated view is written back into its base when no scatter op
// exists (FunctionalInverses.cpp), and which range of its input a piece of
// a multi-result view covers. (Op.ViewInverse, the scatter inverse, is in
// views.go; InverseKind, declared per op here, is meant to become a field
// of Entry so that both facts sit in the op's one table row.)

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// InverseKind says how functionalization writes a mutated view back into
// the tensor it was taken from, and how it replays the view on a new base.
type InverseKind uint8

// Inverse kinds, after aten/src/ATen/FunctionalInverses.cpp.
const (
	InverseUnknown     InverseKind = iota // no inverse: a mutation through this view is refused
	InverseScatter                        // Op.ViewInverse(base, mutated, <the view's arguments>)
	InverseReshape                        // view(mutated, base.shape): view, reshape, _reshape_alias, view_as
	InverseDType                          // view.dtype(mutated, base.dtype)
	InverseAlias                          // alias(mutated): alias, detach, lift_fresh
	InverseSelf                           // the same call on the mutated view: transpose, t
	InversePermute                        // permute(mutated, inverse permutation)
	InverseSqueezeDim                     // unsqueeze(dim): squeeze.dim(mutated, dim)
	InverseUnsqueezeTo                    // squeeze: unsqueeze where the base had size-1 dims
	InversePiece                          // split/split_with_sizes/chunk piece, narrow: slice_scatter over its range; replayed as slice
	InverseUnbind                         // unbind piece: select_scatter at its index; replayed as select
	InverseExpand                         // expand: PyTorch sums back to the base shape (sum_to)
)

var inverseKinds = map[string]InverseKind{
	"aten::view.default":           InverseReshape,
	"aten::_unsafe_view.default":   InverseReshape,
	"aten::reshape.default":        InverseReshape,
	"aten::_reshape_alias.default": InverseReshape,
	"aten::view_as.default":        InverseReshape,
	"aten::view.dtype":             InverseDType,
	"aten::alias.default":          InverseAlias,
	"aten::detach.default":         InverseAlias,
	"aten::lift_fresh.default":     InverseAlias,
	"aten::transpose.int":          InverseSelf,
	"aten::t.default":              InverseSelf,
	"aten::permute.default":        InversePermute,
	"aten::unsqueeze.default":      InverseSqueezeDim,
	"aten::squeeze.default":        InverseUnsqueezeTo,
	"aten::squeeze.dim":            InverseUnsqueezeTo,
	"aten::squeeze.dims":           InverseUnsqueezeTo,
	"aten::split.Tensor":           InversePiece,
	// unsafe_split's schema claims fresh results, but ATen returns views of
	// self (torch/_decomp makes it split): a write into a piece is one into
	// self, as lstm_cell's traced gates do (sigmoid_ on a chunk).
	"aten::unsafe_split.Tensor":      InversePiece,
	"aten::split_with_sizes.default": InversePiece,
	"aten::chunk.default":            InversePiece,
	"aten::narrow.default":           InversePiece,
	"aten::unbind.int":               InverseUnbind,
	"aten::expand.default":           InverseExpand,
}

// Inverse reports how functionalization inverts o. An in-place view op
// (transpose_) answers for its functional counterpart.
func (o *Op) Inverse() InverseKind {
	if k, ok := inverseKinds[o.QualifiedName()]; ok {
		return k
	}
	if o.ViewInverse != "" {
		return InverseScatter
	}
	if o.Functional != "" {
		if f := Lookup(o.Functional); f != nil && f != o {
			return f.Inverse()
		}
	}
	return InverseUnknown
}

// IsAsStrided reports whether o is as_strided (or as_strided_), the view
// functionalization cannot compose with others.
func (o *Op) IsAsStrided() bool {
	return o.Schema.Namespace == "aten" && (o.Schema.Name == "as_strided" || o.Schema.Name == "as_strided_")
}

// PieceRange gives the range [start, end) along dim that result out (of
// count results) of a piece view covers in self: split, split_with_sizes,
// chunk, narrow. For the last piece of a symbolic size, end is INT64_MAX,
// which slice clamps to the size as Python's x[a:] does.
func PieceRange(c *Call, self *ir.TensorType, out, count int) (dim int, start, end sym.Expr, err error) {
	d, err := c.Int("dim")
	if err != nil {
		return 0, start, end, err
	}
	if dim, err = WrapDim(d, self.Rank()); err != nil {
		return 0, start, end, err
	}
	size := self.Shape[dim]
	var length sym.Expr
	switch c.Op.Schema.Name {
	case "narrow":
		if start, err = c.SymInt("start"); err != nil {
			return 0, start, end, err
		}
		length, err = c.SymInt("length")
		return dim, start, sym.Add(start, length), err
	case "split_with_sizes":
		sizes, err := c.SymInts("split_sizes")
		if err != nil || out >= len(sizes) {
			return 0, start, end, fmt.Errorf("split_with_sizes: no piece %d (%v)", out, err)
		}
		start = sym.Const(0)
		for _, s := range sizes[:out] {
			start = sym.Add(start, s)
		}
		return dim, start, sym.Add(start, sizes[out]), nil
	case "split", "unsafe_split":
		if length, err = c.SymInt("split_size"); err != nil {
			return 0, start, end, err
		}
	case "chunk":
		chunks, err := c.Int("chunks")
		if err != nil || chunks <= 0 {
			return 0, start, end, fmt.Errorf("chunk: bad chunk count (%v)", err)
		}
		length = sym.CeilDiv(size, sym.Const(chunks))
	default:
		return 0, start, end, fmt.Errorf("%s is not a piece view", c.Op.QualifiedName())
	}
	start = sym.Mul(sym.Const(int64(out)), length)
	end = sym.Add(start, length)
	if out == count-1 {
		end = size
		if !size.IsConst() {
			end = sym.Const(math.MaxInt64)
		}
	}
	return dim, start, end, nil
}

// ReserveStorage makes fresh storage ids start after id, so that an Env
// created for a graph that is already typed hands out ids no value holds.
func (e *Env) ReserveStorage(id ir.StorageID) {
	if id > e.nextStorage {
		e.nextStorage = id
	}
}

var inverseNames = [...]string{"", "scatter", "reshape", "dtype", "alias", "self", "permute", "squeeze-dim", "unsqueeze-to", "piece", "unbind", "expand"}

// String names the inverse kind ("" for InverseUnknown).
func (k InverseKind) String() string {
	if int(k) < len(inverseNames) {
		return inverseNames[k]
	}
	return fmt.Sprintf("InverseKind(%d)", k)
}
