package sym

import (
	"strconv"
	"strings"
)

// Printing follows sympy's StrPrinter (sympy/printing/str.py) with the
// precedences of sympy/printing/precedence.py and PyTorch's own printers:
// FloorDiv prints "(base//divisor)" with any non-atomic operand in
// parentheses and, like Mod, has precedence 35, below Add's 40, so it is
// parenthesized again inside sums and products: "s0 - 8*(((s0 + 8)//9))".
// A parenthesis is added when the operand's precedence is <= the level.

const (
	precOr      = 20
	precAnd     = 30
	precRel     = 35 // relations, FloorDiv, Mod
	precBitOr   = 36 // level of Or's operands
	precBitAnd  = 38 // level of And's operands
	precAdd     = 40
	precMul     = 50 // also Eq and Ne, which print as calls
	precNegMul  = 55 // a lone factor after a unary minus
	precPow     = 60
	precNot     = 100
	precFuncArg = 999 // FloorDiv operands: everything but an atom
	precAtom    = 1000
)

// smallInts holds the decimal spellings of common constants so that
// printing or keying a shape of constants does not allocate.
var smallInts = func() []string {
	s := make([]string, 1025+64)
	for i := range s {
		s[i] = strconv.Itoa(i - 64)
	}
	return s
}()

func itoa(v int64) string {
	if v >= -64 && v <= 1024 {
		return smallInts[v+64]
	}
	return strconv.FormatInt(v, 10)
}

// String prints e as sympy does: "s0", "2*s0", "s0 + 1", "1 - s0",
// "s0**2", "((s3 + 8)//9)", "s3 - 8*(((s3 + 8)//9))", "Max(1, s0)",
// "Mod(s0, 2)", "Eq(u0, 1)", "u0 >= 0", "(u0 >= 0) & (u0 <= 5)", "True".
// The result is cached, so printing an expression twice is free.
func (e Expr) String() string {
	if e.n == nil {
		return itoa(e.c)
	}
	if s := e.n.str.Load(); s != nil {
		return *s
	}
	var b strings.Builder
	writeExpr(&b, e)
	s := b.String()
	e.n.str.Store(&s)
	return s
}

// prec is the sympy precedence of e.
func prec(e Expr) int {
	if e.n == nil {
		if e.c < 0 {
			return precAdd
		}
		return precAtom
	}
	n := e.n
	switch n.op {
	case opPoly:
		if n.c != 0 || len(n.terms) > 1 {
			return precAdd
		}
		if t := n.terms[0]; t.coef == 1 && len(t.fs) == 1 {
			return precPow
		}
		// A product; sympy gives a negative one Add's precedence unless it
		// has a low-precedence function factor, but no context here
		// distinguishes 40 from 50, so one value serves.
		return precMul
	case opFloorDiv, opMod, opLt, opLe, opGt, opGe:
		return precRel
	case opEq, opNe:
		return precMul
	case opAnd:
		return precAnd
	case opOr:
		return precOr
	case opNot:
		return precNot
	}
	return precAtom // symbols, Max, Min, True, False
}

func writeParen(b *strings.Builder, e Expr, level int) {
	if prec(e) <= level {
		b.WriteByte('(')
		writeExpr(b, e)
		b.WriteByte(')')
		return
	}
	writeExpr(b, e)
}

func writeExpr(b *strings.Builder, e Expr) {
	if e.n == nil {
		b.WriteString(itoa(e.c))
		return
	}
	n := e.n
	switch n.op {
	case opSym:
		b.WriteString(n.name)
	case opPoly:
		writePoly(b, n)
	case opFloorDiv:
		b.WriteByte('(')
		writeParen(b, n.args[0], precFuncArg)
		b.WriteString("//")
		writeParen(b, n.args[1], precFuncArg)
		b.WriteByte(')')
	case opMod, opMax, opMin, opEq, opNe:
		writeCall(b, callNames[n.op], n.args)
	case opLt, opLe, opGt, opGe:
		writeParen(b, n.args[0], precRel)
		b.WriteString(relSymbols[n.op])
		writeParen(b, n.args[1], precRel)
	case opAnd:
		writeJoined(b, n.args, " & ", precBitAnd)
	case opOr:
		writeJoined(b, n.args, " | ", precBitOr)
	case opNot:
		b.WriteByte('~')
		writeParen(b, n.args[0], precNot)
	case opTrue:
		b.WriteString("True")
	case opFalse:
		b.WriteString("False")
	}
}

