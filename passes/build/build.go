// Package build is the node builder the graph-rewriting passes share
// (functionalize, vmap): it appends nodes named as FX names them, typed
// through their ops' meta rules (ops.TypeNode), in one forward sweep.
package build

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Builder emits nodes into a graph being rebuilt in one forward sweep: the
// pass collects the new node order in Out and installs it at the end
// (Finish), so that no insertion costs more than an append. New nodes take
// the position and stack comment of the node being rewritten, and their
// types from the registry's meta rules.
type Builder struct {
	G     *ir.Graph
	Env   *ops.Env
	Names *ir.Namer
	Out   []*ir.Node
	// Undo records changes to kept nodes and values, for Restore on failure.
	Undo Undo

	pos   diag.Pos
	stack string
}

// NewBuilder prepares to rebuild g. Fresh storages the meta rules hand out
// start after every storage id g's values hold.
func NewBuilder(g *ir.Graph) *Builder {
	env := ops.NewEnv(g)
	env.ReserveStorage(maxStorage(g))
	return &Builder{G: g, Env: env, Names: ir.NewNamer(g), Out: make([]*ir.Node, 0, len(g.Nodes)+len(g.Nodes)/4)}
}

func maxStorage(g *ir.Graph) ir.StorageID {
	var m ir.StorageID
	for _, v := range g.Values() {
		if t := v.Type.Tensor; v.Type.Kind == ir.KindTensor && t != nil && t.Storage > m {
			m = t.Storage
		}
	}
	return m
}

// At makes later nodes take n's position and stack comment.
func (b *Builder) At(n *ir.Node) { b.pos, b.stack = n.Pos, n.Stack }

// SetPos makes later nodes take position p and no stack comment.
func (b *Builder) SetPos(p diag.Pos) { b.pos, b.stack = p, "" }

// Keep appends an existing node to the new order.
func (b *Builder) Keep(n *ir.Node) { b.Out = append(b.Out, n) }

// Finish installs the new node order and outputs and rebuilds use lists.
func (b *Builder) Finish(outputs []ir.Arg) {
	b.G.Nodes = b.Out
	b.G.Outputs = outputs
	b.G.RebuildUses()
}

// Call appends a call of target (a registry name) with nres results (1
// when nres is 0), named after the op, typed by its meta rule; results the
// rule cannot type take fallback (with its storage cleared) when it is
// known.
func (b *Builder) Call(target string, args []ir.Arg, kwargs []ir.Kwarg, nres int, fallback ir.Type) (*ir.Node, error) {
	op := ops.Lookup(target)
	if op == nil {
		return nil, fmt.Errorf("internal: op %s is not in the registry", target)
	}
	return b.CallOp(op, BaseName(op), args, kwargs, nres, fallback)
}

// CallOp is Call with a resolved op and an explicit name base.
func (b *Builder) CallOp(op *ops.Op, base string, args []ir.Arg, kwargs []ir.Kwarg, nres int, fallback ir.Type) (*ir.Node, error) {
	if nres <= 0 {
		nres = 1
	}
	name := b.Names.Fresh(base)
	n := b.G.NewNode(name, op.QualifiedName(), ir.FormOp, args, kwargs, nres)
	n.Op, n.Pos, n.Stack = op, b.pos, b.stack
	if nres > 1 {
		for _, r := range n.Results {
			r.Name = b.Names.Fresh("getitem")
		}
	}
	if err := op.CheckCall(len(args), KwNames(kwargs)); err != nil {
		return nil, fmt.Errorf("internal: %v", err)
	}
	if err := b.typeNode(n); err != nil {
		if !fallback.IsKnown() && inputsTyped(n) && op.Meta != nil {
			return nil, &TypeError{Node: n, Err: err}
		}
		for _, r := range n.Results {
			r.Type = FreshType(fallback)
		}
	}
	b.Out = append(b.Out, n)
	return n, nil
}

// TypeError says a node a pass built does not type-check: its meta rule
// refused the call (usually a shape the rewrite cannot handle).
type TypeError struct {
	Node *ir.Node
	Err  error
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("%s(%s) does not type-check: %v", e.Node.Target, argsText(e.Node), e.Err)
}

func argsText(n *ir.Node) string {
	var parts []string
	for _, a := range n.Args {
		parts = append(parts, a.String())
	}
	return strings.Join(parts, ", ")
}

// inputsTyped reports whether every value n reads has a type.
func inputsTyped(n *ir.Node) bool {
	ok := true
	n.WalkInputs(func(v *ir.Value) { ok = ok && v.Type.IsKnown() })
	return ok
}

// Type runs n's meta rule and stores the result types; false when the
// rule is missing or fails (n's types are then left as they were).
func (b *Builder) Type(n *ir.Node) bool { return b.typeNode(n) == nil }

func (b *Builder) typeNode(n *ir.Node) error {
	op, _ := n.Op.(*ops.Op)
	return ops.TypeNode(b.Env, op, n)
}

// FreshType is t for a value that owns new memory: storage unknown.
func FreshType(t ir.Type) ir.Type {
	if t.Kind != ir.KindTensor || t.Tensor == nil {
		return t
	}
	c := t.Tensor.Clone()
	c.Storage = 0
	return ir.TensorOf(c)
}

// BaseName is the name FX gives a call of op: the op's name, with
// sym_size.int spelled sym_size_int as newer FX does.
func BaseName(op *ops.Op) string {
	if op.Schema.Name == "sym_size" {
		return "sym_size_int"
	}
	return op.Schema.Name
}

// NameMatches reports whether name is base or base_N, as FX names a call.
func NameMatches(name, base string) bool {
	rest, ok := strings.CutPrefix(name, base)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	if len(rest) < 2 || rest[0] != '_' {
		return false
	}
	for _, c := range rest[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// KwNames are the keyword names of a call, for ops.Op.CheckCall.
func KwNames(kw []ir.Kwarg) []string {
	out := make([]string, len(kw))
	for i, k := range kw {
		out[i] = k.Name
	}
	return out
}
