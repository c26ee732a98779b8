package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Shape helpers shared by the meta rules: dim wrapping, broadcasting,
// contiguity, and the decisions on symbolic sizes they need.

// c0, c1 are the constants every rule needs.
var (
	c0 = sym.Const(0)
	c1 = sym.Const(1)
)

// WrapDim is maybe_wrap_dim: a negative dim counts from the end; a 0-dim
// tensor accepts dims -1 and 0.
func WrapDim(dim int64, rank int) (int, error) {
	r := int64(rank)
	if r == 0 {
		r = 1
	}
	if dim < -r || dim >= r {
		return 0, Errorf(CodeDim, "dims of a rank-"+fmt.Sprint(rank)+" tensor run from -"+fmt.Sprint(r)+" to "+fmt.Sprint(r-1),
			"Dimension out of range (expected to be in range of [%d, %d], but got %d)", -r, r-1, dim)
	}
	if dim < 0 {
		dim += r
	}
	return int(dim), nil
}

// wrapDimPair wraps two dims of the same tensor (transpose, diagonal).
func wrapDimPair(d0, d1 int64, rank int) (int, int, error) {
	a, err := WrapDim(d0, rank)
	if err != nil {
		return 0, 0, err
	}
	b, err := WrapDim(d1, rank)
	return a, b, err
}

// wrapDims wraps a list of dims and rejects repeats.
func wrapDims(dims []int64, rank int) ([]int, error) {
	out := make([]int, len(dims))
	seen := map[int]bool{}
	for i, d := range dims {
		w, err := WrapDim(d, rank)
		if err != nil {
			return nil, err
		}
		if seen[w] {
			return nil, Errorf(CodeDim, "", "dim %d appears multiple times in the list of dims", w)
		}
		seen[w] = true
		out[i] = w
	}
	return out, nil
}

// isConst reports whether e is the constant v.
func isConst(e sym.Expr, v int64) bool {
	c, ok := e.Const()
	return ok && c == v
}

// eqSize decides e == f for sizes: equal expressions, or constants.
func (env *Env) eqSize(e, f sym.Expr) (equal, known bool) {
	if sym.Equal(e, f) {
		return true, true
	}
	a, aok := e.Const()
	b, bok := f.Const()
	if aok && bok {
		return a == b, true
	}
	return env.decide(sym.Eq(e, f))
}

// isOne decides size == 1. Backed symbols are never 1 (PyTorch specializes
// sizes 0 and 1); unbacked ones are treated as "not 1" as guard_or_false does.
func isOne(e sym.Expr) bool { return isConst(e, 1) }

// BroadcastShapes is infer_size over several shapes, with TensorIterator's
// error for a mismatch. names label the operands in the message.
func (env *Env) BroadcastShapes(shapes ...[]sym.Expr) ([]sym.Expr, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]sym.Expr, rank)
	for i := range out {
		out[i] = c1
	}
	for k, s := range shapes {
		off := rank - len(s)
		for i, size := range s {
			cur := out[off+i]
			switch {
			case isOne(size):
			case isOne(cur):
				out[off+i] = size
			default:
				eq, known := env.eqSize(cur, size)
				if known && !eq {
					return nil, broadcastError(cur, size, off+i, k)
				}
				out[off+i] = pickSize(cur, size)
			}
		}
	}
	return out, nil
}

// pickSize chooses between two sizes assumed equal: a constant over a
// symbol, a backed symbol over an unbacked one, else the first.
func pickSize(a, b sym.Expr) sym.Expr {
	if _, ok := b.Const(); ok {
		return b
	}
	if _, ok := a.Const(); ok {
		return a
	}
	if hasUnbacked(a) && !hasUnbacked(b) {
		return b
	}
	return a
}

func hasUnbacked(e sym.Expr) bool {
	for _, n := range e.Free() {
		if len(n) > 1 && n[0] == 'u' {
			return true
		}
	}
	return false
}

func broadcastError(a, b sym.Expr, dim, operand int) *Error {
	return Errorf(CodeShape, "make the sizes equal, or 1 where the tensor should broadcast",
		"The size of tensor a (%s) must match the size of tensor b (%s) at non-singleton dimension %d", a, b, dim)
}

// expandStrides gives t's strides as seen through a broadcast to shape:
// new leading dims and broadcast dims get stride 0.
func expandStrides(t *ir.TensorType, shape []sym.Expr) []sym.Expr {
	out := make([]sym.Expr, len(shape))
	off := len(shape) - t.Rank()
	strides := t.Strides
	if strides == nil {
		strides = ir.ContiguousStrides(t.Shape)
	}
	for i := range out {
		j := i - off
		switch {
		case j < 0:
			out[i] = c0
		case isOne(t.Shape[j]) && !isOne(shape[i]):
			out[i] = c0
		default:
			out[i] = strides[j]
		}
	}
	return out
}

// stridesOf returns t's strides, contiguous when the annotation had none.
func stridesOf(t *ir.TensorType) []sym.Expr {
	if t.Strides != nil {
		return t.Strides
	}
	return ir.ContiguousStrides(t.Shape)
}

