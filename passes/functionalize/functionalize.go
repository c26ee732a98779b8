// Package functionalize turns mutation into data flow the way PyTorch's
// functionalization does (aten FunctionalTensorWrapper and
// FunctionalStorageImpl): every in-place op becomes its functional
// counterpart, a mutation through a view is written back into the view's
// base by replaying the view chain and applying view inverses from the
// last view back (slice_scatter, select_scatter, diagonal_scatter,
// as_strided_scatter, a view back to the base's shape, ...), later reads of
// any alias of the mutated storage read the view regenerated from the new
// base, and a mutated graph input is written back once at the end by a
// copy_ epilogue. After the pass the verifier's functional stage holds.
//
// Remarks record the decisions: which mutation became which functional op
// (code "functionalize"), through which inverses it reached its base
// ("write-back"), which later read regenerated a view ("regenerate"), and
// which input got an epilogue ("epilogue").
package functionalize

import (
	"errors"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/build"
)

// Diagnostic codes.
const (
	// CodeAsStrided is PyTorch's refusal of a mutation on a view chain
	// with as_strided after its first view.
	CodeAsStrided = "functionalize-as-strided"
	// CodeUnsupported is a mutation kiln cannot functionalize.
	CodeUnsupported = "functionalize-unsupported"
	// Remark codes.
	RemarkMutation   = "functionalize"
	RemarkWriteBack  = "write-back"
	RemarkRegenerate = "regenerate"
	RemarkEpilogue   = "epilogue"
)

func init() {
	passes.Register(passes.Info{
		Name:    "functionalize",
		Summary: "replace in-place ops by functional ones, write mutations through views back with view inverses, copy_ mutated inputs back at the end",
		Requires: []passes.Requirement{{Pass: "fakeprop",
			Reason: "aliasing is decided by storage identity, and view inverses need the shapes of the views' inputs"}},
		Stage: ir.StageFunctional,
		New:   func(passes.Options) (passes.Pass, error) { return Pass{}, nil },
	})
}

// Pass is the functionalize pass.
type Pass struct{}

// Name is "functionalize".
func (Pass) Name() string { return "functionalize" }

// Run functionalizes g. A graph without mutation is left alone.
func (Pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	if !hasMutation(g) {
		return false, nil
	}
	f := newFn(ctx, g)
	if err := f.run(); err != nil {
		f.b.Undo.Restore()
		return false, err
	}
	return true, nil
}

func hasMutation(g *ir.Graph) bool {
	for _, n := range g.Nodes {
		if ir.IsMutatingNode(n) {
			return true
		}
	}
	return false
}

// fn is one functionalization of one graph.
type fn struct {
	ctx     *passes.Context
	g       *ir.Graph
	b       *build.Builder
	aliases []*alias // by original value id
	inputs  []*alias // by input index
	attrs   []*alias // module attributes (get_attr)
	// changed marks original values whose type the rewrite changed, so
	// that their users are re-typed too.
	changed []bool
	// inplaceViewSelf marks values an in-place op re-shapes (transpose_,
	// resize_: PyTorch's inplace_view tag): fakeprop leaves them with their final
	// metadata, so their defining node is re-typed (an input takes its
	// annotation back) to recover the metadata before it.
	inplaceViewSelf []bool
	// storage is fakeprop's storage id of each original value, by value
	// id: whether a view shares its input's storage is decided on these,
	// since re-typing a rewritten view gives it the storage of the value
	// it now reads (a functional op's result, a fresh storage).
	storage []ir.StorageID
	cur     *ir.Node // the node being rewritten
}

func newFn(ctx *passes.Context, g *ir.Graph) *fn {
	nv := g.NumValueIDs()
	f := &fn{ctx: ctx, g: g, b: build.NewBuilder(g), aliases: make([]*alias, nv),
		changed: make([]bool, nv), inplaceViewSelf: make([]bool, nv), storage: make([]ir.StorageID, nv)}
	for _, v := range g.Inputs {
		f.storage[v.ID] = storageOf(v)
	}
	for _, n := range g.Nodes {
		for _, r := range n.Results {
			f.storage[r.ID] = storageOf(r)
		}
		if op, ok := n.Op.(*ops.Op); ok && op.IsInplaceView() && len(n.Args) > 0 && n.Args[0].Kind == ir.ArgValue {
			f.inplaceViewSelf[n.Args[0].Value.ID] = true
		}
	}
	return f
}

func (f *fn) run() error {
	for _, in := range f.g.Inputs {
		f.inputs = append(f.inputs, f.defineInput(in))
	}
	for _, n := range f.g.Nodes {
		f.ctx.At(n)
		f.cur = n
		f.b.At(n)
		if err := f.node(n); err != nil {
			return f.diagnose(err)
		}
	}
	f.cur = nil
	outs, err := f.outputs()
	if err != nil {
		return err
	}
	if err := f.epilogue(); err != nil {
		return err
	}
	f.b.Finish(outs)
	return nil
}

