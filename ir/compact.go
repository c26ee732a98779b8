package ir

// Compact moves the graph's nodes, values and argument lists into fresh
// chunks and lets the old ones go. A removed node stays in its chunk while
// any neighbour lives (see Chunks): after DCE drops the 69k dead views of
// a 215k-node graph of mutations, a third of every chunk holds nothing the
// graph can reach, for the rest of the compile. The graph prints and
// verifies as before, with the same IDs. Pointers to its old nodes and
// values held outside it go stale, so only a pass that owns the graph
// calls it (dce), and only between passes.
func (g *Graph) Compact() {
	if !g.idsUnique() {
		return // the maps below go by ID
	}
	c := compactor{vals: make([]moved[Value], g.nextValue), nodes: make([]moved[Node], g.nextNode)}
	for i, v := range g.Inputs {
		g.Inputs[i] = c.moveValue(v, nil)
	}
	for i, n := range g.Nodes {
		g.Nodes[i] = c.moveNode(n)
	}
	m := argMapper{value: c.value}
	for _, n := range g.Nodes {
		n.Args, n.Kwargs = m.args(n.Args), m.kwargs(n.Kwargs)
	}
	for _, mv := range c.vals {
		if v := mv.new; v != nil && len(v.users) > 0 {
			users := c.s.users.Take(len(v.users))
			for i, u := range v.users {
				users[i] = c.node(u)
			}
			v.users = users
		}
	}
	g.Outputs = m.args(g.Outputs)
	g.slab = c.s.slab
}

// idsUnique says whether every node and value of the graph has its own ID
// below the next one to hand out, as NewNode, AddResult and Renumber give.
func (g *Graph) idsUnique() bool {
	vals := make([]bool, g.nextValue)
	nodes := make([]bool, g.nextNode)
	seen := func(ids []bool, id int) bool {
		if id < 0 || id >= len(ids) || ids[id] {
			return true
		}
		ids[id] = true
		return false
	}
	for _, v := range g.Inputs {
		if seen(vals, v.ID) {
			return false
		}
	}
	for _, n := range g.Nodes {
		if seen(nodes, n.ID) {
			return false
		}
		for _, r := range n.Results {
			if seen(vals, r.ID) {
				return false
			}
		}
	}
	return true
}

// compactor maps the old nodes and values to their copies by ID (unique
// and below the graph's next ID: idsUnique).
type compactor struct {
	s struct {
		slab
		users Chunks[*Node]
	}
	vals  []moved[Value]
	nodes []moved[Node]
}

// moved is an old object and its copy.
type moved[T any] struct{ old, new *T }

func (c *compactor) moveValue(v *Value, def *Node) *Value {
	nv := c.s.values.One()
	*nv = *v
	nv.Def = def
	c.vals[v.ID] = moved[Value]{v, nv}
	return nv
}

func (c *compactor) moveNode(n *Node) *Node {
	nn := c.s.nodes.One()
	*nn = *n
	if len(n.Results) > 0 {
		nn.Results = c.s.results.Take(len(n.Results))
		for i, r := range n.Results {
			nn.Results[i] = c.moveValue(r, nn)
		}
	}
	c.nodes[n.ID] = moved[Node]{n, nn}
	return nn
}

// value is v's copy; a value the graph does not define (one of another
// graph, whose ID may be taken here: a verifier error elsewhere) stays as
// it is.
func (c *compactor) value(v *Value) *Value {
	if v != nil && v.ID >= 0 && v.ID < len(c.vals) && c.vals[v.ID].old == v {
		return c.vals[v.ID].new
	}
	return v
}

func (c *compactor) node(n *Node) *Node {
	if n.ID >= 0 && n.ID < len(c.nodes) && c.nodes[n.ID].old == n {
		return c.nodes[n.ID].new
	}
	return n
}
