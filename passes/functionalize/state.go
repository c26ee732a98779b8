package functionalize

import (
	"github.com/kiln-compiler/kiln/ir"
)

// The model is PyTorch's (FunctionalTensorWrapper, FunctionalStorageImpl):
// every tensor object is an alias of one storage, reached from the
// storage's base by a chain of views. A mutation replaces the alias's
// value and queues an update on the storage; applying the update replays
// the chain up to the last view and writes the new value back through the
// views' inverses, from the last view to the first. Aliases remember the
// storage generation they were computed at; a read of a stale alias
// regenerates it from the new base.

// storage is one functional storage: a graph input, a fresh tensor, or a
// module attribute, with every view taken of it.
type storage struct {
	base    *ir.Value // current value of the whole storage
	root    *ir.Value // the original value the storage started as
	gen     int       // bumped by every mutation
	pending []update
	mutated bool
	// writeback is a copy_ into a graph input that an earlier
	// functionalization emitted; it is kept as the input's epilogue, after
	// resize, the resize_ of the input it copies into (when the graph
	// resized the input).
	writeback, resize *ir.Node
}

// update is one queued mutation: the new value of an alias and the views
// that lead to it from the base.
type update struct {
	value *ir.Value
	metas []*viewMeta
	by    *ir.Node // the mutating node, for remarks and errors
	alias string   // the mutated alias, for remarks
}

// alias is one tensor object: its storage, its view chain from the base,
// its current value in the rebuilt graph, and the generation that value
// was computed at.
type alias struct {
	st    *storage
	metas []*viewMeta
	value *ir.Value
	gen   int
	name  string
}

// chain returns a's views followed by m, never sharing a's backing array.
func (a *alias) chain(m *viewMeta) []*viewMeta {
	out := make([]*viewMeta, len(a.metas), len(a.metas)+1)
	copy(out, a.metas)
	return append(out, m)
}

// tracked reports whether values of type t can alias storage: tensors and
// values kiln could not type.
func tracked(t ir.Type) bool { return t.Kind == ir.KindTensor || t.Kind == ir.KindUnknown }

// storageOf is the storage id fakeprop gave v, 0 when unknown.
func storageOf(v *ir.Value) ir.StorageID {
	if v.Type.Kind == ir.KindTensor && v.Type.Tensor != nil {
		return v.Type.Tensor.Storage
	}
	return 0
}
