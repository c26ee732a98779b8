package lowering

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every rule that reads indices from a tensor has its op's bounds check
// declared, and no check is declared for an op without such a rule.
func TestIndexBoundsCoverIndirectRules(t *testing.T) {
	indirect := map[string]bool{}
	for _, table := range []map[string]rule{indirectRules(), indexPutRules(), scatterFamilyRules()} {
		for name := range table {
			indirect[qualify(name)] = true
		}
	}
	for name := range indirect {
		_, ok := indexBounds[name]
		assert.True(t, ok, "%s reads indices but declares no bounds check", name)
	}
	for name, chk := range indexBounds {
		assert.True(t, indirect[name], "%s has a bounds check but no indirect rule", name)
		assert.NotEmpty(t, chk.msg, name)
	}
}
