package fakeprop

import (
	"strings"

	"github.com/kiln-compiler/kiln/passes"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Higher-order ops of AOT graphs. auto_functionalized(op, **args) and
// auto_functionalized_v2(op, **args, _all_bases=[...]) run a mutating op
// functionally and return (the op's outputs, then a fresh copy of each
// mutated argument or base): torch/_higher_order_ops/auto_functionalize.py.
// kiln types them for ops that return nothing (the common case: a custom op
// that only mutates), where the op's output slot holds None.

// hopNode types a higher-order op; nil types mean "no rule".
func (r *run) hopNode(n *ir.Node) []ir.Type {
	name := strings.TrimPrefix(n.Target, "higher_order::")
	switch name {
	case "with_effects":
		return r.withEffects(n)
	case "invoke_subgraph":
		return r.invokeSubgraph(n)
	}
	if name != "auto_functionalized" && name != "auto_functionalized_v2" || len(n.Args) == 0 || n.Args[0].Kind != ir.ArgOpRef {
		return nil
	}
	op := r.reg.Lookup(opRefName(n.Args[0].Str))
	if op == nil || len(op.Schema.Returns) != 0 {
		return nil
	}
	elems := []ir.Type{{Kind: ir.KindNone}}
	var copies []ir.Arg
	if name == "auto_functionalized_v2" {
		for _, kw := range n.Kwargs {
			if kw.Name == "_all_bases" {
				copies = kw.Arg.Elems
			}
		}
	} else {
		for _, i := range op.Schema.Mutated() {
			pname := op.Schema.Params[i].Name
			for _, kw := range n.Kwargs {
				if kw.Name == pname {
					copies = append(copies, kw.Arg)
				}
			}
		}
	}
	for _, a := range copies {
		if a.Kind != ir.ArgValue || a.Value.Type.Kind != ir.KindTensor {
			return nil
		}
		t := a.Value.Type.Tensor
		// clone_preserve_strides: same sizes and strides in a new storage
		c := r.env.Fresh(t.DType, append([]sym.Expr{}, t.Shape...), append([]sym.Expr{}, t.Strides...), t.Device)
		elems = append(elems, ir.TensorOf(c))
	}
	return []ir.Type{{Kind: ir.KindList, Elems: elems}}
}

// opRefName turns FX's spelling of an op packet ("torch.ops.mylib.foo.default")
// into the registry's name ("mylib::foo.default").
func opRefName(s string) string {
	s = strings.TrimPrefix(s, "torch.ops.")
	ns, rest, ok := strings.Cut(s, ".")
	if !ok {
		return s
	}
	return ns + "::" + rest
}

// withEffects types with_effects(token, op, *args, **kwargs), which AOT
// graphs use to order side-effecting ops (torch/_higher_order_ops/effects.py):
// a new token like the one passed in (torch.tensor([]): f32[0]), then the
// op's own results. PyTorch 2.15 prints
// `with_effects(arg0_1, torch.ops.aten._print.default, 'hello')`.
func (r *run) withEffects(n *ir.Node) []ir.Type {
	if len(n.Args) < 2 || n.Args[0].Kind != ir.ArgValue || n.Args[0].Value.Type.Kind != ir.KindTensor || n.Args[1].Kind != ir.ArgOpRef {
		return nil
	}
	op := r.reg.Lookup(opRefName(n.Args[1].Str))
	if op == nil {
		return nil
	}
	var results []ir.Type
	switch {
	case op.Meta != nil:
		c, err := op.Bind(n.Args[2:], n.Kwargs)
		if err != nil {
			return nil
		}
		c.Node = n
		if results, err = op.Meta(r.env, c); err != nil {
			return nil
		}
	case len(op.Schema.Returns) != 0:
		return nil // an op with results and no rule: typed from annotations
	}
	t := n.Args[0].Value.Type.Tensor
	token := r.env.Fresh(t.DType, append([]sym.Expr{}, t.Shape...), append([]sym.Expr{}, t.Strides...), t.Device)
	return []ir.Type{{Kind: ir.KindList, Elems: append([]ir.Type{ir.TensorOf(token)}, results...)}}
}

// invokeSubgraph types invoke_subgraph(subgraph, identifier, *operands)
// (torch/_higher_order_ops/invoke_subgraph.py, from
// torch.compiler.nested_compile_region): the subgraph, printed as a class
// beside the graph that calls it, run on the operands' types; its outputs
// are the node's results, each in fresh storage.
func (r *run) invokeSubgraph(n *ir.Node) []ir.Type {
	if len(n.Args) < 2 || n.Args[0].Kind != ir.ArgValue || n.Args[0].Value.Def == nil {
		return nil
	}
	attr := n.Args[0].Value.Def
	sub := r.g.Submodule(strings.TrimPrefix(attr.Target, "self."))
	if attr.Form != ir.FormGetAttr || sub == nil || len(sub.Inputs) != len(n.Args)-2 {
		return nil
	}
	call := ir.Clone(sub)
	for i, in := range call.Inputs {
		a := n.Args[2+i]
		if a.Kind != ir.ArgValue || !a.Value.Type.IsKnown() {
			return nil
		}
		in.Type = a.Value.Type
	}
	ctx := passes.NewContext(r.ctx.Config)
	if _, err := r.p.Run(ctx, call); err != nil || ctx.Diags.HasErrors() {
		return nil
	}
	elems := make([]ir.Type, len(call.Outputs))
	for i, o := range call.Outputs {
		if o.Kind != ir.ArgValue || !o.Value.Type.IsKnown() {
			return nil
		}
		elems[i] = o.Value.Type
		if t := o.Value.Type; t.Kind == ir.KindTensor {
			tt := t.Tensor
			elems[i] = ir.TensorOf(r.env.Fresh(tt.DType, append([]sym.Expr{}, tt.Shape...), append([]sym.Expr{}, tt.Strides...), tt.Device))
		}
	}
	return []ir.Type{{Kind: ir.KindList, Elems: elems}}
}
