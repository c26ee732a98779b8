package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
)

// Every rule names a registry op (a typo in a table would never fire), and
// the pointwise coverage is logged as a visible row per gap.
func TestRulesNameRegistryOps(t *testing.T) {
	for _, name := range lowering.RuleNames() {
		assert.NotNil(t, ops.Lookup(name), "rule for %s, which is not in the registry", name)
	}
	var covered, total int
	var missing []string
	for _, op := range ops.Default().All() {
		if op.Kind != ops.KindPointwise || op.Mutates() {
			continue
		}
		total++
		if lowering.HasRule(op) {
			covered++
		} else {
			missing = append(missing, op.QualifiedName())
		}
	}
	t.Logf("functional pointwise ops with a lowering: %d of %d; without: %v", covered, total, missing)
	assert.Greater(t, covered, total*3/4)
}
