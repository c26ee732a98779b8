package interp

import (
	"errors"
	"fmt"
	"github.com/kiln-compiler/kiln/limits"
	"runtime/debug"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Diagnostic codes the interpreter reports.
const (
	CodeNoEval   = "no-eval" // the op has no eval kernel
	CodeEval     = "eval"    // the op failed at run time (PyTorch's message)
	evalHint     = "eager PyTorch fails on this call with the same inputs: check the arguments, shapes and strides the graph gives it"
	CodeUntyped  = "untyped-input" // an input's type is unknown, so no value can be made for it
	CodeMismatch = "interp-type"   // a result disagrees with its static type
	CodeInput    = "input"         // a given input does not fit the graph
)

// DefaultSymValue is the value a backed symbol (s0, s1, ...) takes when
// Options.Sym does not give one.
const DefaultSymValue = 8

// Options configure a run.
type Options struct {
	// Seed drives random inputs and random ops.
	Seed uint64
	// Sym gives concrete values to symbols (`-sym s0=8`).
	Sym map[string]int64
	// DefaultSym is the value of a backed symbol missing from Sym; 0 means
	// DefaultSymValue.
	DefaultSym int64
	// InputTypes types inputs that the graph leaves untyped, by name.
	InputTypes map[string]ir.Type
	// CheckTypes fails a node whose runtime result disagrees with the
	// dtype or shape the graph gives it.
	CheckTypes bool
	// KeepValues keeps a copy of every named result, taken when it was
	// made, in Result.Values.
	KeepValues bool
	// Substitute, when set, is asked for a failing node's results (one
	// per result) so the run can go on; nil stops the run with the error.
	// Observe, when set, sees every node's results and may replace them.
	// Conformance tests use them to check each kernel on PyTorch's own
	// inputs, whatever an earlier kernel did.
	Substitute func(n *ir.Node, err error) []any
	Observe    func(n *ir.Node, outs []any) []any
	// Attrs gives module attributes (get_attr nodes, by node name) their
	// values; an attribute missing here gets random data of its type.
	Attrs map[string]any
}

// Result is one execution.
type Result struct {
	Outputs []any // one per graph output, in order
	Inputs  []any // the inputs after the run: in-place mutations show here
	Sym     map[string]int64
	// Values holds every value by name when Options.KeepValues is set.
	Values map[string]any
}

// machine is the state of one run.
type machine struct {
	g    *ir.Graph
	opts Options
	sym  map[string]int64
	vals map[*ir.Value]any
	// shapes holds each tensor result's sizes when it was made; a type may
	// describe those or the tensor's final sizes (see checkTypes).
	shapes map[*ir.Value][]int64
	// kept holds copies of results taken when they were made (KeepValues).
	kept map[string]any
}

// Run executes g on inputs (one runtime value per graph input: *Tensor,
// int64, float64, bool) with PyTorch's eager semantics: views share
// storage with their base, in-place ops write through every alias. Input
// tensors are mutated in place, as PyTorch mutates its arguments. Errors
// are *diag.Diagnostic positioned at the failing node.
func Run(g *ir.Graph, inputs []any, opts Options) (res *Result, err error) {
	m := &machine{g: g, opts: opts, sym: map[string]int64{}, vals: map[*ir.Value]any{},
		shapes: map[*ir.Value][]int64{}, kept: map[string]any{}}
	for k, v := range opts.Sym {
		m.sym[k] = v
	}
	var at *ir.Node
	defer func() {
		if r := recover(); r != nil {
			pos := g.Pos
			name := ""
			if at != nil {
				pos, name = at.Pos, at.Name
			}
			err = &diag.Diagnostic{Severity: diag.Error, Code: "internal", Pos: pos, Node: name,
				Message: fmt.Sprintf("interpreter panic: %v\n%s", r, debug.Stack()), Hint: "please report this graph as a kiln bug"}
		}
	}()
	if len(inputs) != len(g.Inputs) {
		return nil, diag.Errorf(g.Pos, CodeInput, "", "graph has %d inputs, %d values given", len(g.Inputs), len(inputs))
	}
	for i, v := range g.Inputs {
		if err := m.bindInput(v, inputs[i]); err != nil {
			return nil, err
		}
	}
	for _, n := range g.Nodes {
		at = n
		if err := m.step(n); err != nil {
			return nil, err
		}
	}
	at = nil
	if err := m.checkTypes(); err != nil {
		return nil, err
	}
	res = &Result{Inputs: inputs, Sym: m.sym}
	for _, a := range g.Outputs {
		v, err := m.evalArg(a)
		if err == nil {
			v, err = resolveValue(v) // callers read storages: no conjugate bit leaves the run
		}
		if err != nil {
			return nil, diag.Errorf(g.Pos, CodeEval, evalHint, "return: %v", err)
		}
		res.Outputs = append(res.Outputs, v)
	}
	if opts.KeepValues {
		res.Values = m.kept
	}
	return res, nil
}

// bindInput records an input value, binding the symbols of its type.
func (m *machine) bindInput(v *ir.Value, x any) error {
	m.vals[v] = x
	t := m.inputType(v)
	if err := m.bindType(t, x); err != nil {
		return diag.Errorf(v.Pos, CodeInput, "", "input %s: %v", v.Name, err)
	}
	return nil
}

// inputType is the type the input has when the graph starts: the one
// Options.InputTypes gives, else its annotation, else its inferred type.
// (After fakeprop, Type holds the input's final metadata, as FX's
// meta["val"] does, which differs when the graph transposes it in place.)
func (m *machine) inputType(v *ir.Value) ir.Type {
	if t, ok := m.opts.InputTypes[v.Name]; ok {
		return t
	}
	if v.Annot.IsKnown() {
		return v.Annot
	}
	return v.Type
}

// step evaluates one node and records its results.
func (m *machine) step(n *ir.Node) error {
	outs, err := m.eval(n)
	if err != nil && m.opts.Substitute != nil {
		if sub := m.opts.Substitute(n, err); sub != nil {
			outs, err = sub, nil
		}
	} else if err == nil && m.opts.Observe != nil {
		outs = m.opts.Observe(n, outs)
	}
	if err != nil {
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			if !d.Pos.IsValid() {
				d.Pos, d.Node = n.Pos, n.Name
			}
			return d
		}
		hint := evalHint
		var le *limits.Error
		if errors.As(err, &le) {
			hint = le.Hint()
		}
		return &diag.Diagnostic{Severity: diag.Error, Code: CodeEval, Pos: n.Pos, Node: n.Name,
			Message: fmt.Sprintf("%s: %v", n.Name, err), Hint: hint}
	}
	if len(outs) == 0 && len(n.Results) == 1 {
		outs = []any{nil} // an op returning nothing, bound to a name
	}
	if len(outs) < len(n.Results) {
		return diag.Errorf(n.Pos, CodeEval, evalHint, "%s: %s gave %d results, the graph uses %d", n.Name, n.Target, len(outs), len(n.Results))
	}
	for i, r := range n.Results {
		m.vals[r] = outs[i]
		if t, ok := outs[i].(*Tensor); ok {
			m.shapes[r] = clone64(t.Shape)
		}
		if m.opts.KeepValues && r.Name != "" {
			m.kept[r.Name] = CopyValues([]any{outs[i]})[0]
		}
	}
	return nil
}

