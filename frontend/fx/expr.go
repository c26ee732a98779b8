package fx

import (
	"fmt"
	"strconv"
)

// exprKind classifies a Python expression node.
type exprKind uint8

const (
	eName  exprKind = iota // x, torch (dotted paths are eAttr chains)
	eAttr                  // base.name
	eCall                  // fn(args, k=v)
	eIndex                 // base[index]
	eInt
	eFloat
	eString
	eList
	eTuple
	eDict
	eUnary  // -x, ~x, not x
	eBinary // x + y, x < y
	eSlice  // a:b inside a subscript
	eEllipsis
	eImag // an imaginary literal: 2j (floatV holds 2)
)

// pyExpr is a parsed Python expression.
type pyExpr struct {
	kind   exprKind
	col    int // offset of the first token
	end    int // offset just past the last token
	name   string
	op     string
	intV   int64
	floatV float64
	str    string
	base   *pyExpr // attribute base, callee, subscript base, unary operand, binary left
	rhs    *pyExpr // binary right, subscript index
	elems  []*pyExpr
	keys   []*pyExpr
	kwargs []kwExpr
	// path is an eAttr chain's dotted name when the source spells it
	// without blanks ("torch.ops.aten.add.Tensor"): a slice of the source,
	// so dotted need not build it.
	path string
}

type kwExpr struct {
	name string
	val  *pyExpr
}

// dotted returns "a.b.c" for a chain of names and attributes, or "".
func (e *pyExpr) dotted() string {
	switch e.kind {
	case eName:
		return e.name
	case eAttr:
		if e.path != "" {
			return e.path
		}
		if b := e.base.dotted(); b != "" {
			return b + "." + e.name
		}
	}
	return ""
}

// exprParser is a recursive-descent parser over one statement's tokens.
type exprParser struct {
	toks []token
	pos  int
	src  string // the text toks were lexed from, "" when not known
	// arena, when set, holds the expressions (see exprArena).
	arena *exprArena
}

// pathOf is e's dotted name when the source spells it without blanks, or "".
func (p *exprParser) pathOf(e *pyExpr) string {
	switch e.kind {
	case eName:
		if p.src != "" && e.end <= len(p.src) && p.src[e.col:e.end] == e.name {
			return e.name
		}
	case eAttr:
		return e.path
	}
	return ""
}

func (p *exprParser) peek() token { return p.toks[p.pos] }

func (p *exprParser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *exprParser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == op
}

func (p *exprParser) accept(op string) bool {
	if p.isOp(op) {
		p.pos++
		return true
	}
	return false
}

func (p *exprParser) expect(op string) error {
	if p.accept(op) {
		return nil
	}
	t := p.peek()
	return &lexError{t.col, fmt.Sprintf("expected %q, found %s", op, describe(t))}
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of line"
	case tString:
		return strconv.Quote(t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *exprParser) lastEnd() int {
	if p.pos == 0 {
		return 0
	}
	t := p.toks[p.pos-1]
	return t.col + len(t.text)
}

// binary operator precedence, loosest first (Python's grammar).
var precedence = map[string]int{
	"or": 1, "and": 2,
	"<": 4, "<=": 4, ">": 4, ">=": 4, "==": 4, "!=": 4,
	"|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
	"+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10, "@": 10,
}

// parseExpr parses a full expression (no bare tuples).
func (p *exprParser) parseExpr() (*pyExpr, error) { return p.parseBinary(1) }

func (p *exprParser) binaryOp() (string, int) {
	t := p.peek()
	if t.kind == tOp || t.kind == tName && (t.text == "and" || t.text == "or") {
		if prec, ok := precedence[t.text]; ok {
			return t.text, prec
		}
	}
	return "", 0
}

func (p *exprParser) parseBinary(minPrec int) (*pyExpr, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		op, prec := p.binaryOp()
		if op == "" || prec < minPrec {
			return left, nil
		}
		p.next()
		right, err := p.parseBinary(prec + 1)
		if err != nil {
			return nil, err
		}
		left = p.alloc(pyExpr{kind: eBinary, op: op, base: left, rhs: right, col: left.col, end: right.end})
	}
}

