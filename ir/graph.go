// Package ir is kiln's graph IR: an SSA graph of ATen-level ops whose values
// carry fake-tensor types. Its text form is FX readable text, so a graph that
// kiln prints can be read back by kiln and by a PyTorch user.
package ir

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kiln-compiler/kiln/diag"
)

// Module is everything one input file held: one or more graphs (a forward and
// a backward, say), in file order.
type Module struct {
	File   string
	Graphs []*Graph
}

// Submodule finds the module's graph named name ("repeated_subgraph0"), nil
// when g was read alone or has no such sibling.
func (g *Graph) Submodule(name string) *Graph {
	if g.Module == nil {
		return nil
	}
	for _, s := range g.Module.Graphs {
		if s != g && s.Name == name {
			return s
		}
	}
	return nil
}

// Graph is one FX graph: placeholders, nodes in topological order, outputs.
type Graph struct {
	Name string // header class name ("GraphModule", "<lambda>") or "" for bare code
	// Title says where the graph came from when the input held several
	// ("[0/0] aot_forward_graph" in a TORCH_TRACE log); printed as a comment.
	Title   string
	Inputs  []*Value
	Nodes   []*Node
	Outputs []Arg
	// ReturnForm records how the return statement was written, so printing
	// keeps `return add` distinct from `return (add,)`.
	ReturnForm ReturnForm
	Pos        diag.Pos // the `def forward` line
	// Module is the module the graph was read with, nil for a graph built
	// alone: its other graphs are the submodules that higher-order ops
	// (invoke_subgraph) call by attribute name.
	Module *Module

	nextValue, nextNode int
	slab                slab
}

// ReturnForm is the spelling of a graph's return statement.
type ReturnForm uint8

const (
	ReturnTuple ReturnForm = iota // return (a, b) / return (a,) / return ()
	ReturnBare                    // return a
	ReturnNone                    // return None
	ReturnList                    // return [a, b]
)

// Value is an SSA value: a graph input or one result of a node.
type Value struct {
	ID    int
	Name  string
	Def   *Node // nil for graph inputs
	Index int   // result index within Def
	Type  Type  // inferred (or, before fakeprop, annotated) type
	// Annot is the type the source text annotated, kept so fakeprop can
	// check its inference against what PyTorch printed.
	Annot Type
	Attrs Attrs // derived facts printed as trailing comments
	Pos   diag.Pos

	users      []*Node // one entry per occurrence in a user's arguments
	outputUses int
}

// Node is one operation.
type Node struct {
	ID     int
	Name   string // the statement's target name
	Target string // canonical op name: "aten::add.Tensor", "operator.add", "get_attr", ...
	Form   CallForm
	Op     OpSchema // registry entry; nil when the op is unknown to kiln
	Args   []Arg
	Kwargs []Kwarg
	// Results are the values the node defines: one for most ops, several for
	// ops returning tuples or lists (split, var_mean), none for ops returning ().
	Results []*Value
	Attrs   Attrs
	Pos     diag.Pos
	// Stack is the `# File: ...` source comment that preceded the node, if any.
	Stack string

	graph *Graph
}

// CallForm is how a node was spelled in the source, which decides how it prints.
type CallForm uint8

const (
	FormOp       CallForm = iota // torch.ops.ns.op.overload(args)
	FormOperator                 // Python infix/prefix operator: a + b, -a, a[0]
	FormMethod                   // a.size()
	FormGetAttr                  // self.weight
	FormModule                   // self.submod(x)
	FormFunction                 // any other callable: torch._functorch.predispatch._add_batch_dim(x)
)

// Kwarg is a keyword argument; keyword order is source order.
type Kwarg struct {
	Name string
	Arg  Arg
}

// OpSchema is what the IR needs to know about an op from the registry. The
// ops package implements it; ir cannot import ops.
type OpSchema interface {
	// QualifiedName is "ns::name.overload".
	QualifiedName() string
	// CheckCall reports an arity or keyword error for a call with the given
	// positional count and keyword names.
	CheckCall(nargs int, kwargs []string) error
	// Mutates reports whether the op writes to one of its arguments.
	Mutates() bool
}

// Graph returns the graph that owns n.
func (n *Node) Graph() *Graph { return n.graph }

// Result returns result i; it panics when i is out of range, which is a
// programming error, not an input error.
func (n *Node) Result(i int) *Value { return n.Results[i] }

// Out returns the node's only result, or nil when it has none.
func (n *Node) Out() *Value {
	if len(n.Results) == 0 {
		return nil
	}
	return n.Results[0]
}

func (n *Node) String() string { return n.Name }

func (v *Value) String() string { return v.Name }

// Users returns the nodes that use v, one entry per occurrence.
func (v *Value) Users() []*Node { return v.users }