// IsContiguous is is_contiguous(): strides equal the row-major strides,
// ignoring dims of size 1; any tensor with a size-0 dim is contiguous.
func IsContiguous(t *ir.TensorType) bool {
	return denseInOrder(t.Shape, stridesOf(t), identityPerm(t.Rank()))
}

// IsChannelsLast is is_contiguous(memory_format=torch.channels_last) for 4-d
// tensors (NHWC order) and channels_last_3d for 5-d ones.
func IsChannelsLast(t *ir.TensorType) bool {
	perm := channelsLastPerm(t.Rank())
	if perm == nil {
		return false
	}
	return denseInOrder(t.Shape, stridesOf(t), perm)
}

// channelsLastPerm is the outermost-to-innermost dim order of channels-last.
func channelsLastPerm(rank int) []int {
	switch rank {
	case 4:
		return []int{0, 2, 3, 1}
	case 5:
		return []int{0, 2, 3, 4, 1}
	}
	return nil
}

func identityPerm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// denseInOrder checks that the dims in order (outermost first) have
// row-major strides, skipping size-1 dims; a zero size makes it true.
func denseInOrder(shape, strides []sym.Expr, order []int) bool {
	for _, s := range shape {
		if isConst(s, 0) {
			return true
		}
	}
	expected := c1
	for k := len(order) - 1; k >= 0; k-- {
		d := order[k]
		if isOne(shape[d]) {
			continue
		}
		if !sym.Equal(strides[d], expected) {
			return false
		}
		expected = sym.Mul(expected, shape[d])
	}
	return true
}

// stridesInOrder returns row-major strides for shape laid out in order
// (outermost first), as make_contiguous_strides_for on the permuted shape.
func stridesInOrder(shape []sym.Expr, order []int) []sym.Expr {
	out := make([]sym.Expr, len(shape))
	acc := c1
	for k := len(order) - 1; k >= 0; k-- {
		d := order[k]
		out[d] = acc
		size := shape[d]
		if isConst(size, 0) {
			size = c1
		}
		acc = sym.Mul(acc, size)
	}
	return out
}

// Contiguous returns a fresh contiguous tensor type on dev.
func (env *Env) Contiguous(dt ir.DType, shape []sym.Expr, dev ir.Device) *ir.TensorType {
	t := ir.NewTensor(dt, shape, dev)
	t.Storage = env.NewStorage()
	return t
}

// Fresh returns a tensor type owning new storage with the given strides.
func (env *Env) Fresh(dt ir.DType, shape, strides []sym.Expr, dev ir.Device) *ir.TensorType {
	return &ir.TensorType{DType: dt, Shape: shape, Strides: strides, Offset: c0, Device: dev, Storage: env.NewStorage()}
}

// cmpExpr compares a and b: -1, 0, 1, or 2 when it cannot decide.
func (env *Env) cmpExpr(a, b sym.Expr) int {
	if sym.Equal(a, b) {
		return 0
	}
	if x, ok := a.Const(); ok {
		if y, ok := b.Const(); ok {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	if lt, ok := env.decideOblivious(sym.Lt(a, b)); ok && lt {
		return -1
	}
	if env.dividesPositive(a, b) {
		return -1
	}
	if gt, ok := env.decideOblivious(sym.Gt(a, b)); ok && gt {
		return 1
	}
	if eq, ok := env.decideOblivious(sym.Eq(a, b)); ok && eq {
		return 0
	}
	return 2
}

// dividesPositive reports a < b for b = a*q with a > 0 and q > 1, as
// view's chunk sizes are (4*s27 against 4*s77*s27): size-oblivious
// reasoning decides q > 1 for q alone, not for the product.
func (env *Env) dividesPositive(a, b sym.Expr) bool {
	if pos, ok := env.decideOblivious(sym.Gt(a, c0)); !ok || !pos {
		return false
	}
	q := sym.FloorDiv(b, a)
	if !sym.Equal(sym.Mul(q, a), b) {
		return false
	}
	gt, ok := env.decideOblivious(sym.Gt(q, c1))
	return ok && gt
}

// product multiplies sizes.
func product(es []sym.Expr) sym.Expr {
	p := c1
	for _, e := range es {
		p = sym.Mul(p, e)
	}
	return p
}

// copyExprs copies a slice of expressions.
// copyExprs copies es; an empty list stays non-nil (a 0-dim tensor's strides
// are known and print as []), nil stays nil (unknown).
func copyExprs(es []sym.Expr) []sym.Expr {
	if es == nil {
		return nil
	}
	return append(make([]sym.Expr, 0, len(es)), es...)
}

// needDims fails for a 0-dim tensor where the op indexes a dimension.
func needDims(t *ir.TensorType, op string) error {
	if t.Rank() == 0 {
		return Errorf(CodeDim, "", "%s() cannot be applied to a 0-dim tensor.", op)
	}
	return nil
}
