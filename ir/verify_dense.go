package ir

// denseIndex numbers a graph's values and nodes by their ids, for a graph
// whose ids are unique and dense (every graph the parser and the passes
// build): the verifier's sets and counts are then slices, not maps keyed
// by pointers, which on a 1M-node graph cost seconds of hashing.
type denseIndex struct {
	owner []*Value // owner[id] is the graph value with that id
	nodes int      // one past the largest node id
}

// newDenseIndex returns nil when some id is negative, repeated or far past
// the graph's size: the verifier then uses maps, which also report the
// repeated ids.
func newDenseIndex(g *Graph) *denseIndex {
	nvals := len(g.Inputs)
	for _, n := range g.Nodes {
		nvals += len(n.Results)
	}
	maxV := max(g.nextValue, nvals)
	maxN := max(g.nextNode, len(g.Nodes))
	if maxV > 4*nvals+1024 || maxN > 4*len(g.Nodes)+1024 {
		return nil // ids handed out far past the graph: not worth a table
	}
	owner := make([]*Value, maxV)
	own := func(v *Value) bool {
		if v.ID < 0 || v.ID >= len(owner) || owner[v.ID] != nil {
			return false
		}
		owner[v.ID] = v
		return true
	}
	for _, v := range g.Inputs {
		if !own(v) {
			return nil
		}
	}
	seen := make([]bool, maxN)
	for _, n := range g.Nodes {
		if n.ID < 0 || n.ID >= len(seen) || seen[n.ID] {
			return nil
		}
		seen[n.ID] = true
		for _, r := range n.Results {
			if !own(r) {
				return nil
			}
		}
	}
	return &denseIndex{owner: owner, nodes: maxN}
}

// index returns v's slot, or -1 for a value that is not the graph's.
func (ix *denseIndex) index(v *Value) int {
	if v.ID >= 0 && v.ID < len(ix.owner) && ix.owner[v.ID] == v {
		return v.ID
	}
	return -1
}

// runDense is run for a graph with a dense index: the same checks in the
// same order, so the same problems. Ids are known unique, so the
// duplicate-id checks cannot fire.
func (v *verifier) runDense(stage Stage, ix *denseIndex) {
	defined := make([]bool, len(ix.owner))
	uses := make([]int32, len(ix.owner))
	define := func(val *Value) {
		if i := ix.index(val); i >= 0 {
			defined[i] = true
		}
	}
	isDefined := func(val *Value) bool {
		i := ix.index(val)
		return i >= 0 && defined[i]
	}
	for _, in := range v.g.Inputs {
		define(in)
		if in.Def != nil {
			v.fail(nil, "input %s has a defining node", in.Name)
		}
	}
	for _, n := range v.g.Nodes {
		if n.graph != v.g {
			v.fail(n, "node belongs to another graph")
		}
		for a := range n.Args {
			v.denseUses(n, &n.Args[a], ix, uses, isDefined)
		}
		for k := range n.Kwargs {
			v.denseUses(n, &n.Kwargs[k].Arg, ix, uses, isDefined)
		}
		v.checkCall(n)
		for i, r := range n.Results {
			if r.Def != n || r.Index != i {
				v.fail(n, "result %d (%s) does not point back at its node", i, r.Name)
			}
			define(r)
		}
		if stage >= StageTyped {
			v.checkTyped(n)
		}
		if stage >= StageFunctional {
			v.checkFunctional(n)
		}
	}
	outUses := map[*Value]int{}
	for i := range v.g.Outputs {
		v.g.Outputs[i].Walk(func(out *Value) {
			outUses[out]++
			if !isDefined(out) {
				v.fail(nil, "output %s is not defined in the graph", out.Name)
			}
		})
	}
	check := func(val *Value) {
		if len(val.users) != int(uses[val.ID]) {
			v.fail(val.Def, "use list of %s has %d entries, arguments hold %d", val.Name, len(val.users), uses[val.ID])
		}
		if val.outputUses != outUses[val] {
			v.fail(val.Def, "output use count of %s is %d, outputs hold %d", val.Name, val.outputUses, outUses[val])
		}
	}
	for _, val := range v.g.Inputs {
		check(val)
	}
	for _, n := range v.g.Nodes {
		for _, val := range n.Results {
			check(val)
		}
	}
}

// denseUses counts the uses in one argument and checks each is defined.
func (v *verifier) denseUses(n *Node, a *Arg, ix *denseIndex, uses []int32, isDefined func(*Value) bool) {
	switch a.Kind {
	case ArgValue:
		in := a.Value
		if i := ix.index(in); i >= 0 {
			uses[i]++
		}
		if !isDefined(in) {
			v.fail(n, "uses %s before its definition", in.Name)
		}
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		for i := range a.Elems {
			v.denseUses(n, &a.Elems[i], ix, uses, isDefined)
		}
	}
}
