package ir

// Optional facets of an OpSchema. The ops registry implements them; passes
// and dumps use them through the helpers below, so a node whose op is
// unknown (Op == nil) gets the conservative answer in one place.

// ResultCounter says how many results a call returns; variadic ops (split,
// unbind) return a list whose length depends on the arguments.
type ResultCounter interface {
	NumResults() (n int, variadic bool)
}

// EffectFacet says whether an op has effects beyond its results (asserts,
// collectives, RNG state).
type EffectFacet interface{ HasSideEffects() bool }

// PurityFacet says whether two calls with equal arguments give results that
// may be shared (no RNG, no fresh storage that could be mutated).
type PurityFacet interface{ IsPure() bool }

// ViewFacet says whether an op returns a view of an argument.
type ViewFacet interface{ IsView() bool }

// DataDependentFacet says whether an op's result (a scalar, or its shape)
// depends on tensor data.
type DataDependentFacet interface{ IsDataDependent() bool }

// MetaFacet says whether kiln has a meta (shape) rule for an op; an op known
// only by its PyTorch schema has none, so its unannotated results stay untyped.
type MetaFacet interface{ HasMeta() bool }

// HasMetaRule reports whether n's op has a meta rule (false for opaque ops).
func HasMetaRule(n *Node) bool {
	if n.Op == nil {
		return false
	}
	f, ok := n.Op.(MetaFacet)
	return !ok || f.HasMeta()
}

// IsViewNode reports whether n is a view op.
func IsViewNode(n *Node) bool {
	f, ok := n.Op.(ViewFacet)
	return ok && n.Op != nil && f.IsView()
}

// IsMutatingNode reports whether n writes to an argument.
func IsMutatingNode(n *Node) bool { return n.Op != nil && n.Op.Mutates() }

// IsDataDependentNode reports whether n's output depends on tensor data.
func IsDataDependentNode(n *Node) bool {
	f, ok := n.Op.(DataDependentFacet)
	return ok && n.Op != nil && f.IsDataDependent()
}

// HasSideEffects reports whether n must stay even when nothing uses its
// results: mutating ops, ops with declared effects, and anything kiln does
// not know (an opaque call could do anything).
func HasSideEffects(n *Node) bool {
	switch n.Form {
	case FormOperator, FormGetAttr:
		return false
	case FormOp:
		if n.Op == nil || n.Op.Mutates() {
			return true
		}
		if e, ok := n.Op.(EffectFacet); ok {
			return e.HasSideEffects()
		}
		return len(n.Results) == 0 // an op returning nothing runs for its effect
	}
	return true // methods, submodules and other callables are opaque
}

// IsPure reports whether n may be merged with an identical call.
func IsPure(n *Node) bool {
	switch n.Form {
	case FormOperator:
		return true
	case FormOp:
		if n.Op == nil || n.Op.Mutates() {
			return false
		}
		p, ok := n.Op.(PurityFacet)
		return ok && p.IsPure()
	}
	return false
}
