package ops

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kiln-compiler/kiln/ir"
)

// Registry maps qualified op names to entries. The default registry is built
// once from the tables in this package and never changes; custom ops layer
// on top of it with With, so a test can hold its own registry.
type Registry struct {
	parent *Registry
	ops    map[string]*Op
	names  map[string][]string // overload packet "aten::sym_size" -> its overloads
}

var (
	defaultOnce sync.Once
	defaultReg  *Registry
	defaultErr  error
)

// Default returns the built-in registry. It panics if a built-in schema
// does not parse, which the package tests rule out.
func Default() *Registry {
	defaultOnce.Do(func() {
		defaultReg, defaultErr = build(builtinTables())
	})
	if defaultErr != nil {
		panic("ops: " + defaultErr.Error())
	}
	return defaultReg
}

// Lookup finds an op in the default registry.
func Lookup(target string) *Op { return Default().Lookup(target) }

// LookupSchema is Lookup typed for the frontends' hooks: a nil interface
// (not a typed nil) when the op is unknown.
func LookupSchema(target string) ir.OpSchema { return Default().Schema(target) }

// Schema is Lookup returning ir.OpSchema, nil when unknown.
func (r *Registry) Schema(target string) ir.OpSchema {
	if op := r.Lookup(target); op != nil {
		return op
	}
	return nil
}

// Lookup resolves "ns::name.overload"; an overload packet "ns::name"
// resolves to its default overload, or to its only one. Ops kiln does not
// declare resolve to PyTorch's schema for them (FromPyTorch, no meta rule).
func (r *Registry) Lookup(target string) *Op {
	for reg := r; reg != nil; reg = reg.parent {
		if op := reg.ops[target]; op != nil {
			return op
		}
	}
	ix := pytorchIndex()
	if strings.Contains(target[strings.Index(target, "::")+1:], ".") {
		return ix.op(target)
	}
	// A packet resolves among kiln's overloads first: `aten::sym_size` is
	// sym_size.int, which kiln declares, not PyTorch's sym_size.default.
	for reg := r; reg != nil; reg = reg.parent {
		if op := reg.ops[target+".default"]; op != nil {
			return op
		}
	}
	var overloads []string
	for reg := r; reg != nil; reg = reg.parent {
		overloads = append(overloads, reg.names[target]...)
	}
	if len(overloads) == 1 {
		return r.Lookup(overloads[0])
	}
	if len(overloads) == 0 {
		if q := ix.packetOverload(target); q != "" {
			return ix.op(q)
		}
	}
	return nil
}

// Declared finds an op that kiln itself declares (a table row or a custom
// op), ignoring the schemas taken from PyTorch.
func (r *Registry) Declared(target string) *Op {
	if op := r.Lookup(target); op != nil && !op.FromPyTorch {
		return op
	}
	return nil
}

// With returns a registry that holds ops on top of r. A custom op may not
// redefine a built-in one.
func (r *Registry) With(ops ...*Op) (*Registry, error) {
	child := &Registry{parent: r, ops: map[string]*Op{}, names: map[string][]string{}}
	for _, op := range ops {
		if err := child.add(op); err != nil {
			return nil, err
		}
	}
	return child, nil
}

func (r *Registry) add(op *Op) error {
	name := op.QualifiedName()
	for reg := r; reg != nil; reg = reg.parent {
		if reg.ops[name] != nil {
			return fmt.Errorf("op %s is already registered", name)
		}
	}
	r.ops[name] = op
	packet := op.Schema.Namespace + "::" + op.Schema.Name
	r.names[packet] = append(r.names[packet], name)
	return nil
}

// All returns every op, sorted by qualified name.
func (r *Registry) All() []*Op {
	seen := map[string]*Op{}
	for reg := r; reg != nil; reg = reg.parent {
		for name, op := range reg.ops {
			if seen[name] == nil {
				seen[name] = op
			}
		}
	}
	out := make([]*Op, 0, len(seen))
	for _, op := range seen {
		out = append(out, op)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].QualifiedName() < out[j].QualifiedName() })
	return out
}

// Entry is one row of a registry table: the PyTorch schema string and the
// facts kiln keeps beside it.
type Entry struct {
	Schema      string
	Kind        Kind
	Meta        MetaFunc
	Functional  string // qualified name; filled automatically for `name_` variants
	ViewInverse string
	RowMajor    bool // Op.RowMajor
	Effects     bool
	Random      bool
	DataDep     bool
	Doc         string
}

// NewOp parses an entry into an op. Names without a namespace are aten's.
func NewOp(e Entry) (*Op, error) {
	s, err := ParseSchema(e.Schema, "aten")
	if err != nil {
		return nil, err
	}
	return &Op{Schema: s, Kind: e.Kind, Meta: e.Meta, Functional: e.Functional, ViewInverse: e.ViewInverse,
		RowMajor: e.RowMajor, Effects: e.Effects, Random: e.Random, DataDep: e.DataDep, Doc: e.Doc, name: s.QualifiedName()}, nil
}

func build(entries []Entry) (*Registry, error) {
	r := &Registry{ops: map[string]*Op{}, names: map[string][]string{}}
	for _, e := range entries {
		op, err := NewOp(e)
		if err != nil {
			return nil, err
		}
		if err := r.add(op); err != nil {
			return nil, err
		}
	}
	linkFunctional(r)
	return r, nil
}

// linkFunctional fills Functional for in-place ops (`add_.Tensor` ->
// `add.Tensor`) and out= variants, where the table left it empty.
func linkFunctional(r *Registry) {
	for _, op := range r.ops {
		if op.Functional != "" || !op.Mutates() {
			continue
		}
		s := op.Schema
		base := strings.TrimSuffix(s.Name, "_")
		for _, cand := range []string{
			s.Namespace + "::" + base + "." + s.Overload,
			s.Namespace + "::" + base + ".default",
			s.Namespace + "::" + base,
		} {
			if f := r.Lookup(cand); f != nil && f != op && !f.Mutates() {
				op.Functional = f.QualifiedName()
				break
			}
		}
	}
}

// Overloads lists the overloads of a packet ("aten::sum"): kiln's own in
// declaration order, then PyTorch's others.
func (r *Registry) Overloads(packet string) []string {
	var out []string
	seen := map[string]bool{}
	for reg := r; reg != nil; reg = reg.parent {
		for _, name := range reg.names[packet] {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	for _, name := range pytorchIndex().packets[packet] {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}
