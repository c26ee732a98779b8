package fx

import "strings"

// span is a piece of a statement: its text and its offset in the statement.
type span struct {
	text string
	off  int
}

// splitTop splits s on sep where sep is outside brackets and strings.
func splitTop(s string, sep byte) []span { return splitTopInto(nil, s, sep) }

// splitTopInto is splitTop appending to out.
func splitTopInto(out []span, s string, sep byte) []span {
	if strings.IndexByte(s, sep) < 0 {
		return append(out, span{s, 0})
	}
	start := 0
	eachTopLevel(s, func(i int) bool {
		if s[i] == sep {
			out = append(out, span{s[start:i], start})
			start = i + 1
		}
		return true
	})
	return append(out, span{s[start:], start})
}

// eachTopLevel calls f with the offset of each byte of s that is code (not
// in a string) outside every bracket, the brackets themselves excluded,
// until f returns false.
func eachTopLevel(s string, f func(i int) bool) {
	depth := 0
	codeRuns(s, func(off int, run string) bool {
		for j := 0; j < len(run); j++ {
			switch c := run[j]; {
			case isOpen(c):
				depth++
			case isClose(c):
				depth--
			case depth == 0 && !f(off+j):
				return false
			}
		}
		return true
	})
}

// isAssignAt says whether the '=' at s[i] assigns: not part of ==, <=,
// >= or !=.
func isAssignAt(s string, i int) bool {
	prev, next := byte(0), byte(0)
	if i > 0 {
		prev = s[i-1]
	}
	if i+1 < len(s) {
		next = s[i+1]
	}
	return next != '=' && prev != '=' && prev != '<' && prev != '>' && prev != '!'
}

// findAssign returns the offset of the first top-level '=' that is an
// assignment (not part of ==, <=, >=, !=), or -1.
func findAssign(s string) int {
	if strings.IndexByte(s, '=') < 0 {
		return -1
	}
	found := -1
	eachTopLevel(s, func(i int) bool {
		switch {
		case s[i] == '#':
			return false
		case s[i] == '=' && isAssignAt(s, i):
			found = i
			return false
		}
		return true
	})
	return found
}

// stripComment removes a trailing `# ...` outside strings.
func stripComment(s string) string {
	if at := commentAt(s); at >= 0 {
		return s[:at]
	}
	return s
}

// trimSpan trims spaces, keeping the offset right.
func trimSpan(s span) span {
	i, j := 0, len(s.text)
	for i < j && (s.text[i] == ' ' || s.text[i] == '\t') {
		i++
	}
	for j > i && (s.text[j-1] == ' ' || s.text[j-1] == '\t') {
		j--
	}
	return span{s.text[i:j], s.off + i}
}
