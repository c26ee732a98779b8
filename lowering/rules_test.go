package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
)

// Every rule names a registry op (a typo in a table would never fire), and
// the pointwise coverage is logged as a visible row per gap. An op counts
// when it has a lowering rule or when the decompose pass rewrites it into
// ops that all have one (checked node by node on the decompose cases).
func TestRulesNameRegistryOps(t *testing.T) {
	for _, name := range lowering.RuleNames() {
		assert.NotNil(t, ops.Lookup(name), "rule for %s, which is not in the registry", name)
	}
	viaDecompose := lowerableByDecomposition(t)
	var covered, decomposed, total int
	var missing []string
	for _, op := range ops.Default().All() {
		if op.Kind != ops.KindPointwise || op.Mutates() {
			continue
		}
		total++
		if lowering.HasRule(op) {
			covered++
		} else if viaDecompose[op.QualifiedName()] {
			covered++
			decomposed++
		} else {
			missing = append(missing, op.QualifiedName())
		}
	}
	t.Logf("functional pointwise ops with a lowering: %d of %d (%d of them through decompose); without: %v",
		covered, total, decomposed, missing)
	assert.Greater(t, covered, total*3/4)
}
