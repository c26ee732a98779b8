package fx

import "strings"

// codeRuns calls visit with every maximal run of s that is Python code
// rather than the inside of a string literal (the quotes themselves belong
// to no run), with the run's offset in s. visit returns false to stop.
// codeRuns returns the offset of a string literal still open at the end,
// or -1. Every bracket- and separator-aware scan in this package goes
// through it, so they agree on what a string is; a scan loops over a
// run's bytes itself, so no call is made per byte.
func codeRuns(s string, visit func(off int, run string) bool) (openQuote int) {
	start := 0
	for {
		q := indexEither(s[start:], '"', '\'')
		if q < 0 {
			if start < len(s) && !visit(start, s[start:]) {
				return -1
			}
			return -1
		}
		q += start
		if q > start && !visit(start, s[start:q]) {
			return -1
		}
		// Inside the literal: find its closing quote, skipping escapes.
		quote, i := s[q], q+1
		for {
			j := indexEither(s[i:], quote, '\\')
			if j < 0 {
				return q // still open at the end
			}
			i += j
			if s[i] == '\\' {
				i += 2
				if i >= len(s) {
					return q
				}
				continue
			}
			break
		}
		start = i + 1
	}
}

// indexEither is the offset of the first a or b in s, or -1: two
// vectorized byte searches (the second only up to the first's hit) beat
// one byte-at-a-time search for either.
func indexEither(s string, a, b byte) int {
	i := strings.IndexByte(s, a)
	if i < 0 {
		return strings.IndexByte(s, b)
	}
	if j := strings.IndexByte(s[:i], b); j >= 0 {
		return j
	}
	return i
}

// codeBytes calls visit with the offset and value of every byte of s that is
// Python code (see codeRuns). visit returns false to stop. codeBytes
// returns the offset of a string literal still open at the end, or -1.
func codeBytes(s string, visit func(i int, c byte) bool) (openQuote int) {
	return codeRuns(s, func(off int, run string) bool {
		for j := 0; j < len(run); j++ {
			if !visit(off+j, run[j]) {
				return false
			}
		}
		return true
	})
}

// isOpen and isClose classify brackets.
func isOpen(c byte) bool  { return c == '(' || c == '[' || c == '{' }
func isClose(c byte) bool { return c == ')' || c == ']' || c == '}' }
