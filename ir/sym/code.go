package sym

import (
	"slices"
	"strconv"
	"strings"
)

// Code prints e as an int64 expression in C-family syntax (Go and CUDA C
// alike): sums and products with explicit "*", powers as repeated
// products, and the Python-semantics operators as calls the generated code
// defines: floordiv(a, b), pymod(a, b), max(a, b), min(a, b). Relations
// and logic print with ==, <, &&, || and !. Every compound operand is
// parenthesized, so the result needs no precedence knowledge.
func (e Expr) Code() string {
	var b strings.Builder
	writeCode(&b, e)
	return b.String()
}

func writeCode(b *strings.Builder, e Expr) {
	if e.n == nil {
		b.WriteString(strconv.FormatInt(e.c, 10))
		return
	}
	n := e.n
	switch n.op {
	case opSym:
		b.WriteString(n.name)
	case opPoly:
		writePolyCode(b, n)
	case opFloorDiv, opMod, opMax, opMin:
		name := map[op]string{opFloorDiv: "floordiv", opMod: "pymod", opMax: "max", opMin: "min"}[n.op]
		writeCallCode(b, name, n.args)
	case opEq, opNe, opLt, opLe, opGt, opGe:
		rel := map[op]string{opEq: " == ", opNe: " != ", opLt: " < ", opLe: " <= ", opGt: " > ", opGe: " >= "}[n.op]
		writeJoinedCode(b, n.args, rel)
	case opAnd:
		writeJoinedCode(b, n.args, " && ")
	case opOr:
		writeJoinedCode(b, n.args, " || ")
	case opNot:
		b.WriteString("!(")
		writeCode(b, n.args[0])
		b.WriteByte(')')
	case opTrue:
		b.WriteString("true")
	case opFalse:
		b.WriteString("false")
	}
}

func writeCallCode(b *strings.Builder, name string, args []Expr) {
	writeCallWith(b, name, args, writeCode)
}

func writeJoinedCode(b *strings.Builder, args []Expr, sep string) {
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(sep)
		}
		writeCode(b, a)
	}
	b.WriteByte(')')
}

// writePolyCode prints c + k1*f1*f2 + ... as "(k1*f1*f2 + ... + c)".
func writePolyCode(b *strings.Builder, n *node) {
	single := n.c == 0 && len(n.terms) == 1
	if !single {
		b.WriteByte('(')
	}
	for i, t := range n.terms {
		switch {
		case i == 0 && t.coef < 0:
			b.WriteByte('-')
		case t.coef < 0:
			b.WriteString(" - ")
		case i > 0:
			b.WriteString(" + ")
		}
		writeTermCode(b, absU(t.coef), t.fs)
	}
	if n.c < 0 {
		b.WriteString(" - ")
		b.WriteString(strconv.FormatUint(absU(n.c), 10))
	} else if n.c > 0 {
		b.WriteString(" + ")
		b.WriteString(strconv.FormatInt(n.c, 10))
	}
	if !single {
		b.WriteByte(')')
	}
}

func writeTermCode(b *strings.Builder, k uint64, fs []factor) {
	first := true
	if k != 1 {
		b.WriteString(strconv.FormatUint(k, 10))
		first = false
	}
	for _, f := range fs {
		for p := int64(0); p < f.pow; p++ {
			if !first {
				b.WriteByte('*')
			}
			first = false
			writeCode(b, Expr{n: f.atom})
		}
	}
}

// Linear splits e into rest + Σ coeffs[i]·vars[i], where neither rest nor
// any coefficient mentions a variable of vars. ok is false when e is not
// affine in vars (a product of two of them, or one inside floordiv, mod,
// max or min).
func Linear(e Expr, vars []string) (coeffs []Expr, rest Expr, ok bool) {
	if coeffs, rest, ok := linearTerms(e, vars); ok {
		return coeffs, rest, true
	}
	return linearBySubst(e, vars)
}

// linearBySubst is Linear for any e: rest is e at vars = 0, a coefficient
// what setting its variable to 1 adds, and e must be rebuilt from them.
func linearBySubst(e Expr, vars []string) (coeffs []Expr, rest Expr, ok bool) {
	zero := make(map[string]Expr, len(vars))
	for _, v := range vars {
		zero[v] = Const(0)
	}
	rest = e.Subst(zero)
	coeffs = make([]Expr, len(vars))
	rebuilt := rest
	for i, v := range vars {
		zero[v] = Const(1)
		coeffs[i] = Sub(e.Subst(zero), rest)
		zero[v] = Const(0)
		rebuilt = Add(rebuilt, Mul(coeffs[i], Symbol(v)))
	}
	if !Equal(rebuilt, e) || mentionsAny(rest, vars) {
		return nil, Expr{}, false
	}
	for _, c := range coeffs {
		if mentionsAny(c, vars) {
			return nil, Expr{}, false
		}
	}
	return coeffs, rest, true
}

// linearTerms is Linear read off the terms of a polynomial in plain
// symbols (an index expression, nearly always): no substitution, so a
// kernel's hundreds of index splits allocate only their results. ok is
// false where it cannot tell (a floordiv, mod, max or min atom, a product
// of vars, a var listed twice), and linearBySubst decides.
func linearTerms(e Expr, vars []string) (coeffs []Expr, rest Expr, ok bool) {
	if e.n != nil && e.n.op != opPoly && e.n.op != opSym {
		return nil, Expr{}, false
	}
	for i, v := range vars {
		if slices.Contains(vars[:i], v) {
			return nil, Expr{}, false
		}
	}
	c, ts := view(e)
	var restTs []term
	perVar := make([][]term, len(vars))
	for _, t := range ts {
		at, vi := -1, -1 // the factor that is a var, and which
		for fi, f := range t.fs {
			if f.atom.op != opSym {
				return nil, Expr{}, false
			}
			if k := slices.Index(vars, f.atom.name); k >= 0 {
				if at >= 0 || f.pow != 1 {
					return nil, Expr{}, false
				}
				at, vi = fi, k
			}
		}
		if at < 0 {
			restTs = append(restTs, t)
			continue
		}
		fs := slices.Clip(t.fs[:at])
		if at > 0 && at < len(t.fs)-1 {
			fs = slices.Concat(t.fs[:at], t.fs[at+1:])
		} else if at == 0 {
			fs = t.fs[1:]
		}
		perVar[vi] = append(perVar[vi], term{coef: t.coef, fs: fs})
	}
	rest = e
	if len(restTs) < len(ts) {
		rest = mkPoly(c, restTs) // a subsequence of sorted terms is sorted
	}
	coeffs = make([]Expr, len(vars))
	for i, pts := range perVar {
		coeffs[i] = polyOfTerms(pts)
	}
	return coeffs, rest, true
}

// polyOfTerms is the sum of ts (which it owns), whose monomials may repeat
// or be empty (a constant).
func polyOfTerms(ts []term) Expr {
	var c int64
	out := ts[:0]
	for _, t := range ts {
		if len(t.fs) == 0 {
			c += t.coef
		} else {
			out = append(out, t)
		}
	}
	return mkPoly(c, combine(out))
}

func mentionsAny(e Expr, vars []string) bool {
	for _, name := range e.Free() {
		for _, v := range vars {
			if name == v {
				return true
			}
		}
	}
	return false
}
