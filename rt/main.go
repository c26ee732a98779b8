package rt

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// Program describes one generated graph package to the generated main.
type Program struct {
	Name    string
	Inputs  []Param
	Outputs []string // output names, in order
	Run     func(syms map[string]int64, inputs []*Tensor) ([]any, error)
}

// Param is one graph input: Kind "tensor" (DType set), "sym" (a SymInt
// input binding Sym) or "scalar" (a number the kernels do not read).
type Param struct {
	Name    string
	Kind    string
	DType   string
	Sym     string
	Mutated bool
}

// ManifestEntry is one file of an output folder, as interp.ManifestEntry.
type ManifestEntry struct {
	File  string  `json:"file"`
	Name  string  `json:"name"`
	Kind  string  `json:"kind"`
	DType string  `json:"dtype,omitempty"`
	Shape []int64 `json:"shape,omitempty"`
	NPY   string  `json:"npy_descr,omitempty"`
	Bits  bool    `json:"bits,omitempty"`
	Value any     `json:"value,omitempty"`
}

// Main is the generated binary's main: see MainArgs.
func Main(progs []*Program) {
	os.Exit(MainArgs(os.Args[1:], os.Stdout, os.Stderr, progs))
}

// assignments is a repeatable NAME=INT flag.
type assignments map[string]string

func (a assignments) String() string { return "" }

func (a assignments) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" {
			return fmt.Errorf("want NAME=VALUE, got %q", part)
		}
		a[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return nil
}

// MainArgs runs `BIN [-graph NAME] -inputs DIR -o DIR [-sym s0=8]
// [-scalar x=1.5] [-seed N] [-bench N]` (or `BIN -simd`) and returns the exit code.
func MainArgs(args []string, stdout, stderr io.Writer, progs []*Program) int {
	fs := flag.NewFlagSet("kernels", flag.ContinueOnError)
	fs.SetOutput(stderr)
	graph := fs.String("graph", "", "graph to run (needed when the module holds several)")
	inDir := fs.String("inputs", "", "folder holding <input name>.npy for each tensor input")
	outDir := fs.String("o", "", "folder for out<i>.npy, mutated inputs and manifest.json")
	bench := fs.Int("bench", 0, "run N times after one warm-up and print ns/op")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run (of the timed runs with -bench) to FILE")
	seed := fs.Uint64("seed", 0, "seed of the random ops (interp's -seed); -sym "+SeedSym+"=N sets it too")
	simd := fs.Bool("simd", false, "say whether float32 inner loops run on SIMD lanes (GOEXPERIMENT=simd builds), and exit")
	syms, scalars := assignments{}, assignments{}
	fs.Var(syms, "sym", "symbol values, NAME=INT (repeatable)")
	fs.Var(scalars, "scalar", "scalar inputs, NAME=VALUE (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *simd {
		fmt.Fprintln(stdout, "simd:", SIMDStatus())
		return 0
	}
	if _, ok := syms[SeedSym]; !ok {
		syms[SeedSym] = strconv.FormatInt(int64(*seed), 10)
	}
	run := runConfig{graph: *graph, inDir: *inDir, outDir: *outDir, bench: *bench, profile: *cpuProfile}
	if err := mainRun(progs, run, syms, scalars, stdout); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

func pickProgram(progs []*Program, name string) (*Program, error) {
	if name == "" && len(progs) == 1 {
		return progs[0], nil
	}
	var names []string
	for _, p := range progs {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("unknown graph %q (have %s)", name, strings.Join(names, ", "))
}

// runConfig is what the flags ask for.
type runConfig struct {
	graph, inDir, outDir string
	bench                int
	profile              string // CPU profile file, "" for none
}

func mainRun(progs []*Program, cfg runConfig, syms, scalars assignments, stdout io.Writer) error {
	p, err := pickProgram(progs, cfg.graph)
	if err != nil {
		return err
	}
	symVals, err := parseSyms(p, syms, scalars)
	if err != nil {
		return err
	}
	inputs, err := readInputs(p, cfg.inDir)
	if err != nil {
		return err
	}
	if cfg.bench > 0 {
		return runBench(p, symVals, inputs, cfg.bench, cfg.profile, stdout)
	}
	stop, err := startProfile(cfg.profile)
	if err != nil {
		return err
	}
	outs, err := p.Run(symVals, inputs)
	if perr := stop(); err == nil {
		err = perr
	}
	if err != nil || cfg.outDir == "" {
		return err
	}
	return writeOutputs(p, cfg.outDir, outs, inputs)
}

// startProfile starts a CPU profile into file ("": none); stop ends it.
func startProfile(file string) (stop func() error, err error) {
	if file == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// parseSyms reads -sym values, and -scalar values of SymInt inputs.
func parseSyms(p *Program, syms, scalars assignments) (map[string]int64, error) {
	out := map[string]int64{}
	for k, v := range syms {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-sym %s=%s: not an integer", k, v)
		}
		out[k] = n
	}
	for _, in := range p.Inputs {
		v, ok := scalars[in.Name]
		if in.Kind != "sym" || !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-scalar %s=%s: not an integer", in.Name, v)
		}
		out[in.Sym] = n
	}
	return out, nil
}

func readInputs(p *Program, dir string) ([]*Tensor, error) {
	inputs := make([]*Tensor, len(p.Inputs))
	for i, in := range p.Inputs {
		if in.Kind != "tensor" {
			continue
		}
		if dir == "" {
			return nil, errors.New("-inputs DIR is required")
		}
		t, err := LoadNPY(filepath.Join(dir, in.Name+".npy"), in.DType)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.Name, err)
		}
		inputs[i] = t
	}
	return inputs, nil
}

