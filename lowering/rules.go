package lowering

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kiln-compiler/kiln/ops"
)

// rule lowers one node whose arguments are bound to its op's schema.
type rule func(l *lowerer, c *ops.Call) error

// rules maps a registry op ("aten::add.Tensor") to its lowering. Each family
// declares its ops as data in its own file (rules_pointwise.go,
// rules_reduce.go, rules_shape.go); ops of the view and sym families need
// no entry (lowerByKind).
var rules = buildRules(pointwiseRules(), castRules(), factoryRules(), reduceRules(), shapeRules(), remapRules(), padBackwardRules(),
	externRules(), scatterRules(), indexRules(), nnRules(), indirectRules(),
	indexPutRules(), scatterFamilyRules(), batchNormRules(), resizeRules(), matvecRules(), poolRules(), poolBackwardRules(), adaptivePoolRules(), scanRules())

// buildRules merges the family tables; a name declared twice is a bug in
// the tables, caught by the package tests through RuleNames.
func buildRules(tables ...map[string]rule) map[string]rule {
	out := map[string]rule{}
	for _, t := range tables {
		for name, r := range t {
			if _, dup := out[qualify(name)]; dup {
				panic("lowering: two rules for " + name)
			}
			out[qualify(name)] = r
		}
	}
	return out
}

// qualify prefixes aten:: and .default where a table name omits them.
func qualify(name string) string {
	if !strings.Contains(name, "::") {
		name = "aten::" + name
	}
	if !strings.Contains(name[strings.Index(name, "::")+2:], ".") {
		name += ".default"
	}
	return name
}

// RuleNames lists the ops that have a lowering rule, sorted (views and sym
// ops, lowered by family, are not listed).
func RuleNames() []string {
	out := make([]string, 0, len(rules))
	for n := range rules {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// HasRule reports whether the op (qualified name) lowers: by a rule, or by
// its family (views, sym ops).
func HasRule(op *ops.Op) bool {
	if _, ok := rules[op.QualifiedName()]; ok {
		return true
	}
	return op.Kind == ops.KindView && !op.Mutates() || op.Kind == ops.KindSym
}

// resultRef allocates the buffer of the node's only (or i-th) result.
func (l *lowerer) resultRef(c *ops.Call, i int) (tensorRef, error) {
	if i >= len(c.Node.Results) {
		return tensorRef{}, fmt.Errorf("%s has no result %d", c.Node.Name, i)
	}
	return l.fresh(c.Node.Results[i])
}
