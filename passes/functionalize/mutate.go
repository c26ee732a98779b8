package functionalize

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes/build"
)

// asStridedMessage is PyTorch's refusal (FunctionalStorageImpl::add_update),
// verbatim, including its missing space after "today,".
const asStridedMessage = "During torch.compile, encountered a mutation on a view chain of length %d, where view %d" +
	" was an as_strided() call. as_strided() is non-compositional, and therefore is not possible to functionalize properly today," +
	"so this behavior is banned in compile. As a workaround, you can either remove the mutation from the model code, or you " +
	"can insert a graph break right before the mutation with torch._dynamo.graph_break(). If you would like this behavior to " +
	"work properly, please comment on https://github.com/pytorch/pytorch/issues/104505."

// inplaceView handles transpose_ and friends: the alias gets one more
// view in its chain and its value becomes that view of its current value;
// no data changes, so nothing is written back.
func (f *fn) inplaceView(n *ir.Node, op *ops.Op) error {
	if len(n.Args) == 0 || n.Args[0].Kind != ir.ArgValue {
		return f.unsupported("%s has no tensor self", n.Name)
	}
	a := f.aliasOf(n.Args[0].Value)
	if a == nil {
		return f.unsupported("%s: self is not a tensor", n.Name)
	}
	in := tensorType(a.value, nil)
	m := newMeta(n, op, 0, in)
	v, err := f.replay(m, a.value)
	if err != nil {
		return err
	}
	m.outT = v.Type
	if a.st.root == a.value && len(a.metas) == 0 && a.value.IsInput() {
		f.ctx.Warn(n, RemarkMutation, "AOTAutograd replays input metadata mutations outside the graph",
			"%s changes the metadata of input %s; the caller's %s keeps its old sizes and strides", n.Name, a.name, a.name)
	}
	a.metas, a.value = a.chain(m), v
	f.bindResults(n, a)
	f.ctx.Remark(n, RemarkMutation, "%s (%s) on %s became %s = %s", n.Name, shortName(op), a.name, v.Name, shortName(m.op))
	return nil
}

// bindResults makes every result of mutating node n that returns a
// mutated argument stand for that argument's alias.
func (f *fn) bindResults(n *ir.Node, a *alias) {
	for _, r := range n.Results {
		if r.ID < len(f.aliases) {
			f.aliases[r.ID] = a
		}
	}
}

// mutation replaces an in-place or out= op by its functional counterpart,
// then commits each mutated argument's new value to its storage and
// brings the argument up to date, as PyTorch's generated functionalization
// kernels do (replace_, commit_update, sync).
func (f *fn) mutation(n *ir.Node, op *ops.Op) error {
	fop := ops.Lookup(op.Functional)
	if op.Functional == "" || fop == nil {
		return f.unsupported("%s mutates its input and kiln's registry names no functional counterpart for %s",
			n.Name, op.QualifiedName())
	}
	mutated := op.Schema.Mutated()
	args := append([]ir.Arg(nil), n.Args...)
	kwargs := append([]ir.Kwarg(nil), n.Kwargs...)
	targets, err := f.mutatedAliases(n, op, mutated)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if err := f.checkChain(n, t.a); err != nil {
			return err
		}
	}
	if done, err := f.keepWriteBack(n, op, targets); done || err != nil {
		return err
	}
	args, kwargs, err = f.functionalArgs(op, args, kwargs)
	if err != nil {
		return err
	}
	fn, err := f.emitFunctional(n, fop, args, kwargs, targets)
	if err != nil {
		return err
	}
	f.ctx.Remark(n, RemarkMutation, "%s (%s) on %s became %s = %s", n.Name, shortName(op), aliasNames(targets), fn.Name, shortName(fop))
	return f.commitResults(n, op, fop, fn, targets)
}

// target is one mutated tensor: its alias and the parameter it came from.
type target struct {
	a     *alias
	param int // schema parameter index
	elem  int // index in a Tensor[] parameter, -1 for a single tensor
}

func (f *fn) mutatedAliases(n *ir.Node, op *ops.Op, mutated []int) ([]target, error) {
	c, err := ops.Bind(n)
	if err != nil {
		return nil, f.unsupported("%v", err)
	}
	var out []target
	for _, p := range mutated {
		arg := c.Args[p]
		switch {
		case arg.Kind == ir.ArgValue:
			a := f.aliasOf(arg.Value)
			if a == nil {
				return nil, f.unsupported("%s mutates %s, which is not a tensor", n.Name, arg.Value.Name)
			}
			out = append(out, target{a: a, param: p, elem: -1})
		case arg.IsSequence():
			for i, e := range arg.Elems {
				if e.Kind != ir.ArgValue || f.aliasOf(e.Value) == nil {
					return nil, f.unsupported("%s mutates element %d of %s, which is not a tensor", n.Name, i, op.Schema.Params[p].Name)
				}
				out = append(out, target{a: f.aliasOf(e.Value), param: p, elem: i})
			}
		case arg.Kind == ir.ArgNone:
		default:
			return nil, f.unsupported("%s mutates %s, which is not a tensor", n.Name, arg.String())
		}
	}
	return out, nil
}