// node rewrites one original node.
func (f *fn) node(n *ir.Node) error {
	op, _ := n.Op.(*ops.Op)
	switch {
	case n.Form != ir.FormOp || op == nil:
		return f.opaque(n)
	case op.Mutates() && op.Kind == ops.KindView && op.IsInplace():
		return f.inplaceView(n, op)
	case op.Mutates():
		return f.mutation(n, op)
	case op.IsView() || sharesSelfStorage(n):
		return f.view(n, op)
	}
	return f.plain(n)
}

// sharesSelfStorage reports a result that fakeprop put in its first
// argument's storage although the schema declares no alias
// (_unsafe_view): kiln follows the storage.
func sharesSelfStorage(n *ir.Node) bool {
	if len(n.Args) == 0 || n.Args[0].Kind != ir.ArgValue {
		return false
	}
	s := storageOf(n.Args[0].Value)
	for _, r := range n.Results {
		if s != 0 && storageOf(r) == s {
			return true
		}
	}
	return false
}

func (f *fn) defineInput(in *ir.Value) *alias {
	if !tracked(in.Type) {
		return nil
	}
	if f.inplaceViewSelf[in.ID] && in.Annot.Kind == ir.KindTensor {
		t := in.Annot.Tensor.Clone()
		if t.Strides == nil {
			t.Strides = ir.ContiguousStrides(t.Shape)
		}
		t.Storage = storageOf(in)
		f.b.Undo.Type(in)
		in.Type = ir.TensorOf(t)
	}
	return f.fresh(in)
}

// fresh makes v the base of a storage of its own.
func (f *fn) fresh(v *ir.Value) *alias {
	st := &storage{base: v, root: v}
	a := &alias{st: st, value: v, name: v.Name}
	f.aliases[v.ID] = a
	return a
}

// aliasOf is the alias an original value stands for; nil for values that
// cannot alias (SymInts) and for values the pass created.
func (f *fn) aliasOf(v *ir.Value) *alias {
	if v.ID >= len(f.aliases) {
		return nil
	}
	a := f.aliases[v.ID]
	if a == nil && tracked(v.Type) && v.Def != nil && v.Def.Graph() == f.g {
		a = f.fresh(v)
	}
	return a
}

// read is the current value of v for a reader that is not a view: a stale
// alias is brought up to date first.
func (f *fn) read(v *ir.Value) (*ir.Value, error) {
	a := f.aliasOf(v)
	if a == nil {
		return v, nil
	}
	if err := f.sync(a); err != nil {
		return nil, err
	}
	return a.value, nil
}

// rewriteArgs replaces every value in args by read (or, for view, by the
// alias's current value without syncing), reporting whether any changed.
func (f *fn) rewriteArgs(args []ir.Arg, lazy bool) (bool, error) {
	changed := false
	var err error
	for i := range args {
		a := &args[i]
		switch a.Kind {
		case ir.ArgValue:
			nv := a.Value
			if lazy {
				if al := f.aliasOf(a.Value); al != nil {
					nv = al.value
				}
			} else if nv, err = f.read(a.Value); err != nil {
				return false, err
			}
			if nv != a.Value || f.changed[a.Value.ID] {
				changed = true
				a.Value = nv
			}
		case ir.ArgList, ir.ArgTuple, ir.ArgDict, ir.ArgSlice:
			elems := append([]ir.Arg(nil), a.Elems...)
			c, err := f.rewriteArgs(elems, lazy)
			if err != nil {
				return false, err
			}
			if c {
				a.Elems, changed = elems, true
			}
		}
	}
	return changed, nil
}

// rewriteNode reads n's arguments (self lazily for a view) and reports
// whether any changed.
func (f *fn) rewriteNode(n *ir.Node, lazySelf bool) (bool, error) {
	if !f.needsRewrite(n) {
		return false, nil
	}
	args := append([]ir.Arg(nil), n.Args...)
	kwargs := append([]ir.Kwarg(nil), n.Kwargs...)
	var c1 bool
	var err error
	var first []ir.Arg
	if lazySelf && len(args) > 0 {
		if c1, err = f.rewriteArgs(args[:1], true); err != nil {
			return false, err
		}
		first, args = args[:1:1], args[1:]
	}
	c2, err := f.rewriteArgs(args, false)
	if err != nil {
		return false, err
	}
	kargs := make([]ir.Arg, len(kwargs))
	for i, k := range kwargs {
		kargs[i] = k.Arg
	}
	c3, err := f.rewriteArgs(kargs, false)
	if err != nil {
		return false, err
	}
	if !c1 && !c2 && !c3 {
		return false, nil
	}
	if first != nil {
		args = append(first, args...)
	}
	for i := range kwargs {
		kwargs[i].Arg = kargs[i]
	}
	f.b.Undo.Args(n)
	n.Args, n.Kwargs = args, kwargs
	return true, nil
}

