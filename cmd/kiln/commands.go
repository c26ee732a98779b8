package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/driver"
)

// compileFile runs the shared part of opt, dot and compile: flags, input,
// pipeline, diagnostics to stderr. It returns nil when the command must
// stop with the given status.
func compileFile(name string, args []string, stdin io.Reader, stderr io.Writer, extra func(fs *flag.FlagSet)) (*driver.Run, int) {
	return compileWith(name, args, stdin, stderr, extra, nil)
}

// compileWith is compileFile with a last say over the driver options.
func compileWith(name string, args []string, stdin io.Reader, stderr io.Writer, extra func(fs *flag.FlagSet), adjust func(*driver.Options)) (*driver.Run, int) {
	fs := newFlagSet(name, stderr)
	var pf pipelineFlags
	pf.register(fs, driver.DefaultPipeline)
	if extra != nil {
		extra(fs)
	}
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, 2
	}
	in, ok := oneFile(name, positional, stdin, stderr)
	if !ok {
		return nil, 2
	}
	opts, err := pf.options(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kiln %s: %v\n", name, err)
		return nil, 1
	}
	if adjust != nil {
		adjust(&opts)
	}
	run, err := driver.Compile(in, opts)
	if err != nil {
		fmt.Fprintf(stderr, "kiln %s: %v\n", name, err)
		return nil, 1
	}
	printDiags(stderr, run.Diags.Items)
	if pf.timePasses {
		printTimes(stderr, run)
	}
	if run.Diags.HasErrors() {
		return run, 1
	}
	return run, 0
}

func printDiags(w io.Writer, ds []diag.Diagnostic) {
	for _, d := range ds {
		if d.Severity == diag.Remark {
			continue
		}
		fmt.Fprintln(w, d.String())
	}
}

func printTimes(w io.Writer, run *driver.Run) {
	fmt.Fprintln(w, "pass timings:")
	fmt.Fprintf(w, "  %-22s %10s\n", "parse", run.Parse.Duration)
	for gi, r := range run.Results {
		if r == nil {
			continue
		}
		var total time.Duration
		for _, p := range r.Passes {
			total += p.Duration
			fmt.Fprintf(w, "  graph %d  %-14s %10s  changed=%v\n", gi, p.Pass, p.Duration, p.Changed)
		}
		fmt.Fprintf(w, "  graph %d  %-14s %10s\n", gi, "total", total)
	}
}

func runOpt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	iv := newInterpVerify(stderr)
	run, status := compileWith("opt", args, stdin, stderr, iv.register, iv.adjust)
	if run != nil && run.Module != nil {
		fmt.Fprint(stdout, run.Module.Print())
	}
	return status
}

func runDot(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var out string
	run, status := compileFile("dot", args, stdin, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "o", "", "output file: .svg renders with Graphviz, anything else gets DOT text (default: DOT to stdout)")
	})
	if run == nil || run.Module == nil {
		return status
	}
	if err := driver.WriteDot(out, run, stdout); err != nil {
		fmt.Fprintf(stderr, "kiln dot: %v\n", err)
		return 1
	}
	return status
}

func runPasses(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "usage: %s\n", commands["passes"].usage)
		return 2
	}
	for _, info := range driver.Table() {
		fmt.Fprintf(stdout, "%-14s %s\n", info.Name, info.Summary)
		for _, o := range info.Options {
			fmt.Fprintf(stdout, "%-14s   %s: %s\n", "", o.Name, o.Doc)
		}
		for _, r := range info.Requires {
			fmt.Fprintf(stdout, "%-14s   after %s: %s\n", "", r.Pass, r.Reason)
		}
		fmt.Fprintf(stdout, "%-14s   checks: %s\n", "", driver.Checks(info))
	}
	return 0
}

func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "usage: %s\n\ncodes: %s\n", commands["explain"].usage, strings.Join(diag.Codes(), ", "))
		return 2
	}
	text, ok := diag.Explain(args[0])
	if !ok {
		fmt.Fprintf(stderr, "kiln explain: unknown code %q\ncodes: %s\n", args[0], strings.Join(diag.Codes(), ", "))
		return 1
	}
	fmt.Fprintln(stdout, text)
	return 0
}
