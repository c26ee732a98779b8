package golang

import (
	"bytes"
	"go/format"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// GenerateTo streams what Generate returns, byte for byte, and hands over
// every kernel's code in program order, each a piece of the file.
func TestGenerateToMatchesGenerate(t *testing.T) {
	for _, c := range loadLoweringCases(t) {
		want, err := Generate(c.prog, "kilngen")
		require.NoError(t, err, c.name)
		var got bytes.Buffer
		var next int
		var owners []int // kernels with code of their own (a kernel that shares another's has none)
		for i, k := range c.prog.Kernels {
			if k.SharesCode == nil {
				owners = append(owners, i)
			}
		}
		err = GenerateTo(&got, c.prog, "kilngen", func(i int, src string) {
			require.Less(t, next, len(owners), c.name)
			require.Equal(t, owners[next], i, c.name)
			next++
			require.Contains(t, string(want), strings.TrimRight(src, "\n"), c.name)
			require.Contains(t, src, "func "+c.prog.Kernels[i].Name+"(", c.name)
		})
		require.NoError(t, err, c.name)
		require.Equal(t, string(want), got.String(), c.name)
		require.Equal(t, len(owners), next, c.name)
	}
}

// Chunks wait for the header only up to maxPending bytes: past it math is
// imported whatever the chunks use, and a file that never used it ends by
// doing so, so that it still compiles. Below it, no math import at all.
func TestFileWriterBoundsWhatWaitsForTheHeader(t *testing.T) {
	write := func(chunks []string) string {
		var out bytes.Buffer
		fw := &fileWriter{w: &out, header: func(w io.Writer, math bool) error {
			return writeHeader(w, "g", "kilngen", "kilngen/rt", math)
		}}
		for _, c := range chunks {
			fw.add(c)
		}
		require.NoError(t, fw.finish())
		return out.String()
	}
	fn := "func f() int {\n\treturn 1\n}\n\n"
	small := write([]string{fn, fn})
	require.NotContains(t, small, "math")

	var many []string
	for n := 0; n <= maxPending; n += len(fn) {
		many = append(many, fn)
	}
	big := write(many)
	require.Contains(t, big, "\t\"math\"\n")
	require.True(t, strings.HasSuffix(big, "\nvar _ = math.Abs // imported before the kernels were all written\n"))
	formatted, err := format.Source([]byte(big))
	require.NoError(t, err)
	require.Equal(t, big, string(formatted), "gofmt-clean")
}
