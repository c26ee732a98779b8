package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/kiln-compiler/kiln/limits"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
)

// kiln run: execute a graph with the reference interpreter and summarize
// its outputs; and -verify-each=interp, translation validation for any
// pipeline-running command.

// symFlag collects `-sym s0=8` (repeatable, or comma-separated).
type symFlag map[string]int64

func (s symFlag) String() string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, s[k])
	}
	return strings.Join(parts, ",")
}

func (s symFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || err != nil || strings.TrimSpace(name) == "" {
			return fmt.Errorf("want NAME=INT, got %q", part)
		}
		s[strings.TrimSpace(name)] = n
	}
	return nil
}

// typeFlag collects `-type arg0_1=f32[4,2]` for untyped inputs.
type typeFlag map[string]ir.Type

func (t typeFlag) String() string { return fmt.Sprint(len(t)) }

func (t typeFlag) Set(v string) error {
	name, ann, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want NAME=ANNOTATION, got %q", v)
	}
	typ, err := ir.ParseType(strings.Trim(strings.TrimSpace(ann), `"'`))
	if err != nil {
		return err
	}
	t[strings.TrimSpace(name)] = typ
	return nil
}

// verifyEachFlag extends the pipeline's boolean -verify-each with the value
// "interp": translation validation after every pass.
type verifyEachFlag struct {
	ir     flag.Value // the IR verifier's boolean flag
	interp *bool
}

func (f *verifyEachFlag) String() string {
	if f.interp != nil && *f.interp {
		return "interp"
	}
	if f.ir != nil {
		return f.ir.String()
	}
	return "false"
}

func (f *verifyEachFlag) Set(s string) error {
	if s == "interp" {
		*f.interp = true
		return f.ir.Set("true")
	}
	return f.ir.Set(s)
}

func (f *verifyEachFlag) IsBoolFlag() bool { return true }

// interpVerify gives a pipeline command -verify-each=interp. A command
// hooks it in with compileWith(name, ..., iv.register, iv.adjust).
type interpVerify struct {
	on     bool
	seed   uint64
	sym    symFlag
	types  typeFlag
	stderr io.Writer
	v      *interp.Validator
}

func newInterpVerify(stderr io.Writer) *interpVerify {
	return &interpVerify{sym: symFlag{}, types: typeFlag{}, stderr: stderr}
}

// register wraps -verify-each and adds -seed, -sym and -type unless the
// command already has them.
func (iv *interpVerify) register(fs *flag.FlagSet) {
	if f := fs.Lookup("verify-each"); f != nil {
		f.Value = &verifyEachFlag{ir: f.Value, interp: &iv.on}
		f.Usage = "run the IR verifier after every pass; =interp also runs the graph before and after every pass (translation validation)"
	}
	if fs.Lookup("seed") == nil {
		fs.Uint64Var(&iv.seed, "seed", 0, "seed for random inputs")
		fs.Int64Var(&limits.TensorBytes, "max-tensor-bytes", limits.DefaultTensorBytes, "refuse to allocate a tensor larger than this many bytes (docs/LIMITS.md)")
	}
	if fs.Lookup("sym") == nil {
		fs.Var(iv.sym, "sym", "value of a symbolic size, NAME=INT (repeatable; default "+strconv.Itoa(interp.DefaultSymValue)+")")
	}
	if fs.Lookup("type") == nil {
		fs.Var(iv.types, "type", "type of an unannotated input, NAME=f32[4,3] (repeatable)")
	}
}

// adjust installs the validator when -verify-each=interp was given.
func (iv *interpVerify) adjust(o *driver.Options) {
	if !iv.on {
		return
	}
	iv.v = &interp.Validator{Options: iv.options(), Log: iv.stderr}
	iv.v.Install(&o.Manager)
}

func (iv *interpVerify) options() interp.Options {
	return interp.Options{Seed: iv.seed, Sym: iv.sym, InputTypes: iv.types, CheckTypes: true}
}