var callNames = map[op]string{opMod: "Mod", opMax: "Max", opMin: "Min", opEq: "Eq", opNe: "Ne"}

var relSymbols = map[op]string{opLt: " < ", opLe: " <= ", opGt: " > ", opGe: " >= "}

func writeCall(b *strings.Builder, name string, args []Expr) { writeCallWith(b, name, args, writeExpr) }

// writeCallWith prints name(arg, arg, ...) with write printing each
// argument (sympy's spelling or C's).
func writeCallWith(b *strings.Builder, name string, args []Expr, write func(*strings.Builder, Expr)) {
	b.WriteString(name)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		write(b, a)
	}
	b.WriteByte(')')
}

func writeJoined(b *strings.Builder, args []Expr, sep string, level int) {
	for i, a := range args {
		if i > 0 {
			b.WriteString(sep)
		}
		writeParen(b, a, level)
	}
}

// writePoly prints a product or a sum. A sum prints its terms in canonical
// order with the constant last, except that sympy puts a positive constant
// first when the only other term is a negated single factor: "1 - s0",
// "8 - 8*(((s0 + 8)//9))" (Expr.as_ordered_terms' special case).
func writePoly(b *strings.Builder, n *node) {
	if n.c == 0 && len(n.terms) == 1 {
		t := n.terms[0]
		writeTerm(b, t.coef < 0, absU(t.coef), t.fs)
		return
	}
	if n.c > 0 && len(n.terms) == 1 && n.terms[0].coef < 0 && len(n.terms[0].fs) == 1 {
		b.WriteString(itoa(n.c))
		b.WriteString(" - ")
		writeSumTerm(b, n.terms[0])
		return
	}
	for i, t := range n.terms {
		switch {
		case t.coef < 0 && i == 0:
			b.WriteByte('-')
		case t.coef < 0:
			b.WriteString(" - ")
		case i > 0:
			b.WriteString(" + ")
		}
		writeSumTerm(b, t)
	}
	if n.c < 0 {
		b.WriteString(" - ")
		b.WriteString(strconv.FormatUint(absU(n.c), 10))
	} else if n.c > 0 {
		b.WriteString(" + ")
		b.WriteString(itoa(n.c))
	}
}

// writeSumTerm prints a term of a sum without its sign, as sympy prints
// the term and then strips its "-". A lone factor is parenthesized below
// Add's precedence when positive ("s0 + ((s0//2))") and, as after any
// unary minus, below the power level when negative ("s0 - ((s0//2))").
func writeSumTerm(b *strings.Builder, t term) {
	k := absU(t.coef)
	if k == 1 && len(t.fs) == 1 {
		level := precAdd - 1
		if t.coef < 0 {
			level = precNegMul
		}
		writeFactor(b, t.fs[0], level)
		return
	}
	writeTerm(b, false, k, t.fs)
}

// writeTerm prints (neg ? -1 : 1) * k * fs as sympy's _print_Mul does.
func writeTerm(b *strings.Builder, neg bool, k uint64, fs []factor) {
	if neg {
		b.WriteByte('-')
	}
	if k == 1 && len(fs) == 1 {
		// After a unary minus a lone factor is parenthesized below the
		// power level: "-((s0//2))" but "-s0**2".
		level := -1
		if neg {
			level = precNegMul
		}
		writeFactor(b, fs[0], level)
		return
	}
	if k != 1 {
		b.WriteString(strconv.FormatUint(k, 10))
	}
	for i, f := range fs {
		if i > 0 || k != 1 {
			b.WriteByte('*')
		}
		writeFactor(b, f, precMul)
	}
}

// writeFactor prints atom**pow, parenthesized when its precedence is <=
// level.
func writeFactor(b *strings.Builder, f factor, level int) {
	p := atomPrec(f.atom)
	if f.pow != 1 {
		p = precPow
	}
	if p <= level {
		b.WriteByte('(')
	}
	if f.pow == 1 {
		writeAtom(b, f.atom)
	} else {
		writeParen(b, Expr{n: f.atom}, precPow)
		b.WriteString("**")
		b.WriteString(strconv.FormatInt(f.pow, 10))
	}
	if p <= level {
		b.WriteByte(')')
	}
}

func atomPrec(n *node) int { return prec(Expr{n: n}) }

func writeAtom(b *strings.Builder, n *node) {
	if s := n.str.Load(); s != nil {
		b.WriteString(*s)
		return
	}
	writeExpr(b, Expr{n: n})
}