// runBench times Run; outputs are handed back to the buffer pool between
// runs, as a caller that consumes them would.
func runBench(p *Program, syms map[string]int64, inputs []*Tensor, n int, profile string, stdout io.Writer) error {
	release := func(outs []any) {
		for _, o := range outs {
			if t, ok := o.(*Tensor); ok {
				ReleaseBuffer(t.Data)
			}
		}
	}
	outs, err := p.Run(syms, inputs)
	if err != nil {
		return err
	}
	release(outs)
	stop, err := startProfile(profile)
	if err != nil {
		return err
	}
	start := time.Now()
	for range n {
		outs, err := p.Run(syms, inputs)
		if err != nil {
			stop()
			return err
		}
		release(outs)
	}
	elapsed := time.Since(start)
	if err := stop(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ns/op %d\n", elapsed.Nanoseconds()/int64(n))
	return nil
}

func writeOutputs(p *Program, dir string, outs []any, inputs []*Tensor) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var entries []ManifestEntry
	for i, o := range outs {
		name := ""
		if i < len(p.Outputs) {
			name = p.Outputs[i]
		}
		e, err := writeEntry(dir, fmt.Sprintf("out%d.npy", i), name, "output", o)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	for i, in := range p.Inputs {
		if !in.Mutated {
			continue
		}
		e, err := writeEntry(dir, in.Name+".npy", in.Name, "mutated-input", inputs[i])
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	return WriteManifest(dir, entries)
}

func writeEntry(dir, file, name, kind string, v any) (ManifestEntry, error) {
	e := ManifestEntry{File: file, Name: name, Kind: kind}
	t, ok := v.(*Tensor)
	if !ok {
		e.File, e.Value = "", v
		if f, isFloat := v.(float64); isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
			e.Value = pyFloat(f) // JSON has no nan or inf
		}
		return e, nil
	}
	descr, exact, err := NPYDescr(t.DType)
	if err != nil {
		return e, err
	}
	e.DType, e.Shape, e.NPY, e.Bits = t.DType, t.Shape, descr, !exact
	return e, SaveNPY(filepath.Join(dir, file), t)
}

func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case f > 0:
		return "inf"
	}
	return "-inf"
}
