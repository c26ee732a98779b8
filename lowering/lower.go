package lowering

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Options for Lower.
type Options struct {
	Name string // the program's name; the graph's when empty
}

// CodeNoLowering is the diagnostic code of a node kiln cannot lower.
const CodeNoLowering = "no-lowering"

// Lower turns a typed, functional graph (after fakeprop, functionalize,
// align and dce) into a pre-fusion Program: one kernel per computing node
// (Inductor's ir_pre_fusion), views folded into index expressions, buffers
// for the inputs and for every node output that is not a view.
func Lower(g *ir.Graph, opts Options) (p *Program, err error) {
	name := opts.Name
	if name == "" {
		name = g.Name
	}
	l := &lowerer{g: g, p: &Program{Name: name}, vals: map[*ir.Value]tensorRef{}}
	l.folds, l.skip = planSliceFolds(g) // rules_slice_fold.go
	defer func() {                      // sym builders panic on malformed expressions; user input never panics
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("lower %s: internal error: %v", name, r)
		}
	}()
	if err := l.inputs(); err != nil {
		return nil, err
	}
	for _, n := range g.Nodes {
		if l.skip[n] {
			continue
		}
		l.node = n
		if err := l.lowerNode(n); err != nil {
			var d *diag.Diagnostic
			if errors.As(err, &d) {
				return nil, fmt.Errorf("lower %s: %w", n.Name, err)
			}
			// A rule's complaint about the node's arguments is about the
			// input: position it at the node, with a code (i14).
			return nil, diag.Errorf(n.Pos, "lowering", "kiln cannot lower this call as written; `kiln run` or `kiln opt` show whether the graph itself is valid",
				"lower %s (%s): %v", n.Name, n.Target, err)
		}
	}
	l.node = nil
	if err := l.outputs(); err != nil {
		return nil, err
	}
	l.p.Syms = programSyms(l.p)
	return l.p, nil
}

// tensorRef is where a tensor value lives: a buffer seen through a layout.
type tensorRef struct {
	buf    *Buffer
	layout Layout
}

// lowerer holds the program being built and what each graph value became.
type lowerer struct {
	g    *ir.Graph
	p    *Program
	vals map[*ir.Value]tensorRef
	node *ir.Node // the node being lowered, for origins and errors
	// folds are the slices of slice_scatters read from the scatter's
	// source or base; skip, the scatters nothing reads once they are.
	folds map[*ir.Node]sliceFold
	skip  map[*ir.Node]bool
}

// noLowering is the error for a node kiln has no rule for.
func noLowering(n *ir.Node, hint, format string, args ...any) error {
	d := diag.Errorf(n.Pos, CodeNoLowering, hint, format, args...)
	d.Node = n.Name
	return d
}

// IsNoLowering reports whether err says an op has no lowering.
func IsNoLowering(err error) bool {
	var d *diag.Diagnostic
	return errors.As(err, &d) && d.Code == CodeNoLowering
}

// layoutOf is a tensor type's layout.
func layoutOf(t *ir.TensorType) Layout {
	strides := t.Strides
	if strides == nil {
		strides = ir.ContiguousStrides(t.Shape)
	}
	return Layout{DType: t.DType, Shape: t.Shape, Strides: strides, Offset: t.Offset}
}

// extent is the storage a layout reaches, in elements: offset + Σ
// (size_i-1)*stride_i + 1, and just the offset when a size is 0.
func extent(l Layout) sym.Expr {
	e := sym.Add(l.Offset, sym.Const(1))
	for i, s := range l.Shape {
		if c, ok := s.Const(); ok && c == 0 {
			return l.Offset
		}
		e = sym.Add(e, sym.Mul(sym.Sub(s, sym.Const(1)), l.Strides[i]))
	}
	return e
}

// inputs makes a buffer and a param for every graph input.
func (l *lowerer) inputs() error {
	for _, v := range l.g.Inputs {
		prm := &Param{Name: v.Name, Type: v.Type}
		switch v.Type.Kind {
		case ir.KindTensor:
			lay := layoutOf(v.Type.Tensor)
			buf := l.newBuffer(v.Name, lay.DType, extent(lay), BufInput)
			buf.Align = attrInt(v.Attrs, "align", lay.DType.ItemSize())
			prm.Buffer, prm.Layout = buf, lay
			l.vals[v] = tensorRef{buf, lay}
		case ir.KindSymInt, ir.KindSymBool, ir.KindSymFloat:
			prm.Sym = v.Type.Sym.Name()
		case ir.KindUnknown:
			return diag.Errorf(v.Pos, CodeNoLowering, "annotate the input", "input %s has no type", v.Name)
		}
		l.p.Inputs = append(l.p.Inputs, prm)
	}
	return nil
}

