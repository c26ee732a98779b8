package lowering

import (
	"testing"

	"github.com/kiln-compiler/kiln/ops"

	"github.com/stretchr/testify/assert"
)

// Every rule that reads indices from a tensor has its op's bounds check
// declared (ops.IndexBoundsOf).
func TestIndexBoundsCoverIndirectRules(t *testing.T) {
	indirect := map[string]bool{}
	for _, table := range []map[string]rule{indirectRules(), indexPutRules(), scatterFamilyRules()} {
		for name := range table {
			indirect[qualify(name)] = true
		}
	}
	for name := range indirect {
		chk, ok := ops.IndexBoundsOf(name)
		assert.True(t, ok, "%s reads indices but declares no bounds check", name)
		assert.NotEmpty(t, chk.Msg, name)
	}
}
