package sym

import (
	"math/big"
	"strconv"
)

// ParseError reports where and why Parse failed.
type ParseError struct {
	Col int    // 1-based byte column of the offending token
	Msg string // what was wrong there
}

func (e *ParseError) Error() string { return "sym: col " + strconv.Itoa(e.Col) + ": " + e.Msg }

// maxDepth bounds nesting so that hostile input cannot overflow the stack;
// shape expressions nest a few levels.
const maxDepth = 200

// Parse reads a symbolic expression as String prints it or as PyTorch
// prints it: "s0", "2*s0", "s0*2", "s0 + 1", "(s0//2)", "s0//2",
// "((s3 + 8)//9)", "s3 - 8*(((s3 + 8)//9))", "s0**2", "-s0", "s0 % 2",
// "Mod(s0, 2)", "PythonMod(s0, 2)", "FloorDiv(s0, 2)", "CleanDiv(s0, 2)",
// "CeilDiv(s0, 2)", "Max(1, s0)", "Min(a, b)", "Eq(u0, 1)", "Ne(u0, 1)",
// "u0 >= 0", "Lt(a, b)", "(a >= 0) & (b < 5)", "a & b", "And(a, b)",
// "a | b", "~a", "Not(a)", "True", "False", with whitespace anywhere
// between tokens. Operators bind as in Python except that & and | bind
// looser than comparisons, so "a >= 0 & b >= 0" is a conjunction. It
// returns a *ParseError on bad input and never panics.
func Parse(s string) (e Expr, err error) {
	p := &parser{src: s}
	defer func() {
		switch r := recover().(type) {
		case nil:
		case *ParseError:
			err = r
		case *tooLargeError:
			err = &ParseError{Col: p.tok.pos + 1, Msg: r.Error()[len("sym: "):]}
		default:
			panic(r) // a bug: let it surface
		}
	}()
	p.next()
	e = p.parseOr()
	if p.tok.kind != tEOF {
		p.failTok("unexpected " + p.tok.describe())
	}
	return e, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tName
	tOp
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset
}

func (t token) describe() string {
	if t.kind == tEOF {
		return "end of input"
	}
	return strconv.Quote(t.text)
}

type parser struct {
	src   string
	pos   int
	tok   token
	depth int
}

func (p *parser) fail(pos int, msg string) {
	panic(&ParseError{Col: pos + 1, Msg: msg})
}

func (p *parser) failTok(msg string) { p.fail(p.tok.pos, msg) }

// twoByteOps are the operators spelled with two characters.
var twoByteOps = map[string]bool{"**": true, "//": true, "==": true, "!=": true, "<=": true, ">=": true}

const oneByteOps = "+-*/%<>()&|~,"

