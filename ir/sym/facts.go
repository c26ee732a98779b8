package sym

import "math"

// Facts holds what is known about symbols' values: inclusive ranges, like
// ShapeEnv's var_to_range (0 <= u0 <= numel for a nonzero count, [2, inf)
// for a backed size). The zero value knows nothing; a nil *Facts may be
// read. Unset symbols range over all integers.
type Facts struct {
	ranges map[string][2]int64
}

// SetRange records lo <= name <= hi, replacing what was known. Use
// math.MinInt64 and math.MaxInt64 for an unbounded side.
func (f *Facts) SetRange(name string, lo, hi int64) {
	if f.ranges == nil {
		f.ranges = make(map[string][2]int64)
	}
	f.ranges[name] = [2]int64{lo, hi}
}

// Clone returns an independent copy.
func (f *Facts) Clone() *Facts {
	c := &Facts{}
	if f != nil {
		for k, v := range f.ranges {
			c.SetRange(k, v[0], v[1])
		}
	}
	return c
}

// Range returns bounds lo <= e <= hi that hold whenever e is defined (no
// division by zero), by interval arithmetic over the canonical form. It is
// sound but conservative: s0 - s0 is exactly 0 because the canonical form
// cancels it, but s0*(1 - s0) with s0 in [0, 1] gives [-1, 1], since each
// occurrence of a symbol ranges independently.
// math.MinInt64 and math.MaxInt64 mean unbounded. A relation is [1, 1]
// or [0, 0] when Decide knows it, else [0, 1].
func (f *Facts) Range(e Expr) (lo, hi int64) {
	r := f.rangeOf(e)
	return r.lo.bound(), r.hi.bound()
}

func (f *Facts) rangeOf(e Expr) ival {
	if e.n == nil {
		return point(e.c)
	}
	n := e.n
	switch {
	case n.op == opSym:
		return f.symRange(n.name)
	case n.op == opPoly:
		return f.polyRange(n)
	case n.op.isBool():
		if v, ok := f.Decide(e); ok {
			return point(b2i(v))
		}
		return ival{fin(0), fin(1)}
	case n.op == opMax || n.op == opMin:
		r := f.rangeOf(n.args[0])
		for _, a := range n.args[1:] {
			r = r.minMax(n.op == opMax, f.rangeOf(a))
		}
		return r
	case n.op == opFloorDiv:
		return floorDivRange(f.rangeOf(n.args[0]), f.rangeOf(n.args[1]))
	}
	return modRange(f.rangeOf(n.args[0]), f.rangeOf(n.args[1]))
}

func (f *Facts) symRange(name string) ival {
	if f != nil {
		if r, ok := f.ranges[name]; ok {
			return ival{loExt(r[0]), hiExt(r[1])}
		}
	}
	return ival{negInf, posInf}
}

func (f *Facts) polyRange(n *node) ival {
	sum := point(n.c)
	for _, t := range n.terms {
		p := point(t.coef)
		for _, fc := range t.fs {
			p = p.mul(f.rangeOf(Expr{n: fc.atom}).pow(fc.pow))
		}
		sum = sum.add(p)
	}
	return sum
}

// Decide reports the truth of a boolean when the facts settle it: known is
// false when they do not. Eq(2*s0, s0*2) is known true (it folds when
// built); with u0 in [0, 100], u0 >= 0 is known true, u0 < 0 known false
// and Eq(u0, 1) unknown. Relations are decided from the range of the
// difference of their sides, and Eq also from divisibility (2*s0 never
// equals 1). An integer e is read as e != 0. value is false when unknown.
func (f *Facts) Decide(rel Expr) (value bool, known bool) {
	v, ok := f.decide(rel)
	return v && ok, ok
}

func (f *Facts) decide(rel Expr) (bool, bool) {
	if !rel.IsBool() {
		return f.Decide(Ne(rel, Expr{}))
	}
	n := rel.n
	switch n.op {
	case opTrue, opFalse:
		return n.op == opTrue, true
	case opNot:
		v, ok := f.Decide(n.args[0])
		return !v, ok
	case opAnd, opOr:
		return f.decideLogic(n)
	}
	return f.decideRel(n.op, n.args[0], n.args[1])
}

