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
// alias or extra): a new section name must be added here, on purpose.
func TestVocabulary(t *testing.T) {
	legacy := map[string]int{}
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
			base, _, _ := strings.Cut(f.Name, ".")
			if ok && base != c {
				legacy[base+"→"+c]++
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, n, 100, "the walk found the cases")
	var names []string
	for k, v := range legacy {
		names = append(names, k+" ×"+strconv.Itoa(v))
	}
	sort.Strings(names)
	t.Logf("%d cases; legacy names still in use: %s", n, strings.Join(names, ", "))
}

func TestGetAcceptsAliases(t *testing.T) {
	ar := txtar.Parse([]byte("-- in.fx --\ngraph\n-- fused --\nprog\n-- remarks --\nr\n"))
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
	_, ok = lit.Canonical("expected")
	assert.False(t, ok)
}
