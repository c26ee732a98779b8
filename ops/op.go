package ops

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// Kind is an op's family. An in-place variant (`add_`) has the family of its
// functional counterpart and reports IsInplace.
type Kind uint8

// Op families.
const (
	KindOther          Kind = iota
	KindPointwise           // elementwise unary/binary/ternary, comparisons, logical, activations
	KindCast                // _to_copy, to.*, convert_element_type, clone, copy
	KindReduction           // sum, mean, amax, var_mean, argmax, ...
	KindView                // view, slice, transpose, expand, view.dtype, split, ...
	KindFactory             // empty, zeros, full, arange, *_like, new_*
	KindIndexing            // index.Tensor, gather, scatter, index_put, embedding, masked_fill
	KindScatterInverse      // slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter
	KindExtern              // mm, bmm, addmm, matmul, convolution: opaque kernels
	KindNN                  // softmax, layer/batch norm, pooling, upsampling, attention
	KindDataDependent       // _local_scalar_dense, nonzero, unique, ...: results depend on data
	KindSym                 // sym_size, _assert_scalar, Python operators on SymInts
	KindCollective          // _c10d_functional.*
	KindShape               // cat, stack, repeat, pad, ...: new tensors from shapes of others
	KindRandom              // RNG ops
	KindCustom              // user-declared custom ops
	numKinds
)

var kindNames = [numKinds]string{
	"other", "pointwise", "cast", "reduction", "view", "factory", "indexing", "scatter-inverse",
	"extern", "nn", "data-dependent", "sym", "collective", "shape", "random", "custom",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Kinds lists every family in order.
func Kinds() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// Op is one registry entry: a single overload such as aten::add_.Tensor. It
// implements ir.OpSchema and the optional facets in ir/facets.go.
type Op struct {
	Schema *Schema
	Kind   Kind
	// Functional is the functional counterpart of an in-place or out=
	// variant ("aten::add.Tensor" for add_.Tensor); "" when the op is
	// already functional.
	Functional string
	// ViewInverse is the scatter op that writes a view back into its base
	// ("aten::slice_scatter.default" for slice.Tensor); "" when none or when
	// the view is reshape-like (inverted by a view back to the base shape).
	ViewInverse string
	// RowMajor marks the views that keep row-major element order (view,
	// reshape, _unsafe_view, view_as): where the result cannot alias its
	// input, it is the input's elements copied in row-major order. Any
	// other view is its own layout over the input.
	RowMajor bool
	// Meta computes result types; nil when kiln has no rule (the op is then
	// typed from annotations or left unknown).
	Meta MetaFunc
	// Effects marks ops that must run even when their results are unused
	// (asserts, collectives).
	Effects bool
	// Random marks RNG ops (never merged by CSE).
	Random bool
	// DataDep marks ops whose results depend on tensor data.
	DataDep bool
	// Doc is a one-line note for the coverage table.
	Doc string
	// FromPyTorch marks an entry kiln does not declare: its schema comes
	// from PyTorch's table (ops/pytorch_schemas.txt) and it has no meta rule.
	FromPyTorch bool

	name string // cached qualified name
}

var (
	_ ir.OpSchema           = (*Op)(nil)
	_ ir.ResultCounter      = (*Op)(nil)
	_ ir.EffectFacet        = (*Op)(nil)
	_ ir.PurityFacet        = (*Op)(nil)
	_ ir.ViewFacet          = (*Op)(nil)
	_ ir.DataDependentFacet = (*Op)(nil)
)

// QualifiedName is "ns::name.overload".
func (o *Op) QualifiedName() string {
	if o.name == "" { // an Op built by hand, not through NewOp
		return o.Schema.QualifiedName()
	}
	return o.name
}

func (o *Op) String() string { return o.QualifiedName() }

// PyName is PyTorch's spelling in messages: "aten._local_scalar_dense.default".
func (o *Op) PyName() string {
	return o.Schema.Namespace + "." + o.Schema.Name + "." + o.Schema.Overload
}

// Mutates reports whether the op writes to an argument (an `(a!)` annotation).
func (o *Op) Mutates() bool { return len(o.Schema.Mutated()) > 0 }

// IsInplace reports whether the op mutates its first argument and returns it
// (`add_`, `copy_`, `transpose_`), as opposed to an out= variant.
func (o *Op) IsInplace() bool {
	ps := o.Schema.Params
	return len(ps) > 0 && ps[0].Alias != nil && ps[0].Alias.Write && !ps[0].KwOnly
}

// IsView reports whether a result aliases an argument without writing to it
// (`Tensor(a)` in and out).
func (o *Op) IsView() bool {
	for _, r := range o.Schema.Returns {
		if r.Alias != nil && !r.Alias.Write {
			return o.aliasesArg(r.Alias.Set)
		}
	}
	return false
}

func (o *Op) aliasesArg(set string) bool {
	for _, p := range o.Schema.Params {
		if p.Alias != nil && p.Alias.Set == set && !p.Alias.Write {
			return true
		}
	}
	return false
}

// HasSideEffects reports effects beyond the results.
func (o *Op) HasSideEffects() bool { return o.Effects || o.Mutates() }

// IsPure reports whether equal calls give interchangeable results: no RNG,
// no mutation, no effects, and no fresh storage a later op could mutate
// through an alias (views and functional ops both qualify).
func (o *Op) IsPure() bool { return !o.Random && !o.Effects && !o.Mutates() && !o.DataDep }

// IsDataDependent reports whether results depend on tensor data.
func (o *Op) IsDataDependent() bool { return o.DataDep }

// HasMeta reports whether kiln has a meta rule for the op (ir.MetaFacet).
func (o *Op) HasMeta() bool { return o.Meta != nil }

// NumResults is the number of results; variadic when the schema returns a
// list (split, unbind).
func (o *Op) NumResults() (n int, variadic bool) {
	if o.Schema.VarRet {
		return 0, true
	}
	return len(o.Schema.Returns), false
}

// CheckCall reports arity and keyword errors the way Python would for a
// call with nargs positional arguments and the given keyword names.
func (o *Op) CheckCall(nargs int, kwargs []string) error {
	ps := o.Schema.Params
	npos := 0
	for _, p := range ps {
		if !p.KwOnly {
			npos++
		}
	}
	if nargs > npos {
		return fmt.Errorf("%s takes at most %d positional argument(s) but %d were given", o.QualifiedName(), npos, nargs)
	}
	var buf [16]bool // no allocation for the usual schema (the verifier checks every node)
	given := buf[:0]
	if len(ps) <= len(buf) {
		given = buf[:len(ps)]
	} else {
		given = make([]bool, len(ps))
	}
	for i := 0; i < nargs; i++ {
		given[i] = true
	}
	for _, k := range kwargs {
		i := o.paramIndex(k)
		if i < 0 {
			return fmt.Errorf("%s got an unexpected keyword argument '%s'", o.QualifiedName(), k)
		}
		if given[i] {
			return fmt.Errorf("%s got multiple values for argument '%s'", o.QualifiedName(), k)
		}
		given[i] = true
	}
	var missing []string
	for i, p := range ps {
		if !given[i] && !p.HasDef {
			missing = append(missing, "'"+p.Name+"'")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s missing required argument(s): %s", o.QualifiedName(), strings.Join(missing, ", "))
	}
	return nil
}

func (o *Op) paramIndex(name string) int {
	for i, p := range o.Schema.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}