func (p *exprParser) parseUnary() (*pyExpr, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") || t.kind == tName && t.text == "not" {
		p.next()
		prec := 11
		if t.text == "not" {
			prec = 3
		}
		operand, err := p.parseBinary(prec)
		if err != nil {
			return nil, err
		}
		return p.alloc(pyExpr{kind: eUnary, op: t.text, base: operand, col: t.col, end: operand.end}), nil
	}
	return p.parsePower()
}

func (p *exprParser) parsePower() (*pyExpr, error) {
	base, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	if p.accept("**") {
		exp, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return p.alloc(pyExpr{kind: eBinary, op: "**", base: base, rhs: exp, col: base.col, end: exp.end}), nil
	}
	return base, nil
}

func (p *exprParser) parsePostfix() (*pyExpr, error) {
	e, err := p.parseAtom()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.accept("."):
			dot := p.toks[p.pos-1]
			t := p.next()
			if t.kind != tName {
				return nil, &lexError{t.col, "expected an attribute name after '.', found " + describe(t)}
			}
			attr := p.alloc(pyExpr{kind: eAttr, name: t.text, base: e, col: e.col, end: p.lastEnd()})
			if p.pathOf(e) != "" && e.end == dot.col && dot.col+1 == t.col && p.src[t.col:attr.end] == t.text {
				attr.path = p.src[e.col:attr.end]
			}
			e = attr
		case p.accept("("):
			call := p.alloc(pyExpr{kind: eCall, base: e, col: e.col})
			if err := p.parseCallArgs(call); err != nil {
				return nil, err
			}
			call.end = p.lastEnd()
			e = call
		case p.accept("["):
			idx, err := p.parseSubscript()
			if err != nil {
				return nil, err
			}
			e = p.alloc(pyExpr{kind: eIndex, base: e, rhs: idx, col: e.col, end: p.lastEnd()})
		default:
			return e, nil
		}
	}
}

func (p *exprParser) parseCallArgs(call *pyExpr) error {
	for !p.accept(")") {
		if t, t2 := p.peek(), p.toks[min(p.pos+1, len(p.toks)-1)]; t.kind == tName && t2.kind == tOp && t2.text == "=" {
			p.pos += 2
			v, err := p.parseExpr()
			if err != nil {
				return err
			}
			call.kwargs = append(call.kwargs, kwExpr{t.text, v})
		} else {
			if len(call.kwargs) > 0 {
				return &lexError{t.col, "positional argument follows keyword argument"}
			}
			p.accept("*") // *args splat: keep the value
			v, err := p.parseExpr()
			if err != nil {
				return err
			}
			call.elems = append(call.elems, v)
		}
		if !p.accept(",") {
			return p.expect(")")
		}
	}
	return nil
}

// parseSubscript parses the inside of [...] up to and including ']'.
func (p *exprParser) parseSubscript() (*pyExpr, error) {
	start := p.peek().col
	var items []*pyExpr
	trailing := false
	for !p.accept("]") {
		item, err := p.parseSliceItem()
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		trailing = p.accept(",")
		if !trailing {
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			break
		}
	}
	if len(items) == 1 && !trailing {
		return items[0], nil
	}
	return p.alloc(pyExpr{kind: eTuple, elems: items, col: start, end: p.lastEnd()}), nil
}

func (p *exprParser) parseSliceItem() (*pyExpr, error) {
	start := p.peek().col
	var parts [3]*pyExpr
	n := 0
	for {
		if !p.isOp(":") && !p.isOp(",") && !p.isOp("]") {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			parts[n] = e
		}
		if !p.accept(":") {
			break
		}
		n++
		if n > 2 {
			return nil, &lexError{p.peek().col, "too many ':' in slice"}
		}
	}
	if n == 0 {
		if parts[0] == nil {
			return nil, &lexError{start, "empty subscript"}
		}
		return parts[0], nil
	}
	return p.alloc(pyExpr{kind: eSlice, elems: parts[:], col: start, end: p.lastEnd()}), nil
}

