// Package aten rewrites a Dynamo-level graph (TORCH_LOGS=graph_code: torch
// functions, Tensor methods, Python operators, x[i], x[i] = v) into the ATen
// graph AOTAutograd's trace makes of it, so that the passes after it and
// lowering see registry ops only:
//
//   - a routed call (ops.ResolvePython picks the overload PyTorch's Python
//     bindings pick) becomes that ATen op with the rewritten arguments;
//     an op returning a tuple takes over the getitem nodes that picked from it;
//   - a Python function with no ATen op of its own (F.interpolate,
//     F.normalize, torch.tensor) expands into the ATen calls of its Python
//     body (expand.go);
//   - x[index] becomes the chain python_variable_indexing.cpp emits
//     (unsqueeze / select / slice, then index.Tensor); x[index] = v the
//     in-place write into that view (fill_, copy_, index_put_), which
//     functionalize then removes (index.go).
//
// A node it cannot rewrite stays as it was, with an "aten-kept" warning
// naming what is missing; lowering then stops on it with no-lowering.
package aten

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/build"
)

// Diagnostic codes.
const (
	// RemarkRewritten names a Dynamo-level node and the ATen op(s) it became.
	RemarkRewritten = "aten"
	// CodeKept warns that a Dynamo-level node stays as it was, and why.
	CodeKept = "aten-kept"
)

func init() {
	passes.Register(passes.Info{
		Name:    "aten",
		Summary: "rewrite a Dynamo-level graph (torch functions, Tensor methods, operators, x[i], x[i] = v) into ATen ops, as AOTAutograd's trace does",
		Requires: []passes.Requirement{
			{Pass: "fakeprop", Reason: "the overload a Python call reaches depends on its arguments' types, and x[i]'s chain on x's rank"},
		},
		Stage: ir.StageTyped,
		New:   func(passes.Options) (passes.Pass, error) { return &Pass{}, nil },
	})
}

// Pass is the aten pass.
type Pass struct{}

// Name is "aten".
func (p *Pass) Name() string { return "aten" }

// rewriter is one run over one graph: a forward sweep that keeps ATen
// nodes, rewrites Dynamo-level ones in place or replaces them with the
// nodes the builder makes.
type rewriter struct {
	ctx *passes.Context
	g   *ir.Graph
	reg *ops.Registry
	b   *build.Builder
	// subst maps a value dropped with its node to the one standing for it.
	subst map[*ir.Value]*ir.Value
	// drop are getitem nodes whose values a multi-result op took over.
	drop map[*ir.Node]bool
	// mark is where the node being rewritten starts in the builder's order.
	mark int
}

// Run rewrites every Dynamo-level node of g it can.
func (p *Pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	reg := ops.Default()
	if r, ok := ctx.Config.Extra["ops.registry"].(*ops.Registry); ok && r != nil {
		reg = r
	}
	if !slices.ContainsFunc(g.Nodes, candidate) {
		return false, nil // an ATen graph: no builder (it indexes every name) for nothing
	}
	r := &rewriter{ctx: ctx, g: g, reg: reg, b: build.NewBuilder(g), subst: map[*ir.Value]*ir.Value{}, drop: map[*ir.Node]bool{}}
	changed := false
	for _, n := range g.Nodes {
		if r.drop[n] {
			continue
		}
		ctx.At(n)
		r.substitute(n)
		r.b.At(n)
		r.mark = len(r.b.Out)
		done, err := r.rewrite(n)
		if err != nil {
			r.b.Out = r.b.Out[:r.mark]
			ctx.Warn(n, CodeKept, "pass the AOT graph PyTorch prints with TORCH_LOGS=aot_graphs",
				"%s (%s) stays Dynamo-level: %v", n.Name, n.Target, err)
		}
		if err != nil || !done {
			r.b.Keep(n)
			continue
		}
		changed = true
	}
	if !changed {
		return false, nil
	}
	outs := make([]ir.Arg, len(g.Outputs))
	for i, a := range g.Outputs {
		outs[i] = r.substArg(a)
	}
	r.b.Finish(outs)
	return true, nil
}

