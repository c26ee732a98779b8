package golang

import (
	"errors"
	"fmt"
	"go/format"
	"hash/maphash"
	"runtime"
	"strings"
	"sync"
)

// formatter gofmts chunks (lists of top-level declarations) in place,
// once per shape, across calls: a program's kernels are formatted a
// window at a time (generate), so its shapes are remembered between
// windows.
//
// go/format was a third of `kiln compile`'s CPU on large graphs, and most
// of it went to kernels that differ only in their numbers: kernel12 and
// kernel812 of two transformer layers read b1955 and b2755 at the same
// offsets. gofmt changes only whitespace, and where it puts whitespace
// depends on the tokens' kinds and widths, never on which digits a token
// holds. So a chunk's shape is the chunk with every digit read as 0;
// one chunk of each shape is formatted (in parallel, GOMAXPROCS at a time)
// and the others take its layout with their own characters put back.
// Putting back checks that the formatted shape holds the chunk's
// characters in order; where it does not, the chunk is formatted itself.
// A long function is formatted in pieces (splitFunc).
type formatter struct {
	seed   maphash.Seed
	shapes map[uint64][]shapeRep // shape hash → the distinct shapes formatted so far
	kept   int                   // bytes held by shapes
}

// shapeRep is one formatted shape: a text and gofmt's output for it.
type shapeRep struct{ raw, formatted string }

// maxKeptShapes bounds the bytes of remembered shapes: a program whose
// kernels all differ would otherwise keep its whole source twice. Past
// it, new shapes are still formatted once per window, not remembered.
// A 155k-node transformer has 377 shapes in 9.4 MB; at 1.35M nodes a
// bound of 16 MB was reached and shapes formatted again window after
// window (go/format: 13% of the run).
const maxKeptShapes = 64 << 20

func newFormatter() *formatter {
	return &formatter{seed: maphash.MakeSeed(), shapes: map[uint64][]shapeRep{}}
}

// formatChunks gofmts chunks in place with a formatter of its own.
func formatChunks(chunks []string) error { return newFormatter().chunks(chunks) }

// chunks gofmts each chunk in place.
func (f *formatter) chunks(chunks []string) error {
	type unit struct {
		chunk int
		p     piece
	}
	var units []unit
	var texts []string // what gofmt reads: each unit's text in its wrapper
	var at []int       // units[k]'s text in texts (-1: kept as it is)
	for i, c := range chunks {
		ps, ok := splitFunc(c)
		if !ok {
			ps = []piece{{text: c}}
		}
		for _, p := range ps {
			units = append(units, unit{i, p})
			if p.keep {
				at = append(at, -1)
				continue
			}
			at = append(at, len(texts))
			texts = append(texts, p.prefix+p.text+p.suffix)
		}
	}
	if err := f.texts(texts); err != nil {
		return err
	}
	out := make([]strings.Builder, len(chunks))
	bad := make([]bool, len(chunks))
	for k, u := range units {
		text := u.p.text // a kept piece: already as gofmt prints it
		if at[k] >= 0 {
			var ok bool
			text, ok = unwrap(texts[at[k]], u.p.prefix, u.p.suffix)
			bad[u.chunk] = bad[u.chunk] || !ok
		}
		out[u.chunk].WriteString(text)
	}
	errs := make([]error, len(chunks))
	for i := range chunks {
		chunks[i] = out[i].String()
		if bad[i] { // a piece's wrapper did not come back as it went: format it whole
			chunks[i], errs[i] = gofmt(chunks[i])
		}
	}
	return errors.Join(errs...)
}

// unwrap cuts the wrapper a piece was formatted in off its formatted text.
func unwrap(text, prefix, suffix string) (string, bool) {
	t, ok := strings.CutPrefix(text, prefix)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(t, suffix)
}

// texts gofmts each text in place, once per shape.
func (f *formatter) texts(texts []string) error {
	// like[i] is the formatted shape text i takes: one remembered from an
	// earlier call, or (fresh) the first text of its shape in this call.
	like := make([]*shapeRep, len(texts))
	var fresh []*shapeRep
	var freshAt []int      // fresh[k] is texts[freshAt[k]]
	var freshHash []uint64 // and has this shape hash
	local := map[uint64][]*shapeRep{}
	for i, c := range texts {
		h := shapeHash(f.seed, c)
		for j := range f.shapes[h] {
			if sameShape(f.shapes[h][j].raw, c) {
				like[i] = &f.shapes[h][j]
				break
			}
		}
		for _, r := range local[h] {
			if like[i] == nil && sameShape(r.raw, c) {
				like[i] = r
			}
		}
		if like[i] == nil {
			r := &shapeRep{raw: c}
			local[h] = append(local[h], r)
			fresh, freshAt, freshHash = append(fresh, r), append(freshAt, i), append(freshHash, h)
			like[i] = r
		}
	}
	errs := make([]error, len(texts))
	parallel(len(fresh), func(k int) {
		fresh[k].formatted, errs[freshAt[k]] = gofmt(fresh[k].raw)
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for k, r := range fresh {
		if size := len(r.raw) + len(r.formatted); f.kept+size <= maxKeptShapes {
			f.kept += size
			f.shapes[freshHash[k]] = append(f.shapes[freshHash[k]], *r)
		}
	}
	parallel(len(texts), func(i int) {
		if like[i].raw == texts[i] { // the text formatted for its shape (or one equal to it)
			texts[i] = like[i].formatted
			return
		}
		if out, ok := relayout(like[i].formatted, texts[i]); ok {
			texts[i] = out
			return
		}
		texts[i], errs[i] = gofmt(texts[i])
	})
	return errors.Join(errs...)
}

func gofmt(chunk string) (string, error) {
	out, err := format.Source([]byte(chunk))
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, chunk)
	}
	return string(out), nil
}

// parallel runs f(0..n-1), GOMAXPROCS at a time.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	var next sync.Mutex
	i := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= n {
					return
				}
				f(k)
			}
		}()
	}
	wg.Wait()
}

// shapeByte is b with every digit read as 0.
func shapeByte(b byte) byte {
	if b >= '0' && b <= '9' {
		return '0'
	}
	return b
}

func shapeHash(seed maphash.Seed, s string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var buf [4096]byte
	for len(s) > 0 {
		n := min(len(s), len(buf))
		for i := range n {
			buf[i] = shapeByte(s[i])
		}
		h.Write(buf[:n])
		s = s[n:]
	}
	return h.Sum64()
}

func sameShape(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if shapeByte(a[i]) != shapeByte(b[i]) {
			return false
		}
	}
	return true
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// relayout gives raw the layout of formatted, gofmt's output for another
// chunk of raw's shape: formatted's whitespace, raw's other characters in
// order. ok is false when formatted does not hold raw's non-space
// characters in order (up to digits), so gofmt changed more than layout.
func relayout(formatted, raw string) (string, bool) {
	var out strings.Builder // its String does not copy: the code is tens of MB
	out.Grow(len(formatted))
	j := 0
	for i := 0; i < len(formatted); i++ {
		c := formatted[i]
		if isSpace(c) {
			out.WriteByte(c)
			continue
		}
		for j < len(raw) && isSpace(raw[j]) {
			j++
		}
		if j == len(raw) || shapeByte(raw[j]) != shapeByte(c) {
			return "", false
		}
		out.WriteByte(raw[j])
		j++
	}
	for j < len(raw) && isSpace(raw[j]) {
		j++
	}
	return out.String(), j == len(raw)
}