func (p *exprParser) parseAtom() (*pyExpr, error) {
	t := p.next()
	switch t.kind {
	case tName:
		return p.alloc(pyExpr{kind: eName, name: t.text, col: t.col, end: t.col + len(t.text)}), nil
	case tInt:
		v, err := strconv.ParseInt(t.text, 0, 64)
		if err != nil {
			// Python ints are unbounded; FX only prints int64 values, so
			// anything larger is not something PyTorch printed.
			return nil, &lexError{t.col, fmt.Sprintf("integer %s does not fit in 64 bits", t.text)}
		}
		return p.alloc(pyExpr{kind: eInt, intV: v, col: t.col, end: t.col + len(t.text)}), nil
	case tFloat:
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, &lexError{t.col, fmt.Sprintf("malformed float %s", t.text)}
		}
		return p.alloc(pyExpr{kind: eFloat, floatV: v, col: t.col, end: t.col + len(t.text)}), nil
	case tImag:
		v, err := strconv.ParseFloat(t.text[:len(t.text)-1], 64)
		if err != nil {
			return nil, &lexError{t.col, fmt.Sprintf("malformed imaginary number %s", t.text)}
		}
		return p.alloc(pyExpr{kind: eImag, floatV: v, col: t.col, end: t.col + len(t.text)}), nil
	case tString:
		s := t.text
		for p.peek().kind == tString { // implicit concatenation
			s += p.next().text
		}
		return p.alloc(pyExpr{kind: eString, str: s, col: t.col, end: p.lastEnd()}), nil
	case tOp:
		switch t.text {
		case "(":
			return p.parseSeq(t, ")", eTuple)
		case "[":
			return p.parseSeq(t, "]", eList)
		case "{":
			return p.parseDict(t)
		case ".":
			if p.accept(".") && p.accept(".") {
				return p.alloc(pyExpr{kind: eEllipsis, col: t.col, end: p.lastEnd()}), nil
			}
		}
	}
	return nil, &lexError{t.col, "unexpected " + describe(t)}
}

// parseSeq parses a parenthesized tuple (or grouping) or a list.
func (p *exprParser) parseSeq(open token, close string, kind exprKind) (*pyExpr, error) {
	seq := p.alloc(pyExpr{kind: kind, col: open.col})
	trailing := false
	for !p.accept(close) {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		seq.elems = append(seq.elems, e)
		trailing = p.accept(",")
		if !trailing {
			if err := p.expect(close); err != nil {
				return nil, err
			}
			break
		}
	}
	seq.end = p.lastEnd()
	if kind == eTuple && len(seq.elems) == 1 && !trailing {
		inner := seq.elems[0] // (x) is grouping, not a tuple
		return inner, nil
	}
	return seq, nil
}

func (p *exprParser) parseDict(open token) (*pyExpr, error) {
	d := p.alloc(pyExpr{kind: eDict, col: open.col})
	for !p.accept("}") {
		k, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		d.keys = append(d.keys, k)
		d.elems = append(d.elems, v)
		if !p.accept(",") {
			if err := p.expect("}"); err != nil {
				return nil, err
			}
			break
		}
	}
	d.end = p.lastEnd()
	return d, nil
}

// parseExprList parses `a, b, c` (a bare tuple) up to the end of input or
// a stop operator; single elements without a trailing comma stay scalar.
func (p *exprParser) parseExprList() (*pyExpr, error) {
	start := p.peek().col
	var items []*pyExpr
	trailing := false
	for {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
		trailing = p.accept(",")
		if !trailing || p.peek().kind == tEOF {
			break
		}
	}
	if len(items) == 1 && !trailing {
		return items[0], nil
	}
	return p.alloc(pyExpr{kind: eTuple, elems: items, col: start, end: p.lastEnd()}), nil
}

// exprArena hands out a statement's expression nodes from reused chunks:
// a statement's expressions die with it (they become IR arguments), and
// a 1M-node graph would otherwise allocate some ten million of them.
type exprArena struct {
	chunks [][]pyExpr
	chunk  int // index of the chunk being handed out
	next   int // next free slot in it
}

const exprChunk = 256

// reset makes every slot free again; no expression handed out before may
// be used after.
func (a *exprArena) reset() { a.chunk, a.next = 0, 0 }

func (a *exprArena) alloc() *pyExpr {
	if a.next == exprChunk {
		a.chunk, a.next = a.chunk+1, 0
	}
	if a.chunk == len(a.chunks) {
		a.chunks = append(a.chunks, make([]pyExpr, exprChunk))
	}
	e := &a.chunks[a.chunk][a.next]
	a.next++
	return e
}

// alloc returns a node holding v, from the arena when the parser has one.
func (p *exprParser) alloc(v pyExpr) *pyExpr {
	var e *pyExpr
	if p.arena == nil {
		e = new(pyExpr) // not &v: v would then always escape
	} else {
		e = p.arena.alloc()
	}
	*e = v
	return e
}
