package lowering

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// placeFn says, for the result index x (self's shape), whether x lies in
// the scattered view (inside, a bool instruction) and which src element
// lands there (at, in src's dims). at must stay inside src for every x,
// since both sides of the where are read: positions outside the view are
// clamped. ok is false when the view is empty (the result is self).
type placeFn func(c *ops.Call, b *kbuilder, self, src []sym.Expr, x []sym.Expr) (inside *Instr, at []sym.Expr, ok bool, err error)

// scatterWhere lowers a scatter into a view as one pointwise kernel over
// the result: where(inside, src[at], self[x]).
func scatterWhere(place placeFn) rule {
	return func(l *lowerer, c *ops.Call) error {
		out, in, err := l.operands(c, "self", "src")
		if err != nil {
			return err
		}
		self, src := in[0], in[1]
		shape := out.layout.Shape
		x := outerVars(len(shape))
		b := l.newKernel(shape)
		inside, at, ok, err := place(c, b, self.layout.Shape, src.layout.Shape, x)
		if err != nil {
			return err
		}
		// Clamps the loop ranges already keep inside go (Min(3, x0) for x0 < 4).
		f := loopFacts(shape, nil)
		for i := range at {
			at[i] = f.Simplify(at[i])
		}
		dt := out.layout.DType
		old := b.cast(b.load(self, x), dt)
		if !ok {
			b.store(out, x, old)
			return nil
		}
		b.store(out, x, b.call("where", dt, inside, b.cast(b.load(src, at), dt), old))
		return nil
	}
}

// eqAt is the bool instruction e == v.
func (b *kbuilder) eqAt(e, v sym.Expr) *Instr {
	return b.call("eq", ir.Bool, b.index(e, ir.I64), b.index(v, ir.I64))
}

// and joins two conditions; nil is true.
func (b *kbuilder) and(p, q *Instr) *Instr {
	if p == nil {
		return q
	}
	return b.call("logical_and", ir.Bool, p, q)
}

// clampTo is e clamped into [0, n-1].
func clampTo(e, n sym.Expr) sym.Expr {
	return sym.Max(sym.Const(0), sym.Min(e, sym.Sub(n, sym.Const(1))))
}

func emptyDim(n sym.Expr) bool { return isZero(n) }

// without is x with dim d removed.
func without(x []sym.Expr, d int) []sym.Expr {
	return append(append([]sym.Expr{}, x[:d]...), x[d+1:]...)
}

// selectPlace: x[d] == index; src is x without d.
func selectPlace(c *ops.Call, b *kbuilder, self, _ []sym.Expr, x []sym.Expr) (*Instr, []sym.Expr, bool, error) {
	d, err := dimArg(c, "dim", len(self))
	if err != nil {
		return nil, nil, false, err
	}
	index, err := c.SymInt("index")
	if err != nil {
		return nil, nil, false, err
	}
	return b.eqAt(x[d], wrapIndex(index, self[d])), without(x, d), true, nil
}

// slicePlace: start <= x[d] <= start + step*(n-1) and step divides
// x[d] - start; src's position along d is (x[d] - start) // step.
func slicePlace(c *ops.Call, b *kbuilder, self, src []sym.Expr, x []sym.Expr) (*Instr, []sym.Expr, bool, error) {
	d, err := dimArg(c, "dim", len(self))
	if err != nil {
		return nil, nil, false, err
	}
	start := sym.Const(0)
	if !c.IsNone("start") {
		if start, err = c.SymInt("start"); err != nil {
			return nil, nil, false, err
		}
	}
	step, err := c.SymInt("step")
	if err != nil {
		return nil, nil, false, err
	}
	n := src[d]
	if emptyDim(n) {
		return nil, nil, false, nil
	}
	start = wrapIndex(start, self[d])
	rel := sym.Sub(x[d], start)
	last := sym.Mul(step, sym.Sub(n, sym.Const(1)))
	p := b.index(rel, ir.I64)
	inside := b.call("logical_and", ir.Bool, b.call("ge", ir.Bool, p, b.constInt(0, ir.I64)),
		b.call("le", ir.Bool, p, b.index(last, ir.I64)))
	pos := rel
	if k, ok := step.Const(); !ok || k != 1 {
		inside = b.and(inside, b.eqAt(sym.Mod(rel, step), sym.Const(0)))
		pos = sym.FloorDiv(rel, step)
	}
	at := append([]sym.Expr{}, x...)
	at[d] = clampTo(pos, n)
	return inside, at, true, nil
}

// diagonalPlace: x[dim2] - x[dim1] == offset; src is x without the two
// dims, then the position along the diagonal.
func diagonalPlace(c *ops.Call, b *kbuilder, self, src []sym.Expr, x []sym.Expr) (*Instr, []sym.Expr, bool, error) {
	off, err := c.Int("offset")
	if err != nil {
		return nil, nil, false, err
	}
	var dims [2]int
	for i, name := range []string{"dim1", "dim2"} {
		if dims[i], err = dimArg(c, name, len(self)); err != nil {
			return nil, nil, false, err
		}
	}
	if dims[0] == dims[1] {
		return nil, nil, false, fmt.Errorf("diagonal dimensions cannot be identical %d, %d", dims[0], dims[1])
	}
	n := src[len(src)-1]
	if emptyDim(n) {
		return nil, nil, false, nil
	}
	pos := x[dims[0]]
	if off < 0 {
		pos = x[dims[1]]
	}
	var at []sym.Expr
	for i := range x {
		if i != dims[0] && i != dims[1] {
			at = append(at, x[i])
		}
	}
	at = append(at, clampTo(pos, n))
	return b.eqAt(sym.Sub(x[dims[1]], x[dims[0]]), sym.Const(off)), at, true, nil
}