// checkTypes compares every result with its static type once the graph
// has run. After an in-place metadata change (transpose_, unsqueeze_) a
// type may describe the tensor as it was made or as it ends, as FX's
// meta["val"] does; either is accepted.
func (m *machine) checkTypes() error {
	for _, n := range m.g.Nodes {
		for _, r := range n.Results {
			x := m.vals[r]
			if t, ok := x.(*Tensor); ok && !equal64(t.Shape, m.shapes[r]) {
				made := t.Alias()
				made.Shape = m.shapes[r]
				if m.checkResult(r, made) == nil {
					continue
				}
			}
			if err := m.checkResult(r, x); err != nil {
				return diag.Errorf(n.Pos, CodeMismatch, "the interpreter and the graph disagree; check the annotation or the meta rule (or run without type checks)",
					"%s: %v", displayName(r, n), err)
			}
		}
	}
	return nil
}

func displayName(r *ir.Value, n *ir.Node) string {
	if r.Name != "" {
		return r.Name
	}
	return n.Name
}

// checkResult binds symbols that first appear in r's type (unbacked sizes
// get their values here) and, with CheckTypes, compares the rest.
func (m *machine) checkResult(r *ir.Value, x any) error {
	if !r.Type.IsKnown() {
		return nil
	}
	err := m.bindType(r.Type, x)
	if err != nil && m.opts.CheckTypes {
		return err
	}
	return nil
}

