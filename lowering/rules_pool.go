package lowering

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// 2-d pooling as reduction kernels: Outer is the result shape, an r-stage
// loops over the window (r0 over kernel rows, r1 over columns). Window
// element (r0, r1) of output (.., i, j) reads input row i*stride0 - pad0 +
// r0*dil0 and column j*stride1 - pad1 + r1*dil1; where padding or
// ceil_mode can put it outside the input, the load index is clamped into
// the input and the value replaced (max: the dtype's lowest value; avg:
// 0), as constant_pad_nd's rule does.
//
// The max's index (max_pool2d_with_indices: row*W + col in the input
// plane; the inductor low-memory form: r0*k1 + r1 in the window, int8)
// follows interp's kernel (PyTorch's CPU kernel): the first maximum, but
// the last NaN, since a NaN replaces the running maximum. A second
// r-stage finds both (min of the positions equal to the max, max of the
// NaN positions) and an outer stage picks one.

// poolIndex is which index a max pool stores as its second result.
type poolIndex uint8

const (
	poolNoIndex     poolIndex = iota // max_pool2d
	poolFlatIndex                    // max_pool2d_with_indices
	poolWindowIndex                  // prims::_low_memory_max_pool_with_offsets
)

func poolRules() map[string]rule {
	return map[string]rule{
		"max_pool2d":                               maxPool(poolNoIndex),
		"max_pool2d_with_indices":                  maxPool(poolFlatIndex),
		"prims::_low_memory_max_pool_with_offsets": maxPool(poolWindowIndex),
		"avg_pool2d":                               lowerAvgPool,
	}
}

// poolGeom is one pooling call's geometry over the last two dims.
type poolGeom struct {
	in              tensorRef
	outShape        []sym.Expr
	k, st, pad, dil [2]sym.Expr
	// guarded: some window element may fall outside the input.
	guarded bool
}

// poolArgs reads the call's kernel_size, stride (empty: the kernel),
// padding and dilation (absent for avg_pool2d: 1), each one value or two.
func poolArgs(l *lowerer, c *ops.Call, out tensorRef) (*poolGeom, error) {
	in, err := l.ref(c.Arg("self"))
	if err != nil {
		return nil, err
	}
	if r := len(in.layout.Shape); (r != 3 && r != 4) || len(out.layout.Shape) != r {
		return nil, fmt.Errorf("%s: input of rank %d", c.Op, r)
	}
	g := &poolGeom{in: in, outShape: out.layout.Shape}
	one, zero := sym.Const(1), sym.Const(0)
	var ok bool
	if g.k, ok, err = pair(c, "kernel_size", [2]sym.Expr{}); err != nil || !ok {
		return nil, fmt.Errorf("%s: kernel_size must either be a single int, or a tuple of two ints", c.Op)
	}
	if g.st, _, err = pair(c, "stride", g.k); err != nil {
		return nil, err
	}
	if g.pad, _, err = pair(c, "padding", [2]sym.Expr{zero, zero}); err != nil {
		return nil, err
	}
	if g.dil, _, err = pair(c, "dilation", [2]sym.Expr{one, one}); err != nil {
		return nil, err
	}
	ceil, err := c.Bool("ceil_mode")
	if err != nil {
		return nil, err
	}
	g.guarded = ceil || !isZero(g.pad[0]) || !isZero(g.pad[1])
	return g, nil
}

// pair reads an int[2] parameter given as one value or two; def when the
// schema has no such parameter or the list is empty (ok is then false).
func pair(c *ops.Call, name string, def [2]sym.Expr) (v [2]sym.Expr, ok bool, err error) {
	if !c.Has(name) {
		return def, false, nil
	}
	xs, err := c.SymInts(name)
	switch {
	case err != nil:
		return def, false, err
	case len(xs) == 0:
		return def, false, nil
	case len(xs) == 1:
		return [2]sym.Expr{xs[0], xs[0]}, true, nil
	case len(xs) == 2:
		return [2]sym.Expr{xs[0], xs[1]}, true, nil
	}
	return def, false, fmt.Errorf("%s: %s has %d values", c.Op, name, len(xs))
}

// pos is the input row (d=0) or column (d=1) window element r_d of the
// output at the outer index reads.
func (g *poolGeom) pos(d int) sym.Expr {
	x := sym.Symbol(OuterVar(len(g.outShape) - 2 + d))
	return sym.Add(sym.Sub(sym.Mul(x, g.st[d]), g.pad[d]), sym.Mul(sym.Symbol(ReduceVar(d)), g.dil[d]))
}

// size is the input's height (d=0) or width (d=1).
func (g *poolGeom) size(d int) sym.Expr { return g.in.layout.Shape[len(g.in.layout.Shape)-2+d] }

// read loads the window element of the current r-stage converted to dt.
// With guards the load index is clamped into the input and inside says
// whether the element is in it; inside is nil when every element is.
func (g *poolGeom) read(b *kbuilder, dt ir.DType) (x, inside *Instr) {
	rank := len(g.outShape)
	at := append(outerVars(rank-2), g.pos(0), g.pos(1))
	if g.guarded {
		for d := range 2 {
			at[rank-2+d], inside = b.clampInside(g.pos(d), g.size(d), inside)
		}
	}
	return b.cast(b.load(g.in, at), dt), inside
}

// readOr is read with an element outside the input replaced by fill.
func (g *poolGeom) readOr(b *kbuilder, dt ir.DType, fill func() *Instr) *Instr {
	x, inside := g.read(b, dt)
	if inside == nil {
		return x
	}
	return b.call("where", dt, inside, x, fill())
}

