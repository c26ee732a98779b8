package lowering

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// The scatter inverses functionalization creates (slice_scatter(self, src,
// ...) = self with the slice view replaced by src) and the functional
// copies of views (split_copy). A scatter whose view is a box of the base
// (select, slice, diagonal) is one pointwise kernel over the result, as
// Inductor lowers it: where(the index lies in the view, src at the view
// position, self); so is an as_strided_scatter whose view positions are
// recovered by division (rules_scatter_strided.go). Other as_strided views
// are a copy kernel and a kernel writing through the view's layout,
// computed from the view's arguments.

// viewLayoutFn computes the layout of a view of base from the call's view
// arguments; the view's shape is given (src's, or the result's).
type viewLayoutFn func(c *ops.Call, base Layout, shape []sym.Expr) (Layout, error)

func scatterRules() map[string]rule {
	return map[string]rule{
		"slice_scatter":         scatterWhere(slicePlace),
		"select_scatter":        scatterWhere(selectPlace),
		"diagonal_scatter":      scatterWhere(diagonalPlace),
		"as_strided_scatter":    lowerAsStridedScatter,
		"split_copy.Tensor":     lowerSplitCopy,
		"split_with_sizes_copy": lowerSplitCopy,
		"unbind_copy.int":       lowerUnbindCopy,
	}
}

// scatterInto copies self into the result, then src into the view.
func scatterInto(view viewLayoutFn) rule {
	return func(l *lowerer, c *ops.Call) error {
		out, in, err := l.operands(c, "self", "src")
		if err != nil {
			return err
		}
		self, src := in[0], in[1]
		l.copyKernel(out, self)
		vl, err := view(c, out.layout, src.layout.Shape)
		if err != nil {
			return err
		}
		l.copyKernel(tensorRef{out.buf, vl}, src) // vl has src's shape: a plain copy
		return nil
	}
}

// wrapDim is PyTorch's maybe_wrap_dim.
func wrapDim(d int64, rank int) (int, error) {
	if d < 0 {
		d += int64(rank)
	}
	if d < 0 || d >= int64(rank) {
		return 0, fmt.Errorf("dim %d out of range for rank %d", d, rank)
	}
	return int(d), nil
}

// wrapIndex maps a negative constant position to size + position and clamps
// constants to [0, size] as slice does; symbolic positions stay as given.
func wrapIndex(e, size sym.Expr) sym.Expr {
	if c, ok := e.Const(); ok && c < 0 {
		e = sym.Add(size, e)
		if c2, ok := e.Const(); ok && c2 < 0 {
			return sym.Const(0)
		}
	}
	if _, ok := e.Const(); ok {
		if _, ok := size.Const(); ok {
			return sym.Min(e, size)
		}
	}
	return e
}

func withShape(base Layout, shape []sym.Expr) Layout {
	return Layout{DType: base.DType, Shape: shape, Strides: append([]sym.Expr{}, base.Strides...), Offset: base.Offset}
}

func sliceLayout(c *ops.Call, base Layout, shape []sym.Expr) (Layout, error) {
	d, err := dimArg(c, "dim", len(base.Shape))
	if err != nil {
		return Layout{}, err
	}
	start := sym.Const(0)
	if !c.IsNone("start") {
		if start, err = c.SymInt("start"); err != nil {
			return Layout{}, err
		}
	}
	step, err := c.SymInt("step")
	if err != nil {
		return Layout{}, err
	}
	v := withShape(base, shape)
	v.Offset = sym.Add(base.Offset, sym.Mul(wrapIndex(start, base.Shape[d]), base.Strides[d]))
	v.Strides[d] = sym.Mul(base.Strides[d], step)
	return v, nil
}

func selectLayout(c *ops.Call, base Layout, shape []sym.Expr) (Layout, error) {
	d, err := dimArg(c, "dim", len(base.Shape))
	if err != nil {
		return Layout{}, err
	}
	index, err := c.SymInt("index")
	if err != nil {
		return Layout{}, err
	}
	v := Layout{DType: base.DType, Shape: shape,
		Offset: sym.Add(base.Offset, sym.Mul(wrapIndex(index, base.Shape[d]), base.Strides[d]))}
	v.Strides = append(append([]sym.Expr{}, base.Strides[:d]...), base.Strides[d+1:]...)
	return v, nil
}

