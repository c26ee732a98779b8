package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/passes"
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
	defaultPipeline := driver.DefaultPipeline
	if name == "compile" {
		defaultPipeline = driver.CompilePipeline
	}
	pf.register(fs, defaultPipeline)
	if extra != nil {
		extra(fs)
	}
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, flagStatus(err)
	}
	if _, err := passes.Parse(pf.pipeline); err != nil {
		// The pipeline is a flag value: a mistake in it is misuse.
		fmt.Fprintf(stderr, "kiln %s: -passes=%q: %v\n", name, pf.pipeline, err)
		return nil, exitMisuse
	}
	in, status := oneFile(name, positional, stdin, stderr)
	if status != exitOK {
		return nil, status
	}
	opts, err := pf.options(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kiln %s: %v\n", name, err)
		return nil, exitDiag
	}
	if adjust != nil {
		adjust(&opts)
	}
	run, err := driver.Compile(in, opts)
	if err != nil {
		opts.Progress.Done()
		fmt.Fprintf(stderr, "kiln %s: %v\n", name, err)
		return nil, 1
	}
	if name != "compile" || run.Module == nil || run.Diags.HasErrors() {
		opts.Progress.Done() // compile goes on to its back end and dumps
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
		w := bufio.NewWriterSize(stdout, 1<<16)
		run.Module.WriteTo(w) // streamed: a 1M-node graph's text is hundreds of MB
		w.Flush()
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

func runOps(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || wantsHelp(args) {
		fmt.Fprintln(stderr, "usage: kiln ops NAME\n\nprints the facets of the ops NAME names: aten::add.Tensor, add.Tensor, or add (every overload)")
		if wantsHelp(args) {
			return exitOK
		}
		return exitMisuse
	}
	rows := driver.FindOps(args[0])
	if len(rows) == 0 {
		fmt.Fprintf(stderr, "kiln ops: no op named %q in kiln's registry\n", args[0])
		return exitDiag
	}
	for _, r := range rows {
		fmt.Fprint(stdout, r.String())
	}
	return exitOK
}

func runPasses(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: kiln passes\n\nlists the passes, their options and ordering constraints")
		if wantsHelp(args) {
			return exitOK
		}
		return exitMisuse
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
		fmt.Fprintf(stderr, "usage: kiln explain CODE\n\ncodes: %s\n", strings.Join(diag.Codes(), ", "))
		if len(args) == 1 && wantsHelp(args) {
			return exitOK
		}
		return exitMisuse
	}
	if wantsHelp(args) {
		fmt.Fprintf(stdout, "usage: kiln explain CODE\n\ncodes: %s\n", strings.Join(diag.Codes(), ", "))
		return exitOK
	}
	text, ok := diag.Explain(args[0])
	if !ok {
		fmt.Fprintf(stderr, "kiln explain: unknown code %q%s\ncodes: %s\n", args[0], suggestHint(args[0], diag.Codes()), strings.Join(diag.Codes(), ", "))
		return 1
	}
	fmt.Fprintln(stdout, text)
	return 0
}
