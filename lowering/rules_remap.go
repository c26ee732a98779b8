package lowering

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Pointwise index remaps, as Inductor lowers them: one kernel over the
// result that reads self at a moved index (flip, roll) or keeps it under an
// index predicate (tril, triu), so that they fuse like any pointwise op.

func remapRules() map[string]rule {
	return map[string]rule{
		"flip": lowerFlip,
		"roll": lowerRoll,
		"tril": lowerTri(false),
		"triu": lowerTri(true),
		// Inductor decomposes these into _unsafe_index chains over arange
		// indices (torch/_decomp _reflection_or_replication_pad); the
		// integer index is the same, so kiln remaps directly.
		"reflection_pad1d":  lowerPadRemap(reflectAt),
		"reflection_pad2d":  lowerPadRemap(reflectAt),
		"reflection_pad3d":  lowerPadRemap(reflectAt),
		"replication_pad1d": lowerPadRemap(replicateAt),
		"replication_pad2d": lowerPadRemap(replicateAt),
		"replication_pad3d": lowerPadRemap(replicateAt),
	}
}

// reflectAt is the decomposition's middle-1 - |middle-1 - |pos||: pos
// mirrored at both edges without repeating them.
func reflectAt(pos, middle sym.Expr) sym.Expr {
	last := sym.Sub(middle, sym.Const(1))
	abs := func(v sym.Expr) sym.Expr { return sym.Max(v, sym.Neg(v)) }
	return sym.Sub(last, abs(sym.Sub(last, abs(pos))))
}

// replicateAt is the decomposition's clamp(pos, 0, middle-1).
func replicateAt(pos, middle sym.Expr) sym.Expr {
	return sym.Max(sym.Const(0), sym.Min(pos, sym.Sub(middle, sym.Const(1))))
}

// lowerPadRemap reads self at the reflected or replicated position along
// each padded dim (the last len(padding)/2, the last dim first in
// padding), pos = x_d - left: one pointwise kernel, as Inductor's
// _unsafe_index over those indices becomes. The meta rule has checked the
// padding against the sizes.
func lowerPadRemap(at func(pos, middle sym.Expr) sym.Expr) rule {
	return func(l *lowerer, c *ops.Call) error {
		pad, err := c.SymInts("padding")
		if err != nil {
			return err
		}
		return l.remapSelf(c, func(x, idx, shape, inShape []sym.Expr) error {
			if len(pad)%2 != 0 || len(pad)/2 > len(shape) || len(inShape) != len(shape) {
				return fmt.Errorf("%s: padding %v for rank %d", c.Op, pad, len(shape))
			}
			for i := range len(pad) / 2 {
				d := len(shape) - 1 - i
				idx[d] = at(sym.Sub(x[d], pad[2*i]), inShape[d])
			}
			return nil
		})
	}
}

// lowerFlip reads self at size-1-x along each flipped dim: one pointwise
// kernel over the result (Inductor's flip is a pointwise index remap too).
// The meta rule has checked dims (in range, no repeats).
func lowerFlip(l *lowerer, c *ops.Call) error {
	dims, err := c.Ints("dims")
	if err != nil {
		return err
	}
	return l.remapSelf(c, func(x, at, shape, _ []sym.Expr) error {
		for _, dim := range dims {
			d, err := remapDim(c, dim, len(shape))
			if err != nil {
				return err
			}
			at[d] = sym.Sub(sym.Sub(shape[d], sym.Const(1)), x[d])
		}
		return nil
	})
}

// lowerRoll reads self at (x_d + n_d - s_d mod n_d) mod n_d along each
// rolled dim (the numerator stays non-negative); with no dims, at the
// rolled flat position, unravelled.
func lowerRoll(l *lowerer, c *ops.Call) error {
	shifts, err := c.SymInts("shifts")
	if err != nil {
		return err
	}
	dims, err := c.Ints("dims")
	if err != nil {
		return err
	}
	rolled := func(i, n, s sym.Expr) sym.Expr { return sym.Mod(sym.Sum(i, n, sym.Neg(sym.Mod(s, n))), n) }
	return l.remapSelf(c, func(x, at, shape, _ []sym.Expr) error {
		switch {
		case len(dims) == 0 && len(shifts) == 1:
			f := rolled(rowMajorIndex(shape), product(shape), shifts[0])
			stride := sym.Const(1)
			for d := len(shape) - 1; d >= 0; d-- {
				at[d] = sym.Mod(sym.FloorDiv(f, stride), shape[d])
				stride = sym.Mul(stride, shape[d])
			}
		case len(dims) == len(shifts):
			for i, dim := range dims {
				d, err := remapDim(c, dim, len(shape))
				if err != nil {
					return err
				}
				at[d] = rolled(x[d], shape[d], shifts[i])
			}
		default:
			return fmt.Errorf("%s: %d shifts for %d dims", c.Op, len(shifts), len(dims))
		}
		return nil
	})
}

// remapSelf is the pointwise kernel out[x] = self[at] over out's shape:
// at starts as x, and move rewrites the dims it remaps (shape is out's,
// inShape self's).
func (l *lowerer) remapSelf(c *ops.Call, move func(x, at, shape, inShape []sym.Expr) error) error {
	out, in, err := l.operands(c, "self")
	if err != nil {
		return err
	}
	shape := out.layout.Shape
	x := outerVars(len(shape))
	at := slices.Clone(x)
	if err := move(x, at, shape, in[0].layout.Shape); err != nil {
		return err
	}
	b := l.newKernel(shape)
	b.store(out, x, b.load(in[0], at))
	return nil
}

// remapDim is dim counted from the front (the meta rule has checked it).
func remapDim(c *ops.Call, dim int64, rank int) (int, error) {
	d := dim
	if d < 0 {
		d += int64(rank)
	}
	if d < 0 || d >= int64(rank) {
		return 0, fmt.Errorf("%s: dim %d out of range", c.Op, dim)
	}
	return int(d), nil
}

// lowerTri keeps self where col - row <= diagonal (tril) or >= diagonal
// (triu), over the last two dims, and writes zero elsewhere.
func lowerTri(upper bool) rule {
	return func(l *lowerer, c *ops.Call) error {
		out, in, err := l.operands(c, "self")
		if err != nil {
			return err
		}
		diag, err := c.SymInt("diagonal")
		if err != nil {
			return err
		}
		shape := out.layout.Shape
		if len(shape) < 2 {
			return fmt.Errorf("%s: input tensor must have at least 2 dimensions", c.Op)
		}
		x := outerVars(len(shape))
		b := l.newKernel(shape)
		off := b.index(sym.Sub(x[len(x)-1], x[len(x)-2]), ir.I64)
		cmp := "le"
		if upper {
			cmp = "ge"
		}
		keep := b.call(cmp, ir.Bool, off, b.index(diag, ir.I64))
		dt := out.layout.DType
		v := b.cast(b.load(in[0], x), dt)
		b.store(out, x, b.call("where", dt, keep, v, b.constant(0, dt)))
		return nil
	}
}