func (f *Facts) decideLogic(n *node) (bool, bool) {
	// And: a false term settles it; all true makes it true. Or dually.
	settle := n.op == opOr
	allKnown := true
	for _, a := range n.args {
		v, ok := f.Decide(a)
		if ok && v == settle {
			return settle, true
		}
		allKnown = allKnown && ok
	}
	return !settle, allKnown
}

func (f *Facts) decideRel(o op, a, b Expr) (bool, bool) {
	switch o {
	case opGt:
		return f.decideRel(opLt, b, a)
	case opGe:
		return f.decideRel(opLe, b, a)
	case opNe:
		v, ok := f.decideRel(opEq, a, b)
		return !v, ok
	}
	d := Sub(a, b)
	r := f.rangeOf(d)
	switch o {
	case opLt:
		return decided(r.hi.less(fin(0)), !r.lo.less(fin(0)))
	case opLe:
		return decided(!fin(0).less(r.hi), fin(0).less(r.lo))
	}
	if r.lo == fin(0) && r.hi == fin(0) {
		return true, true
	}
	never := fin(0).less(r.lo) || r.hi.less(fin(0)) || !zeroPossible(d)
	return false, never
}

// decided turns "surely true" and "surely false" into Decide's answer.
func decided(isTrue, isFalse bool) (bool, bool) {
	return isTrue, isTrue || isFalse
}

// zeroPossible reports whether d = c + Σ coef*mono could be zero as far as
// divisibility tells: the gcd of the coefficients must divide c.
func zeroPossible(d Expr) bool {
	c, ts := view(d)
	g := content(0, ts)
	return g == 0 || absU(c)%g == 0
}

// ext is an integer extended with -inf and +inf, so that interval bounds
// never overflow: a result past int64 becomes infinite, which is sound.
type ext struct {
	v   int64
	inf int8 // -1, 0 or +1
}

var (
	negInf = ext{inf: -1}
	posInf = ext{inf: 1}
)

func fin(v int64) ext { return ext{v: v} }

// loExt and hiExt read stored bounds: MinInt64 as a lower bound and
// MaxInt64 as an upper bound mean unbounded.
func loExt(v int64) ext {
	if v == math.MinInt64 {
		return negInf
	}
	return fin(v)
}

func hiExt(v int64) ext {
	if v == math.MaxInt64 {
		return posInf
	}
	return fin(v)
}

func (x ext) bound() int64 {
	switch x.inf {
	case -1:
		return math.MinInt64
	case 1:
		return math.MaxInt64
	}
	return x.v
}

func (x ext) less(y ext) bool {
	if x.inf != y.inf {
		return x.inf < y.inf
	}
	return x.inf == 0 && x.v < y.v
}

func (x ext) sign() int {
	if x.inf != 0 {
		return int(x.inf)
	}
	return cmp64(x.v, 0)
}

func (x ext) neg() ext {
	if x.inf != 0 || x.v == math.MinInt64 {
		return ext{inf: -int8(x.sign())}
	}
	return fin(-x.v)
}

// addExt adds; an infinite operand wins, and opposite infinities (only
// possible for an empty range) round outward: toward -inf for a lower
// bound. A finite sum past int64 becomes infinite in its direction.
func addExt(x, y ext, lower bool) ext {
	switch {
	case x.inf != 0 && y.inf != 0 && x.inf != y.inf:
		if lower {
			return negInf
		}
		return posInf
	case x.inf != 0:
		return x
	case y.inf != 0:
		return y
	}
	s := x.v + y.v
	if (s > x.v) != (y.v > 0) {
		return ext{inf: int8(cmp64(y.v, 0))}
	}
	return fin(s)
}

