package interp

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Random inputs. Every input gets its own stream, seeded by the run's seed
// and the input's name, so adding an input never changes another's data.
// Floats are standard normal (rounded into their dtype), signed ints lie in
// [-5, 5], unsigned ints in [0, 9], bools are fair coin flips; an integer
// input that indexes another tensor (embedding, gather, index, nll_loss
// targets) stays within the indexed size; max-pool indices name an
// element of their window (random_pool.go).

// MakeInputs makes one value per graph input: tensors of the input's type
// (its annotation, or Options.InputTypes) filled from the seed, symbolic
// ints from Options.Sym or the default. An input whose type is unknown is
// an error positioned at the input.
func MakeInputs(g *ir.Graph, opts Options) (out []any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, diag.Errorf(g.Pos, "internal", "please report this graph as a kiln bug", "making inputs: %v", r)
		}
	}()
	m := &machine{g: g, opts: opts, sym: map[string]int64{}}
	for k, v := range opts.Sym {
		m.sym[k] = v
	}
	out = make([]any, len(g.Inputs))
	for i, v := range g.Inputs {
		t := m.inputType(v)
		if !t.IsKnown() {
			return nil, diag.Errorf(v.Pos, CodeUntyped,
				"annotate the input (FX `name: \"f32[4, 3]\"`), pass its type (kiln run -type "+v.Name+"=f32[4,3]), or give its data (-inputs DIR)",
				"input %s has no type, so the interpreter cannot make a value for it", v.Name)
		}
		x, err := m.randomInput(v, t)
		if err != nil {
			return nil, diag.Errorf(v.Pos, CodeInput, "", "input %s: %v", v.Name, err)
		}
		out[i] = x
	}
	return out, nil
}

// randomInput makes one input, honouring index ranges.
func (m *machine) randomInput(v *ir.Value, t ir.Type) (any, error) {
	if tt, ok, err := m.poolIndices(v, t); ok || err != nil {
		return tt, err
	}
	if tt, ok, err := m.bagOffsets(v, t); ok || err != nil {
		return tt, err
	}
	if t.Kind == ir.KindTensor && !t.Tensor.DType.IsFloat() {
		if bound, ok := m.indexBound(v); ok {
			tt, err := m.concreteTensor(t.Tensor)
			if err != nil {
				return nil, err
			}
			rng := m.stream(v.Name)
			fillInts(tt, func() int64 { return rng.Int64N(max(bound, 1)) })
			return tt, nil
		}
	}
	if t.Kind == ir.KindTensor && t.Tensor.DType.IsSigned() && !t.Tensor.DType.IsFloat() && feedsItem(v, 10) {
		tt, err := m.concreteTensor(t.Tensor)
		if err != nil {
			return nil, err
		}
		rng := m.stream(v.Name)
		fillInts(tt, func() int64 { return rng.Int64N(10) })
		return tt, nil
	}
	return m.randomValue(t, v.Name)
}

// feedsItem reports whether v reaches .item() within depth nodes: such
// values often become sizes, so random data for them stays non-negative.
func feedsItem(v *ir.Value, depth int) bool {
	if depth == 0 {
		return false
	}
	for _, u := range v.Users() {
		if u.Target == "aten::_local_scalar_dense.default" || u.Target == "aten::item.default" || u.Target == "method.item" {
			return true
		}
		for _, r := range u.Results {
			if feedsItem(r, depth-1) {
				return true
			}
		}
	}
	return false
}

// stream is the random source for one named value.
func (m *machine) stream(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(m.opts.Seed, h.Sum64()))
}

// randomValue makes a value of type t from the stream called name.
func (m *machine) randomValue(t ir.Type, name string) (any, error) {
	switch t.Kind {
	case ir.KindTensor:
		tt, err := m.concreteTensor(t.Tensor)
		if err != nil {
			return nil, err
		}
		fillRandom(tt, m.stream(name))
		return tt, nil
	case ir.KindSymInt:
		return m.evalSym(t.Sym)
	case ir.KindSymBool:
		v, err := m.evalSym(t.Sym)
		return v != 0, err
	case ir.KindSymFloat:
		return m.stream(name).NormFloat64(), nil
	case ir.KindNone:
		return nil, nil
	}
	return nil, fmt.Errorf("cannot make a value of type %s", t)
}