// candidate reports a node the pass may rewrite: a Python-level call, or
// an ATen composite the trace would not record.
func candidate(n *ir.Node) bool {
	switch n.Form {
	case ir.FormOperator, ir.FormMethod, ir.FormFunction:
		return true
	case ir.FormOp:
		op, ok := n.Op.(*ops.Op)
		return ok && op != nil && composites[op.QualifiedName()] != nil
	}
	return false
}

// rewrite turns one node into ATen nodes; false means it is left as it is
// (an ATen node already, or Python arithmetic on sizes).
func (r *rewriter) rewrite(n *ir.Node) (bool, error) {
	switch n.Form {
	case ir.FormOperator, ir.FormMethod, ir.FormFunction:
	case ir.FormOp:
		// Dynamo prints some composites as ATen calls (x.T is
		// torch.ops.aten.numpy_T); the trace records their bodies
		op, ok := n.Op.(*ops.Op)
		if !ok || op == nil || composites[op.QualifiedName()] == nil {
			return false, nil
		}
		if err := oneTensor(n); err != nil {
			return false, err
		}
		c, err := ops.Bind(n)
		if err != nil {
			return false, err
		}
		return true, composites[op.QualifiedName()](r, n, c)
	default:
		return false, nil
	}
	if traceFree[n.Target] && len(n.Results) == 1 && n.Results[0].NumUses() == 0 {
		r.ctx.Remark(n, RemarkRewritten, "%s: %s has no tensor effect; a trace drops it", n.Name, n.Target)
		return true, nil
	}
	if !tensorLevel(n) {
		return false, nil // x.size(0), s0 * 2: sizes live in the types
	}
	switch n.Target {
	case "operator.getitem":
		if len(n.Args) != 2 || !isTensor(n.Args[0]) {
			return false, nil // picks from a tuple: see multiResult
		}
		return true, r.getitem(n)
	case "operator.setitem":
		if len(n.Args) != 3 || !isTensor(n.Args[0]) {
			return false, fmt.Errorf("assigning into %d argument(s) that are not tensor, index, value", len(n.Args))
		}
		return true, r.setitem(n)
	}
	if n.Target == "operator.truediv" && len(n.Args) == 2 && !isTensor(n.Args[0]) && isTensor(n.Args[1]) {
		return true, r.rtruediv(n)
	}
	call, ok, err := r.reg.ResolvePython(n.Target, n.Args, n.Kwargs)
	if !ok {
		return false, fmt.Errorf("%s is not a Python callable kiln routes to an ATen op", n.Target)
	}
	if err != nil {
		return false, err
	}
	if call.Rule != nil {
		x, ok := expansions[n.Target]
		if !ok {
			return false, fmt.Errorf("no expansion of the Python function %s into ATen ops", n.Target)
		}
		if err := oneTensor(n); err != nil {
			return false, err
		}
		a, _, err := ops.BindPython(n.Target, n.Args, n.Kwargs)
		if err != nil {
			return false, err
		}
		return true, x(r, n, a)
	}
	return true, r.routed(n, call)
}

// oneTensor checks that n has the one typed tensor result an expansion
// replaces.
func oneTensor(n *ir.Node) error {
	if len(n.Results) != 1 || n.Results[0].Type.Kind != ir.KindTensor || n.Results[0].Type.Tensor == nil {
		return fmt.Errorf("%s does not make one typed tensor", n.Name)
	}
	return nil
}

// tensorLevel reports whether n reads or makes a tensor.
func tensorLevel(n *ir.Node) bool {
	for _, v := range n.Results {
		if hasTensor(v.Type) {
			return true
		}
	}
	found := false
	for i := range n.Args {
		n.Args[i].Walk(func(v *ir.Value) { found = found || v.Type.Kind == ir.KindTensor })
	}
	return found
}

