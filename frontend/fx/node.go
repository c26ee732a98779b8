package fx

import (
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// valueOrNode creates the node for a right-hand side; it returns nil when
// the expression is not something a node computes.
func (gb *graphBuilder) valueOrNode(l *logical, e *pyExpr, name string) (*ir.Node, error) {
	switch e.kind {
	case eCall:
		return gb.callNode(l, e, name)
	case eAttr:
		if dotted := e.dotted(); strings.HasPrefix(dotted, "self.") {
			return gb.add(l, e, name, dotted, ir.FormGetAttr, nil, nil, 1), nil
		}
	case eBinary:
		target, ok := ir.OperatorTarget(e.op)
		if !ok {
			return nil, gb.p.errIn(l, e.col, "unsupported operator "+e.op, "")
		}
		return gb.operatorNode(l, e, name, target, e.base, e.rhs)
	case eUnary:
		target := map[string]string{"-": "operator.neg", "+": "operator.pos", "~": "operator.invert", "not": "operator.not_"}[e.op]
		return gb.operatorNode(l, e, name, target, e.base)
	case eIndex:
		return gb.operatorNode(l, e, name, "operator.getitem", e.base, e.rhs)
	case eName:
		if b, ok := gb.scope[e.name]; ok && b.tuple != nil {
			return b.tuple, nil
		}
	}
	return nil, nil
}

func (gb *graphBuilder) operatorNode(l *logical, e *pyExpr, name, target string, operands ...*pyExpr) (*ir.Node, error) {
	args := make([]ir.Arg, len(operands))
	for i, x := range operands {
		a, err := gb.toArg(l, x)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	return gb.add(l, e, name, target, ir.FormOperator, args, nil, 1), nil
}

// callNode builds op calls, method calls, submodule calls and other callables.
func (gb *graphBuilder) callNode(l *logical, e *pyExpr, name string) (*ir.Node, error) {
	args, kwargs, err := gb.callArgs(l, e)
	if err != nil {
		return nil, err
	}
	callee := e.base.dotted()
	switch {
	case strings.HasPrefix(callee, "torch.ops."):
		return gb.opNode(l, e, name, callee, args, kwargs)
	case strings.HasPrefix(callee, "self."):
		return gb.add(l, e, name, callee, ir.FormModule, args, kwargs, 1), nil
	case e.base.kind == eAttr && e.base.base.kind == eName && gb.scope[e.base.base.name] != (binding{}):
		recv, err := gb.toArg(l, e.base.base)
		if err != nil {
			return nil, err
		}
		return gb.add(l, e, name, "method."+e.base.name, ir.FormMethod, append([]ir.Arg{recv}, args...), kwargs, 1), nil
	case callee == "":
		return nil, gb.p.errIn(l, e.col, "cannot call this expression", "")
	}
	if target, ok := builtinOperator(callee); ok {
		return gb.add(l, e, name, target, ir.FormOperator, args, kwargs, 1), nil
	}
	return gb.add(l, e, name, callee, ir.FormFunction, args, kwargs, 1), nil
}

// builtinOperator maps `operator.add(a, b)` spellings to operator targets.
func builtinOperator(callee string) (string, bool) {
	if strings.HasPrefix(callee, "operator.") || strings.HasPrefix(callee, "_operator.") {
		return "operator." + callee[strings.IndexByte(callee, '.')+1:], true
	}
	return "", false
}

func (gb *graphBuilder) callArgs(l *logical, e *pyExpr) ([]ir.Arg, []ir.Kwarg, error) {
	args := gb.args.Take(len(e.elems))
	for i, x := range e.elems {
		a, err := gb.toArg(l, x)
		if err != nil {
			return nil, nil, err
		}
		args[i] = a
	}
	kwargs := gb.kwargs.Take(len(e.kwargs))
	for i, kw := range e.kwargs {
		a, err := gb.toArg(l, kw.val)
		if err != nil {
			return nil, nil, err
		}
		kwargs[i] = ir.Kwarg{Name: gb.p.intern(kw.name), Arg: a}
	}
	return args, kwargs, nil
}

// CanonicalTarget turns "torch.ops.aten.add.Tensor" into "aten::add.Tensor"
// and an overload packet "torch.ops.aten.sym_size" into "aten::sym_size".
func CanonicalTarget(dotted string) string {
	rest := strings.TrimPrefix(dotted, "torch.ops.")
	ns, op, ok := strings.Cut(rest, ".")
	if !ok {
		return dotted
	}
	return ns + "::" + op
}

func (gb *graphBuilder) opNode(l *logical, e *pyExpr, name, callee string, args []ir.Arg, kwargs []ir.Kwarg) (*ir.Node, error) {
	op, ok := gb.p.ops[callee]
	if !ok {
		// First call of this op: look it up once, and warn about it once.
		op.target = CanonicalTarget(callee)
		if gb.p.opts.Lookup != nil {
			op.schema = gb.p.opts.Lookup(op.target)
		}
		op.nres = 1
		if rc, ok := op.schema.(ir.ResultCounter); ok && op.schema != nil {
			n, variadic := rc.NumResults()
			op.nres = n
			if variadic {
				op.nres = 0 // getitem statements add results as they name them
			}
		}
		if len(gb.p.ops) < maxOpCache {
			if gb.p.ops == nil {
				gb.p.ops = map[string]opEntry{}
			}
			gb.p.ops[strings.Clone(callee)] = op
		}
		if !gb.p.warnedOps[op.target] {
			gb.p.warnedOps[op.target] = true
			gb.warnOpGap(gb.p.posIn(l, e.col), op.target, op.schema)
		}
	}
	target, schema, nres := op.target, op.schema, op.nres
	n := gb.add(l, e, name, target, ir.FormOp, args, kwargs, nres)
	n.Op = schema
	if nres > 1 {
		// Tuple results are named by later getitem statements.
		for _, r := range n.Results {
			r.Name = ""
		}
	}
	return n, nil
}

// opEntry is what the parser knows about an op callee
// ("torch.ops.aten.add.Tensor"): its canonical target, shared by every
// node that calls it, its registry entry and its result count.
type opEntry struct {
	target string
	schema ir.OpSchema
	nres   int
}

// maxOpCache bounds the parser's op cache (a graph calls a few hundred ops).
const maxOpCache = 1 << 12

// warnOpGap warns about an op kiln cannot type: one PyTorch does not have
// (with the closest name PyTorch has), or one whose schema kiln knows
// from PyTorch's table but which has no meta rule.
func (gb *graphBuilder) warnOpGap(pos diag.Pos, target string, schema ir.OpSchema) {
	if name, ok := strings.CutPrefix(target, "higher_order::"); ok && ops.IsHigherOrderOp(name) {
		if !ops.IsTypedHigherOrderOp(name) {
			gb.p.warn(pos, "no-meta-rule", "annotate its results in the input (PyTorch prints them with TORCH_LOGS)",
				"higher-order op %s has no rule in kiln: its results are typed only from their annotations, and kiln cannot run or lower it", name)
		}
		return
	}
	if schema == nil {
		hint := "declare it in a custom-op file to give it a meta rule"
		if s := ops.Default().Suggest(target); s != "" {
			hint = "did you mean " + s + "? If it is a custom op, declare it in a custom-op file to give it a meta rule"
		}
		gb.p.warn(pos, "unknown-op", hint, "op %s is not in kiln's registry nor in PyTorch %s; kept as an opaque node", target, ops.PyTorchVersion())
		return
	}
	if op, ok := schema.(*ops.Op); ok && op.Meta == nil {
		gb.p.warn(pos, "no-meta-rule", "annotate its results in the input (PyTorch prints them with TORCH_LOGS), or declare a shape rule in a custom-op file (ops/CUSTOM_OPS.md)",
			"op %s is a PyTorch op kiln has no meta rule for: its results are typed only from their annotations, and kiln cannot run or lower it", op.QualifiedName())
	}
}

func (gb *graphBuilder) add(l *logical, e *pyExpr, name, target string, form ir.CallForm, args []ir.Arg, kwargs []ir.Kwarg, nres int) *ir.Node {
	if form != ir.FormOp { // an op's target comes from the op cache, already its own
		target = gb.p.intern(target)
	}
	n := gb.g.NewNode(gb.p.keep(name), target, form, args, kwargs, nres)
	n.Pos = gb.p.posIn(l, gb.stmtOff)
	for _, r := range n.Results {
		r.Pos = n.Pos
	}
	return gb.g.Append(n)
}
