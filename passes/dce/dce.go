// Package dce removes nodes whose results nobody uses and that have no
// side effects.
package dce

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

func init() {
	passes.Register(passes.Info{
		Name:    "dce",
		Summary: "dead-code elimination: drop side-effect-free nodes whose results are unused",
		New:     func(passes.Options) (passes.Pass, error) { return pass{}, nil },
	})
}

type pass struct{}

func (pass) Name() string { return "dce" }

// Run walks the graph backwards once: a node is dead when every result is
// unused (counting only live users) and it has no side effects. Going
// backwards frees whole chains in one sweep. A graph that lost many nodes
// is compacted, so pointers to its nodes taken before Run go stale.
func (pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	dead := map[*ir.Node]bool{}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		ctx.At(n)
		if ir.HasSideEffects(n) || !allResultsDead(n, dead) {
			continue
		}
		dead[n] = true
		ctx.Remark(n, "dce", "removed %s (%s): result unused", n.Name, n.Target)
	}
	if len(dead) == 0 {
		return false, nil
	}
	g.RemoveDead(dead)
	if len(dead) >= len(g.Nodes)/compactFraction {
		g.Compact()
	}
	return true, nil
}

// compactFraction: dce compacts the graph (ir.Graph.Compact) when it
// removed at least 1/compactFraction as many nodes as it kept. The dead
// nodes' chunks would otherwise stay allocated to the end of the compile
// (a 146k-node graph of mutations keeps 45 MB of them); copying the
// live ones costs about as much as DCE's own walk.
const compactFraction = 8

func allResultsDead(n *ir.Node, dead map[*ir.Node]bool) bool {
	for _, r := range n.Results {
		if r.NumUses() != len(r.Users()) {
			return false // a graph output
		}
		for _, u := range r.Users() {
			if !dead[u] {
				return false
			}
		}
	}
	return true
}