func diagonalLayout(c *ops.Call, base Layout, shape []sym.Expr) (Layout, error) {
	off, err := c.Int("offset")
	if err != nil {
		return Layout{}, err
	}
	var dims [2]int
	for i, n := range []string{"dim1", "dim2"} {
		if dims[i], err = dimArg(c, n, len(base.Shape)); err != nil {
			return Layout{}, err
		}
	}
	v := Layout{DType: base.DType, Shape: shape, Offset: base.Offset}
	if off >= 0 {
		v.Offset = sym.Add(v.Offset, sym.Mul(sym.Const(off), base.Strides[dims[1]]))
	} else {
		v.Offset = sym.Add(v.Offset, sym.Mul(sym.Const(-off), base.Strides[dims[0]]))
	}
	for i, s := range base.Strides {
		if i != dims[0] && i != dims[1] {
			v.Strides = append(v.Strides, s)
		}
	}
	v.Strides = append(v.Strides, sym.Add(base.Strides[dims[0]], base.Strides[dims[1]]))
	return v, nil
}

// asStridedLayout: strides and offset are the call's, in the result
// buffer's own storage terms (the scatter's clone starts at offset 0).
func asStridedLayout(c *ops.Call, base Layout, shape []sym.Expr) (Layout, error) {
	strides, err := c.SymInts("stride")
	if err != nil {
		return Layout{}, err
	}
	off := base.Offset
	if !c.IsNone("storage_offset") {
		if off, err = c.SymInt("storage_offset"); err != nil {
			return Layout{}, err
		}
	}
	return Layout{DType: base.DType, Shape: shape, Strides: strides, Offset: off}, nil
}

// lowerSplitCopy copies each piece of self along dim into its own buffer.
func lowerSplitCopy(l *lowerer, c *ops.Call) error {
	return splitPieces(l, c, false)
}

func lowerUnbindCopy(l *lowerer, c *ops.Call) error { return splitPieces(l, c, true) }

func splitPieces(l *lowerer, c *ops.Call, unbind bool) error {
	self, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	d, err := dimArg(c, "dim", len(self.layout.Shape))
	if err != nil {
		return err
	}
	start := sym.Const(0)
	for _, v := range c.Node.Results {
		out, err := l.fresh(v)
		if err != nil {
			return err
		}
		piece := withShape(self.layout, out.layout.Shape)
		piece.Offset = sym.Add(self.layout.Offset, sym.Mul(start, self.layout.Strides[d]))
		if unbind {
			piece.Strides = append(piece.Strides[:d:d], self.layout.Strides[d+1:]...)
			start = sym.Add(start, sym.Const(1))
		} else {
			start = sym.Add(start, out.layout.Shape[d])
		}
		shape := out.layout.Shape
		b := l.newKernel(shape)
		b.store(out, outerVars(len(shape)), b.load(tensorRef{self.buf, piece}, outerVars(len(shape))))
	}
	return nil
}

// iota and repeat are index arithmetic.
func indexRules() map[string]rule {
	return map[string]rule{
		"prims::iota": lowerIota,
		"repeat":      lowerRepeat,
	}
}

func lowerIota(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	start, err := c.SymInt("start")
	if err != nil {
		return err
	}
	step, err := c.SymInt("step")
	if err != nil {
		return err
	}
	b := l.newKernel(out.layout.Shape)
	y := b.index(sym.Add(start, sym.Mul(step, sym.Symbol(OuterVar(0)))), ir.I64)
	b.store(out, outerVars(1), y)
	return nil
}

// lowerRepeat reads self at out_index mod self's size, dims aligned right.
func lowerRepeat(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "self")
	if err != nil {
		return err
	}
	self := in[0]
	shape := out.layout.Shape
	idx := outerVars(len(shape))
	off := len(shape) - len(self.layout.Shape)
	at := make([]sym.Expr, len(self.layout.Shape))
	for i, s := range self.layout.Shape {
		at[i] = sym.Const(0) // a size-0 dim: the result is empty
		if !isZero(s) {
			at[i] = sym.Mod(idx[i+off], s)
		}
	}
	b := l.newKernel(shape)
	b.store(out, idx, b.load(self, at))
	return nil
}