// runFlags are kiln run's own flags.
type runFlags struct {
	inputs, out string
	graph       int
	noCheck     bool
}

func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	iv := newInterpVerify(stderr)
	var rf runFlags
	run, status := compileWith("run", args, stdin, stderr, func(fs *flag.FlagSet) {
		_ = fs.Set("passes", "")
		fs.Lookup("passes").DefValue = ""
		fs.Uint64Var(&iv.seed, "seed", 0, "seed for random inputs")
		fs.Int64Var(&limits.TensorBytes, "max-tensor-bytes", limits.DefaultTensorBytes, "refuse to allocate a tensor larger than this many bytes (docs/LIMITS.md)")
		fs.StringVar(&rf.inputs, "inputs", "", "read input NAME from DIR/NAME.npy instead of making random data")
		fs.StringVar(&rf.out, "o", "", "write outputs as .npy files (and manifest.json) to DIR")
		fs.IntVar(&rf.graph, "graph", -1, "run only graph N of a multi-graph file (default: all)")
		fs.BoolVar(&rf.noCheck, "no-check-types", false, "do not compare runtime shapes and dtypes with the graph's types")
		iv.register(fs)
	}, iv.adjust)
	if run == nil || run.Module == nil {
		return status
	}
	if iv.v != nil {
		fmt.Fprintln(stderr, iv.v.Summary())
	}
	if status != 0 {
		return status
	}
	opts := iv.options()
	opts.CheckTypes = !rf.noCheck
	for gi, g := range run.Module.Graphs {
		if rf.graph >= 0 && gi != rf.graph {
			continue
		}
		if err := runOneGraph(gi, g, opts, rf, stdout); err != nil {
			printRunError(stderr, err)
			return 1
		}
	}
	return 0
}

func printRunError(w io.Writer, err error) {
	var d *diag.Diagnostic
	if errors.As(err, &d) {
		fmt.Fprintln(w, d.String())
		return
	}
	fmt.Fprintf(w, "kiln run: %v\n", err)
}

// runOneGraph makes or reads inputs, runs g, prints the summary and
// writes the outputs.
func runOneGraph(gi int, g *ir.Graph, opts interp.Options, rf runFlags, stdout io.Writer) error {
	inputs, err := readOrMakeInputs(g, opts, rf.inputs)
	if err != nil {
		return err
	}
	before := interp.CopyValues(inputs)
	res, err := interp.Run(g, inputs, opts)
	if err != nil {
		return err
	}
	name := g.Name
	if name == "" {
		name = "graph"
	}
	fmt.Fprintf(stdout, "graph %d (%s): %d input(s), %d output(s)\n", gi, name, len(g.Inputs), len(res.Outputs))
	var entries []interp.ManifestEntry
	var values []any
	for i, out := range res.Outputs {
		label := fmt.Sprintf("out%d %s", i, outputLabel(g, i))
		fmt.Fprintf(stdout, "  %s: %s\n", label, summarize(out))
		entries = append(entries, interp.ManifestEntry{File: fmt.Sprintf("g%d_out%d.npy", gi, i), Name: outputLabel(g, i), Kind: "output"})
		values = append(values, out)
	}
	for i, in := range g.Inputs {
		if interp.Compare(before[i], res.Inputs[i], func(ir.DType) interp.Tolerance { return interp.Tolerance{} }) == nil {
			continue
		}
		fmt.Fprintf(stdout, "  mutated input %s: %s\n", in.Name, summarize(res.Inputs[i]))
		entries = append(entries, interp.ManifestEntry{File: fmt.Sprintf("g%d_%s.npy", gi, in.Name), Name: in.Name, Kind: "mutated-input"})
		values = append(values, res.Inputs[i])
	}
	if rf.out == "" {
		return nil
	}
	dir := rf.out
	if gi > 0 {
		dir = filepath.Join(rf.out, fmt.Sprintf("graph%d", gi))
	}
	return interp.WriteDir(dir, entries, values)
}

