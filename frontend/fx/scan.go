package fx

// codeRuns calls visit with every maximal run of s that is Python code
// rather than the inside of a string literal (the quotes themselves belong
// to no run), with the run's offset in s. visit returns false to stop.
// codeRuns returns the offset of a string literal still open at the end,
// or -1. Every bracket- and separator-aware scan in this package goes
// through it, so they agree on what a string is; a scan loops over a
// run's bytes itself, so no call is made per byte.
func codeRuns(s string, visit func(off int, run string) bool) (openQuote int) {
	var quote byte
	openQuote = -1
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote, openQuote = 0, -1
				start = i + 1
			}
		case c == '\'' || c == '"':
			if i > start && !visit(start, s[start:i]) {
				return -1
			}
			quote, openQuote = c, i
		}
	}
	if quote == 0 && start < len(s) && !visit(start, s[start:]) {
		return -1
	}
	return openQuote
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
