// Package postgrad applies Inductor's post-grad graph patterns that decide
// which kernels a graph gets (torch/_inductor/fx_passes/post_grad.py),
// after decomposition and before lowering, as Inductor runs them.
//
// One pattern so far: a sum of a matrix product and a tensor,
// add(mm(a, b), c) or add(c, mm(a, b)), becomes addmm(c, a, b), one extern
// call that adds c to the product it holds (post_grad.py's addmm pattern
// with is_valid_addmm_fusion; should_prefer_unfused_addmm keeps the add
// apart only on a GPU). The add then costs no kernel of its own. Its
// conditions, as PyTorch 2.15's: the product has no other use (a pattern's
// inner node has one user), c is a tensor of the product's dtype that
// expands to the product's shape, and alpha is 1. On this CPU, torch 2.15
// (tools/inductor_compare/addmm_pattern.py): x @ w + y and y + x @ w call
// extern_kernels.addmm; with the product used twice, or alpha 2,
// extern_kernels.mm and the add apart. kiln also keeps the add
// where addmm's type (row-major) would not be the add's, so no graph
// output changes layout.
//
// Remarks: "postgrad" names each add folded and the product it took.
package postgrad

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

func init() {
	passes.Register(passes.Info{
		Name:    "postgrad",
		Summary: "Inductor's post-grad patterns (torch/_inductor/fx_passes/post_grad.py): add(mm(a, b), c) becomes addmm(c, a, b), an extern call with no add kernel",
		Requires: []passes.Requirement{
			{Pass: "decompose", Reason: "the patterns match core ATen ops: linear and matmul are mm (or addmm) only after decomposition"},
		},
		Stage: ir.StageFunctional,
		New:   func(passes.Options) (passes.Pass, error) { return pass{}, nil },
	})
}

type pass struct{}

func (pass) Name() string { return "postgrad" }

// Run folds every add that qualifies into an addmm placed where the add
// was (the product's operands are defined before it); the products left
// without a use are dead code for dce.
func (pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	env := ops.NewEnv(g)
	names := ir.NewNamer(g)
	addmm := ops.Lookup("aten::addmm.default")
	changed := false
	for _, n := range append([]*ir.Node(nil), g.Nodes...) {
		ctx.At(n)
		mm, c, ok := addOfProduct(n)
		if !ok {
			continue
		}
		fused := g.NewNode("addmm", addmm.QualifiedName(), ir.FormOp,
			[]ir.Arg{ir.ValueArg(c), mm.Args[0], mm.Args[1]}, nil, 1)
		fused.Op, fused.Pos, fused.Stack = addmm, n.Pos, n.Stack
		if err := ops.TypeNode(env, addmm, fused); err != nil || !sameLayout(fused.Results[0].Type, n.Results[0].Type) {
			continue // never inserted: the graph is as it was
		}
		// The add's type whole: its storage is the one fakeprop gave the
		// views of the sum (an alias returned), which must stay linked.
		fused.Results[0].Type = n.Results[0].Type
		fused.Name = names.Fresh("addmm") // named once it stays
		fused.Results[0].Name = fused.Name
		g.InsertBefore(fused, n)
		g.ReplaceAllUses(n.Results[0], fused.Results[0])
		g.Remove(n)
		ctx.Remark(fused, "postgrad", "%s = %s + %s is one addmm (%s): the add needs no kernel", n.Name, mm.Name, c.Name, fused.Name)
		changed = true
	}
	return changed, nil
}

// addOfProduct matches add.Tensor(mm(a, b), c) or add.Tensor(c, mm(a, b))
// under post_grad.py's conditions: the product and c, a tensor that
// expands to its shape, in one dtype, alpha 1, and the product used by
// this add only.
func addOfProduct(n *ir.Node) (mm *ir.Node, c *ir.Value, ok bool) {
	if n.Target != "aten::add.Tensor" || len(n.Results) != 1 {
		return nil, nil, false
	}
	call, err := ops.Bind(n)
	if err != nil {
		return nil, nil, false
	}
	if a := call.Arg("alpha"); a.Kind != ir.ArgNone && !(a.Kind == ir.ArgInt && a.Int == 1) && !(a.Kind == ir.ArgFloat && a.Float == 1) {
		return nil, nil, false
	}
	self, other := call.Arg("self"), call.Arg("other")
	if self.Kind != ir.ArgValue || other.Kind != ir.ArgValue {
		return nil, nil, false
	}
	for _, pair := range [][2]*ir.Value{{self.Value, other.Value}, {other.Value, self.Value}} {
		p, c := pair[0], pair[1]
		if d := p.Def; d != nil && d.Target == "aten::mm.default" && p.NumUses() == 1 && len(d.Args) == 2 &&
			expandsTo(c.Type, p.Type) {
			return d, c, true
		}
	}
	return nil, nil, false
}

// expandsTo: c is a tensor of p's dtype whose sizes broadcast to p's
// without growing it (is_expandable_to).
func expandsTo(c, p ir.Type) bool {
	if c.Kind != ir.KindTensor || p.Kind != ir.KindTensor || c.Tensor.DType != p.Tensor.DType || c.Tensor.Rank() > p.Tensor.Rank() {
		return false
	}
	lead := p.Tensor.Rank() - c.Tensor.Rank()
	for i, s := range c.Tensor.Shape {
		if !sym.Equal(s, p.Tensor.Shape[lead+i]) && !sym.Equal(s, sym.Const(1)) {
			return false
		}
	}
	return true
}

// sameLayout: a and b are one dtype, shape, strides, offset and device.
func sameLayout(a, b ir.Type) bool {
	return a.Kind == ir.KindTensor && b.Kind == ir.KindTensor && a.Tensor.String() == b.Tensor.String() &&
		sym.Equal(a.Tensor.Offset, b.Tensor.Offset)
}
