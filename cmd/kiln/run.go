package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
	"github.com/kiln-compiler/kiln/tv"
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
	v      *tv.Validator
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
		fs.Int64Var(&limits.RunBytes, "max-run-bytes", limits.DefaultRunBytes, "stop a run once its tensors reach this many bytes in all (docs/LIMITS.md)")
		interp.ResetAllocated()
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
	iv.v = &tv.Validator{Options: iv.options(), Log: iv.stderr}
	iv.v.Install(&o.Manager)
}

func (iv *interpVerify) options() interp.Options {
	return interp.Options{Seed: iv.seed, Sym: iv.sym, InputTypes: iv.types, CheckTypes: true}
}

// runFlags are kiln run's own flags.
type runFlags struct {
	inputs, out, saveInputs string
	graph                   int
	noCheck                 bool
}

func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	iv := newInterpVerify(stderr)
	var rf runFlags
	run, status := compileWith("run", args, stdin, stderr, func(fs *flag.FlagSet) {
		_ = fs.Set("passes", "")
		fs.Lookup("passes").DefValue = ""
		fs.Uint64Var(&iv.seed, "seed", 0, "seed for random inputs")
		fs.Int64Var(&limits.TensorBytes, "max-tensor-bytes", limits.DefaultTensorBytes, "refuse to allocate a tensor larger than this many bytes (docs/LIMITS.md)")
		fs.Int64Var(&limits.RunBytes, "max-run-bytes", limits.DefaultRunBytes, "stop a run once its tensors reach this many bytes in all (docs/LIMITS.md)")
		interp.ResetAllocated()
		fs.StringVar(&rf.inputs, "inputs", "", "read input NAME from DIR/NAME.npy instead of making random data")
		fs.StringVar(&rf.out, "o", "", "write outputs as .npy files (and manifest.json) to DIR")
		fs.StringVar(&rf.saveInputs, "save-inputs", "", "write the tensor inputs the graph ran on as DIR/NAME.npy (read them back with -inputs, or in PyTorch)")
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
	if err := driver.Execute(run, driver.ExecOptions{Interp: opts, Inputs: rf.inputs, Out: rf.out, SaveInputs: rf.saveInputs, Graph: rf.graph}, stdout); err != nil {
		printRunError(stderr, err)
		return 1
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