// maxPool lowers a max pool storing the index kind ix as result 1 (when
// that result is used).
func maxPool(ix poolIndex) rule {
	return func(l *lowerer, c *ops.Call) error {
		out, err := l.resultRef(c, 0)
		if err != nil {
			return err
		}
		g, err := poolArgs(l, c, out)
		if err != nil {
			return err
		}
		dt := g.in.layout.DType
		if dt == ir.Bool || dt.Category() != ir.CatFloat && dt.Category() != ir.CatInt {
			return noLowering(c.Node, "", "%s on a %s tensor", c.Op, dt.Name())
		}
		acc := accType(dt)
		b := l.newKernel(out.layout.Shape)
		window := []sym.Expr{g.k[0], g.k[1]}
		b.stage(window)
		x := g.readOr(b, acc, func() *Instr { return lowest(b, acc) })
		m := b.reduce(ReduceMax, acc, x)
		var index *Instr
		if ix != poolNoIndex && len(c.Node.Results) > 1 && c.Node.Results[1].NumUses() > 0 {
			b.stage(window)
			index = g.argmax(b, ix, acc, m) // leaves an outer stage open
		} else {
			b.stage(nil)
		}
		at := outerVars(len(out.layout.Shape))
		b.store(out, at, m)
		if index != nil {
			idx, err := l.resultRef(c, 1)
			if err != nil {
				return err
			}
			b.store(idx, at, index)
		}
		return nil
	}
}

// lowest is the identity of max for dt: -inf, or the integer minimum.
func lowest(b *kbuilder, dt ir.DType) *Instr {
	if dt.IsFloat() {
		return b.constant(math.Inf(-1), dt)
	}
	return b.constInt(intLimit(dt, false), dt)
}

// argmax emits, in the open r-stage, the reductions that locate the max m
// and returns (after opening an outer stage) the index of kind ix.
func (g *poolGeom) argmax(b *kbuilder, ix poolIndex, acc ir.DType, m *Instr) *Instr {
	raw, inside := g.read(b, acc)
	at := sym.Add(sym.Mul(sym.Symbol(ReduceVar(0)), g.k[1]), sym.Symbol(ReduceVar(1)))
	if ix == poolFlatIndex {
		at = sym.Add(sym.Mul(g.pos(0), g.size(1)), g.pos(1))
	}
	pos := b.index(at, ir.I64)
	hit := b.call("eq", ir.Bool, raw, m)
	if inside != nil {
		hit = b.call("logical_and", ir.Bool, inside, hit)
	}
	first := b.reduce(ReduceMin, ir.I64, b.call("where", ir.I64, hit, pos, b.constInt(math.MaxInt64, ir.I64)))
	if !acc.IsFloat() {
		b.stage(nil)
		return first
	}
	nan := b.call("isnan", ir.Bool, raw)
	if inside != nil {
		nan = b.call("logical_and", ir.Bool, inside, nan)
	}
	last := b.reduce(ReduceMax, ir.I64, b.call("where", ir.I64, nan, pos, b.constInt(-1, ir.I64)))
	b.stage(nil)
	return b.call("where", ir.I64, b.call("isnan", ir.Bool, m), last, first)
}

// lowerAvgPool is avg_pool2d: the sum of the window's elements inside the
// input, divided by the window's size clipped to the padded input
// (count_include_pad) or to the input, as ATen's CPU kernel counts.
func lowerAvgPool(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	if !c.IsNone("divisor_override") {
		return noLowering(c.Node, "", "avg_pool2d with divisor_override (interp, the oracle, does not model it)")
	}
	g, err := poolArgs(l, c, out)
	if err != nil {
		return err
	}
	if !out.layout.DType.IsFloat() {
		return noLowering(c.Node, "", "avg_pool2d on a %s tensor", out.layout.DType.Name())
	}
	countPad, err := c.Bool("count_include_pad")
	if err != nil {
		return err
	}
	acc := accType(out.layout.DType)
	b := l.newKernel(out.layout.Shape)
	b.stage([]sym.Expr{g.k[0], g.k[1]})
	x := g.readOr(b, acc, func() *Instr { return b.constant(0, acc) })
	s := b.reduce(ReduceSum, acc, x)
	b.stage(nil)
	n := g.divisor(b, acc, countPad)
	b.store(out, outerVars(len(out.layout.Shape)), b.call("truediv", acc, s, n))
	return nil
}

// divisor emits the element count avg_pool2d divides by at the outer
// index: the product of the window's extents along rows and columns.
func (g *poolGeom) divisor(b *kbuilder, dt ir.DType, countPad bool) *Instr {
	if !g.guarded { // every window lies inside the input
		return b.index(sym.Mul(g.k[0], g.k[1]), dt)
	}
	var n *Instr
	for d := range 2 {
		x := sym.Symbol(OuterVar(len(g.outShape) - 2 + d))
		start := sym.Sub(sym.Mul(x, g.st[d]), g.pad[d])
		end := sym.Min(sym.Add(start, g.k[d]), sym.Add(g.size(d), g.pad[d]))
		if !countPad {
			start, end = sym.Max(start, sym.Const(0)), sym.Min(end, g.size(d))
		}
		extent := b.index(sym.Sub(end, start), dt)
		if n == nil {
			n = extent
		} else {
			n = b.call("mul", dt, n, extent)
		}
	}
	return n
}
