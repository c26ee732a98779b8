package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// TypeNode types n's results through op's meta rule: bind the call to the
// schema, run the rule, store the result types. On an error n's types are
// left as they were. Passes that build nodes (functionalize, vmap,
// decompose, through passes/build or their own emitters) share it.
func TypeNode(env *Env, op *Op, n *ir.Node) error {
	if op == nil || op.Meta == nil {
		return fmt.Errorf("no meta rule")
	}
	c, err := Bind(n)
	if err != nil {
		return err
	}
	types, err := op.Meta(env, c)
	if err != nil {
		return err
	}
	if len(types) < len(n.Results) {
		return fmt.Errorf("%d results typed, %d needed", len(types), len(n.Results))
	}
	for i, r := range n.Results {
		r.Type = types[i]
	}
	return nil
}
