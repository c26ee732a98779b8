package ir

// Use lists after bulk rewrites (passes/build, functionalize, vmap): a pass
// sets Node.Args and Graph.Nodes directly, then restores the use lists
// once, in time linear in the graph.

// RebuildUses recomputes every value's use list and output-use count from
// the nodes' arguments and the graph outputs. A pass that rewrites many
// arguments at once assigns Args, Kwargs, Nodes and Outputs directly and
// calls RebuildUses at the end, instead of paying SetArgs's per-use scans.
func (g *Graph) RebuildUses() {
	for _, v := range g.Inputs {
		v.users, v.outputUses = v.users[:0], 0
	}
	for _, n := range g.Nodes {
		for _, r := range n.Results {
			r.users, r.outputUses = r.users[:0], 0
		}
	}
	for _, n := range g.Nodes {
		n.addUses()
	}
	for i := range g.Outputs {
		g.Outputs[i].Walk(func(v *Value) { v.outputUses++ })
	}
}
