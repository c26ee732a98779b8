package sym

import "slices"

// Polynomial arithmetic. Every integer Expr is viewed as c + Σ coef*mono;
// sums merge sorted term lists and products expand fully, so that equal
// polynomials get equal representations.

// view returns e as a constant and its terms. Atoms share their single
// self term; the returned slice must not be modified.
func view(e Expr) (int64, []term) {
	if e.n == nil {
		return e.c, nil
	}
	switch {
	case e.n.op == opPoly:
		return e.n.c, e.n.terms
	case e.n.op.isAtom():
		return 0, e.n.self
	}
	mustInt(e)
	panic("unreachable")
}

// mkPoly builds the canonical Expr for c + ts, where ts is sorted, has
// distinct monomials and no zero coefficient. It takes ownership of ts.
func mkPoly(c int64, ts []term) Expr {
	switch {
	case len(ts) == 0:
		return Expr{c: c}
	case c == 0 && len(ts) == 1 && ts[0].coef == 1 && len(ts[0].fs) == 1 && ts[0].fs[0].pow == 1:
		return Expr{n: ts[0].fs[0].atom}
	}
	return Expr{n: &node{op: opPoly, c: c, terms: ts, hash: hashTerms(c, ts)}}
}

// Add returns a + b.
func Add(a, b Expr) Expr {
	if a.n == nil && b.n == nil {
		return Expr{c: a.c + b.c}
	}
	return addScaled(a, b, 1)
}

// Sub returns a - b.
func Sub(a, b Expr) Expr {
	if a.n == nil && b.n == nil {
		return Expr{c: a.c - b.c}
	}
	return addScaled(a, b, -1)
}

// Neg returns -a.
func Neg(a Expr) Expr { return scale(a, -1) }

// addScaled returns a + k*b by merging the two sorted term lists.
func addScaled(a, b Expr, k int64) Expr {
	ca, ta := view(a)
	cb, tb := view(b)
	if len(tb) == 0 && cb == 0 {
		return a
	}
	if len(ta) == 0 && ca == 0 && k == 1 {
		return b
	}
	if len(tb) == 0 && a.n.op == opPoly {
		// Only the constant changes: share the term list.
		return mkPoly(ca+k*cb, ta)
	}
	out := make([]term, 0, len(ta)+len(tb))
	i, j := 0, 0
	for i < len(ta) && j < len(tb) {
		switch cmpMono(ta[i].fs, tb[j].fs) {
		case -1:
			out = append(out, ta[i])
			i++
		case 1:
			out = appendTerm(out, k*tb[j].coef, tb[j].fs)
			j++
		default:
			out = appendTerm(out, ta[i].coef+k*tb[j].coef, ta[i].fs)
			i++
			j++
		}
	}
	out = append(out, ta[i:]...)
	for ; j < len(tb); j++ {
		out = appendTerm(out, k*tb[j].coef, tb[j].fs)
	}
	return mkPoly(ca+k*cb, out)
}

// appendTerm appends coef*fs unless the coefficient is zero (which
// wrapping can also produce).
func appendTerm(ts []term, coef int64, fs []factor) []term {
	if coef == 0 {
		return ts
	}
	return append(ts, term{coef: coef, fs: fs})
}

// Sum returns the sum of xs, sorting all terms at once rather than merging
// pairwise, which keeps long sums O(n log n).
func Sum(xs ...Expr) Expr {
	var c int64
	var ts []term
	for _, x := range xs {
		cx, tx := view(x)
		c += cx
		ts = append(ts, tx...)
	}
	return mkPoly(c, combine(ts))
}

// combine sorts ts (which it owns) by monomial and adds up equal monomials.
func combine(ts []term) []term {
	slices.SortFunc(ts, func(x, y term) int { return cmpMono(x.fs, y.fs) })
	out := ts[:0]
	for _, t := range ts {
		if n := len(out); n > 0 && cmpMono(out[n-1].fs, t.fs) == 0 {
			out[n-1].coef += t.coef
			if out[n-1].coef == 0 {
				out = out[:n-1]
			}
			continue
		}
		out = appendTerm(out, t.coef, t.fs)
	}
	return out
}

