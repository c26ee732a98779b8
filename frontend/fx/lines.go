package fx

import (
	"regexp"
	"strings"
)

// rawLine is one physical line with any log prefix removed. off is the
// number of bytes removed, so columns map back to the original text.
type rawLine struct {
	text string
	num  int // 1-based line number
	off  int
}

// Log prefixes that PyTorch's logging puts before every line of a graph:
// glog-style "I0121 00:38:07.894000 2422825 path.py:289] [!0/5/0] [__aot_graphs] ",
// the same with the level/time cut off ("torch/_inductor/compile_fx.py:910] [0/1] "),
// and "[rank0]:" from torchrun.
var logPrefixes = []*regexp.Regexp{
	regexp.MustCompile(`^[IWEDV]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+\S+:\d+\](?: |$)(?:\[[^\]]*\](?: |$))*`),
	regexp.MustCompile(`^[\w./-]+\.py:\d+\](?: |$)(?:\[[^\]]*\](?: |$))*`),
	regexp.MustCompile(`^\[rank\d+\]:`),
	regexp.MustCompile(`^\[[\w\s:.-]+\] +`), // "[2024-05-01 10:00:00,123] " style timestamps
}

func splitLines(src string) []rawLine {
	parts := strings.Split(src, "\n")
	lines := make([]rawLine, len(parts))
	for i, p := range parts {
		p = strings.TrimRight(p, "\r")
		off := 0
		if p == "" || p[0] == ' ' || p[0] == '\t' {
			lines[i] = rawLine{text: p, num: i + 1} // no log prefix starts with a blank
			continue
		}
		for _, re := range logPrefixes {
			if loc := re.FindStringIndex(p[off:]); loc != nil && loc[1] > 0 {
				off += loc[1]
			}
		}
		lines[i] = rawLine{text: p[off:], num: i + 1, off: off}
	}
	return lines
}

// logical is a Python logical line: physical lines joined while brackets
// are open. segs map offsets in text back to physical positions.
type logical struct {
	text   string
	indent int
	segs   []segment
	// unclosed is the offset of a bracket still open at the end of the
	// input, or -1: the line ran to the end of the file.
	unclosed int
	// tooLong: the line is longer than the join's byte bound.
	tooLong bool
	// For a line of one physical line, scanned is set and comment and
	// assign are the offsets of its comment's '#' and of its first
	// top-level assignment '=' before it (-1: none), found by the scan
	// that counted its brackets, so graphLine and statement need not
	// scan it again.
	scanned         bool
	comment, assign int
}

type segment struct {
	start int // offset in logical.text where this physical line begins
	line  int
	col0  int // 0-based column in the original line of logical offset start
}

// pos maps an offset in the logical line to a 1-based line and column.
func (l *logical) pos(off int) (int, int) {
	s := l.segs[0]
	for _, seg := range l.segs {
		if seg.start <= off {
			s = seg
		}
	}
	return s.line, s.col0 + (off - s.start) + 1
}

// bracketDelta returns how much s changes the bracket depth, ignoring
// strings and a trailing comment.
func bracketDelta(s string) int {
	depth, _, _ := scanLine(s)
	return depth
}

// scanLine is bracketDelta, commentAt and findAssign (on the text before
// the comment) in one pass.
func scanLine(s string) (depth, comment, assign int) {
	comment, assign = -1, -1
	codeRuns(s, func(off int, run string) bool {
		for j := 0; j < len(run); j++ {
			switch run[j] {
			case '#':
				comment = off + j
				return false
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case '=':
				if assign >= 0 || depth != 0 {
					continue
				}
				if i := off + j; isAssignAt(s, i) {
					assign = i
				}
			}
		}
		return true
	})
	return depth, comment, assign
}

// joinLogical turns physical lines into logical lines, starting at lines[i];
// it returns the logical line and the index of the next physical line. It
// stops joining past maxBytes (the line's tooLong is then set), so that an
// unclosed bracket cannot make the join, or its callers, quadratic.
func joinLogical(lines []rawLine, i, maxBytes int) (logical, int) {
	return joinLogicalInto(nil, lines, i, maxBytes)
}

// joinLogicalInto is joinLogical with the line's segments appended to
// segs[:0] (a buffer the caller reuses from line to line).
func joinLogicalInto(segs []segment, lines []rawLine, i, maxBytes int) (logical, int) {
	first := lines[i]
	trimmed := strings.TrimLeft(first.text, " \t")
	lead := len(first.text) - len(trimmed)
	l := logical{indent: lead, segs: append(segs[:0], segment{0, first.num, first.off + lead}), unclosed: -1}
	pending := trimmed // the last physical line, written once we know whether it continues
	depth, comment, assign := scanLine(trimmed)
	i++
	if depth <= 0 || i >= len(lines) || strings.HasPrefix(trimmed, "#") || len(pending) > maxBytes {
		// One physical line (nearly every line): its text as it is.
		l.text = trimmed
		l.scanned, l.comment, l.assign = true, comment, assign
		l.tooLong = len(l.text) > maxBytes
		if depth > 0 && !l.tooLong {
			l.unclosed = unclosedBracket(l.text)
		}
		return l, i
	}
	var b strings.Builder
	// A comment line never continues; an open bracket pulls in following lines.
	for depth > 0 && i < len(lines) && !strings.HasPrefix(trimmed, "#") && b.Len()+len(pending) <= maxBytes {
		// A comment inside the brackets ends its physical line only (PyTorch
		// ≥ 2.9 prints one parameter a line: `x: "f32[4]",  # PlainAOTInput(idx=0)`).
		b.WriteString(cutComment(pending))
		next := lines[i]
		t := strings.TrimLeft(next.text, " \t")
		l.segs = append(l.segs, segment{b.Len() + 1, next.num, next.off + len(next.text) - len(t)})
		b.WriteByte(' ')
		pending = t
		depth += bracketDelta(t)
		i++
	}
	b.WriteString(pending)
	l.text = b.String()
	l.tooLong = len(l.text) > maxBytes
	if depth > 0 && !l.tooLong {
		l.unclosed = unclosedBracket(l.text)
	}
	return l, i
}

// cutComment drops a trailing comment (outside strings) and the blanks before it.
func cutComment(s string) string {
	at := commentAt(s)
	if at < 0 {
		return s
	}
	return strings.TrimRight(s[:at], " \t")
}

// commentAt returns the offset of the '#' starting a comment (outside
// strings), or -1.
func commentAt(s string) int {
	at := -1
	codeRuns(s, func(off int, run string) bool {
		if j := strings.IndexByte(run, '#'); j >= 0 {
			at = off + j
			return false
		}
		return true
	})
	return at
}

// unclosedBracket returns the offset of the outermost bracket that is never
// closed (or of an unterminated string inside it), or -1.
func unclosedBracket(s string) int {
	var stack []int
	openQuote := codeBytes(s, func(i int, c byte) bool {
		switch {
		case isOpen(c):
			stack = append(stack, i)
		case isClose(c) && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
		return true
	})
	if openQuote >= 0 {
		return openQuote // an unterminated string is what left the bracket open
	}
	if len(stack) == 0 {
		return -1
	}
	return stack[0]
}