// functionalArgs reads every tensor argument up to date and drops the
// out= arguments the functional op does not take.
func (f *fn) functionalArgs(op *ops.Op, args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg, error) {
	if _, err := f.rewriteArgs(args, false); err != nil {
		return nil, nil, err
	}
	var kept []ir.Kwarg
	for _, k := range kwargs {
		p := op.Schema.Param(k.Name)
		if p != nil && p.KwOnly && p.Alias != nil && p.Alias.Write {
			continue
		}
		one := []ir.Arg{k.Arg}
		if _, err := f.rewriteArgs(one, false); err != nil {
			return nil, nil, err
		}
		kept = append(kept, ir.Kwarg{Name: k.Name, Arg: one[0]})
	}
	return args, kept, nil
}

// emitFunctional appends the functional call. It inherits the mutating
// node's name when that name is already the functional op's (FX named the
// node before it was re-inplaced: `add_1 = torch.ops.aten.add_.Tensor`).
func (f *fn) emitFunctional(n *ir.Node, fop *ops.Op, args []ir.Arg, kwargs []ir.Kwarg, targets []target) (*ir.Node, error) {
	nres := 1
	if fop.Schema.VarRet {
		nres = len(targets)
	} else if k, _ := fop.NumResults(); k > 1 {
		nres = k
	}
	base := build.BaseName(fop)
	if nres == 1 && build.NameMatches(n.Name, base) {
		base = n.Name
		f.b.Names.Release(base)
	}
	fallback := ir.Type{}
	if len(targets) == 1 {
		fallback = targets[0].a.value.Type
	}
	if err := fop.CheckCall(len(args), build.KwNames(kwargs)); err != nil {
		return nil, f.unsupported("%s cannot be called like %s: %v", fop.QualifiedName(), n.Name, err)
	}
	return f.b.CallOp(fop, base, args, kwargs, nres, fallback)
}

// commitResults gives each mutated alias its new value, commits the
// update, syncs the alias (which writes it back into the base), and binds
// the mutating node's results.
func (f *fn) commitResults(n *ir.Node, op, fop *ops.Op, fn *ir.Node, targets []target) error {
	idx, err := resultIndex(op, fop, targets, len(fn.Results))
	if err != nil {
		return f.unsupported("%s: %v", n.Name, err)
	}
	for i, t := range targets {
		nv, err := f.castLike(fn.Results[idx[i]], t.a.value)
		if err != nil {
			return err
		}
		if err := f.commit(n, t.a, nv); err != nil {
			return err
		}
	}
	for ri, r := range n.Results {
		if r.ID >= len(f.aliases) {
			continue
		}
		if a := returnedAlias(op, ri, targets); a != nil {
			f.aliases[r.ID] = a
		} else if ri < len(fn.Results) && tracked(r.Type) {
			f.fresh(r).value = fn.Results[ri]
		}
	}
	return nil
}

// resultIndex maps each target to the functional op's result holding its
// new value: the matching return of an in-place or out= op, the list
// element of a foreach op, or the extra results a functional variant adds
// after the original returns (_native_batch_norm_legit_functional).
func resultIndex(op, fop *ops.Op, targets []target, nres int) ([]int, error) {
	idx := make([]int, len(targets))
	rets := op.Schema.Returns
	for i, t := range targets {
		switch {
		case t.elem >= 0:
			idx[i] = t.elem
		case returnOf(op, t.param) >= 0:
			idx[i] = returnOf(op, t.param)
		default:
			idx[i] = len(rets) + mutatedRank(op, t.param)
		}
		if idx[i] >= nres {
			return nil, fmt.Errorf("%s returns %d value(s); the new value of %s is not among them",
				fop.QualifiedName(), nres, op.Schema.Params[t.param].Name)
		}
	}
	return idx, nil
}

// returnOf is the index of the return that aliases parameter p, or -1.
func returnOf(op *ops.Op, p int) int {
	pa := op.Schema.Params[p].Alias
	for i, r := range op.Schema.Returns {
		if pa != nil && r.Alias != nil && r.Alias.Set == pa.Set {
			return i
		}
	}
	return -1
}

func mutatedRank(op *ops.Op, p int) int {
	for k, q := range op.Schema.Mutated() {
		if q == p {
			return k
		}
	}
	return 0
}

// returnedAlias is the alias result ri of op returns, if it returns a
// mutated argument.
func returnedAlias(op *ops.Op, ri int, targets []target) *alias {
	rets := op.Schema.Returns
	if ri >= len(rets) || rets[ri].Alias == nil {
		return nil
	}
	for _, t := range targets {
		if pa := op.Schema.Params[t.param].Alias; pa != nil && pa.Set == rets[ri].Alias.Set && t.elem < 0 {
			return t.a
		}
	}
	return nil
}

