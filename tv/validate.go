// Package tv is translation validation: the graph before and after every
// pass runs in interp on the same random inputs, and every output and the
// final contents of every input (an input mutation is an output too) must
// agree. It sits above interp and passes, which know nothing of it.
package tv

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

// A pass that changes results fails with its name, the output, the worst
// element and, where both graphs name it, the first intermediate value that
// differs.

// CodeTV is the diagnostic code of a translation-validation failure.
const CodeTV = "tv-mismatch"

// Validator checks passes; install it on a passes.Manager.
type Validator struct {
	// Options give the seed, symbol values and input types of the runs.
	Options interp.Options
	// Tol picks float tolerances; nil is DefaultTolerance.
	Tol interp.TolFunc
	// Log, when set, gets one line per pass.
	Log io.Writer
	// Records has one entry per pass seen, in order.
	Records []Record

	cacheKey [2]uint64 // the graph and inputs whose run is cached
	cacheRes *interp.Result
	cacheErr error
}

// Record is what the validator concluded about one pass.
type Record struct {
	Pass   string
	Status string // "ok", "unchanged", "skipped", "failed"
	Detail string
}

// Install makes m snapshot the graph before each pass and validate after
// it, after any AfterPass hook m already had.
func (v *Validator) Install(m *passes.Manager) {
	m.Snapshot = ir.Clone
	prev := m.AfterPass
	m.AfterPass = func(s passes.Step, before, after *ir.Graph, res *passes.PassResult) error {
		if prev != nil {
			if err := prev(s, before, after, res); err != nil {
				return err
			}
		}
		return v.AfterPass(s, before, after, res)
	}
}

// AfterPass is a passes.Manager AfterPass hook.
func (v *Validator) AfterPass(step passes.Step, before, after *ir.Graph, res *passes.PassResult) error {
	name := step.Info.Name
	if before == nil {
		return v.record(name, "skipped", "no snapshot of the graph before the pass (set Manager.Snapshot)")
	}
	if res != nil && res.HashIn == res.HashOut {
		return v.record(name, "unchanged", "")
	}
	return v.Check(name, before, after)
}

func (v *Validator) record(pass, status, detail string) error {
	v.Records = append(v.Records, Record{Pass: pass, Status: status, Detail: detail})
	if v.Log != nil {
		line := "tv: " + pass + ": " + status
		if detail != "" {
			line += ": " + detail
		}
		fmt.Fprintln(v.Log, line)
	}
	return nil
}

// Check compares before and after directly (the pass name is for messages).
func (v *Validator) Check(pass string, before, after *ir.Graph) error {
	inputs, err := interp.MakeInputs(before, v.Options)
	if err != nil {
		return v.record(pass, "skipped", "no inputs: "+firstLine(err.Error()))
	}
	if why := sameSignature(before, after); why != "" {
		return v.record(pass, "skipped", why)
	}
	want, err := v.runCached(before, inputs)
	if err != nil {
		return v.record(pass, "skipped", "the graph does not run before the pass: "+firstLine(err.Error()))
	}
	got, err := interp.Run(after, interp.CopyValues(inputs), v.Options)
	v.cacheKey, v.cacheRes, v.cacheErr = [2]uint64{passes.Hash(after), fingerprint(inputs)}, got, err
	var d *diag.Diagnostic
	if errors.As(err, &d) && d.Code == interp.CodeNoEval {
		return v.record(pass, "skipped", "the pass introduced an op the interpreter cannot run: "+firstLine(err.Error()))
	}
	if err != nil {
		v.record(pass, "failed", firstLine(err.Error()))
		return v.fail(pass, after, nil, fmt.Sprintf("the graph ran before the pass and fails after it: %v", err))
	}
	if len(want.Outputs) != len(got.Outputs) {
		msg := fmt.Sprintf("the pass changed the number of outputs from %d to %d", len(want.Outputs), len(got.Outputs))
		v.record(pass, "failed", msg)
		return v.fail(pass, after, nil, msg)
	}
	for i := range want.Outputs {
		if m := interp.Compare(want.Outputs[i], got.Outputs[i], v.Tol); m != nil {
			what := fmt.Sprintf("output %d (%s)", i, outputName(after, i))
			return v.mismatch(pass, before, after, inputs, what, m)
		}
	}
	for i, in := range before.Inputs {
		// through the input's original geometry: a graph may transpose an
		// input in place, which a functional graph leaves to its caller
		w, g := sameGeometry(want.Inputs[i], inputs[i]), sameGeometry(got.Inputs[i], inputs[i])
		if m := interp.Compare(w, g, v.Tol); m != nil {
			what := fmt.Sprintf("input %s (its final contents: an input mutation)", in.Name)
			return v.mismatch(pass, before, after, inputs, what, m)
		}
	}
	return v.record(pass, "ok", fmt.Sprintf("%d outputs, %d inputs agree", len(want.Outputs), len(before.Inputs)))
}