func mulExt(x, y ext) ext {
	sx, sy := x.sign(), y.sign()
	if sx == 0 || sy == 0 {
		return fin(0)
	}
	if x.inf != 0 || y.inf != 0 {
		return ext{inf: int8(sx * sy)}
	}
	p := x.v * y.v
	if p/y.v != x.v || (x.v == -1 && y.v == math.MinInt64) || (y.v == -1 && x.v == math.MinInt64) {
		return ext{inf: int8(sx * sy)}
	}
	return fin(p)
}

// ival is the interval [lo, hi].
type ival struct{ lo, hi ext }

func point(v int64) ival { return ival{fin(v), fin(v)} }

func (a ival) add(b ival) ival {
	return ival{addExt(a.lo, b.lo, true), addExt(a.hi, b.hi, false)}
}

func (a ival) mul(b ival) ival {
	ps := [4]ext{mulExt(a.lo, b.lo), mulExt(a.lo, b.hi), mulExt(a.hi, b.lo), mulExt(a.hi, b.hi)}
	r := ival{ps[0], ps[0]}
	for _, p := range ps[1:] {
		if p.less(r.lo) {
			r.lo = p
		}
		if r.hi.less(p) {
			r.hi = p
		}
	}
	return r
}

// pow raises to n >= 1. Odd powers are monotone; an even power is
// decreasing below 0 and increasing above it.
func (a ival) pow(n int64) ival {
	if n == 1 {
		return a
	}
	lo, hi := powExt(a.lo, n), powExt(a.hi, n)
	switch {
	case n%2 == 1 || !a.lo.less(fin(0)):
		return ival{lo, hi}
	case !fin(0).less(a.hi):
		return ival{hi, lo}
	}
	return ival{fin(0), maxExt(lo, hi)}
}

// powExt is x**n by squaring; saturation keeps it monotone.
func powExt(x ext, n int64) ext {
	r := fin(1)
	for n > 0 {
		if n&1 == 1 {
			r = mulExt(r, x)
		}
		x = mulExt(x, x)
		n >>= 1
	}
	return r
}

func maxExt(x, y ext) ext {
	if x.less(y) {
		return y
	}
	return x
}

func minExt(x, y ext) ext {
	if x.less(y) {
		return x
	}
	return y
}

func (a ival) minMax(isMax bool, b ival) ival {
	if isMax {
		return ival{maxExt(a.lo, b.lo), maxExt(a.hi, b.hi)}
	}
	return ival{minExt(a.lo, b.lo), minExt(a.hi, b.hi)}
}

func (a ival) neg() ival { return ival{a.hi.neg(), a.lo.neg()} }

var full = ival{negInf, posInf}

// union of the ranges of the cases of a divisor's sign; none (a divisor
// that is always 0, so the expression is never defined) gives everything.
func union(parts ...ival) ival {
	if len(parts) == 0 {
		return full
	}
	r := parts[0]
	for _, p := range parts[1:] {
		r = ival{minExt(r.lo, p.lo), maxExt(r.hi, p.hi)}
	}
	return r
}

// signParts splits a divisor range into its positive and negative parts,
// dropping 0, at which the division is undefined.
func signParts(b ival) (pos, neg ival, hasPos, hasNeg bool) {
	if fin(0).less(b.hi) {
		pos, hasPos = ival{maxExt(b.lo, fin(1)), b.hi}, true
	}
	if b.lo.less(fin(0)) {
		neg, hasNeg = ival{b.lo, minExt(b.hi, fin(-1))}, true
	}
	return
}

func floorDivRange(a, b ival) ival {
	pos, neg, hasPos, hasNeg := signParts(b)
	var parts []ival
	if hasPos {
		parts = append(parts, divPos(a, pos))
	}
	if hasNeg {
		// floor(x/y) == floor(-x/-y)
		parts = append(parts, divPos(a.neg(), neg.neg()))
	}
	return union(parts...)
}