// castLike converts nv to like's dtype when the functional op promoted it
// (FunctionalTensorWrapper::replace_ inserts _to_copy).
func (f *fn) castLike(nv, like *ir.Value) (*ir.Value, error) {
	if nv.Type.Kind != ir.KindTensor || like.Type.Kind != ir.KindTensor || nv.Type.Tensor.DType == like.Type.Tensor.DType {
		return nv, nil
	}
	dt := like.Type.Tensor.DType
	n, err := f.b.Call("aten::_to_copy.default", []ir.Arg{ir.ValueArg(nv)}, []ir.Kwarg{{Name: "dtype", Arg: ir.DTypeArg(dt)}}, 1, ir.Type{})
	if err != nil {
		return nil, err
	}
	return n.Out(), nil
}

// commit is replace_ + commit_update + sync: a's value becomes nv, the
// update is queued on the storage (refused, as PyTorch refuses it, when
// an as_strided view follows the first view), and a is brought up to
// date, which writes the update back into the base.
func (f *fn) commit(n *ir.Node, a *alias, nv *ir.Value) error {
	if err := f.checkChain(n, a); err != nil {
		return err
	}
	a.value = nv
	a.st.pending = append(a.st.pending, update{value: nv, metas: a.metas, by: n, alias: a.name})
	a.st.gen++
	a.st.mutated = true
	if err := f.applyUpdates(a.st); err != nil {
		return err
	}
	return f.regenerate(a, false)
}

// checkChain refuses, as FunctionalStorageImpl::add_update does, a
// mutation of a view chain with as_strided after its first view.
func (f *fn) checkChain(n *ir.Node, a *alias) error {
	for i := 1; i < len(a.metas); i++ {
		if a.metas[i].op.IsAsStrided() {
			return f.ctx.Errorf(n, CodeAsStrided, "remove the mutation, or mutate the base instead of a view taken with as_strided",
				asStridedMessage, len(a.metas), i)
		}
	}
	return nil
}

// sync brings a up to date: pending updates are applied to the base, then
// a is regenerated from it.
func (f *fn) sync(a *alias) error {
	if a.gen == a.st.gen {
		return nil
	}
	if err := f.applyUpdates(a.st); err != nil {
		return err
	}
	return f.regenerate(a, true)
}

// applyUpdates writes every queued update into the storage's base.
func (f *fn) applyUpdates(st *storage) error {
	for _, u := range st.pending {
		nb, ops, err := f.applyUpdate(st.base, u)
		if err != nil {
			return err
		}
		if len(u.metas) > 0 {
			f.ctx.Remark(u.by, RemarkWriteBack, "%s: %s written back into %s by %s (new base %s)",
				u.by.Name, u.alias, st.root.Name, strings.Join(ops, ", "), nb.Name)
		}
		st.base = nb
	}
	st.pending = st.pending[:0]
	return nil
}

// applyUpdate replays u's views but the last on base, then applies the
// inverses from the last view back.
func (f *fn) applyUpdate(base *ir.Value, u update) (*ir.Value, []string, error) {
	if len(u.metas) == 0 {
		return u.value, nil, nil
	}
	tmps := []*ir.Value{base}
	for _, m := range u.metas[:len(u.metas)-1] {
		v, err := f.replay(m, tmps[len(tmps)-1])
		if err != nil {
			return nil, nil, err
		}
		tmps = append(tmps, v)
	}
	t := u.value
	var names []string
	for i := len(u.metas) - 1; i >= 0; i-- {
		nt, err := f.inverse(u.metas[i], tmps[i], t)
		if err != nil {
			return nil, nil, err
		}
		if nt != t && nt.Def != nil {
			names = append(names, shortName(nt.Def.Op.(*ops.Op)))
		}
		t = nt
	}
	return t, names, nil
}

// regenerate recomputes a from its storage's base by replaying its views;
// remark says whether to report it (a read of a stale alias; the mutated
// alias itself is always regenerated after its write-back).
func (f *fn) regenerate(a *alias, remark bool) error {
	t := a.st.base
	for _, m := range a.metas {
		v, err := f.replay(m, t)
		if err != nil {
			return err
		}
		t = v
	}
	if remark && len(a.metas) > 0 && f.cur != nil {
		f.ctx.Remark(f.cur, RemarkRegenerate, "%s regenerated as %s from %s", a.name, t.Name, a.st.base.Name)
	}
	a.value, a.gen = t, a.st.gen
	return nil
}

func shortName(op *ops.Op) string {
	s := op.Schema
	if s.Overload == "default" {
		return s.Name
	}
	return s.Name + "." + s.Overload
}

func aliasNames(ts []target) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.a.name
	}
	return strings.Join(names, ", ")
}
