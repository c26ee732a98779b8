package lit_test

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/lit"
)

// Every txtar case under testdata/ speaks the vocabulary (or a declared
// extra): a new section name must be added here, on purpose.
func TestVocabulary(t *testing.T) {
	count := map[string]int{}
	n := 0
	err := filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txtar") {
			return err
		}
		ar, err := txtar.ParseFile(path)
		if err != nil {
			return err
		}
		n++
		for _, f := range ar.Files {
			c, ok := lit.Canonical(f.Name)
			assert.True(t, ok, "%s: section %q is not in the vocabulary (internal/lit)", path, f.Name)
			count[c]++
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, n, 100, "the walk found the cases")
	var names []string
	for k, v := range count {
		names = append(names, k+" ×"+strconv.Itoa(v))
	}
	sort.Strings(names)
	t.Logf("%d cases; sections: %s", n, strings.Join(names, ", "))
}

func TestGet(t *testing.T) {
	ar := txtar.Parse([]byte("-- input.fx --\ngraph\n-- output --\nprog\n-- remarks --\nr\n"))
	in, ok := lit.Get(ar, "input")
	assert.True(t, ok)
	assert.Equal(t, "graph\n", in)
	out, _ := lit.Get(ar, "output")
	assert.Equal(t, "prog\n", out)
	_, ok = lit.Get(ar, "diagnostics")
	assert.False(t, ok)
	c, ok := lit.Canonical("input.jsonl")
	assert.True(t, ok)
	assert.Equal(t, "input", c)
	c, ok = lit.Canonical("output.facts")
	assert.True(t, ok)
	assert.Equal(t, "output", c)
	c, ok = lit.Canonical("checks") // an extra a runner declared
	assert.True(t, ok)
	assert.Equal(t, "checks", c)
	_, ok = lit.Canonical("expected")
	assert.False(t, ok)
}

// The legacy names the cases used before the one vocabulary are refused
// now: nothing maps them, so a case written the old way fails TestVocabulary.
func TestLegacyNamesRefused(t *testing.T) {
	for _, name := range []string{"in.fx", "source", "want", "program", "fused", "facts", "nodes", "diags", "error"} {
		_, ok := lit.Canonical(name)
		assert.False(t, ok, "%s", name)
	}
	ar := txtar.Parse([]byte("-- in.fx --\ngraph\n-- fused --\nprog\n"))
	_, ok := lit.Get(ar, "input")
	assert.False(t, ok)
	_, ok = lit.Get(ar, "output")
	assert.False(t, ok)
	assert.Panics(t, func() { lit.Get(ar, "fused") }, "Get takes a vocabulary word")
	assert.Panics(t, func() { lit.Get(ar, "input.fx") }, "Get takes the word, not a file name")
}

func TestSectionExactNames(t *testing.T) {
	ar := txtar.Parse([]byte("-- output.facts --\nf\n-- output.nodes --\nn\n"))
	assert.Equal(t, "n\n", lit.Section(ar, "output.nodes"))
	assert.Equal(t, "", lit.Section(ar, "output"), "exact: output is not output.facts")
	assert.True(t, lit.Has(ar, "output.facts"))
	assert.False(t, lit.Has(ar, "diagnostics"))
	lit.SetSection(ar, "output.facts", "g\n")
	lit.SetSection(ar, "remarks", "r\n")
	assert.Equal(t, "-- output.facts --\ng\n-- output.nodes --\nn\n-- remarks --\nr\n", string(txtar.Format(ar)))
	for _, legacy := range []string{"in.fx", "program", "fused", "error", "source"} {
		assert.Panics(t, func() { lit.Section(ar, legacy) }, legacy)
		assert.Panics(t, func() { lit.SetSection(ar, legacy, "") }, legacy)
	}
}
