package lowering

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// as_strided_scatter as one where kernel, when the view is affine in the
// result's storage and its elements have unique positions that a greedy
// division finds: constant sizes and strides, the result dense and
// row-major, and the view's nonzero strides each larger than everything
// the smaller ones span. Then storage offset f lies in the view iff
// f - offset = Σ stride_i·v_i with 0 <= v_i < size_i, and dividing by the
// strides, largest first, recovers v. Other views (overlapping, symbolic)
// keep the copy-then-overwrite pair.
func lowerAsStridedScatter(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "self", "src")
	if err != nil {
		return err
	}
	self, src := in[0], in[1]
	vl, err := asStridedLayout(c, out.layout, src.layout.Shape)
	if err != nil {
		return err
	}
	order, ok := greedyOrder(out.layout, vl)
	if !ok {
		return scatterInto(asStridedLayout)(l, c)
	}
	shape := out.layout.Shape
	x := outerVars(len(shape))
	b := l.newKernel(shape)
	rest := sym.Sub(out.layout.Index(x), vl.Offset)
	inside := b.call("ge", ir.Bool, b.index(rest, ir.I64), b.constInt(0, ir.I64))
	at := make([]sym.Expr, len(vl.Shape))
	for i := range at {
		at[i] = sym.Const(0)
	}
	for _, i := range order {
		q := sym.FloorDiv(rest, vl.Strides[i])
		inside = b.and(inside, b.call("lt", ir.Bool, b.index(q, ir.I64), b.index(vl.Shape[i], ir.I64)))
		at[i] = clampTo(q, vl.Shape[i])
		rest = sym.Sub(rest, sym.Mul(q, vl.Strides[i]))
	}
	inside = b.and(inside, b.eqAt(rest, sym.Const(0)))
	dt := out.layout.DType
	old := b.cast(b.load(self, x), dt)
	b.store(out, x, b.call("where", dt, inside, b.cast(b.load(src, at), dt), old))
	return nil
}

// greedyOrder is the view's dims of size > 1 by decreasing stride when
// greedy division recovers every view position (see lowerAsStridedScatter).
func greedyOrder(res, view Layout) ([]int, bool) {
	stride := int64(1)
	for i := len(res.Shape) - 1; i >= 0; i-- {
		n, ok1 := res.Shape[i].Const()
		s, ok2 := res.Strides[i].Const()
		if !ok1 || !ok2 || (n > 1 && s != stride) {
			return nil, false
		}
		stride *= max(n, 1)
	}
	if off, ok := res.Offset.Const(); !ok || off != 0 {
		return nil, false
	}
	if _, ok := view.Offset.Const(); !ok {
		return nil, false
	}
	var dims []int
	sizes, strides := make([]int64, len(view.Shape)), make([]int64, len(view.Shape))
	for i := range view.Shape {
		n, ok1 := view.Shape[i].Const()
		s, ok2 := view.Strides[i].Const()
		if !ok1 || !ok2 || n == 0 || s < 0 || (n > 1 && s == 0) {
			return nil, false
		}
		sizes[i], strides[i] = n, s
		if n > 1 {
			dims = append(dims, i)
		}
	}
	slices.SortStableFunc(dims, func(a, b int) int { return int(strides[b] - strides[a]) })
	span := int64(0) // what the dims after the current one reach
	for k := len(dims) - 1; k >= 0; k-- {
		i := dims[k]
		if strides[i] <= span {
			return nil, false
		}
		span += strides[i] * (sizes[i] - 1)
	}
	return dims, true
}
