package ir

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// denseIndex numbers a graph's values and nodes by their ids, for a graph
// whose ids are unique and dense (every graph the parser and the passes
// build): the verifier's sets and counts are then slices, not maps keyed
// by pointers, which on a 1M-node graph cost seconds of hashing.
type denseIndex struct {
	owner []*Value // owner[id] is the graph value with that id
	// at[id] is the position in g.Nodes of the node defining the value, -1
	// for an input: a use at node k is after its definition when at < k,
	// which lets the nodes be checked in any order, on every core.
	at    []int32
	nodes int // one past the largest node id
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
	at := make([]int32, maxV)
	own := func(v *Value, pos int) bool {
		if v.ID < 0 || v.ID >= len(owner) || owner[v.ID] != nil {
			return false
		}
		owner[v.ID], at[v.ID] = v, int32(pos)
		return true
	}
	for _, v := range g.Inputs {
		if !own(v, -1) {
			return nil
		}
	}
	seen := make([]bool, maxN)
	for k, n := range g.Nodes {
		if n.ID < 0 || n.ID >= len(seen) || seen[n.ID] {
			return nil
		}
		seen[n.ID] = true
		for _, r := range n.Results {
			if !own(r, k) {
				return nil
			}
		}
	}
	return &denseIndex{owner: owner, at: at, nodes: maxN}
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
// duplicate-id checks cannot fire. A large graph's nodes are checked in
// chunks on every core, each chunk's problems kept in order and joined
// in chunk order.
func (v *verifier) runDense(stage Stage, ix *denseIndex) {
	// A value is defined before node k when the graph owns it and its
	// definition comes first (at < k); inputs are defined before every node.
	for _, in := range v.g.Inputs {
		if in.Def != nil {
			v.fail(nil, "input %s has a defining node", in.Name)
		}
	}
	uses := make([]int32, len(ix.owner))
	nodes := v.g.Nodes
	workers := min(runtime.GOMAXPROCS(0), len(nodes)/parallelVerifyChunk)
	if workers < 2 {
		v.checkNodes(stage, ix, uses, 0, len(nodes), false)
	} else {
		parts := make([]verifier, workers)
		var wg sync.WaitGroup
		for w := range parts {
			lo, hi := len(nodes)*w/workers, len(nodes)*(w+1)/workers
			parts[w].g = v.g
			wg.Add(1)
			go func() {
				defer wg.Done()
				parts[w].checkNodes(stage, ix, uses, lo, hi, true)
			}()
		}
		wg.Wait()
		for w := range parts {
			v.problems = append(v.problems, parts[w].problems...)
		}
	}
	outUses := map[*Value]int{}
	for i := range v.g.Outputs {
		v.g.Outputs[i].Walk(func(out *Value) {
			outUses[out]++
			if ix.index(out) < 0 {
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

// parallelVerifyChunk is the fewest nodes worth a core of their own.
const parallelVerifyChunk = 50000

// checkNodes runs the per-node checks on g.Nodes[lo:hi], counting uses
// into uses (atomically when shared).
func (v *verifier) checkNodes(stage Stage, ix *denseIndex, uses []int32, lo, hi int, shared bool) {
	for k := lo; k < hi; k++ {
		n := v.g.Nodes[k]
		if n.graph != v.g {
			v.fail(n, "node belongs to another graph")
		}
		for a := range n.Args {
			v.denseUses(n, k, &n.Args[a], ix, uses, shared)
		}
		for a := range n.Kwargs {
			v.denseUses(n, k, &n.Kwargs[a].Arg, ix, uses, shared)
		}
		v.checkCall(n)
		for i, r := range n.Results {
			if r.Def != n || r.Index != i {
				v.fail(n, "result %d (%s) does not point back at its node", i, r.Name)
			}
		}
		if stage >= StageTyped {
			v.checkTyped(n)
		}
		if stage >= StageFunctional {
			v.checkFunctional(n)
		}
	}
}

// denseUses counts the uses in one argument of the node at position k and
// checks each is defined before it.
func (v *verifier) denseUses(n *Node, k int, a *Arg, ix *denseIndex, uses []int32, shared bool) {
	switch a.Kind {
	case ArgValue:
		in := a.Value
		i := ix.index(in)
		if i >= 0 {
			if shared {
				atomic.AddInt32(&uses[i], 1)
			} else {
				uses[i]++
			}
		}
		if i < 0 || int(ix.at[i]) >= k {
			v.fail(n, "uses %s before its definition", in.Name)
		}
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		for i := range a.Elems {
			v.denseUses(n, k, &a.Elems[i], ix, uses, shared)
		}
	}
}
