package ir

import (
	"slices"
	"unsafe"
)

// textBuf is the printer's output buffer: a strings.Builder whose bytes
// can be handed to a writer and the buffer reused, so that WriteTo
// prints a 1M-node graph through a few buffers instead of allocating
// (and collecting) its whole text chunk by chunk.
type textBuf struct{ b []byte }

func (t *textBuf) WriteString(s string)   { t.b = append(t.b, s...) }
func (t *textBuf) WriteByte(c byte) error { t.b = append(t.b, c); return nil }
func (t *textBuf) Write(p []byte)         { t.b = append(t.b, p...) }
func (t *textBuf) Len() int               { return len(t.b) }
func (t *textBuf) Grow(n int)             { t.b = slices.Grow(t.b, n) }

// Reset empties t, keeping its memory: only once no string from String
// is in use.
func (t *textBuf) Reset() { t.b = t.b[:0] }

// String returns the text without copying it, as strings.Builder does:
// t must not be written to or Reset afterwards.
func (t *textBuf) String() string { return unsafe.String(unsafe.SliceData(t.b), len(t.b)) }