func hasTensor(t ir.Type) bool {
	if t.Kind == ir.KindTensor {
		return true
	}
	for _, e := range t.Elems {
		if hasTensor(e) {
			return true
		}
	}
	return false
}

func isTensor(a ir.Arg) bool {
	return a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor
}

// routed makes n the ATen op PyTorch's binding picked. One result: n
// itself becomes the op (its name, types and uses stay). A tuple result
// (torch.topk, torch.split): a new node with one result per element takes
// over the getitem nodes that pick from it.
func (r *rewriter) routed(n *ir.Node, call ops.PyCall) error {
	args, kwargs, err := canonical(call.Op, call.Args, call.Kwargs)
	if err != nil {
		return err
	}
	if x, ok := composites[call.Op.QualifiedName()]; ok {
		if err := oneTensor(n); err != nil {
			return err
		}
		c, err := call.Op.Bind(args, kwargs)
		if err != nil {
			return err
		}
		return x(r, n, c)
	}
	if len(n.Results) == 1 && n.Results[0].Type.Kind == ir.KindList {
		return r.multiResult(n, call.Op, args, kwargs)
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: %s → %s", n.Name, n.Target, call.Op.QualifiedName())
	n.Target, n.Op, n.Form, n.Args, n.Kwargs = call.Op.QualifiedName(), call.Op, ir.FormOp, args, kwargs
	r.b.Keep(n)
	return nil
}

// multiResult replaces a node whose one value is a tuple by the op with a
// result per element; every use of the tuple must be a getitem with a
// constant index, as Dynamo prints them.
func (r *rewriter) multiResult(n *ir.Node, op *ops.Op, args []ir.Arg, kwargs []ir.Kwarg) error {
	tuple := n.Results[0]
	if tuple.NumUses() != len(tuple.Users()) {
		return fmt.Errorf("the tuple %s is returned whole; kiln returns its elements", tuple.Name)
	}
	picks := map[*ir.Node]int{}
	for _, u := range tuple.Users() {
		if u.Target != "operator.getitem" || len(u.Args) != 2 || u.Args[0].Kind != ir.ArgValue || u.Args[0].Value != tuple ||
			u.Args[1].Kind != ir.ArgInt || u.Args[1].Int < 0 || int(u.Args[1].Int) >= len(tuple.Type.Elems) {
			return fmt.Errorf("%s uses the tuple %s other than by a constant index", u.Name, tuple.Name)
		}
		picks[u] = int(u.Args[1].Int)
	}
	m, err := r.b.CallOp(op, build.BaseName(op), args, kwargs, len(tuple.Type.Elems), ir.Type{})
	if err != nil {
		return err
	}
	for i, v := range m.Results {
		if i < len(tuple.Type.Elems) && !sameLayout(v.Type, tuple.Type.Elems[i]) {
			return fmt.Errorf("%s types element %d as %s, fakeprop as %s", op.QualifiedName(), i, v.Type, tuple.Type.Elems[i])
		}
	}
	m.Name = n.Name
	taken := map[int]bool{}
	for u, i := range picks {
		r.drop[u] = true
		v := u.Results[0]
		if taken[i] {
			r.subst[v] = m.Results[i]
			continue
		}
		taken[i] = true
		r.keepStorage(v.Type, m.Results[i])
		v.Def, v.Index, v.Type = m, i, m.Results[i].Type
		m.Results[i] = v
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: %s → %s with %d results", n.Name, n.Target, op.QualifiedName(), len(m.Results))
	return nil
}

// canonical spells a call as an ATen graph prints it: the parameters before
// `*` positionally up to the last one given, keyword-only ones by name.
func canonical(op *ops.Op, args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg, error) {
	c, err := op.Bind(args, kwargs)
	if err != nil {
		return nil, nil, err
	}
	last := -1
	var kw []ir.Kwarg
	for i, p := range op.Schema.Params {
		switch {
		case p.KwOnly && c.Given[i]:
			kw = append(kw, ir.Kwarg{Name: p.Name, Arg: c.Args[i]})
		case !p.KwOnly && c.Given[i]:
			last = i
		}
	}
	return append([]ir.Arg(nil), c.Args[:last+1]...), kw, nil
}

// substitute points n's arguments at the values standing for dropped ones.
func (r *rewriter) substitute(n *ir.Node) {
	if len(r.subst) == 0 {
		return
	}
	for i := range n.Args {
		n.Args[i] = r.substArg(n.Args[i])
	}
	for i := range n.Kwargs {
		n.Kwargs[i].Arg = r.substArg(n.Kwargs[i].Arg)
	}
}

func (r *rewriter) substArg(a ir.Arg) ir.Arg {
	if a.Kind == ir.ArgValue {
		if s, ok := r.subst[a.Value]; ok {
			a.Value = s
		}
		return a
	}
	if len(a.Elems) > 0 {
		elems := make([]ir.Arg, len(a.Elems))
		for i, e := range a.Elems {
			elems[i] = r.substArg(e)
		}
		a.Elems = elems
	}
	return a
}

// call appends an ATen call typed by its meta rule; a call its rule
// refuses fails the node's rewrite.
func (r *rewriter) call(target string, args []ir.Arg, kwargs ...ir.Kwarg) (*ir.Value, error) {
	m, err := r.b.Call(target, args, kwargs, 1, ir.Type{})
	if err != nil {
		return nil, err
	}
	if !m.Results[0].Type.IsKnown() {
		return nil, fmt.Errorf("%s has no meta rule to type it", target)
	}
	return m.Results[0], nil
}

// adopt makes last (the final value a rewrite built) stand for n's result:
// the value keeps its name and uses and becomes last's result, after
// checking that the rewrite made what fakeprop typed.
func (r *rewriter) adopt(n *ir.Node, last *ir.Value) error {
	if len(n.Results) != 1 {
		return fmt.Errorf("%s has %d results, the rewrite makes one", n.Name, len(n.Results))
	}
	v := n.Results[0]
	if !sameLayout(last.Type, v.Type) {
		return fmt.Errorf("the ATen ops make %s, fakeprop typed %s", last.Type, v.Type)
	}
	m := last.Def
	if len(m.Results) == 1 {
		m.Name = v.Name
	}
	r.keepStorage(v.Type, last)
	m.Results[last.Index] = v
	v.Def, v.Index, v.Type = m, last.Index, last.Type
	return nil
}

// keepStorage gives the values built for this node that live in last's
// storage the storage fakeprop gave the value last stands for (old): the
// views fakeprop typed after it name that storage, and lowering and
// functionalize tell a view from a copy by it.
func (r *rewriter) keepStorage(old ir.Type, last *ir.Value) {
	if old.Kind != ir.KindTensor || last.Type.Kind != ir.KindTensor || old.Tensor == nil || last.Type.Tensor == nil || old.Tensor.Storage == 0 {
		return
	}
	from, to := last.Type.Tensor.Storage, old.Tensor.Storage
	if from == to {
		return
	}
	for _, m := range r.b.Out[r.mark:] {
		for _, res := range m.Results {
			if t := res.Type.Tensor; res.Type.Kind == ir.KindTensor && t != nil && t.Storage == from {
				c := t.Clone()
				c.Storage = to
				res.Type = ir.TensorOf(c)
			}
		}
	}
}

// sameLayout compares dtype, shape and strides (not storages: the builder
// numbers fresh ones its own way).
func sameLayout(a, b ir.Type) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind != ir.KindTensor {
		return true
	}
	x, y := a.Tensor, b.Tensor
	if x == nil || y == nil {
		return x == y
	}
	return x.DType == y.DType && sym.EqualLists(x.Shape, y.Shape) && (x.Strides == nil || y.Strides == nil || sym.EqualLists(x.Strides, y.Strides))
}
