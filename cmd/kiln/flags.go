package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/limits"
	"io"
	"strings"

	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// pipelineFlags are the flags every pipeline-running command shares.
type pipelineFlags struct {
	pipeline      string
	printAfterAll bool
	printChanged  bool
	printAfter    string
	timePasses    bool
	verifyEach    bool
	reproDir      string
	captureScalar bool
	captureDyn    bool
	customOps     string
	progress      string
}

func (f *pipelineFlags) register(fs *flag.FlagSet, defaultPipeline string) {
	fs.StringVar(&f.pipeline, "passes", defaultPipeline, "the pass pipeline, a comma-separated `LIST` ('kiln passes' lists the passes)")
	fs.BoolVar(&f.printAfterAll, "print-after-all", false, "print the IR to stderr after every pass")
	fs.BoolVar(&f.printChanged, "print-changed", false, "print the IR after passes that changed it")
	fs.StringVar(&f.printAfter, "print-after", "", "print the IR after the named passes (comma-separated)")
	fs.BoolVar(&f.timePasses, "time-passes", false, "report the time each pass took")
	fs.BoolVar(&f.verifyEach, "verify-each", false, "run the IR verifier after every pass, changed or not")
	fs.StringVar(&f.reproDir, "repro-dir", "", "write a reproducer here when a pass fails")
	fs.BoolVar(&f.captureScalar, "capture-scalar-outputs", false, "like torch._dynamo.config.capture_scalar_outputs")
	fs.StringVar(&f.customOps, "custom-ops", "", "FILE declaring custom ops and their shape rules (see ops/CUSTOM_OPS.md)")
	fs.StringVar(&f.progress, "progress", "auto", "progress on stderr for work over 2 s: auto (when stderr is a terminal), on, off")
	fs.BoolVar(&f.captureDyn, "capture-dynamic-output-shape-ops", false, "like torch._dynamo.config.capture_dynamic_output_shape_ops")
	fs.Int64Var(&limits.InputBytes, "max-input-bytes", limits.DefaultInputBytes, "refuse an input file larger than this (docs/LIMITS.md)")
	fs.IntVar(&limits.LineBytes, "max-line-bytes", limits.DefaultLineBytes, "refuse a logical FX line longer than this, e.g. a signature with very many weights (docs/LIMITS.md)")
	fs.IntVar(&limits.RemarksPerPass, "max-remarks", limits.DefaultRemarksPerPass, "keep at most N remarks per pass and graph, then one saying how many there were; 0: all (docs/LIMITS.md)")
}

func (f *pipelineFlags) options(stderr io.Writer) (driver.Options, error) {
	// A pass that says it changed nothing is believed unless -verify-each:
	// hashing a graph around every pass to check is a print of it.
	m := passes.Manager{Out: stderr, VerifyEach: f.verifyEach, ReproDir: f.reproDir, TrustUnchanged: true}
	switch {
	case f.printAfterAll:
		m.Print = passes.PrintAll
	case f.printChanged:
		m.Print = passes.PrintChanged
	}
	if f.printAfter != "" {
		m.PrintAfter = map[string]bool{}
		for _, name := range strings.Split(f.printAfter, ",") {
			m.PrintAfter[strings.TrimSpace(name)] = true
		}
	}
	prog, err := driver.NewProgress(stderr, f.progress)
	if err != nil {
		return driver.Options{}, err
	}
	var reg *ops.Registry
	if f.customOps != "" {
		var err error
		if reg, err = driver.LoadRegistry(f.customOps); err != nil {
			return driver.Options{}, err
		}
	}
	return driver.Options{
		Registry: reg,
		Progress: prog,
		Pipeline: f.pipeline,
		Manager:  m,
		Config: passes.Config{
			CaptureScalarOutputs:         f.captureScalar,
			CaptureDynamicOutputShapeOps: f.captureDyn,
		},
	}, nil
}

// parseInterleaved parses flags that may come before or after positional
// arguments (`kiln opt x.fx -passes=dce` works like `kiln opt -passes=dce x.fx`).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				var known []string
				fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
				if hint := suggestHint(strings.TrimPrefix(name, "-"), known); hint != "" {
					fmt.Fprintf(fs.Output(), "kiln: unknown flag -%s%s\n", name, hint)
				}
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kiln "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\n%s\n\nflags:\n", usageLine(name, fs), commands[name].summary)
		fs.PrintDefaults()
	}
	return fs
}

// usageLine is `kiln NAME [flags] ARGS`, from the command's real flags.
func usageLine(name string, fs *flag.FlagSet) string {
	line := "kiln " + name
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		line += " [flags]"
	}
	if a := commands[name].args; a != "" {
		line += " " + a
	}
	return line
}

// flagStatus is the exit status for a flag parse error: -h is a request.
func flagStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitMisuse
}

// oneFile checks that exactly one FILE was given and reads it; a status
// other than exitOK means stop with it.
func oneFile(name string, positional []string, stdin io.Reader, stderr io.Writer) (driver.Input, int) {
	if len(positional) != 1 {
		fmt.Fprintf(stderr, "usage: kiln %s [flags] FILE ('kiln help %s' lists the flags)\n", name, name)
		return driver.Input{}, exitMisuse
	}
	in, err := driver.ReadInput(positional[0], stdin)
	if err != nil {
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			fmt.Fprintln(stderr, d.String())
		} else {
			fmt.Fprintf(stderr, "kiln %s: %v\n", name, err)
		}
		return driver.Input{}, exitDiag
	}
	return in, exitOK
}
