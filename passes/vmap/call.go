package vmap

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes/build"
)

// bcall is a call being rewritten: one argument per schema parameter (the
// original values already replaced), and which of them to spell out.
type bcall struct {
	op    *ops.Op
	args  []ir.Arg
	given []bool
	orig  *ops.Call // the original bound call, for per-example types
}

// rebind starts a rewrite of call c as a call of op (c's op or a
// replacement with the same parameter names).
func (v *vm) rebind(op *ops.Op, c *ops.Call) *bcall {
	bc := &bcall{op: op, orig: c, args: make([]ir.Arg, len(op.Schema.Params)), given: make([]bool, len(op.Schema.Params))}
	for i, p := range op.Schema.Params {
		if c.Has(p.Name) {
			k := c.Index(p.Name)
			bc.args[i], bc.given[i] = v.mapArg(c.Args[k]), c.Given[k]
			continue
		}
		d, err := ops.DefaultArg(p)
		if err == nil {
			bc.args[i] = d
		}
	}
	return bc
}

func (bc *bcall) index(name string) int {
	for i, p := range bc.op.Schema.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

func (bc *bcall) has(name string) bool { return bc.index(name) >= 0 }

func (bc *bcall) get(name string) ir.Arg {
	if i := bc.index(name); i >= 0 {
		return bc.args[i]
	}
	return ir.NoneArg()
}

// set replaces parameter name's argument and spells it out.
func (bc *bcall) set(name string, a ir.Arg) {
	i := bc.index(name)
	bc.args[i], bc.given[i] = a, true
}

// origValue is the original (per-example) value of parameter name, nil
// when it is not a value.
func (bc *bcall) origValue(name string) *ir.Value {
	if !bc.orig.Has(name) {
		return nil
	}
	if a := bc.orig.Arg(name); a.Kind == ir.ArgValue {
		return a.Value
	}
	return nil
}

// emit appends the call: positional arguments up to the last one spelled
// out, keyword-only ones as keywords.
func (v *vm) emitCall(bc *bcall, nres int) (*ir.Node, error) {
	return v.emitNamed(bc, nres, nil)
}

// emitNamed is emitCall for the node that replaces orig: it inherits
// orig's name when FX would have given the op that name, and the names of
// orig's results.
func (v *vm) emitNamed(bc *bcall, nres int, orig *ir.Node) (*ir.Node, error) {
	var args []ir.Arg
	var kwargs []ir.Kwarg
	last := -1
	for i, p := range bc.op.Schema.Params {
		if !p.KwOnly && bc.given[i] {
			last = i
		}
	}
	for i, p := range bc.op.Schema.Params {
		switch {
		case !p.KwOnly && i <= last:
			args = append(args, bc.args[i])
		case p.KwOnly && bc.given[i]:
			kwargs = append(kwargs, ir.Kwarg{Name: p.Name, Arg: bc.args[i]})
		}
	}
	base := baseName(bc.op)
	if orig != nil && build.NameMatches(orig.Name, base) {
		v.b.Names.Release(orig.Name)
		base = orig.Name
	}
	m, err := v.b.CallOp(bc.op, base, args, kwargs, nres, ir.Type{})
	if err == nil && orig != nil && orig.IsTuple() {
		for i, r := range m.Results {
			if i < len(orig.Results) {
				r.Name = orig.Results[i].Name
			}
		}
	}
	return m, err
}

func baseName(op *ops.Op) string {
	if op.Schema.Name == "sym_size" {
		return "sym_size_int"
	}
	return op.Schema.Name
}

// emitLike emits bc with as many results as n has and maps n's results.
func (v *vm) emitLike(n *ir.Node, bc *bcall) error {
	m, err := v.emitNamed(bc, len(n.Results), n)
	if err != nil {
		return err
	}
	v.finishNode(n, m)
	return nil
}

// pad unsqueezes batched value x (per-example rank r) at dim 1 until its
// per-example rank is R, so that it broadcasts against rank-R operands
// with the batch dim still in front.
func (v *vm) pad(x *ir.Value, name string, r, R int) (*ir.Value, error) {
	for k := r; k < R; k++ {
		nx, err := v.emit("aten::unsqueeze.default", ir.ValueArg(x), ir.IntArg(1))
		if err != nil {
			return nil, err
		}
		x = nx
	}
	if R > r {
		v.note("%s padded from rank %d to %d", name, r, R)
	}
	return x, nil
}

// expandToBatch makes unbatched value x (per-example rank r) batched:
// unsqueeze(0) then expand to the batch size.
func (v *vm) expandToBatch(x *ir.Value, name string, r int) (*ir.Value, error) {
	u, err := v.emit("aten::unsqueeze.default", ir.ValueArg(x), ir.IntArg(0))
	if err != nil {
		return nil, err
	}
	size := make([]int64, r+1)
	for k := range size {
		size[k] = -1
	}
	size[0] = v.B
	e, err := v.emit("aten::expand.default", ir.ValueArg(u), ir.IntList(size...))
	if err == nil {
		v.note("unbatched %s expanded to the batch", name)
	}
	return e, err
}

// batchedArg returns parameter name's value batched: as it is when
// batched, expanded when not.
func (v *vm) batchedArg(bc *bcall, name string) error {
	ov := bc.origValue(name)
	if ov == nil {
		return nil
	}
	nv, b := v.get(ov)
	if b {
		return nil
	}
	e, err := v.expandToBatch(nv, ov.Name, v.rank(ov))
	if err != nil {
		return err
	}
	bc.set(name, ir.ValueArg(e))
	return nil
}

// shiftDim moves dim parameter name past the batch dim: wrapped against
// the per-example rank (rank+extra for ops that add a dim, unsqueeze and
// stack), plus one. None stays None.
func (v *vm) shiftDim(bc *bcall, name string, rank int) error {
	a := bc.get(name)
	if a.Kind == ir.ArgNone {
		return nil
	}
	d, err := ops.ArgSymInt(a)
	if err != nil {
		return v.unsupported("%s: %v", name, err)
	}
	c, ok := d.Const()
	if !ok {
		return v.unsupported("%s is symbolic", name)
	}
	w, err := ops.WrapDim(c, rank)
	if err != nil {
		return v.unsupported("%s: %v", name, err)
	}
	bc.set(name, ir.IntArg(int64(w+1)))
	v.note("%s %d -> %d", name, c, w+1)
	return nil
}

// shiftDims shifts every dim of list parameter name.
func (v *vm) shiftDims(bc *bcall, name string, rank int) error {
	a := bc.get(name)
	if a.Kind == ir.ArgNone {
		return nil
	}
	if !a.IsSequence() {
		return v.shiftDim(bc, name, rank)
	}
	elems := make([]ir.Arg, len(a.Elems))
	var from, to []int64
	for i, e := range a.Elems {
		d, err := ops.ArgSymInt(e)
		c, ok := d.Const()
		if err != nil || !ok {
			return v.unsupported("%s[%d] is not a constant", name, i)
		}
		w, err := ops.WrapDim(c, rank)
		if err != nil {
			return v.unsupported("%s: %v", name, err)
		}
		elems[i] = ir.IntArg(int64(w + 1))
		from, to = append(from, c), append(to, int64(w+1))
	}
	bc.set(name, ir.ListArg(elems...))
	v.note("%s %v -> %v", name, from, to)
	return nil
}

// dimParams are the parameter names that hold dimensions.
var dimParams = []string{"dim", "dim0", "dim1", "dim2", "dimension", "dims"}
