package lowering_test

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/lowering"
)

// TestExternMultiPlan: the outputs of one extern call are written
// together, so buffer planning never lets one take over the other's
// memory, and no output takes over an operand of the same call.
func TestExternMultiPlan(t *testing.T) {
	path := filepath.Join(caseDir, "extern_multi_consumers.txtar")
	arch, err := txtar.ParseFile(path)
	require.NoError(t, err)
	g := compile(t, path, fxtest.Section(arch, "input.fx"), defaultPipeline)
	p, err := lowering.Lower(g, lowering.Options{Name: "g"})
	require.NoError(t, err)
	_, err = lowering.Fuse(p, lowering.FuseOptions{})
	require.NoError(t, err)
	lowering.PlanBuffers(p)
	require.NoError(t, lowering.Verify(p), "%s", p)
	root := func(b *lowering.Buffer) *lowering.Buffer {
		for b.ReuseOf != nil {
			b = b.ReuseOf
		}
		return b
	}
	externs := 0
	for _, k := range p.Kernels {
		if k.Extern == nil {
			continue
		}
		externs++
		seen := map[*lowering.Buffer]string{}
		for _, a := range k.Extern.Args {
			seen[root(a.Buffer)] = "operand " + a.Buffer.Name
		}
		for _, w := range k.Extern.Written() {
			r := root(w)
			assert.Empty(t, seen[r], "%s: %s shares memory with %s", k.Name, w.Name, seen[r])
			seen[r] = "output " + w.Name
		}
	}
	assert.Equal(t, 2, externs)
}