// NumUses counts uses by nodes and by the graph outputs.
func (v *Value) NumUses() int { return len(v.users) + v.outputUses }

// IsInput reports whether v is a graph placeholder.
func (v *Value) IsInput() bool { return v.Def == nil }

// NewGraph returns an empty graph.
func NewGraph(name string) *Graph { return &Graph{Name: name} }

// AddInput appends a placeholder.
func (g *Graph) AddInput(name string, t Type, pos diag.Pos) *Value {
	v := &Value{ID: g.nextValue, Name: name, Type: t, Pos: pos}
	g.nextValue++
	g.Inputs = append(g.Inputs, v)
	return v
}

// NewNode creates a node with nres results. The node is not placed in the
// graph; use Append or InsertBefore.
func (g *Graph) NewNode(name, target string, form CallForm, args []Arg, kwargs []Kwarg, nres int) *Node {
	n := g.slab.nodes.One()
	*n = Node{ID: g.nextNode, Name: name, Target: target, Form: form, Args: args, Kwargs: kwargs, graph: g}
	g.nextNode++
	if nres > 0 {
		n.Results = g.slab.results.Take(nres)[:0] // AddResult appends them
	}
	for i := 0; i < nres; i++ {
		n.AddResult("")
	}
	if nres == 1 {
		n.Results[0].Name = name
	}
	return n
}

// AddResult appends a result value to n.
func (n *Node) AddResult(name string) *Value {
	g := n.graph
	v := g.slab.values.One()
	*v = Value{ID: g.nextValue, Name: name, Def: n, Index: len(n.Results), Pos: n.Pos}
	g.nextValue++
	n.Results = append(n.Results, v)
	return v
}

// Append places n at the end of the graph and records its uses.
func (g *Graph) Append(n *Node) *Node {
	g.Nodes = append(g.Nodes, n)
	n.addUses()
	return n
}

// InsertBefore places n just before at (at the end when at is nil).
func (g *Graph) InsertBefore(n, at *Node) *Node {
	if at == nil {
		return g.Append(n)
	}
	i := g.indexOf(at)
	g.Nodes = append(g.Nodes, nil)
	copy(g.Nodes[i+1:], g.Nodes[i:])
	g.Nodes[i] = n
	n.addUses()
	return n
}

// InsertBeforeEach inserts, in one pass over the graph, each list ins[at]
// right before node at, in list order; the list under the nil key is
// appended. Linear in the graph, where one InsertBefore per node is
// quadratic.
func (g *Graph) InsertBeforeEach(ins map[*Node][]*Node) {
	total := 0
	for _, ns := range ins {
		total += len(ns)
	}
	if total == 0 {
		return
	}
	out := make([]*Node, 0, len(g.Nodes)+total)
	add := func(ns []*Node) {
		for _, n := range ns {
			out = append(out, n)
			n.addUses()
		}
	}
	for _, m := range g.Nodes {
		add(ins[m])
		out = append(out, m)
	}
	add(ins[nil])
	g.Nodes = out
}

func (g *Graph) indexOf(n *Node) int {
	for i, m := range g.Nodes {
		if m == n {
			return i
		}
	}
	panic(fmt.Sprintf("ir: node %s is not in graph", n.Name))
}

// Remove deletes n from the graph and drops its uses. Its results must be dead.
func (g *Graph) Remove(n *Node) {
	n.dropUses()
	n.release()
	i := g.indexOf(n)
	g.Nodes = append(g.Nodes[:i], g.Nodes[i+1:]...)
}

// RemoveDead deletes every node in dead (a set) in one sweep, keeping order.
func (g *Graph) RemoveDead(dead map[*Node]bool) {
	kept := g.Nodes[:0]
	for _, n := range g.Nodes {
		if dead[n] {
			n.dropUses()
			n.release()
			continue
		}
		kept = append(kept, n)
	}
	for i := len(kept); i < len(g.Nodes); i++ {
		g.Nodes[i] = nil
	}
	g.Nodes = kept
}

// release clears what a removed node points to: its chunk of the graph's
// slab outlives it while a neighbour lives, and would otherwise keep its
// arguments, types and attributes alive to the end of the compile (on a
// 146k-node graph of mutations, DCE's 69k replayed views held 70 MB). The
// node keeps its ID, name, target and position, which remarks print.
func (n *Node) release() {
	for _, r := range n.Results {
		*r = Value{ID: r.ID, Name: r.Name, Def: n, Index: r.Index, Pos: r.Pos}
	}
	n.Op, n.Args, n.Kwargs, n.Attrs = nil, nil, nil, nil
}

// SetOutputs replaces the graph outputs, keeping use counts right.
func (g *Graph) SetOutputs(outs []Arg) {
	for _, a := range g.Outputs {
		a.Walk(func(v *Value) { v.outputUses-- })
	}
	g.Outputs = outs
	for _, a := range g.Outputs {
		a.Walk(func(v *Value) { v.outputUses++ })
	}
}