// runCached runs g, reusing the last run when it ran g on these inputs.
func (v *Validator) runCached(g *ir.Graph, inputs []any) (*interp.Result, error) {
	key := [2]uint64{passes.Hash(g), fingerprint(inputs)}
	if v.cacheRes != nil && key == v.cacheKey {
		return v.cacheRes, v.cacheErr
	}
	res, err := interp.Run(g, interp.CopyValues(inputs), v.Options)
	v.cacheKey, v.cacheRes, v.cacheErr = key, res, err
	return res, err
}

// fingerprint hashes runtime values (tensor geometry and bytes).
func fingerprint(xs []any) uint64 {
	h := fnv.New64a()
	for _, x := range xs {
		switch t := x.(type) {
		case *interp.Tensor:
			fmt.Fprint(h, t.String())
			h.Write(t.Storage.Data)
		default:
			fmt.Fprintf(h, "%T %v;", x, x)
		}
	}
	return h.Sum64()
}

// sameGeometry views a final input through the geometry it started with.
func sameGeometry(final, start any) any {
	f, ok1 := final.(*interp.Tensor)
	s, ok2 := start.(*interp.Tensor)
	if !ok1 || !ok2 || f.Storage == nil || int64(len(f.Storage.Data)) < int64(len(s.Storage.Data)) {
		return final
	}
	return &interp.Tensor{DType: s.DType, Shape: s.Shape, Strides: s.Strides, Offset: s.Offset, Storage: f.Storage}
}

// sameSignature explains why before and after cannot run on the same
// inputs ("" when they can).
func sameSignature(before, after *ir.Graph) string {
	if len(before.Inputs) != len(after.Inputs) {
		return fmt.Sprintf("the pass changed the number of inputs from %d to %d", len(before.Inputs), len(after.Inputs))
	}
	for i, a := range before.Inputs {
		ta, tb := startType(a), startType(after.Inputs[i])
		if ta.Kind == ir.KindTensor && tb.Kind == ir.KindTensor && !ir.SameTensorType(ta.Tensor, tb.Tensor) {
			return fmt.Sprintf("the pass changed input %s from %s to %s", a.Name, ta, tb)
		}
	}
	return ""
}

// startType is an input's type when the graph starts (see inputType).
func startType(v *ir.Value) ir.Type {
	if v.Annot.IsKnown() {
		return v.Annot
	}
	return v.Type
}

func outputName(g *ir.Graph, i int) string {
	if i < len(g.Outputs) {
		return g.Outputs[i].String()
	}
	return "?"
}

// mismatch reports a differing output, located at the first intermediate
// value (by name, in the after graph's order) that differs.
func (v *Validator) mismatch(pass string, before, after *ir.Graph, inputs []any, what string, m *interp.Mismatch) error {
	msg := fmt.Sprintf("%s changed: %s", what, m)
	v.record(pass, "failed", msg)
	first := v.firstDifference(before, after, inputs)
	if first != nil {
		msg += fmt.Sprintf("\nfirst differing value: %s (%s)", first.Name, first.Target)
	}
	return v.fail(pass, after, first, msg)
}

func (v *Validator) fail(pass string, after *ir.Graph, at *ir.Node, msg string) error {
	d := &diag.Diagnostic{Severity: diag.Error, Code: CodeTV, Pos: after.Pos, Pass: pass,
		Message: fmt.Sprintf("translation validation: pass %s changed the graph's results: %s", pass, msg),
		Hint:    "run with -print-after=" + pass + " to compare the graphs; the reproducer holds the graph after the pass"}
	if at != nil {
		d.Pos, d.Node = at.Pos, at.Name
	}
	return d
}

// firstDifference reruns both graphs keeping every value and returns the
// first node of after whose named result differs from before's.
func (v *Validator) firstDifference(before, after *ir.Graph, inputs []any) *ir.Node {
	opts := v.Options
	opts.KeepValues = true
	want, err1 := interp.Run(before, interp.CopyValues(inputs), opts)
	got, err2 := interp.Run(after, interp.CopyValues(inputs), opts)
	if err1 != nil || err2 != nil {
		return nil
	}
	for _, n := range after.Nodes {
		for _, r := range n.Results {
			w, ok1 := want.Values[r.Name]
			g, ok2 := got.Values[r.Name]
			if r.Name != "" && ok1 && ok2 && interp.Compare(w, g, v.Tol) != nil {
				return n
			}
		}
	}
	return nil
}

// Summary is one line over all records: "tv: 3 ok, 1 unchanged, 0 skipped".
func (v *Validator) Summary() string {
	counts := map[string]int{}
	for _, r := range v.Records {
		counts[r.Status]++
	}
	var parts []string
	for _, s := range []string{"ok", "unchanged", "skipped", "failed"} {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	return "tv: " + strings.Join(parts, ", ")
}

// IsMismatch reports whether err is a translation-validation failure.
func IsMismatch(err error) bool {
	var d *diag.Diagnostic
	return errors.As(err, &d) && d.Code == CodeTV
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