// divPos bounds floor(x/y) for x in a and y in b >= 1. It increases with
// x; with y it decreases for x >= 0 and increases for x < 0.
func divPos(a, b ival) ival {
	lo := divExt(a.lo, b.hi, true)
	if a.lo.less(fin(0)) {
		lo = divExt(a.lo, b.lo, true)
	}
	hi := divExt(a.hi, b.hi, false)
	if !a.hi.less(fin(0)) {
		hi = divExt(a.hi, b.lo, false)
	}
	return ival{lo, hi}
}

// divExt is floor(x/y) for y >= 1, rounding the undetermined inf/inf
// outward.
func divExt(x, y ext, lower bool) ext {
	switch {
	case x.inf != 0 && y.inf != 0:
		if lower {
			return negInf
		}
		return posInf
	case x.inf != 0:
		return x
	case y.inf != 0:
		if x.v < 0 {
			return fin(-1)
		}
		return fin(0)
	}
	return fin(floorDiv(x.v, y.v))
}

// modRange bounds Python's x % y: in [0, y-1] for y > 0 and [y+1, 0] for
// y < 0, and x itself when x already lies in that window.
func modRange(a, b ival) ival {
	pos, neg, hasPos, hasNeg := signParts(b)
	var parts []ival
	if hasPos {
		r := ival{fin(0), addExt(pos.hi, fin(-1), false)}
		if !a.lo.less(fin(0)) {
			r.hi = minExt(r.hi, a.hi)
		}
		parts = append(parts, r)
	}
	if hasNeg {
		r := ival{addExt(neg.lo, fin(1), true), fin(0)}
		if !fin(0).less(a.hi) {
			r.lo = maxExt(r.lo, a.lo)
		}
		parts = append(parts, r)
	}
	return union(parts...)
}

// Simplify rewrites e with what the facts prove about its floordiv, mod,
// max and min atoms: x//d is a constant when x's range lies in one
// multiple of d, Mod(x, d) is x when 0 <= x < d, and a max or min whose
// ranges do not overlap is its larger or smaller side. Loop indices
// rebuilt from a flattened offset (lowering's inlining) need it: with x1
// in [0, 5], (2*x0 + Min(1, x1))//2 is x0.
func (f *Facts) Simplify(e Expr) Expr {
	if e.n == nil {
		return e
	}
	n := e.n
	switch {
	case n.op == opSym || n.op == opTrue || n.op == opFalse:
		return e
	case n.op == opPoly:
		parts := make([]Expr, 0, len(n.terms)+1)
		parts = append(parts, Expr{c: n.c})
		for _, t := range n.terms {
			p := Expr{c: t.coef}
			for _, fc := range t.fs {
				p = Mul(p, powExpr(f.Simplify(Expr{n: fc.atom}), fc.pow))
			}
			parts = append(parts, p)
		}
		return Sum(parts...)
	}
	args := make([]Expr, len(n.args))
	for i, a := range n.args {
		args[i] = f.Simplify(a)
	}
	switch n.op {
	case opFloorDiv, opMod:
		if d, ok := args[1].Const(); ok && d > 0 {
			lo, hi := f.Range(args[0])
			if lo != math.MinInt64 && hi != math.MaxInt64 && floorDivInt(lo, d) == floorDivInt(hi, d) {
				if n.op == opFloorDiv {
					return Const(floorDivInt(lo, d))
				}
				return Sub(args[0], Const(d*floorDivInt(lo, d)))
			}
		}
	case opMax, opMin:
		if len(args) == 2 {
			// lower is the side that is never above the other, if either.
			lower := -1
			alo, ahi := f.Range(args[0])
			blo, bhi := f.Range(args[1])
			if ahi != math.MaxInt64 && ahi <= blo {
				lower = 0
			} else if bhi != math.MaxInt64 && bhi <= alo {
				lower = 1
			}
			if lower >= 0 {
				if n.op == opMax {
					return args[1-lower]
				}
				return args[lower]
			}
		}
	}
	return rebuild(n.op, args)
}

func floorDivInt(a, d int64) int64 {
	q := a / d
	if a%d != 0 && a < 0 {
		q--
	}
	return q
}
