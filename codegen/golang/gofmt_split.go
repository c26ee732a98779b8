package golang

import (
	"strings"
)

// A chunk longer than splitLines lines that is one function (Run: a few
// statements per input, buffer and kernel, megabytes on a large graph) is
// formatted in pieces of about pieceLines lines, in parallel and through
// the shape cache, instead of by one gofmt call that would be most of the
// Go back end's wall time.
const (
	splitLines = 400
	pieceLines = 200
)

// piece is a part of a split chunk, formatted inside a wrapper that makes
// it a declaration; the wrapper is cut off the formatted text.
type piece struct {
	text           string // raw
	prefix, suffix string // the wrapper, raw and formatted alike
	keep           bool   // taken as it is, not formatted
}

// splitFunc cuts chunk into its head (up to the line that opens the
// function's body), runs of whole body statements, and its last line
// ("}"). It cuts only where gofmt's output cannot depend on the other side:
// between two statements of the body's top level, neither line blank nor
// holding a comment (gofmt aligns trailing comments of neighbouring lines).
// ok is false when the chunk is not such a function.
func splitFunc(chunk string) (pieces []piece, ok bool) {
	lines := strings.SplitAfter(chunk, "\n")
	if len(lines) < splitLines {
		return nil, false
	}
	depth, open, last := 0, -1, len(lines)-1
	for last >= 0 && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if last < 0 || strings.TrimSpace(lines[last]) != "}" {
		return nil, false
	}
	var cuts []int // body pieces start at these lines
	for i := 0; i < last; i++ {
		d, clean := bracketDelta(lines[i])
		if !clean {
			return nil, false
		}
		before := depth
		depth += d
		switch {
		case open < 0:
			if before == 0 && depth == 1 && strings.HasPrefix(lines[i], "func ") && strings.HasSuffix(lines[i], "{\n") {
				open = i
				cuts = append(cuts, i+1)
			}
		case depth < 1:
			return nil, false // the body closed before the last line
		case depth == 1 && i+1 < last && i+1-cuts[len(cuts)-1] >= pieceLines && cutBetween(lines[i], lines[i+1]):
			cuts = append(cuts, i+1)
		}
	}
	if open < 0 || depth != 1 || len(cuts) < 2 {
		return nil, false
	}
	head := strings.Join(lines[:open+1], "")
	pieces = append(pieces, piece{text: head, suffix: "}\n"})
	cuts = append(cuts, last)
	for k := 0; k+1 < len(cuts); k++ {
		pieces = append(pieces, piece{text: strings.Join(lines[cuts[k]:cuts[k+1]], ""), prefix: "func _() {\n", suffix: "}\n"})
	}
	// The closing line and the blank lines after it stay as they are:
	// gofmt keeps a partial source's trailing space.
	pieces = append(pieces, piece{text: strings.Join(lines[last:], ""), keep: true})
	return pieces, true
}

// cutBetween says whether a cut between two body lines leaves gofmt's
// layout of each side alone: both hold a statement's end and start, no
// comment, no blank.
func cutBetween(before, after string) bool {
	b, a := strings.TrimSpace(before), strings.TrimSpace(after)
	if b == "" || a == "" || strings.Contains(before, "//") || strings.Contains(after, "//") {
		return false
	}
	for _, p := range []string{"}", ")", "]", "else", "case ", "default:"} {
		if strings.HasPrefix(a, p) {
			return false
		}
	}
	c := b[len(b)-1]
	return isIdentByte(c) || c == ')' || c == ']' || c == '}' || c == '"'
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// bracketDelta is how much a line opens ({ ( [ minus closes) outside string
// and rune literals and comments; clean is false for a line this simple
// reading cannot follow (a raw string, a block comment).
func bracketDelta(line string) (delta int, clean bool) {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '{', '(', '[':
			delta++
		case '}', ')', ']':
			delta--
		case '`':
			return 0, false
		case '/':
			if i+1 < len(line) && line[i+1] == '/' {
				return delta, true
			}
			if i+1 < len(line) && line[i+1] == '*' {
				return 0, false
			}
		case '"', '\'':
			j := i + 1
			for j < len(line) && line[j] != c {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return 0, false
			}
			i = j
		}
	}
	return delta, true
}
