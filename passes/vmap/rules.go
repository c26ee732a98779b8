package vmap

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// A batched value has its batch dim at the front; its logical (per-example)
// type is the original value's type, kept in vm.ptype.

// get is the value that stands for original value x, and whether it is
// batched.
func (v *vm) get(x *ir.Value) (*ir.Value, bool) {
	if x.ID >= len(v.val) {
		return x, false
	}
	nv := v.val[x.ID]
	if nv == nil {
		nv = x
	}
	return nv, v.batched[x.ID]
}

func (v *vm) set(orig, nv *ir.Value, bat bool) {
	if orig.ID < len(v.val) {
		v.val[orig.ID], v.batched[orig.ID] = nv, bat
	}
}

// ptensor is the per-example tensor type of original value x, nil when x
// is not a typed tensor.
func (v *vm) ptensor(x *ir.Value) *ir.TensorType {
	if x == nil || x.ID >= len(v.ptype) {
		return nil
	}
	if t := v.ptype[x.ID]; t.Kind == ir.KindTensor {
		return t.Tensor
	}
	return nil
}

// rank is x's per-example rank.
func (v *vm) rank(x *ir.Value) int {
	if t := v.ptensor(x); t != nil {
		return t.Rank()
	}
	return 0
}

// emit appends a single-result call of target.
func (v *vm) emit(target string, args ...ir.Arg) (*ir.Value, error) {
	n, err := v.b.Call(target, args, nil, 1, ir.Type{})
	if err != nil {
		return nil, err
	}
	return n.Out(), nil
}

// mapArg replaces the original values in a by the values standing for them.
func (v *vm) mapArg(a ir.Arg) ir.Arg {
	switch a.Kind {
	case ir.ArgValue:
		nv, _ := v.get(a.Value)
		return ir.ValueArg(nv)
	case ir.ArgList, ir.ArgTuple, ir.ArgDict, ir.ArgSlice:
		elems := make([]ir.Arg, len(a.Elems))
		for i, e := range a.Elems {
			elems[i] = v.mapArg(e)
		}
		a.Elems = elems
	}
	return a
}

// node batches one original node.
func (v *vm) node(n *ir.Node) error {
	op, _ := n.Op.(*ops.Op)
	if op != nil && op.Random && n.Form == ir.FormOp {
		return v.ctx.Errorf(n, CodeRandom, "generate the random values outside the vmapped function, or pass them in batched",
			"vmap: called random operation while in randomness error mode. Please either use the 'same' or 'different' randomness flags on vmap or perform the randomness operation out of vmap")
	}
	var batchedArgs []string
	n.WalkInputs(func(x *ir.Value) {
		if _, b := v.get(x); b {
			batchedArgs = append(batchedArgs, x.Name)
		}
	})
	if len(batchedArgs) == 0 {
		v.keep(n)
		return nil
	}
	if n.Form != ir.FormOp || op == nil {
		return v.unsupported("%s (%s) takes batched %s and kiln has no batching rule for it", n.Name, n.Target, strings.Join(batchedArgs, ", "))
	}
	c, err := ops.Bind(n)
	if err != nil {
		return v.unsupported("%v", err)
	}
	v.notes = v.notes[:0]
	if op.Mutates() {
		if err := v.checkInplace(n, op, c); err != nil {
			return err
		}
	}
	if err := v.rule(op)(v, n, op, c); err != nil {
		return err
	}
	if op.IsInplace() {
		v.afterInplace(n, c)
	}
	msg := fmt.Sprintf("%s (%s): batched at dim 0 (batched args: %s)", n.Name, shortName(op), strings.Join(batchedArgs, ", "))
	if len(v.notes) > 0 {
		msg += "; " + strings.Join(v.notes, "; ")
	}
	v.ctx.Remark(n, RemarkVmap, "%s", msg)
	return nil
}

// afterInplace gives self the metadata an in-place op leaves it with, as
// fakeprop does: in the per-example types (the op's result type) and on
// the batched value (the new op's result type).
func (v *vm) afterInplace(n *ir.Node, c *ops.Call) {
	self := c.Args[0]
	if self.Kind != ir.ArgValue || len(n.Results) == 0 {
		return
	}
	x := self.Value
	v.ptype[x.ID] = v.ptype[n.Results[0].ID]
	nv, _ := v.get(x)
	if res, _ := v.get(n.Results[0]); res != nil && res.Type.Kind == ir.KindTensor && nv != res {
		v.b.Undo.Type(nv)
		nv.Type = ir.TensorOf(res.Type.Tensor.Clone())
	}
}

// keep keeps a node none of whose arguments is batched.
func (v *vm) keep(n *ir.Node) {
	changed := false
	n.WalkInputs(func(x *ir.Value) {
		nv, _ := v.get(x)
		changed = changed || nv != x
	})
	if changed {
		args := make([]ir.Arg, len(n.Args))
		for i, a := range n.Args {
			args[i] = v.mapArg(a)
		}
		kwargs := make([]ir.Kwarg, len(n.Kwargs))
		for i, k := range n.Kwargs {
			kwargs[i] = ir.Kwarg{Name: k.Name, Arg: v.mapArg(k.Arg)}
		}
		v.b.Undo.Args(n)
		n.Args, n.Kwargs = args, kwargs
	}
	v.b.Keep(n)
}

// checkInplace refuses an in-place op on an unbatched self when another
// argument is batched (functorch's vmapIncompatibleInplaceError).
func (v *vm) checkInplace(n *ir.Node, op *ops.Op, c *ops.Call) error {
	if !op.IsInplace() {
		return nil
	}
	self := c.Args[0]
	if self.Kind != ir.ArgValue {
		return nil
	}
	if _, b := v.get(self.Value); b {
		return nil
	}
	name := "inplace arithmetic"
	if op.Kind != ops.KindPointwise && op.Kind != ops.KindCast {
		name = op.Schema.Name
	}
	return v.ctx.Errorf(n, CodeInplace,
		"write the result out of place (cat, slice_scatter: run functionalize before vmap), or make self batched (new_zeros on a batched tensor)",
		"vmap: %s(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of %s. If said operator is being called inside the PyTorch framework, please file a bug report instead.",
		name, name)
}

// unsupported is a CodeUnsupported error at the current node.
func (v *vm) unsupported(format string, args ...any) error {
	return v.ctx.Errorf(v.cur, CodeUnsupported, "keep this computation out of the vmapped graph, or rewrite it with ops kiln can batch",
		"vmap: "+format, args...)
}

func (v *vm) note(format string, args ...any) {
	v.notes = append(v.notes, fmt.Sprintf(format, args...))
}

func shortName(op *ops.Op) string {
	if op.Schema.Overload == "default" {
		return op.Schema.Name
	}
	return op.Schema.Name + "." + op.Schema.Overload
}

// finish maps n's tensor results to res's, batched.
func (v *vm) finish(n *ir.Node, res []*ir.Value) {
	for i, r := range n.Results {
		if i < len(res) {
			v.set(r, res[i], v.ptype[r.ID].Kind == ir.KindTensor || v.ptype[r.ID].Kind == ir.KindUnknown)
		}
	}
}

// finishNode maps n's results to node m's.
func (v *vm) finishNode(n, m *ir.Node) { v.finish(n, m.Results) }
