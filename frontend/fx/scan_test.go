package fx

import (
	"math/rand"
	"testing"
)

// codeBytesRef is the byte-at-a-time scanner codeRuns replaced: the
// definition of what is code and what is inside a string literal.
func codeBytesRef(s string, visit func(i int, c byte) bool) (openQuote int) {
	var quote byte
	openQuote = -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote, openQuote = 0, -1
			}
		case c == '\'' || c == '"':
			quote, openQuote = c, i
		default:
			if !visit(i, c) {
				return -1
			}
		}
	}
	return openQuote
}

// TestCodeRunsAgrees: codeBytes (over codeRuns, which jumps from quote to
// quote) visits the same bytes and reports the same open quote as the
// reference, on random strings dense in quotes, escapes and '#'.
func TestCodeRunsAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(`ab'"\#(=`)
	for iter := 0; iter < 200000; iter++ {
		b := make([]byte, rng.Intn(12))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		s := string(b)
		stopAt := rng.Intn(14) // stop after this many bytes (often never)
		var got, want []int
		gq := codeBytes(s, func(i int, c byte) bool { got = append(got, i); return len(got) != stopAt })
		wq := codeBytesRef(s, func(i int, c byte) bool { want = append(want, i); return len(want) != stopAt })
		if gq != wq || len(got) != len(want) {
			t.Fatalf("%q: visited %v open %d, want %v open %d", s, got, gq, want, wq)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: visited %v, want %v", s, got, want)
			}
		}
	}
}

// TestScanLineAgrees: scanLine's one pass finds what the separate scans
// find: the bracket depth up to the comment, the comment, and findAssign's
// '=' in the text before the comment.
func TestScanLineAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []byte(`a'"\#(=)[<>!] `)
	for iter := 0; iter < 200000; iter++ {
		b := make([]byte, rng.Intn(14))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		s := string(b)
		depth := 0
		codeBytesRef(s, func(i int, c byte) bool {
			switch {
			case c == '#':
				return false
			case isOpen(c):
				depth++
			case isClose(c):
				depth--
			}
			return true
		})
		comment := -1
		codeBytesRef(s, func(i int, c byte) bool {
			if c == '#' {
				comment = i
				return false
			}
			return true
		})
		code := s
		if comment >= 0 {
			code = s[:comment]
		}
		assign := findAssign(code)
		gd, gc, ga := scanLine(s)
		if gd != depth || gc != comment || ga != assign {
			t.Fatalf("%q: scanLine = %d, %d, %d; want %d, %d, %d", s, gd, gc, ga, depth, comment, assign)
		}
	}
}