// bindType matches a runtime value against a static type: a bare symbol
// not bound yet takes the runtime size; any other size must evaluate to it.
func (m *machine) bindType(t ir.Type, x any) error {
	switch t.Kind {
	case ir.KindTensor:
		tt, ok := x.(*Tensor)
		if !ok {
			return fmt.Errorf("expected a tensor, got %s", describe(x))
		}
		if tt.DType != t.Tensor.DType {
			return fmt.Errorf("runtime dtype %s, graph says %s", tt.DType.Abbr(), t.Tensor.DType.Abbr())
		}
		if len(tt.Shape) != len(t.Tensor.Shape) {
			return fmt.Errorf("runtime shape %s, graph says %s", ints(tt.Shape), t.Tensor.String())
		}
		for i, e := range t.Tensor.Shape {
			if err := m.bindExpr(e, tt.Shape[i]); err != nil {
				return fmt.Errorf("runtime shape %s, graph says %s: %v", ints(tt.Shape), t.Tensor.String(), err)
			}
		}
	case ir.KindSymInt:
		v, ok := x.(int64)
		if !ok {
			return fmt.Errorf("expected an int, got %s", describe(x))
		}
		return m.bindExpr(t.Sym, v)
	}
	return nil
}

// bindExpr binds a bare unbound symbol to v, or checks that e evaluates to v.
func (m *machine) bindExpr(e sym.Expr, v int64) error {
	if e.IsSymbol() {
		if _, bound := m.sym[e.Name()]; !bound {
			m.sym[e.Name()] = v
			return nil
		}
	}
	got, err := e.Eval(m.sym)
	if err != nil {
		var ub *sym.UnboundError
		if errors.As(err, &ub) {
			return nil // not decidable yet; a later node may bind it
		}
		return err
	}
	if got != v {
		return fmt.Errorf("%s = %d, not %d", e, got, v)
	}
	return nil
}

// evalSym gives a symbolic size its value, using the default for backed
// symbols no input or option bound.
func (m *machine) evalSym(e sym.Expr) (int64, error) {
	for _, name := range e.Free() {
		if _, ok := m.sym[name]; ok {
			continue
		}
		if sym.Symbol(name).IsUnbacked() {
			return 0, fmt.Errorf("unbacked symbol %s has no value yet", name)
		}
		m.sym[name] = m.defaultSym()
	}
	return e.Eval(m.sym)
}

func (m *machine) defaultSym() int64 {
	if m.opts.DefaultSym > 0 {
		return m.opts.DefaultSym
	}
	return DefaultSymValue
}

// evalArg turns an argument into its runtime value.
func (m *machine) evalArg(a ir.Arg) (any, error) {
	switch a.Kind {
	case ir.ArgNone:
		return nil, nil
	case ir.ArgValue:
		x, ok := m.vals[a.Value]
		if !ok {
			return nil, fmt.Errorf("value %s has not been computed", a.Value.Name)
		}
		return x, nil
	case ir.ArgInt:
		return a.Int, nil
	case ir.ArgFloat:
		return a.Float, nil
	case ir.ArgComplex:
		return complex(a.Float, a.Imag), nil
	case ir.ArgBool:
		return a.Bool, nil
	case ir.ArgString:
		return a.Str, nil
	case ir.ArgDType:
		return a.DType, nil
	case ir.ArgDevice:
		return a.Device, nil
	case ir.ArgEnum:
		return enum(a.Str), nil
	case ir.ArgList, ir.ArgTuple:
		return mapErr(a.Elems, m.evalArg)
	}
	return nil, fmt.Errorf("cannot evaluate argument %s", a.String())
}

// enum is an attribute constant such as torch.contiguous_format.
type enum string

// noEval is the error for an op without an eval kernel.
func noEval(n *ir.Node, why string) error {
	return diag.Errorf(n.Pos, CodeNoEval, "the interpreter cannot run this graph; see the eval coverage table (go test ./interp -run Coverage -v)",
		"%s: %s %s", n.Name, strings.TrimSpace(n.Target), why)
}