func attrInt(a ir.Attrs, key string, def int) int {
	if s, ok := a.Get(key); ok {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return def
}

// newBuffer appends a buffer; names default to buf<ID>.
func (l *lowerer) newBuffer(name string, dt ir.DType, size sym.Expr, kind BufferKind) *Buffer {
	id := len(l.p.Buffers)
	if name == "" {
		name = "buf" + strconv.Itoa(id)
	}
	b := &Buffer{ID: id, Name: name, DType: dt, Size: size, Kind: kind, Align: 64}
	l.p.Buffers = append(l.p.Buffers, b)
	return b
}

// fresh allocates the buffer of a node result laid out as its type says.
func (l *lowerer) fresh(v *ir.Value) (tensorRef, error) {
	t, err := tensorType(v)
	if err != nil {
		return tensorRef{}, err
	}
	lay := layoutOf(t)
	ref := tensorRef{l.newBuffer("", lay.DType, extent(lay), BufIntermediate), lay}
	l.vals[v] = ref
	return ref, nil
}

func tensorType(v *ir.Value) (*ir.TensorType, error) {
	if v == nil || v.Type.Kind != ir.KindTensor || v.Type.Tensor == nil {
		return nil, fmt.Errorf("value %v is not a typed tensor", v)
	}
	return v.Type.Tensor, nil
}

// ref returns what a tensor argument lowered to.
func (l *lowerer) ref(a ir.Arg) (tensorRef, error) {
	if a.Kind != ir.ArgValue {
		return tensorRef{}, fmt.Errorf("expected a tensor, got %s", a.String())
	}
	r, ok := l.vals[a.Value]
	if !ok {
		return tensorRef{}, noLowering(l.node, "every tensor a kernel reads must come from a lowered node",
			"%s reads %s, which has no buffer (untyped, or produced by an op without lowering)", l.node.Target, a.Value.Name)
	}
	return r, nil
}

// lowerNode dispatches one node to its rule.
func (l *lowerer) lowerNode(n *ir.Node) error {
	if f, ok := l.folds[n]; ok {
		return l.lowerSliceFold(n.Out(), f)
	}
	op, _ := n.Op.(*ops.Op)
	if op == nil && n.Form == ir.FormGetAttr {
		if t, err := tensorType(n.Out()); err == nil && sym.Equal(t.Numel(), sym.Const(0)) {
			return l.emptyConstant(n.Out()) // torch.tensor([]) has no data to miss
		}
		return noLowering(n, "pass it as an input (torch.export lifts constants and buffers into inputs)",
			"the printout has no data for tensor constant %s; pass it as an input", n.Target)
	}
	if op == nil {
		if symbolicOnly(n) {
			return nil // Python operators on SymInts: values are sym.Exprs in the types
		}
		hint := "kiln lowers registry ops only"
		if n.Form == ir.FormFunction || n.Form == ir.FormMethod || n.Form == ir.FormOperator {
			hint = "a Dynamo-level call the aten pass did not rewrite into ATen ops (its aten-kept warning says what is missing; without the aten pass in the pipeline, none is rewritten); or pass the AOT graph PyTorch prints with TORCH_LOGS=aot_graphs"
		}
		return noLowering(n, hint, "no lowering for %s (not a registry op)", n.Target)
	}
	if r, ok := rules[op.QualifiedName()]; ok {
		c, err := ops.Bind(n)
		if err != nil {
			return err
		}
		return r(l, c)
	}
	return l.lowerByKind(n, op)
}

// emptyConstant lowers a tensor constant with no elements as a factory
// does: a buffer and a kernel over its (empty) shape that writes it.
func (l *lowerer) emptyConstant(v *ir.Value) error {
	out, err := l.fresh(v)
	if err != nil {
		return err
	}
	b := l.newKernel(out.layout.Shape)
	b.store(out, outerVars(len(out.layout.Shape)), b.constant(0, out.layout.DType))
	return nil
}

// lowerByKind handles the families whose ops need no per-op rule, and
// refuses the rest.
func (l *lowerer) lowerByKind(n *ir.Node, op *ops.Op) error {
	switch {
	case op.DataDep || op.Kind == ops.KindDataDependent:
		return noLowering(n, "data-dependent ops stay in eager (graph break)", "no lowering for data-dependent op %s", op)
	case op.Random || op.Kind == ops.KindRandom:
		return noLowering(n, "random ops are not lowered", "no lowering for random op %s", op)
	case op.Kind == ops.KindView && !op.Mutates():
		c, err := ops.Bind(n)
		if err != nil {
			return err
		}
		return lowerView(l, c)
	case op.Kind == ops.KindSym && symbolicOnly(n):
		return nil
	}
	return noLowering(n, "decompose the op first (decompose pass) or add a lowering rule",
		"no lowering for %s (%s)", op, op.Kind)
}

// symbolicOnly reports whether n computes no tensor: sym_size, Python
// operators on SymInts, shape asserts.
func symbolicOnly(n *ir.Node) bool {
	for _, v := range n.Results {
		switch v.Type.Kind {
		case ir.KindSymInt, ir.KindSymBool, ir.KindSymFloat:
		case ir.KindList:
			for _, e := range v.Type.Elems {
				if e.Kind == ir.KindTensor || e.Kind == ir.KindUnknown {
					return false
				}
			}
		default:
			return false
		}
	}
	for _, a := range n.Args {
		if a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor && n.Form == ir.FormOperator {
			return false
		}
	}
	return true
}

// outputs records a Result per graph output; buffers returned become
// BufOutput unless they are inputs.
func (l *lowerer) outputs() error {
	var walk func(a ir.Arg) error
	walk = func(a ir.Arg) error {
		switch a.Kind {
		case ir.ArgList, ir.ArgTuple:
			for _, e := range a.Elems {
				if err := walk(e); err != nil {
					return err
				}
			}
			return nil
		case ir.ArgValue:
			return l.valueResult(a.Value)
		case ir.ArgInt:
			l.p.Outputs = append(l.p.Outputs, &Result{Name: a.String(), Value: a.Int})
		case ir.ArgFloat:
			l.p.Outputs = append(l.p.Outputs, &Result{Name: a.String(), Value: a.Float})
		case ir.ArgBool:
			l.p.Outputs = append(l.p.Outputs, &Result{Name: a.String(), Value: a.Bool})
		case ir.ArgNone:
			l.p.Outputs = append(l.p.Outputs, &Result{Name: "None"})
		default:
			return diag.Errorf(l.g.Pos, CodeNoLowering, "", "graph output %s cannot be lowered", a.String())
		}
		return nil
	}
	for _, a := range l.g.Outputs {
		if err := walk(a); err != nil {
			return err
		}
	}
	return nil
}

func (l *lowerer) valueResult(v *ir.Value) error {
	switch v.Type.Kind {
	case ir.KindTensor:
		ref, ok := l.vals[v]
		if !ok {
			return diag.Errorf(v.Pos, CodeNoLowering, "", "graph output %s has no buffer", v.Name)
		}
		if ref.buf.Kind != BufInput {
			ref.buf.Kind = BufOutput
		}
		l.p.Outputs = append(l.p.Outputs, &Result{Name: v.Name, Buffer: ref.buf, Layout: ref.layout})
	case ir.KindSymInt, ir.KindSymBool, ir.KindSymFloat:
		var val any = v.Type.Sym
		if c, ok := v.Type.Sym.Const(); ok {
			val = c
		} else if b, ok := v.Type.Sym.BoolConst(); ok {
			val = b
		}
		l.p.Outputs = append(l.p.Outputs, &Result{Name: v.Name, Value: val})
	default:
		return diag.Errorf(v.Pos, CodeNoLowering, "", "graph output %s (%s) cannot be lowered", v.Name, v.Type)
	}
	return nil
}

// programSyms lists the free symbols of every range, index and size, in
// sympy's order (s0, s1, s2, ..., s10).
func programSyms(p *Program) []string {
	seen := map[string]bool{}
	var names []string // one scratch slice: Free's per expression was a fifth of Lower
	add := func(es ...sym.Expr) {
		for _, e := range es {
			names = e.AppendFree(names[:0])
			for _, s := range names {
				if !isLoopName(s) {
					seen[s] = true
				}
			}
		}
	}
	addLayout := func(lay Layout) {
		add(lay.Shape...)
		add(lay.Strides...)
		add(lay.Offset)
	}
	for _, b := range p.Buffers {
		add(b.Size)
	}
	for _, in := range p.Inputs {
		if in.Buffer != nil {
			addLayout(in.Layout)
		}
	}
	for _, r := range p.Outputs {
		if r.Buffer != nil {
			addLayout(r.Layout)
		}
		if e, ok := r.Value.(sym.Expr); ok {
			add(e)
		}
	}
	for _, k := range p.Kernels {
		add(k.Outer...)
		if k.Extern != nil {
			for _, o := range append(slices.Clone(k.Extern.Args), k.Extern.Outs...) {
				if o.Buffer != nil {
					addLayout(o.Layout)
				}
			}
		}
		for _, s := range k.Stages {
			add(s.Reduce...)
			for _, in := range s.Body {
				if in.Access != nil {
					add(in.Access.Index)
				}
				if in.Op == OpIndex {
					add(in.Expr)
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int { return sym.Compare(sym.Symbol(a), sym.Symbol(b)) })
	return out
}

// isLoopName reports whether a free name in an index is a loop variable
// (x0, r1) or an indirect-index temporary (tmp3), not a size symbol.
func isLoopName(s string) bool {
	for _, prefix := range []string{"x", "r", "tmp"} {
		rest, ok := strings.CutPrefix(s, prefix)
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}
