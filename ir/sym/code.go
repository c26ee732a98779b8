package sym

import (
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