// next scans the following token into p.tok.
func (p *parser) next() {
	for p.pos < len(p.src) && isSpace(p.src[p.pos]) {
		p.pos++
	}
	start := p.pos
	if start == len(p.src) {
		p.tok = token{kind: tEOF, pos: start}
		return
	}
	c := p.src[start]
	switch {
	case c >= '0' && c <= '9':
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		if p.pos < len(p.src) && (isIdentByte(p.src[p.pos]) || p.src[p.pos] == '.') {
			p.fail(start, "invalid number: only integers are supported")
		}
		p.tok = token{kind: tNum, text: p.src[start:p.pos], pos: start}
	case isIdentByte(c):
		for p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
			p.pos++
		}
		p.tok = token{kind: tName, text: p.src[start:p.pos], pos: start}
	case start+1 < len(p.src) && twoByteOps[p.src[start:start+2]]:
		p.pos += 2
		p.tok = token{kind: tOp, text: p.src[start:p.pos], pos: start}
	case indexByte(oneByteOps, c):
		p.pos++
		p.tok = token{kind: tOp, text: p.src[start:p.pos], pos: start}
	default:
		p.fail(start, "unexpected character "+strconv.QuoteRune(rune(c)))
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func indexByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

func (p *parser) isOp(text string) bool { return p.tok.kind == tOp && p.tok.text == text }

func (p *parser) expect(text string) {
	if !p.isOp(text) {
		p.failTok("expected " + strconv.Quote(text) + ", found " + p.tok.describe())
	}
	p.next()
}

// enter guards recursion depth; callers defer p.leave().
func (p *parser) enter() {
	if p.depth++; p.depth > maxDepth {
		p.failTok("expression nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// wantInt and wantBool check an operand's type at the operator's column.
func (p *parser) wantInt(e Expr, pos int) Expr {
	if e.IsBool() {
		p.fail(pos, "expected an integer expression, found boolean "+e.String())
	}
	return e
}

func (p *parser) wantBool(e Expr, pos int) Expr {
	if !e.IsBool() {
		p.fail(pos, "expected a boolean expression, found integer "+e.String())
	}
	return e
}

func (p *parser) parseOr() Expr {
	p.enter()
	defer p.leave()
	pos := p.tok.pos
	x := p.parseAnd()
	if !p.isOp("|") {
		return x
	}
	args := []Expr{p.wantBool(x, pos)}
	for p.isOp("|") {
		p.next()
		pos := p.tok.pos
		args = append(args, p.wantBool(p.parseAnd(), pos))
	}
	return logic(opOr, args)
}

func (p *parser) parseAnd() Expr {
	pos := p.tok.pos
	x := p.parseNot()
	if !p.isOp("&") {
		return x
	}
	args := []Expr{p.wantBool(x, pos)}
	for p.isOp("&") {
		p.next()
		pos := p.tok.pos
		args = append(args, p.wantBool(p.parseNot(), pos))
	}
	return logic(opAnd, args)
}

func (p *parser) parseNot() Expr {
	if !p.isOp("~") {
		return p.parseCmp()
	}
	p.enter()
	defer p.leave()
	p.next()
	pos := p.tok.pos
	return Not(p.wantBool(p.parseNot(), pos))
}

var relOps = map[string]op{"==": opEq, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

func (p *parser) parseCmp() Expr {
	pos := p.tok.pos
	x := p.parseArith()
	o, ok := relOps[p.tok.text]
	if p.tok.kind != tOp || !ok {
		return x
	}
	p.wantInt(x, pos)
	p.next()
	pos = p.tok.pos
	y := p.wantInt(p.parseArith(), pos)
	if _, chained := relOps[p.tok.text]; chained && p.tok.kind == tOp {
		p.failTok("chained comparisons are not supported")
	}
	return rel(o, x, y)
}

// parseArith collects a chain of + and - and sums it in one go.
func (p *parser) parseArith() Expr {
	pos := p.tok.pos
	x := p.parseTerm()
	if !p.isOp("+") && !p.isOp("-") {
		return x
	}
	terms := []Expr{p.wantInt(x, pos)}
	for p.isOp("+") || p.isOp("-") {
		neg := p.tok.text == "-"
		p.next()
		pos := p.tok.pos
		y := p.wantInt(p.parseTerm(), pos)
		if neg {
			y = Neg(y)
		}
		terms = append(terms, y)
	}
	sum := Sum(terms...)
	p.checkConstSum(pos, terms, sum)
	return sum
}

// checkConstSum rejects a sum of constants that wrapped: constants in a
// shape are sizes, and a size past int64 is a corrupt input, not a value.
func (p *parser) checkConstSum(pos int, terms []Expr, got Expr) {
	exact := new(big.Int)
	for _, t := range terms {
		c, ok := t.Const()
		if !ok {
			return
		}
		exact.Add(exact, big.NewInt(c))
	}
	p.checkExact(pos, exact, got)
}

func (p *parser) checkExact(pos int, exact *big.Int, got Expr) {
	if c, ok := got.Const(); ok && (!exact.IsInt64() || exact.Int64() != c) {
		p.fail(pos, "integer overflow: "+exact.String()+" does not fit in int64")
	}
}

func (p *parser) parseTerm() Expr {
	pos := p.tok.pos
	x := p.parseUnary()
	for p.tok.kind == tOp {
		opTok := p.tok
		switch opTok.text {
		case "*", "//", "%":
		case "/":
			p.failTok("true division is not supported; use //")
		default:
			return x
		}
		p.wantInt(x, pos)
		p.next()
		ypos := p.tok.pos
		y := p.wantInt(p.parseUnary(), ypos)
		xc, xok := x.Const()
		switch opTok.text {
		case "*":
			x = Mul(x, y)
			if yc, yok := y.Const(); xok && yok {
				p.checkExact(pos, new(big.Int).Mul(big.NewInt(xc), big.NewInt(yc)), x)
			}
		case "//":
			x = FloorDiv(x, y)
		default:
			x = Mod(x, y)
		}
	}
	return x
}

func (p *parser) parseUnary() Expr {
	if !p.isOp("-") && !p.isOp("+") {
		return p.parsePower()
	}
	p.enter()
	defer p.leave()
	neg := p.tok.text == "-"
	p.next()
	pos := p.tok.pos
	x := p.wantInt(p.parseUnary(), pos)
	if neg {
		return Neg(x)
	}
	return x
}

// parsePower parses base**exponent, right-associative as in Python, with
// a constant exponent >= 0.
func (p *parser) parsePower() Expr {
	pos := p.tok.pos
	x := p.parsePrimary()
	if !p.isOp("**") {
		return x
	}
	p.wantInt(x, pos)
	p.next()
	epos := p.tok.pos
	y := p.wantInt(p.parseUnary(), epos)
	n, ok := y.Const()
	switch {
	case !ok:
		p.fail(epos, "exponent must be a constant")
	case n < 0:
		p.fail(epos, "negative exponent")
	case n > maxPow:
		p.fail(epos, "exponent too large")
	}
	r := powExpr(x, n)
	if xc, ok := x.Const(); ok {
		p.checkExact(pos, new(big.Int).Exp(big.NewInt(xc), big.NewInt(n), nil), r)
	}
	return r
}

func (p *parser) parsePrimary() Expr {
	t := p.tok
	switch {
	case t.kind == tNum:
		p.next()
		return Expr{c: p.literal(t)}
	case t.kind == tName:
		p.next()
		if p.isOp("(") {
			return p.parseCall(t)
		}
		switch t.text {
		case "True":
			return True()
		case "False":
			return False()
		}
		if !validName(t.text) {
			p.fail(t.pos, "unsupported name "+strconv.Quote(t.text))
		}
		return Symbol(t.text)
	case p.isOp("("):
		p.next()
		x := p.parseOr()
		p.expect(")")
		return x
	}
	p.failTok("unexpected " + t.describe())
	panic("unreachable")
}

// literal converts a decimal integer. 2**63 is accepted and wraps to
// MinInt64, so that "-9223372036854775808" reads back as printed.
func (p *parser) literal(t token) int64 {
	v, err := strconv.ParseUint(t.text, 10, 64)
	if err != nil || v > 1<<63 {
		p.fail(t.pos, "integer literal out of range")
	}
	return int64(v)
}

// callSpec describes a function Parse accepts: its arity range and
// whether it takes booleans.
type callSpec struct {
	minArgs, maxArgs int // maxArgs < 0: any number
	boolArgs         bool
	build            func(args []Expr) Expr
}

var calls = map[string]callSpec{
	"FloorDiv":  {2, 2, false, func(a []Expr) Expr { return FloorDiv(a[0], a[1]) }},
	"CleanDiv":  {2, 2, false, func(a []Expr) Expr { return FloorDiv(a[0], a[1]) }},
	"CeilDiv":   {2, 2, false, func(a []Expr) Expr { return CeilDiv(a[0], a[1]) }},
	"Mod":       {2, 2, false, func(a []Expr) Expr { return Mod(a[0], a[1]) }},
	"PythonMod": {2, 2, false, func(a []Expr) Expr { return Mod(a[0], a[1]) }},
	"Max":       {1, -1, false, func(a []Expr) Expr { return minMax(opMax, a) }},
	"Min":       {1, -1, false, func(a []Expr) Expr { return minMax(opMin, a) }},
	"Eq":        {2, 2, false, func(a []Expr) Expr { return Eq(a[0], a[1]) }},
	"Ne":        {2, 2, false, func(a []Expr) Expr { return Ne(a[0], a[1]) }},
	"Lt":        {2, 2, false, func(a []Expr) Expr { return Lt(a[0], a[1]) }},
	"Le":        {2, 2, false, func(a []Expr) Expr { return Le(a[0], a[1]) }},
	"Gt":        {2, 2, false, func(a []Expr) Expr { return Gt(a[0], a[1]) }},
	"Ge":        {2, 2, false, func(a []Expr) Expr { return Ge(a[0], a[1]) }},
	"And":       {1, -1, true, func(a []Expr) Expr { return logic(opAnd, a) }},
	"Or":        {1, -1, true, func(a []Expr) Expr { return logic(opOr, a) }},
	"Not":       {1, 1, true, func(a []Expr) Expr { return Not(a[0]) }},
}

// parseCall parses the arguments of name(...) and applies the function;
// the current token is the "(".
func (p *parser) parseCall(name token) Expr {
	spec, ok := calls[name.text]
	if !ok {
		p.fail(name.pos, "unknown function "+strconv.Quote(name.text))
	}
	p.next()
	var args []Expr
	for !p.isOp(")") {
		if len(args) > 0 {
			p.expect(",")
		}
		pos := p.tok.pos
		a := p.parseOr()
		if spec.boolArgs {
			p.wantBool(a, pos)
		} else {
			p.wantInt(a, pos)
		}
		args = append(args, a)
	}
	if len(args) < spec.minArgs || (spec.maxArgs >= 0 && len(args) > spec.maxArgs) {
		p.fail(name.pos, "wrong number of arguments to "+name.text)
	}

	p.next()
	return spec.build(args)
}
