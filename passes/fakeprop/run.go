package fakeprop

import (
	"errors"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// RemarkFromAnnotation is the remark code for a value typed from what the
// input printed because no rule could infer it.
const RemarkFromAnnotation = "typed-from-annotation"

// Reasons a value is typed from its annotation.
const (
	WhyNoRule     = "kiln has no rule for this op"
	WhyUntypedArg = "an argument has no type"
	WhyRuleFailed = "the rule could not decide"
	WhyError      = "the op failed"
	WhyAttribute  = "a module attribute the graph does not annotate"
)

// run is one propagation over one graph.
type run struct {
	p   *Pass
	ctx *passes.Context
	env *ops.Env
	reg *ops.Registry
	g   *ir.Graph
}

// typeInputs gives every tensor input its own storage and fills missing
// strides and devices the way PyTorch's example inputs would have them.
func (r *run) typeInputs() {
	for _, v := range r.g.Inputs {
		if !v.Type.IsKnown() && v.Annot.IsKnown() {
			v.Type = v.Annot
		}
		if v.Type.Kind != ir.KindTensor {
			continue
		}
		t := v.Type.Tensor.Clone()
		if t.Strides == nil {
			t.Strides = ir.ContiguousStrides(t.Shape)
		}
		t.Storage = r.env.NewStorage()
		v.Type = ir.TensorOf(t)
	}
}

// node types one node; the error it returns stops the pass.
func (r *run) node(n *ir.Node) error {
	var types []ir.Type
	var err error
	mark := r.env.UnbackedMark()
	switch n.Form {
	case ir.FormOp:
		types, err = r.opNode(n)
	case ir.FormOperator:
		types, err = r.operatorNode(n)
		if types == nil && err == nil {
			types, err = r.pythonNode(n)
		}
	case ir.FormMethod:
		types, err = r.methodNode(n)
		if types == nil && err == nil {
			types, err = r.pythonNode(n)
		}
	case ir.FormFunction:
		types, err = r.pythonNode(n)
	case ir.FormGetAttr:
		if r.g.Submodule(strings.TrimPrefix(n.Target, "self.")) != nil {
			return nil // a submodule a higher-order op calls: not a value with a type
		}
		r.fromAnnotations(n, WhyAttribute)
		return nil
	default:
		r.fromAnnotations(n, WhyNoRule)
		return nil
	}
	if err != nil {
		return r.fail(n, err)
	}
	if types == nil {
		r.fromAnnotations(n, WhyNoRule)
		return nil
	}
	r.adoptNames(n, types, mark)
	return r.assign(n, types)
}

// fail turns a meta-rule error into a diagnostic. PyTorch's failures
// (*ops.Error) are errors at the node; a rule that could not decide leaves
// the node typed from its annotations.
func (r *run) fail(n *ir.Node, err error) error {
	var untyped *ops.UntypedError
	if errors.As(err, &untyped) {
		r.fromAnnotations(n, WhyUntypedArg)
		return nil
	}
	e, ok := ops.AsError(err)
	if !ok {
		r.ctx.Warn(n, "fakeprop", "", "cannot infer the type of %s (%s): %v", n.Name, n.Target, err)
		r.fromAnnotations(n, WhyRuleFailed)
		return nil
	}
	msg := e.Msg
	if e.Code == ops.CodeMetaItem {
		msg += r.metaOrigin(n)
	}
	d := r.ctx.Errorf(n, e.Code, e.Hint, "%s", msg)
	if r.p.keepGoing {
		r.fromAnnotations(n, WhyError)
		return nil
	}
	return d
}

// fromAnnotations types n's results from what the input printed, if
// anything: an op kiln cannot run is typed as PyTorch typed it.
func (r *run) fromAnnotations(n *ir.Node, why string) {
	for _, v := range n.Results {
		if v.Annot.IsKnown() {
			switch why {
			case WhyAttribute: // like an input: the annotation is the only record of it
			case WhyNoRule:
				// evidence in the input: PyTorch knew the type when it printed
				// the graph (a fake impl kiln has not been told about)
				r.ctx.Warn(n, RemarkFromAnnotation, "declare the op in a custom-op file (ops/CUSTOM_OPS.md) to have kiln check it",
					"%s typed from its annotation %s (%s)", v.Name, v.Annot, why)
			default:
				r.ctx.Remark(n, RemarkFromAnnotation, "%s typed from its annotation %s (%s)", v.Name, v.Annot, why)
			}
			v.Type = v.Annot
			if v.Type.Kind == ir.KindTensor {
				t := v.Type.Tensor.Clone()
				if t.Strides == nil {
					t.Strides = ir.ContiguousStrides(t.Shape)
				}
				t.Storage = r.env.NewStorage()
				v.Type = ir.TensorOf(t)
			}
		} else {
			v.Type = ir.Type{}
			if why != WhyUntypedArg && why != WhyError && n.Form != ir.FormOperator {
				r.ctx.Warn(n, "untyped", "annotate the value in the input, or declare the op in a custom-op file",
					"%s has no type (%s); values computed from it stay untyped", v.Name, why)
			}
		}
	}
}

// opNode runs the meta rule of a registry op.
func (r *run) opNode(n *ir.Node) ([]ir.Type, error) {
	op, _ := n.Op.(*ops.Op)
	if op == nil || r.p.reg != nil {
		if found := r.reg.Lookup(n.Target); found != nil {
			op, n.Op = found, found
		}
	}
	if op == nil && strings.HasPrefix(n.Target, "higher_order::") {
		if types := r.hopNode(n); types != nil {
			return types, nil
		}
	}
	if op == nil || op.Meta == nil {
		return nil, r.noRule(n, op)
	}
	c, err := ops.Bind(n)
	if err != nil {
		r.ctx.Errorf(n, "arity", "check the call against the op's schema: "+op.Schema.String(), "%v", err)
		return nil, nil
	}
	restore := r.captureFromEvidence(n, op)
	types, err := op.Meta(r.env, c)
	if err == nil {
		types = r.onCPUByEvidence(n, op, c, types)
	}
	restore()
	if err != nil {
		return nil, err
	}
	if op.IsInplace() && len(types) > 0 && types[0].Kind == ir.KindTensor && len(n.Args) > 0 && n.Args[0].Kind == ir.ArgValue {
		// An in-place op leaves self with the result's metadata (transpose_,
		// resize_ change it; add_ keeps it).
		n.Args[0].Value.Type = ir.TensorOf(types[0].Tensor.Clone())
	}
	return types, nil
}

// noRule handles an op without a meta rule: a custom op with no fake impl
// fails as PyTorch does unless its results are annotated; an ATen op kiln
// does not model is typed from its annotations.
func (r *run) noRule(n *ir.Node, op *ops.Op) error {
	annotated := len(n.Results) > 0
	for _, v := range n.Results {
		annotated = annotated && v.Annot.IsKnown()
	}
	ns, _, _ := strings.Cut(n.Target, "::")
	if isBuiltinNamespace(ns) || annotated {
		if !annotated {
			r.ctx.Warn(n, "unknown-op", "the op is kept opaque; its results stay untyped", "no meta rule for %s", n.Target)
		}
		return nil
	}
	name := n.Target
	if op != nil {
		name = op.QualifiedName()
	}
	return ops.Errorf(ops.CodeMissingFake, "declare the op and its shape rule in a custom-op file (fakeprop{custom-ops=FILE}; see ops/CUSTOM_OPS.md), as torch.library.register_fake does",
		"%s: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel registered. You may have run into this message while using an operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake impl.",
		strings.TrimSuffix(name, ".default"))
}

func isBuiltinNamespace(ns string) bool {
	switch ns {
	case "aten", "prims", "higher_order", "inductor", "_c10d_functional", "c10d", "quantized", "_quantized", "rngprims", "torchvision":
		return true
	}
	return false
}

// assign stores the rule's types on n's results and checks them against
// the annotations.
func (r *run) assign(n *ir.Node, types []ir.Type) error {
	if len(types) == 0 && len(n.Results) == 1 {
		types = []ir.Type{{Kind: ir.KindNone}} // an op returning () binds None
	}
	if op, ok := n.Op.(*ops.Op); ok && len(n.Results) == 1 && !n.IsTuple() && (len(types) > 1 || op.Schema.VarRet) {
		// The parser did not know the op returns a tuple (a custom op
		// declared to fakeprop only): the node's value is the tuple, and
		// getitem nodes pick from it.
		types = []ir.Type{{Kind: ir.KindList, Elems: types}}
	}
	if len(types) < len(n.Results) {
		d := r.ctx.Errorf(n, "arity", "", "%s returns %d value(s) but the graph reads %d", n.Target, len(types), len(n.Results))
		return d
	}
	for i, v := range n.Results {
		v.Type = types[i]
		if r.p.check {
			r.checkAnnotation(n, v)
		}
		shareLayout(v)
	}
	return nil
}

// shareLayout points an inferred tensor type's size and stride lists at
// its annotation's when they are equal. The parser shares one annotation
// among every value printed with it, so a 1M-node graph keeps a few
// hundred lists instead of two per value. Lists are never changed in
// place, and the parser's have no spare capacity, so appending to one
// copies it.
func shareLayout(v *ir.Value) {
	if v.Type.Kind != ir.KindTensor || v.Annot.Kind != ir.KindTensor {
		return
	}
	t, a := v.Type.Tensor, v.Annot.Tensor
	if t == nil || a == nil || t == a {
		return
	}
	if len(a.Shape) > 0 && sym.EqualLists(t.Shape, a.Shape) && cap(a.Shape) == len(a.Shape) {
		t.Shape = a.Shape
	}
	if len(t.Strides) > 0 && sym.EqualLists(t.Strides, a.Strides) && cap(a.Strides) == len(a.Strides) {
		t.Strides = a.Strides
	}
}

// checkAnnotation is assert_size_stride: the annotation PyTorch printed
// must equal the inferred type.
func (r *run) checkAnnotation(n *ir.Node, v *ir.Value) {
	if !v.Annot.IsKnown() || Agrees(v.Annot, v.Type) {
		return
	}
	d := diag.Diagnostic{Severity: diag.Error, Code: "type-mismatch", Pos: n.Pos, Node: n.Name, Pass: "fakeprop",
		Message: "type of " + v.Name + ": expected " + v.Annot.String() + " (annotation), inferred " + v.Type.String(),
		Hint:    "PyTorch's assert_size_stride would fail here; when the op is a custom op, its fake (meta) rule is the usual culprit"}
	r.ctx.Diags.Add(d)
}

// metaOrigin names the meta graph input a tensor came from, through views.
func (r *run) metaOrigin(n *ir.Node) string {
	var path []string
	v := firstTensorArg(n)
	for v != nil && v.Def != nil {
		path = append(path, v.Def.Name)
		v = firstTensorArg(v.Def)
	}
	if v == nil || v.Type.Kind != ir.KindTensor || !v.Type.Tensor.Device.IsMeta() {
		return ""
	}
	s := " (the value comes from meta input " + v.Name
	if len(path) > 0 {
		for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
			path[i], path[j] = path[j], path[i]
		}
		s += " through " + strings.Join(path, ", ")
	}
	return s + ")"
}

func firstTensorArg(n *ir.Node) *ir.Value {
	for _, a := range n.Args {
		if a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor {
			return a.Value
		}
	}
	return nil
}