// concreteTensor allocates a tensor of a static type with symbols
// evaluated; the storage covers the type's strides and offset.
func (m *machine) concreteTensor(tt *ir.TensorType) (*Tensor, error) {
	shape, err := mapErr(tt.Shape, m.evalSym)
	if err != nil {
		return nil, err
	}
	var strides []int64
	if tt.HasStrides() && len(tt.Strides) == len(shape) {
		if strides, err = mapErr(tt.Strides, m.evalSym); err != nil {
			return nil, err
		}
	}
	offset, err := m.evalSym(tt.Offset)
	if err != nil {
		return nil, err
	}
	dev := tt.Device
	if !dev.Known() {
		dev = ir.CPU
	}
	t, err := Empty(tt.DType, shape, strides, dev)
	if err != nil {
		return nil, err
	}
	if offset > 0 { // a storage that starts before the view
		need := storageElems(t.Shape, t.Strides, offset) * int64(tt.DType.ItemSize())
		t.Storage.Data = make([]byte, need)
		t.Offset = offset
	}
	return t, nil
}

// fillRandom fills t's whole storage (elements outside the view too, so a
// later as_strided reads defined data).
func fillRandom(t *Tensor, rng *rand.Rand) {
	n := int64(len(t.Storage.Data) / t.DType.ItemSize())
	b := t.Storage.Data
	dt := t.DType
	for i := int64(0); i < n; i++ {
		switch {
		case dt.IsFloat():
			storeF(dt, b, i, rng.NormFloat64())
		case dt == ir.Bool:
			storeI(dt, b, i, rng.Int64N(2))
		case dt.IsSigned():
			storeI(dt, b, i, rng.Int64N(11)-5)
		default:
			storeI(dt, b, i, rng.Int64N(10))
		}
	}
}

// fillInts fills t's whole storage with next().
func fillInts(t *Tensor, next func() int64) {
	n := int64(len(t.Storage.Data) / t.DType.ItemSize())
	for i := int64(0); i < n; i++ {
		storeI(t.DType, t.Storage.Data, i, next())
	}
}

// unknownIndexBound is the range of an index input whose indexed size is
// not known statically (an unannotated graph): small, hence valid for any
// indexed dim of size 2 or more.
const unknownIndexBound = 2

// indexBound finds the exclusive upper bound for an integer input used as
// indices: the smallest indexed size over its users.
func (m *machine) indexBound(v *ir.Value) (int64, bool) {
	return m.indexBoundDepth(v, 8)
}

// indexBoundDepth looks through views (select, view, expand, ...) of v for
// index uses, up to depth views deep: corpus graphs slice their index
// tensors before using them.
func (m *machine) indexBoundDepth(v *ir.Value, depth int) (int64, bool) {
	best, found := int64(0), false
	for _, u := range v.Users() {
		b, ok := m.indexBoundIn(u, v)
		if !ok && usedAsIndex(u, v) {
			b, ok = unknownIndexBound, true
		}
		if op, isOp := u.Op.(*ops.Op); !ok && isOp && op != nil && (op.Kind == ops.KindView && !op.Mutates() || passesValues(u, op, v)) && depth > 0 {
			for _, r := range u.Results {
				if rb, rok := m.indexBoundDepth(r, depth-1); rok && (!ok || rb < b) {
					b, ok = rb, true
				}
			}
		}
		if ok && (!found || b < best) {
			best, found = b, true
		}
	}
	return best, found
}

