package driver

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes/decompose"
)

// OpFacets is one op's row joined across the packages that hold its
// facets: the registry (schema, kind, meta rule, functional and view
// inverses), decompose, interp and lowering. `kiln ops NAME` prints it.
type OpFacets struct {
	Op         *ops.Op
	Inverse    string // how functionalize writes a mutated view back
	Decompose  string // the decomposition table's note, "" when no row
	Whole      bool   // the decomposition table keeps the op whole
	EvalKernel bool   // interp can run it
	Lowering   bool   // lowering has a rule for it (or its family lowers)
}

// FindOps returns the facets of the ops name names: a qualified overload
// ("aten::add.Tensor"), an overload without namespace ("add.Tensor"), or
// every overload of an op ("add").
func FindOps(name string) []OpFacets {
	var out []OpFacets
	for _, op := range ops.Default().All() {
		q := op.QualifiedName()
		short := strings.TrimPrefix(q, op.Schema.Namespace+"::")
		if q == name || short == name || op.Schema.Name == name || op.Schema.Namespace+"::"+op.Schema.Name == name {
			out = append(out, facets(op))
		}
	}
	return out
}

func facets(op *ops.Op) OpFacets {
	f := OpFacets{Op: op, EvalKernel: interp.HasKernel(op), Lowering: lowering.HasRule(op)}
	if op.IsView() {
		f.Inverse = op.Inverse().String()
	}
	if r, ok := decompose.Lookup(op.QualifiedName()); ok {
		f.Decompose, f.Whole = r.Note, r.Whole()
	}
	return f
}

// String prints the row, one facet a line.
func (f OpFacets) String() string {
	op := f.Op
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", op.QualifiedName())
	line := func(k, v string) { fmt.Fprintf(&b, "  %-13s %s\n", k+":", v) }
	line("schema", op.Schema.String())
	line("kind", op.Kind.String())
	line("meta rule", yesNo(op.Meta != nil))
	if op.Functional != "" {
		line("functional", op.Functional)
	}
	if op.IsView() {
		line("view inverse", orNone(strings.TrimSpace(op.ViewInverse+" ("+f.Inverse+")")))
	}
	switch {
	case f.Whole:
		line("decompose", "kept whole: "+f.Decompose)
	case f.Decompose != "":
		line("decompose", f.Decompose)
	default:
		line("decompose", "none")
	}
	line("eval kernel", yesNo(f.EvalKernel))
	line("lowering", yesNo(f.Lowering))
	return b.String()
}

func orNone(s string) string {
	if s == "" || s == "()" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
