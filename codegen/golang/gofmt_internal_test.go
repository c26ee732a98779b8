package golang

import (
	"fmt"
	"go/format"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// formatChunks formats once per shape; every chunk must still come out as
// gofmt prints it on its own, digits and all, alignment included.
func TestFormatChunksPerShape(t *testing.T) {
	chunks := []string{
		"func kernel1(b1 []byte) error {\nx := b1[(1024*x0 + 16*x1)+xs : (1024*x0 + 16*x1)+xe]\nb2 := rt.Reuse(b1, 4096) // reuses buf1\nb3 := rt.Reuse(b2, 32768) // reuses buf2\nreturn nil\n}\n",
		"func kernel7(b9 []byte) error {\nx := b9[(2048*x0 + 32*x1)+xs : (2048*x0 + 32*x1)+xe]\nb5 := rt.Reuse(b9, 1024) // reuses buf9\nb6 := rt.Reuse(b5, 65536) // reuses buf5\nreturn nil\n}\n",
		// Same shape as the next, but gofmt rewrites 0X to 0x: not a
		// change of layout, so the second is formatted on its own.
		"var a = 0X10\n",
		"var b = 0X20\n",
		"func kernel12(b10 []byte) error {\nreturn nil\n}\n",
	}
	want := make([]string, len(chunks))
	for i, c := range chunks {
		out, err := format.Source([]byte(c))
		require.NoError(t, err)
		want[i] = string(out)
	}
	require.NoError(t, formatChunks(chunks))
	require.Equal(t, want, chunks)
	require.Contains(t, chunks[1], "b5 := rt.Reuse(b9, 1024)  // reuses buf9")
	require.Equal(t, "var b = 0x20\n", chunks[3])

	require.Error(t, formatChunks([]string{"func {\n"}))
}

func TestRelayout(t *testing.T) {
	out, ok := relayout("a := b[1:2]\n\tc := 3 // x\n", "a:=b[7:8]\nc:=9 // x")
	require.True(t, ok)
	require.Equal(t, "a := b[7:8]\n\tc := 9 // x\n", out)
	_, ok = relayout("a := b\n", "a := c\n")
	require.False(t, ok, "a letter differs: not a layout of raw")
	_, ok = relayout("a := b\n", "a := b + 1\n")
	require.False(t, ok, "raw has characters formatted lacks")
	_, ok = relayout("a := b + 1\n", "a := b\n")
	require.False(t, ok, "formatted has characters raw lacks")
}

// A long function is formatted in pieces; the pieces together must be what
// gofmt prints for the whole, comment alignment and blank lines included.
func TestFormatChunksSplitsLongFunc(t *testing.T) {
	var b strings.Builder
	b.WriteString("// Info is a table.\nvar Info = &rt.Program{Name: \"g\",\nInputs: []string{\"x\",\n\"y\"}}\n\n// Run runs.\nfunc Run(x int) (int, error) {\n")
	for i := range 700 {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "b%d := rt.Reuse(b%d, %d) // reuses buf%d\n", i, i/2, 1<<(i%13), i/2)
		case 1:
			fmt.Fprintf(&b, "if err := kernel%d(b%d, b%d); err != nil {\nreturn 0, fmt.Errorf(\"kernel%d: %%w\", err)\n}\n", i, i, i-1, i)
		case 2:
			b.WriteString("\n")
		case 3:
			fmt.Fprintf(&b, "x = x*%d + (x / 2)\n", i)
		default:
			fmt.Fprintf(&b, "s%d := []int64{%d, %d,\n%d}\n_ = s%d\n", i, i, i+1, i+2, i)
		}
	}
	b.WriteString("return x, nil\n}\n\n")
	chunk := b.String()
	pieces, ok := splitFunc(chunk)
	require.True(t, ok)
	require.Greater(t, len(pieces), 4)
	want, err := format.Source([]byte(chunk))
	require.NoError(t, err)
	chunks := []string{chunk}
	require.NoError(t, formatChunks(chunks))
	require.Equal(t, string(want), chunks[0])

	_, ok = splitFunc("func f() {\nx := `raw\n}\n")
	require.False(t, ok, "short")
}