// SetArgs replaces n's arguments, keeping use lists right.
func (n *Node) SetArgs(args []Arg, kwargs []Kwarg) {
	n.dropUses()
	n.Args, n.Kwargs = args, kwargs
	n.addUses()
}

func (n *Node) addUses() {
	n.WalkInputs(func(v *Value) { v.users = append(v.users, n) })
}

func (n *Node) dropUses() {
	n.WalkInputs(func(v *Value) { v.removeUser(n) })
}

func (v *Value) removeUser(n *Node) {
	for i, u := range v.users {
		if u == n {
			v.users = append(v.users[:i], v.users[i+1:]...)
			return
		}
	}
}

// WalkInputs calls f for every value occurrence in n's arguments, in order.
func (n *Node) WalkInputs(f func(*Value)) {
	for i := range n.Args {
		n.Args[i].Walk(f)
	}
	for i := range n.Kwargs {
		n.Kwargs[i].Arg.Walk(f)
	}
}

// ReplaceAllUses makes every use of old (by nodes and outputs) use new.
func (g *Graph) ReplaceAllUses(old, new *Value) {
	if old == new {
		return
	}
	users := old.users
	old.users = nil
	seen := map[*Node]bool{}
	for _, u := range users {
		if seen[u] {
			continue
		}
		seen[u] = true
		for i := range u.Args {
			u.Args[i] = u.Args[i].replace(old, new)
		}
		for i := range u.Kwargs {
			u.Kwargs[i].Arg = u.Kwargs[i].Arg.replace(old, new)
		}
	}
	new.users = append(new.users, users...)
	if old.outputUses > 0 {
		for i := range g.Outputs {
			g.Outputs[i] = g.Outputs[i].replace(old, new)
		}
		new.outputUses += old.outputUses
		old.outputUses = 0
	}
}

// Values returns inputs then node results, in order.
func (g *Graph) Values() []*Value {
	out := append([]*Value(nil), g.Inputs...)
	for _, n := range g.Nodes {
		out = append(out, n.Results...)
	}
	return out
}

// Renumber assigns dense ids in program order to values and nodes.
func (g *Graph) Renumber() {
	g.nextValue, g.nextNode = 0, 0
	for _, v := range g.Inputs {
		v.ID = g.nextValue
		g.nextValue++
	}
	for _, n := range g.Nodes {
		n.ID = g.nextNode
		g.nextNode++
		for _, v := range n.Results {
			v.ID = g.nextValue
			g.nextValue++
		}
	}
}

// NumValueIDs is one past the largest value id handed out, for dense tables.
func (g *Graph) NumValueIDs() int { return g.nextValue }

// NumNodeIDs is one past the largest node id handed out.
func (g *Graph) NumNodeIDs() int { return g.nextNode }

// UsedNames returns the set of names taken by values and nodes, for passes
// that create new nodes and need fresh names.
func (g *Graph) UsedNames() map[string]bool {
	names := make(map[string]bool, len(g.Inputs)+2*len(g.Nodes))
	for _, v := range g.Inputs {
		names[v.Name] = true
	}
	for _, n := range g.Nodes {
		names[n.Name] = true
		for _, r := range n.Results {
			names[r.Name] = true
		}
	}
	return names
}

// Attrs are derived facts as ordered key=value pairs, printed as a trailing
// comment (`# align=4 vec=1`). A list may be shared by several values:
// change one through Set, which copies it, never in place.
type Attrs []Attr

// Attr is one derived fact.
type Attr struct{ Key, Val string }

// Set adds or replaces key, keeping keys sorted so printing is deterministic.
func (a *Attrs) Set(key, val string) {
	for i := range *a {
		if (*a)[i].Key == key {
			if (*a)[i].Val != val {
				// Copy on write: values may share one list (align gives
				// every value with the same facts the same one).
				c := slices.Clone(*a)
				c[i].Val = val
				*a = c
			}
			return
		}
	}
	if !a.sorted() {
		*a = append(*a, Attr{key, val})
		sort.SliceStable(*a, func(i, j int) bool { return (*a)[i].Key < (*a)[j].Key })
		return
	}
	// Sorted already (Set keeps them so): insert in place, after the keys
	// before key, as the stable sort would.
	i := len(*a)
	for i > 0 && key < (*a)[i-1].Key {
		i--
	}
	*a = slices.Insert(*a, i, Attr{key, val})
}

func (a Attrs) sorted() bool {
	for i := 1; i < len(a); i++ {
		if a[i].Key < a[i-1].Key {
			return false
		}
	}
	return true
}

// Get returns the value of key.
func (a Attrs) Get(key string) (string, bool) {
	for _, kv := range a {
		if kv.Key == key {
			return kv.Val, true
		}
	}
	return "", false
}