func outputLabel(g *ir.Graph, i int) string {
	if i < len(g.Outputs) {
		return g.Outputs[i].String()
	}
	return "?"
}

// readOrMakeInputs reads DIR/NAME.npy for every tensor input when dir is
// set (scalars and missing files fall back to -sym and random data only
// for non-tensors), else makes random inputs.
func readOrMakeInputs(g *ir.Graph, opts interp.Options, dir string) ([]any, error) {
	if dir == "" {
		return interp.MakeInputs(g, opts)
	}
	random, randErr := interp.MakeInputs(g, opts)
	out := make([]any, len(g.Inputs))
	for i, v := range g.Inputs {
		path := filepath.Join(dir, v.Name+".npy")
		if _, err := os.Stat(path); err != nil {
			if randErr != nil || random[i] == nil {
				return nil, diag.Errorf(v.Pos, interp.CodeInput, "write the input with numpy.save or drop -inputs", "input %s: %s not found", v.Name, path)
			}
			if _, isTensor := random[i].(*interp.Tensor); isTensor {
				return nil, diag.Errorf(v.Pos, interp.CodeInput, "write the input with numpy.save or drop -inputs", "input %s: %s not found", v.Name, path)
			}
			out[i] = random[i]
			continue
		}
		want := ir.Invalid
		if t := v.Type; t.Kind == ir.KindTensor {
			want = t.Tensor.DType
		} else if t, ok := opts.InputTypes[v.Name]; ok && t.Kind == ir.KindTensor {
			want = t.Tensor.DType
		}
		t, err := interp.LoadNPY(path, want)
		if err != nil {
			return nil, diag.Errorf(v.Pos, interp.CodeInput, "", "input %s: %v", v.Name, err)
		}
		if dev := v.Type; dev.Kind == ir.KindTensor && dev.Tensor.Device.Known() {
			t.Storage.Device = dev.Tensor.Device
		}
		out[i] = t
	}
	return out, nil
}

// summarize prints a value: dtype, shape, device, the first values, the
// sum of finite values and an FNV-64a checksum of the row-major bytes.
func summarize(x any) string {
	t, ok := x.(*interp.Tensor)
	if !ok {
		switch v := x.(type) {
		case nil:
			return "None"
		case float64:
			return "float " + ir.PyFloat(v)
		case int64, bool:
			return fmt.Sprintf("%T %v", v, v)
		case []any:
			parts := make([]string, len(v))
			for i, e := range v {
				parts[i] = summarize(e)
			}
			return "(" + strings.Join(parts, "; ") + ")"
		}
		return fmt.Sprint(x)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s %s", t.DType.Abbr(), shapeText(t.Shape), t.Device())
	const show = 6
	var parts []string
	var sumText string
	if t.DType.IsFloat() {
		sum := 0.0
		for i, v := range t.Floats() {
			if i < show {
				parts = append(parts, strconv.FormatFloat(v, 'g', 6, 64))
			}
			if v == v && v-v == 0 {
				sum += v
			}
		}
		sumText = strconv.FormatFloat(sum, 'g', 8, 64)
	} else {
		sum := int64(0)
		for i, v := range t.Ints() {
			if i < show {
				parts = append(parts, strconv.FormatInt(v, 10))
			}
			sum += v
		}
		sumText = strconv.FormatInt(sum, 10)
	}
	more := ""
	if t.Numel() > show {
		more = ", ..."
	}
	h := fnv.New64a()
	_ = interp.WriteNPY(h, t)
	fmt.Fprintf(&b, " [%s%s] sum=%s checksum=%016x", strings.Join(parts, ", "), more, sumText, h.Sum64())
	return b.String()
}

func shapeText(shape []int64) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = strconv.FormatInt(s, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
