package fx

import (
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// fastOpCall reads the right-hand side nearly every statement of a large
// graph has, `torch.ops.NS.OP.OVERLOAD(ARGS)` whose arguments are bound
// names, numbers, lists of int literals and `torch.X` constants (keyword
// or not), straight from the text: no tokens, no expression tree. It
// builds exactly what parseRHS and assign would. Anything else (a string,
// a nested call, an unbound name, a syntax error) makes it report false
// before it has changed anything, and the statement takes the general
// path, which also words every error.
func (gb *graphBuilder) fastOpCall(l *logical, t target, rhs span) (bool, error) {
	if gb.implicit || noFastPath {
		return false, nil
	}
	s := rhs.text
	i := skipBlanks(s, 0)
	if !strings.HasPrefix(s[i:], "torch.ops.") {
		return false, nil
	}
	start := i
	i = scanDotted(s, i)
	if i < 0 || i >= len(s) || s[i] != '(' {
		return false, nil
	}
	callee := s[start:i]
	// The arguments go straight into the free part of the graph's argument
	// chunk (nothing else cuts from it meanwhile); past its end, append
	// moves them to a buffer of their own.
	args, kwargs := gb.args.Spare(), gb.fastKwargs[:0]
	defer func() { gb.fastKwargs = kwargs[:0] }()
	i = skipBlanks(s, i+1)
	for {
		if i < len(s) && s[i] == ')' {
			i++
			break
		}
		// A keyword argument: NAME = VALUE.
		kw := ""
		if j := scanName(s, i); j > i {
			if k := skipBlanks(s, j); k+1 < len(s) && s[k] == '=' && s[k+1] != '=' {
				kw, i = s[i:j], skipBlanks(s, k+1)
			}
		}
		if kw == "" && len(kwargs) > 0 {
			return false, nil // positional after keyword: the general path says so
		}
		a, next, ok := gb.fastValue(l, s, rhs.off, i)
		if !ok {
			return false, nil
		}
		if kw != "" {
			kwargs = append(kwargs, ir.Kwarg{Name: gb.p.intern(kw), Arg: a})
		} else {
			args = append(args, a)
		}
		i = skipBlanks(s, next)
		if i < len(s) && s[i] == ',' {
			i = skipBlanks(s, i+1)
			continue
		}
		if i < len(s) && s[i] == ')' {
			continue
		}
		return false, nil
	}
	if skipBlanks(s, i) != len(s) {
		return false, nil // `f(x)[0]`, `f(x).y`, `f(x) + 1`: the general path
	}
	var argList []ir.Arg
	if n := len(args); cap(args) == cap(gb.args.Spare()) && gb.args.Shared(n) {
		argList = gb.args.Take(n) // written in place
	} else {
		argList = gb.args.Take(n)
		copy(argList, args)
	}
	kwList := gb.kwargs.Take(len(kwargs))
	copy(kwList, kwargs)
	node, err := gb.opNode(l, &pyExpr{col: rhs.off + start}, t.name, callee, argList, kwList)
	if err != nil {
		return true, err
	}
	gb.bindNode(t, node)
	return true, nil
}

// fastValue reads one argument at s[i:]: a bound name (or None, True,
// False, inf, nan), a number (negated or not), a list of int literals, or
// a dotted `torch.X` constant. It returns the argument and the offset
// after it, false for anything else. off is s's offset in the line.
func (gb *graphBuilder) fastValue(l *logical, s string, off, i int) (ir.Arg, int, bool) {
	if i >= len(s) {
		return ir.Arg{}, 0, false
	}
	switch c := s[i]; {
	case c == '[':
		return gb.fastIntList(l, s, off, i)
	case c == '-' || c >= '0' && c <= '9':
		neg := c == '-'
		j := i
		if neg {
			j++
		}
		if j >= len(s) || s[j] < '0' || s[j] > '9' {
			return ir.Arg{}, 0, false
		}
		tok, end, err := lexNumber(s, j)
		if err != nil || !delimited(s, end) {
			return ir.Arg{}, 0, false
		}
		switch tok.kind {
		case tInt:
			v, err := strconv.ParseInt(tok.text, 0, 64)
			if err != nil {
				return ir.Arg{}, 0, false
			}
			if neg {
				v = -v
			}
			return ir.IntArg(v), end, true
		case tFloat:
			v, err := strconv.ParseFloat(tok.text, 64)
			if err != nil {
				return ir.Arg{}, 0, false
			}
			if neg {
				v = -v
			}
			return ir.FloatArg(v), end, true
		}
		return ir.Arg{}, 0, false
	case isNameStart(c):
		j := scanName(s, i)
		if j < len(s) && s[j] == '.' {
			end := scanDotted(s, i)
			if end < 0 || !delimited(s, end) || !strings.HasPrefix(s[i:end], "torch.") {
				return ir.Arg{}, 0, false
			}
			dotted := s[i:end]
			return gb.p.attrArg(dotted, dotted), end, true
		}
		if !delimited(s, j) {
			return ir.Arg{}, 0, false
		}
		name := s[i:j]
		switch name {
		case "None", "True", "False", "inf", "nan":
		default:
			b, ok := gb.scope[name]
			if !ok {
				return ir.Arg{}, 0, false // Ellipsis, an undefined name: the general path
			}
			if b.tuple == nil && name != "Ellipsis" {
				return ir.ValueArg(b.v), j, true // what nameArg makes of a bound name
			}
		}
		a, err := gb.nameArg(l, &pyExpr{kind: eName, name: name, col: off + i, end: off + j})
		if err != nil {
			return ir.Arg{}, 0, false
		}
		return a, j, true
	}
	return ir.Arg{}, 0, false
}

// fastIntList reads `[d, d, ...]` of int literals (no sign, no trailing
// comma, not empty) at s[i:], sharing its elements as intList does.
func (gb *graphBuilder) fastIntList(l *logical, s string, off, i int) (ir.Arg, int, bool) {
	j := i + 1
	var vals [16]int64
	n := 0
	for {
		j = skipBlanks(s, j)
		if j >= len(s) || s[j] < '0' || s[j] > '9' || n == len(vals) {
			return ir.Arg{}, 0, false
		}
		tok, end, err := lexNumber(s, j)
		if err != nil || tok.kind != tInt {
			return ir.Arg{}, 0, false
		}
		v, err := strconv.ParseInt(tok.text, 0, 64)
		if err != nil {
			return ir.Arg{}, 0, false
		}
		vals[n], n = v, n+1
		j = skipBlanks(s, end)
		if j < len(s) && s[j] == ',' {
			j++
			continue
		}
		if j < len(s) && s[j] == ']' {
			j++
			break
		}
		return ir.Arg{}, 0, false
	}
	if !delimited(s, j) {
		return ir.Arg{}, 0, false
	}
	elems := gb.p.lists[s[i:j]]
	if elems == nil {
		e := &pyExpr{kind: eList, col: off + i, end: off + j, elems: make([]*pyExpr, n)}
		for k := range n {
			e.elems[k] = &pyExpr{kind: eInt, intV: vals[k]}
		}
		elems, _ = gb.intList(l, e)
	}
	return ir.ListArg(elems...), j, true
}

// noFastPath turns fastOpCall off (tests compare both paths).
var noFastPath = false

// delimited reports whether an argument ending at s[end:] is followed by
// a ',' or ')' (after blanks): not `x.y`, `x[0]`, `x(1)` or `x + 1`.
func delimited(s string, end int) bool {
	k := skipBlanks(s, end)
	return k < len(s) && (s[k] == ',' || s[k] == ')')
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func scanName(s string, i int) int {
	if i >= len(s) || !isNameStart(s[i]) {
		return i
	}
	i++
	for i < len(s) && isNameChar(s[i]) {
		i++
	}
	return i
}

// scanDotted returns the end of `name.name...` at s[i:], or -1 when a dot
// is not followed by a name.
func scanDotted(s string, i int) int {
	for {
		j := scanName(s, i)
		if j == i {
			return -1
		}
		if j >= len(s) || s[j] != '.' {
			return j
		}
		i = j + 1
	}
}