// valuePassing names, per op, the operands whose values its result holds
// (some of them, or others beside them): where(mask, v, 0) is how cross
// entropy keeps ignore_index out of its gather (corpus 041); a clamp
// (maximum/minimum with a bound) is how the embedding backward's
// decomposition keeps token ids in range before its index_put (corpus 107,
// 109: ids made without looking through it were negative, ids eager
// refuses); BERT gathers its token type ids out of a buffer before their
// embedding (corpus 108: ids made without looking through the gather were
// out of range).
var valuePassing = map[string][]string{
	"clone": {"self"}, "maximum": {"self", "other"}, "minimum": {"self", "other"}, "clamp": {"self"},
	"clamp_min": {"self"}, "clamp_max": {"self"}, "where": {"self", "other"}, "gather": {"self"},
	"index_select": {"self"}, "index": {"self"}, "take": {"self"},
	// a device or dtype move (RoBERTa's buffer.to(device) before its gather)
	"to": {"self"}, "_to_copy": {"self"},
}

// passesValues reports whether n's result holds v's values (valuePassing).
func passesValues(n *ir.Node, op *ops.Op, v *ir.Value) bool {
	params, ok := valuePassing[op.Schema.Name]
	if !ok {
		return false
	}
	c, err := ops.Bind(n)
	if err != nil {
		return false
	}
	for _, name := range params {
		if c.Has(name) && c.Arg(name).Kind == ir.ArgValue && c.Arg(name).Value == v {
			return true
		}
	}
	return false
}

// usedAsIndex reports whether n takes v as indices (index, indices,
// target, or an element of an indices list).
func usedAsIndex(n *ir.Node, v *ir.Value) bool {
	c, err := ops.Bind(n)
	if err != nil {
		return false
	}
	for _, name := range []string{"index", "indices", "target"} {
		if !c.Has(name) {
			continue
		}
		a := c.Arg(name)
		if a.Kind == ir.ArgValue && a.Value == v {
			return true
		}
		for _, e := range a.Elems {
			if e.Kind == ir.ArgValue && e.Value == v {
				return true
			}
		}
	}
	return false
}

func (m *machine) indexBoundIn(n *ir.Node, v *ir.Value) (int64, bool) {
	op, ok := n.Op.(*ops.Op)
	if !ok || op == nil {
		return 0, false
	}
	c, err := ops.Bind(n)
	if err != nil {
		return 0, false
	}
	size := func(param string, dim int64) (int64, bool) {
		if !c.Has(param) {
			return 0, false
		}
		t, err := c.Tensor(param)
		if err != nil || t == nil || len(t.Shape) == 0 {
			return 0, false
		}
		d, err := wrapDim(dim, len(t.Shape))
		if err != nil {
			return 0, false
		}
		s, err := m.evalSym(t.Shape[d])
		return s, err == nil
	}
	uses := func(param string) bool {
		return c.Has(param) && c.Arg(param).Kind == ir.ArgValue && c.Arg(param).Value == v
	}
	switch {
	case op.Schema.Name == "embedding" && uses("indices"):
		return size("weight", 0)
	case (op.Schema.Name == "_embedding_bag" || op.Schema.Name == "_embedding_bag_forward_only") && uses("indices"):
		return size("weight", 0)
	case (op.Schema.Name == "embedding_dense_backward" || op.Schema.Name == "_embedding_bag_backward") && uses("indices"):
		n, err := c.Int("num_weights")
		return n, err == nil && n > 0
	case (uses("index") || uses("indices")) && c.Has("dim"):
		d, err := c.Int("dim")
		if err != nil {
			return 0, false
		}
		return size("self", d)
	case uses("target"):
		t, err := c.Tensor("self")
		if err != nil || t == nil {
			return 0, false
		}
		return size("self", min(int64(1), int64(len(t.Shape)-1)))
	}
	if c.Has("indices") && c.Arg("indices").IsSequence() {
		for k, e := range c.Arg("indices").Elems {
			if e.Kind == ir.ArgValue && e.Value == v {
				return size("self", int64(k))
			}
		}
	}
	return 0, false
}
