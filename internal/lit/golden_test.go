package lit_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/lit"
)

func TestGoldenUpdate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.txtar")
	ar := txtar.Parse([]byte("what it checks\n-- input.fx --\ng\n-- remarks --\nold\n-- pipeline --\np\n"))
	got := map[string]string{"output.fx": "out\n", "remarks": ""}
	lit.Golden{File: file, Archive: ar, Names: []string{"output.fx", "remarks"}, Drop: true}.Check(t, got, true)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "what it checks\n-- input.fx --\ng\n-- pipeline --\np\n-- output.fx --\nout\n", string(data), "Drop: empty removed, owned appended")

	ar = txtar.Parse([]byte("-- input.fx --\ng\n-- remarks --\nold\n-- pipeline --\np\n"))
	lit.Golden{File: file, Archive: ar, Names: []string{"remarks"}}.Check(t, map[string]string{"remarks": "new\n"}, true)
	data, err = os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "-- input.fx --\ng\n-- remarks --\nnew\n-- pipeline --\np\n", string(data), "in place")
}

func TestGoldenCompare(t *testing.T) {
	ar := txtar.Parse([]byte("-- output --\nprog\n\n"))
	g := lit.Golden{File: "c.txtar", Archive: ar, Names: []string{"output"}, Trim: true}
	g.Check(t, map[string]string{"output": "prog"}, false) // trailing newlines aside
	mock := &recorder{TB: t}
	lit.Golden{File: "c.txtar", Archive: ar, Names: []string{"output"}}.Check(mock, map[string]string{"output": "prog"}, false)
	assert.True(t, mock.failed, "exact compare sees the missing newlines")
	mock = &recorder{TB: t}
	g.Check(mock, map[string]string{"output": "other"}, false)
	assert.True(t, mock.failed)
}

// recorder is a testing.TB that records a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