// needsRewrite is a quick test that none of n's arguments is stale,
// replaced or re-typed, so that most nodes are kept without copying.
func (f *fn) needsRewrite(n *ir.Node) bool {
	need := false
	n.WalkInputs(func(v *ir.Value) {
		if need || v.ID >= len(f.aliases) {
			return
		}
		a := f.aliases[v.ID]
		need = f.changed[v.ID] || a != nil && (a.value != v || a.gen != a.st.gen)
	})
	return need
}

// plain handles a functional, non-view op: its arguments are read
// up to date and its results are fresh storages.
func (f *fn) plain(n *ir.Node) error {
	rewritten, err := f.rewriteNode(n, false)
	if err != nil {
		return err
	}
	f.b.Keep(n)
	f.retypeIf(n, rewritten)
	for _, r := range n.Results {
		if tracked(r.Type) {
			f.fresh(r)
		}
	}
	return nil
}

// opaque handles nodes kiln cannot see into (operators on SymInts,
// attributes, unknown ops): arguments are read up to date.
func (f *fn) opaque(n *ir.Node) error {
	if _, err := f.rewriteNode(n, false); err != nil {
		return err
	}
	f.b.Keep(n)
	if n.Form == ir.FormGetAttr {
		for _, r := range n.Results {
			f.attrs = append(f.attrs, f.fresh(r))
		}
	}
	return nil
}

// view handles an op whose result may alias its input: when fakeprop
// says the storage is shared, the result joins self's storage with one
// more view in its chain; self is read as it is, stale or not, as
// PyTorch's view kernels do.
func (f *fn) view(n *ir.Node, op *ops.Op) error {
	if len(n.Args) == 0 || n.Args[0].Kind != ir.ArgValue {
		return f.plain(n)
	}
	self := n.Args[0].Value
	sa := f.aliasOf(self)
	if sa == nil {
		return f.plain(n)
	}
	inType := tensorType(sa.value, nil)
	shared := make([]bool, len(n.Results))
	for i, r := range n.Results {
		s, rs := f.origStorage(self), f.origStorage(r)
		shared[i] = s == rs || op.IsView() && (s == 0 || rs == 0)
	}
	rewritten, err := f.rewriteNode(n, true)
	if err != nil {
		return err
	}
	f.b.Keep(n)
	f.retypeIf(n, rewritten)
	for i, r := range n.Results {
		if !shared[i] {
			f.fresh(r)
			continue
		}
		m := newMeta(n, op, i, inType)
		f.aliases[r.ID] = &alias{st: sa.st, metas: sa.chain(m), value: r, gen: sa.gen, name: r.Name}
	}
	return nil
}

// origStorage is fakeprop's storage id of an original value.
func (f *fn) origStorage(v *ir.Value) ir.StorageID {
	if v.ID < len(f.storage) {
		return f.storage[v.ID]
	}
	return storageOf(v)
}

// retypeIf re-runs n's meta rule when its arguments changed (or it defines
// a value an in-place view op re-shapes later), keeping fresh results'
// storage ids so that views taken of them stay consistent.
func (f *fn) retypeIf(n *ir.Node, rewritten bool) {
	force := false
	for _, r := range n.Results {
		force = force || r.ID < len(f.inplaceViewSelf) && f.inplaceViewSelf[r.ID]
	}
	if !rewritten && !force {
		return
	}
	old := make([]ir.Type, len(n.Results))
	for i, r := range n.Results {
		old[i] = r.Type
		f.b.Undo.Type(r)
	}
	if !f.b.Type(n) {
		return
	}
	var args []ir.StorageID
	n.WalkInputs(func(v *ir.Value) { args = append(args, storageOf(v)) })
	for i, r := range n.Results {
		if t := r.Type.Tensor; r.Type.Kind == ir.KindTensor && t != nil && !slices.Contains(args, t.Storage) && storageOf2(old[i]) != 0 {
			t.Storage = storageOf2(old[i])
		}
		if r.Type.String() != old[i].String() || storageOf(r) != storageOf2(old[i]) {
			f.changed[r.ID] = true
		}
	}
}

func storageOf2(t ir.Type) ir.StorageID {
	if t.Kind == ir.KindTensor && t.Tensor != nil {
		return t.Tensor.Storage
	}
	return 0
}

// diagnose turns a node the rewrite built that does not type-check into
// a CodeUnsupported error at the node being rewritten.
func (f *fn) diagnose(err error) error {
	var te *build.TypeError
	if errors.As(err, &te) {
		return f.unsupported("%s: %v", f.curName(), te)
	}
	return err
}

// unsupported is a CodeUnsupported error at the node being rewritten.
func (f *fn) unsupported(format string, args ...any) error {
	return f.ctx.Errorf(f.cur, CodeUnsupported, "rewrite the mutation out of place, or keep this graph out of functionalize",
		"functionalize: "+format, args...)
}

func (f *fn) curName() string {
	if f.cur == nil {
		return "the graph"
	}
	return f.cur.Name
}
