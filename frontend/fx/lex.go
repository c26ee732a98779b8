package fx

import (
	"fmt"
	"strings"
)

// tokKind classifies a Python token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tName
	tInt
	tFloat
	tString
	tOp
	tImag // 2j, 1.5e3J: the text keeps the suffix
)

type token struct {
	kind tokKind
	text string // source text (for strings: the decoded value)
	col  int    // 0-based byte offset in the statement text
}

// lexError is a tokenizer or parser error at a byte offset of the statement.
type lexError struct {
	col int
	msg string
}

func (e *lexError) Error() string { return e.msg }

// threeOps, twoOps list multi-character operators, longest first.
var (
	threeOps = []string{"**=", "//=", ">>=", "<<="}
	twoOps   = []string{"**", "//", "==", "!=", "<=", ">=", "<<", ">>", "->"}
)

// lex splits one logical line (a statement or expression) into tokens.
func lex(src string) ([]token, error) { return lexInto(nil, src) }

// lexInto is lex appending to toks[:0], a buffer the caller reuses.
func lexInto(toks []token, src string) ([]token, error) {
	toks = toks[:0]
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\':
			i++
		case c == '#':
			i = len(src) // a trailing comment ends the statement
		case isNameStart(c) || c == '%' && i+1 < len(src) && isNameStart(src[i+1]):
			j := i + 1
			for j < len(src) && isNameChar(src[j]) {
				j++
			}
			text := src[i:j]
			if c == '%' {
				text = src[i+1 : j] // FX node-form reference: %add
			}
			toks = append(toks, token{tName, text, i})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			tok, j, err := lexNumber(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, tok)
			i = j
		case c == '\'' || c == '"':
			s, j, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tString, s, i})
			i = j
		default:
			op := matchOp(src[i:])
			if op == "" {
				return nil, &lexError{i, fmt.Sprintf("unexpected character %q", c)}
			}
			toks = append(toks, token{tOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tEOF, "", len(src)}), nil
}

func matchOp(s string) string {
	switch s[0] {
	case '(', ')', '[', ']', '{', '}', ',', ':', '.', ';', '~', '@', '%', '&', '|', '^', '+':
		// no multi-character operator starts with these
	case '*', '/', '>', '<', '=', '!', '-':
		for _, set := range [][]string{threeOps, twoOps} {
			for _, op := range set {
				if strings.HasPrefix(s, op) {
					return op
				}
			}
		}
		if s[0] == '!' {
			return ""
		}
	default:
		return ""
	}
	return s[:1]
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func lexNumber(src string, i int) (token, int, error) {
	j := i
	isFloat := false
	for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
		j++
	}
	if j < len(src) && src[j] == '.' {
		isFloat = true
		j++
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && src[k] >= '0' && src[k] <= '9' {
			isFloat = true
			j = k
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
		}
	}
	if j < len(src) && (src[j] == 'j' || src[j] == 'J') && (j+1 == len(src) || !isNameChar(src[j+1])) {
		return token{tImag, strings.ReplaceAll(src[i:j+1], "_", ""), i}, j + 1, nil
	}
	if j < len(src) && isNameStart(src[j]) {
		return token{}, 0, &lexError{i, fmt.Sprintf("malformed number %q", src[i:j+1])}
	}
	kind := tInt
	if isFloat {
		kind = tFloat
	}
	return token{kind, strings.ReplaceAll(src[i:j], "_", ""), i}, j, nil
}

// lexString decodes a Python string literal with the common escapes.
func lexString(src string, i int) (string, int, error) {
	quote := src[i]
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		c := src[j]
		switch {
		case c == quote:
			return b.String(), j + 1, nil
		case c == '\\' && j+1 < len(src):
			j++
			switch e := src[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				if j+2 < len(src) {
					var v byte
					if _, err := fmt.Sscanf(src[j+1:j+3], "%02x", &v); err == nil {
						b.WriteByte(v)
						j += 2
						break
					}
				}
				b.WriteString(`\x`)
			default:
				b.WriteByte(e)
			}
			j++
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", 0, &lexError{i, "unterminated string literal"}
}