// Mul returns a * b, expanded: (s0 + 1)*2 is 2*s0 + 2.
func Mul(a, b Expr) Expr {
	if a.n == nil {
		if b.n == nil {
			return Expr{c: a.c * b.c}
		}
		return scale(b, a.c)
	}
	if b.n == nil {
		return scale(a, b.c)
	}
	return mulPoly(a, b)
}

// scale returns k*e.
func scale(e Expr, k int64) Expr {
	if e.n == nil {
		return Expr{c: e.c * k}
	}
	mustInt(e)
	switch k {
	case 0:
		return Expr{}
	case 1:
		return e
	}
	c, ts := view(e)
	if len(ts) == 1 {
		return mkPoly1(c*k, term{coef: ts[0].coef * k, fs: ts[0].fs})
	}
	out := make([]term, 0, len(ts))
	for _, t := range ts {
		out = appendTerm(out, t.coef*k, t.fs)
	}
	return mkPoly(c*k, out)
}

// mkPoly1 is mkPoly of the one term t, the node and its term
// list in one allocation: scaling a monomial (x0 * stride) is the most
// common polynomial built.
func mkPoly1(c int64, t term) Expr {
	if t.coef == 0 { // as appendTerm drops it
		return Expr{c: c}
	}
	if c == 0 && t.coef == 1 && len(t.fs) == 1 && t.fs[0].pow == 1 {
		return Expr{n: t.fs[0].atom}
	}
	p := &struct {
		n node
		t [1]term
	}{t: [1]term{t}}
	p.n = node{op: opPoly, c: c, terms: p.t[:], hash: hashTerms(c, p.t[:])}
	return Expr{n: &p.n}
}

func mulPoly(a, b Expr) Expr {
	ca, ta := view(a)
	cb, tb := view(b)
	if (len(ta)+1)*(len(tb)+1) > maxTerms {
		panic(&tooLargeError{"product has too many terms"})
	}
	if ca == 0 && cb == 0 && len(ta) == 1 && len(tb) == 1 {
		// Monomial times monomial: nothing to sort.
		t := term{coef: ta[0].coef * tb[0].coef, fs: mulMono(ta[0].fs, tb[0].fs)}
		return mkPoly(0, appendTerm(nil, t.coef, t.fs))
	}
	out := make([]term, 0, len(ta)*len(tb)+len(ta)+len(tb))
	for _, x := range ta {
		for _, y := range tb {
			out = append(out, term{coef: x.coef * y.coef, fs: mulMono(x.fs, y.fs)})
		}
	}
	for _, x := range ta {
		out = append(out, term{coef: x.coef * cb, fs: x.fs})
	}
	for _, y := range tb {
		out = append(out, term{coef: ca * y.coef, fs: y.fs})
	}
	return mkPoly(ca*cb, combine(out))
}

// mulMono multiplies two sorted factor lists.
func mulMono(a, b []factor) []factor {
	out := make([]factor, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := cmpAtom(a[i].atom, b[j].atom); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			p := a[i].pow + b[j].pow
			if p > maxPow {
				panic(&tooLargeError{"exponent too large"})
			}
			out = append(out, factor{atom: a[i].atom, pow: p})
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// powExpr returns e**n for n >= 0 (0**0 is 1, as in Python).
func powExpr(e Expr, n int64) Expr {
	switch {
	case n == 0:
		mustInt(e)
		return Expr{c: 1}
	case e.n == nil:
		return Expr{c: ipow(e.c, n)}
	case n == 1:
		mustInt(e)
		return e
	}
	if c, ts := view(e); c == 0 && len(ts) == 1 {
		// A monomial: scale the exponents, no expansion needed.
		fs := make([]factor, len(ts[0].fs))
		for i, f := range ts[0].fs {
			if f.pow > maxPow/n {
				panic(&tooLargeError{"exponent too large"})
			}
			fs[i] = factor{atom: f.atom, pow: f.pow * n}
		}
		return mkPoly(0, appendTerm(nil, ipow(ts[0].coef, n), fs))
	}
	r := Expr{c: 1}
	for sq := e; ; sq = Mul(sq, sq) {
		if n&1 == 1 {
			r = Mul(r, sq)
		}
		if n >>= 1; n == 0 {
			return r
		}
	}
}
