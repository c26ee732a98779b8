package align

import (
	"fmt"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// realignInputs applies misaligned-inputs=copy: each misaligned tensor
// input that can be copied is cloned into a fresh buffer before the first
// node, and every use reads the clone.
func (a *analysis) realignInputs() bool {
	if a.p.policy != PolicyCopy || a.assume() {
		return false
	}
	a.namer = ir.NewNamer(a.g)
	changed := false
	anchor := firstNode(a.g)
	for _, v := range a.g.Inputs {
		if !isTensor(v) {
			continue
		}
		f := a.inputFact(v)
		if f.used >= GPUAlignBytes {
			continue
		}
		if why := a.cannotCopy(v); why != "" {
			a.remarkAt(v, fmt.Sprintf("%s is not %d-byte aligned and is not copied (%s): scalar access", v.Name, GPUAlignBytes, why))
			continue
		}
		c := a.cloneInput(v, anchor)
		a.ctx.Remark(c, CodeRemark, "%s is %d-byte aligned (%s): copied into %s, a fresh %d-byte-aligned buffer, before its first use (misaligned-inputs=copy)",
			v.Name, f.proved, f.why, c.Name, AllocAlignBytes)
		changed = true
	}
	return changed
}

func firstNode(g *ir.Graph) *ir.Node {
	if len(g.Nodes) == 0 {
		return nil
	}
	return g.Nodes[0]
}

// cannotCopy says why input v keeps the scalar policy, or "".
func (a *analysis) cannotCopy(v *ir.Value) string {
	t := v.Type.Tensor
	if c, ok := offsetOf(t).Const(); !ok || c != 0 {
		return "its type has a storage offset"
	}
	if !ops.IsContiguous(t) {
		return "it is not contiguous"
	}
	users := v.Users()
	if len(users) > 0 && allClones(users) {
		return "it is already copied"
	}
	st := t.Storage
	for _, n := range a.g.Nodes {
		if !ir.IsMutatingNode(n) {
			continue
		}
		mutated := false
		n.WalkInputs(func(x *ir.Value) {
			mutated = mutated || isTensor(x) && (x == v || st != 0 && x.Type.Tensor.Storage == st)
		})
		if mutated {
			return fmt.Sprintf("%s writes to it; a copy would lose the write", n.Name)
		}
	}
	return ""
}

func allClones(users []*ir.Node) bool {
	for _, u := range users {
		if u.Target != "aten::clone.default" {
			return false
		}
	}
	return true
}

// cloneInput inserts `clone = aten.clone(v, memory_format=contiguous)`
// before anchor, makes every node use it instead of v (graph outputs keep
// v itself), and moves v's views to the clone's storage.
func (a *analysis) cloneInput(v *ir.Value, anchor *ir.Node) *ir.Node {
	t := v.Type.Tensor
	kw := []ir.Kwarg{{Name: "memory_format", Arg: ir.EnumArg("contiguous_format")}}
	c := a.g.NewNode(a.namer.Fresh("clone"), "aten::clone.default", ir.FormOp, []ir.Arg{ir.ValueArg(v)}, kw, 1)
	c.Op = ops.Lookup("aten::clone.default")
	c.Pos = v.Pos
	if anchor != nil {
		c.Stack = anchor.Stack
	}
	ct := ir.NewTensor(t.DType, t.Shape, t.Device)
	ct.Storage = freshStorage(a.g)
	c.Results[0].Type = ir.TensorOf(ct)
	for _, u := range dedupe(v.Users()) {
		args := make([]ir.Arg, len(u.Args))
		for i, x := range u.Args {
			args[i] = replaceValue(x, v, c.Results[0])
		}
		kwargs := make([]ir.Kwarg, len(u.Kwargs))
		for i, k := range u.Kwargs {
			kwargs[i] = ir.Kwarg{Name: k.Name, Arg: replaceValue(k.Arg, v, c.Results[0])}
		}
		u.SetArgs(args, kwargs)
	}
	a.g.InsertBefore(c, anchor)
	rehome(a.g, t.Storage, ct.Storage)
	return c
}

func dedupe(ns []*ir.Node) []*ir.Node {
	seen := map[*ir.Node]bool{}
	var out []*ir.Node
	for _, n := range ns {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// replaceValue returns x with every occurrence of old replaced by new.
func replaceValue(x ir.Arg, old, new *ir.Value) ir.Arg {
	switch x.Kind {
	case ir.ArgValue:
		if x.Value == old {
			x.Value = new
		}
	case ir.ArgList, ir.ArgTuple, ir.ArgDict, ir.ArgSlice:
		elems := make([]ir.Arg, len(x.Elems))
		for i, e := range x.Elems {
			elems[i] = replaceValue(e, old, new)
		}
		x.Elems = elems
	}
	return x
}

// freshStorage is a storage id no value of g uses.
func freshStorage(g *ir.Graph) ir.StorageID {
	var top ir.StorageID
	for _, v := range g.Values() {
		if isTensor(v) && v.Type.Tensor.Storage > top {
			top = v.Type.Tensor.Storage
		}
	}
	return top + 1
}

// rehome moves every node result in storage from to storage to: the views
// of a copied input now view the copy, which has the input's layout.
func rehome(g *ir.Graph, from, to ir.StorageID) {
	if from == 0 {
		return
	}
	for _, n := range g.Nodes {
		for _, r := range n.Results {
			if isTensor(r) && r.Type.Tensor.Storage == from {
				t := r.Type.Tensor.Clone()
				t.Storage = to
				r.Type = ir.TensorOf(t)
			}
		}
	}
}

// insertAssertions adds assert_alignment for every input kiln assumes
// 16-byte aligned and, in assume mode, for every view a kernel reads on
// the strength of the old assumption; in assume mode it reports each that
// would fail at run time.
func (a *analysis) insertAssertions() bool {
	if a.namer == nil {
		a.namer = ir.NewNamer(a.g)
	}
	changed := a.assertInputs()
	if a.assume() {
		changed = a.assertViews() || changed
	}
	return changed
}

// assertInputs asserts, before the first node, each input taken aligned.
func (a *analysis) assertInputs() bool {
	anchor := firstNode(a.g)
	var asserts []*ir.Node
	for _, v := range a.g.Inputs {
		f := a.facts.At(v)
		if f == nil || f.used < GPUAlignBytes || isEmpty(v.Type.Tensor) || hasAssert(v) {
			continue
		}
		n := a.newAssert(v, "", v.Pos, anchor)
		asserts = append(asserts, n)
		a.assertRemark(n, v, f)
		a.checkAssert(v, f, v.Pos, v.Name, n)
	}
	// One splice: an InsertBefore per input is quadratic on graphs with
	// tens of thousands of weights.
	a.g.InsertBeforeEach(map[*ir.Node][]*ir.Node{anchor: asserts})
	return len(asserts) > 0
}

// assertViews asserts, right after its op, each view a kernel reads that
// the old assumption takes aligned beyond what is proved.
func (a *analysis) assertViews() bool {
	var views []*ir.Value
	for _, n := range a.g.Nodes {
		for _, r := range n.Results {
			if f := a.facts.At(r); f != nil && f.origin == originAlias && f.accessed && f.assumed() && !hasAssert(r) {
				views = append(views, r)
			}
		}
	}
	next := map[*ir.Node]*ir.Node{} // node → the node after it (nil: last)
	for i, n := range a.g.Nodes {
		if i+1 < len(a.g.Nodes) {
			next[n] = a.g.Nodes[i+1]
		}
	}
	ins := map[*ir.Node][]*ir.Node{}
	for _, r := range views {
		f := a.facts.At(r)
		n := a.newAssert(r, pyName(r.Def), r.Def.Pos, r.Def)
		ins[next[r.Def]] = append(ins[next[r.Def]], n)
		a.assertRemark(n, r, f)
		a.checkAssert(r, f, r.Def.Pos, r.Def.Name, n)
	}
	a.g.InsertBeforeEach(ins)
	return len(views) > 0
}

func isEmpty(t *ir.TensorType) bool {
	c, ok := t.Numel().Const()
	return ok && c == 0
}

func hasAssert(v *ir.Value) bool {
	for _, u := range v.Users() {
		if isAssertNode(u) && len(u.Args) > 0 && u.Args[0].Kind == ir.ArgValue && u.Args[0].Value == v {
			return true
		}
	}
	return false
}

// pyName is PyTorch's op name for messages: "aten.view.dtype".
func pyName(n *ir.Node) string {
	if op, ok := n.Op.(*ops.Op); ok && op != nil {
		return op.PyName()
	}
	return n.Target
}

// newAssert builds `assert_alignment(v, 16[, 'op'])`, printed next to near.
func (a *analysis) newAssert(v *ir.Value, opName string, pos diag.Pos, near *ir.Node) *ir.Node {
	args := []ir.Arg{ir.ValueArg(v), ir.IntArg(GPUAlignBytes)}
	if opName != "" {
		args = append(args, ir.StringArg(opName))
	}
	n := a.g.NewNode(a.namer.Fresh("assert_alignment"), AssertTarget, ir.FormOp, args, nil, 0)
	n.Op = AssertOp()
	n.Pos = pos
	if near != nil {
		n.Stack = near.Stack
	}
	return n
}

func (a *analysis) assertRemark(n *ir.Node, v *ir.Value, f *fact) {
	call := fmt.Sprintf("assert_alignment(%s)", joinArgs(n.Args))
	switch {
	case f.origin == originInput && !a.assume():
		a.ctx.Remark(n, CodeRemark, "%s: kiln assumes graph input %s %d-byte aligned, as its example is (no guard), and checks it at run time", call, v.Name, GPUAlignBytes)
	case f.origin == originInput:
		a.ctx.Remark(n, CodeRemark, "%s: graph input %s assumed %d-byte aligned (assume=%s)", call, v.Name, GPUAlignBytes, a.p.assume)
	default:
		a.ctx.Remark(n, CodeRemark, "%s: view %s assumed %d-byte aligned like its base, its offset dropped (assume=%s); proved: %d bytes", call, v.Name, f.used, a.p.assume, f.proved)
	}
}

func joinArgs(args []ir.Arg) string {
	s := ""
	for i, x := range args {
		if i > 0 {
			s += ", "
		}
		s += x.String()
	}
	return s
}

// checkAssert reports, statically, an assertion that fails (error) or may
// fail (warning) at run time, with PyTorch's message.
func (a *analysis) checkAssert(v *ir.Value, f *fact, pos diag.Pos, node string, n *ir.Node) {
	rem := sym.Mod(f.bytes, sym.Const(GPUAlignBytes))
	if c, ok := rem.Const(); ok && c == 0 {
		return
	}
	isz := itemSize(v.Type.Tensor)
	msg := fmt.Sprintf("Expect the tensor to be %d bytes aligned. Fail due to storage_offset=%s itemsize=%d", GPUAlignBytes, f.offset, isz)
	call := fmt.Sprintf("assert_alignment(%s)", joinArgs(n.Args))
	hint := fmt.Sprintf("%s fails at run time: %s is %d-byte aligned (%s). Without assume=%s kiln proves this and uses scalar access; see `kiln explain misaligned`",
		call, v.Name, f.proved, f.why, a.p.assume)
	if _, ok := rem.Const(); ok {
		a.report(diag.Error, pos, node, hint, msg)
		return
	}
	hint = fmt.Sprintf("%s may fail at run time: %s is only provably %d-byte aligned (%s)", call, v.Name, f.proved, f.why)
	a.report(diag.Warning, pos, node, hint, "Expect the tensor to be "+fmt.Sprint(GPUAlignBytes)+" bytes aligned. May fail due to storage_offset="+f.offset.String()+" itemsize="+fmt.Sprint(isz))
}
