package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/lowering"
)

// compileFlags are compile's own flags.
type compileFlags struct {
	outDir, target string
	noFuse, ptx    bool
}

func runCompile(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf compileFlags
	var timePasses flag.Getter
	var dumps *driver.Dumps
	defer func() { dumps.Close() }() // closed already on success; on failure, finishes what was queued
	start := time.Now()
	run, status := compileWith("compile", args, stdin, stderr, func(fs *flag.FlagSet) {
		timePasses, _ = fs.Lookup("time-passes").Value.(flag.Getter)
		fs.StringVar(&cf.outDir, "o", "kiln-out", "output folder")
		fs.StringVar(&cf.target, "target", "", "go: write a buildable Go module into the output folder instead of the dumps; cuda: write only the CUDA C")
		fs.BoolVar(&cf.ptx, "ptx", false, "also compile the CUDA C to PTX with clang (graphN.ptx)")
		fs.BoolVar(&cf.noFuse, "no-fuse", false, "lower without fusion: one kernel per node")
	}, func(o *driver.Options) {
		if o.Record = cf.target == ""; o.Record { // the per-pass dumps and the report; -target writes neither
			dumps = driver.NewDumps(cf.outDir)
			dumps.PTX, o.Dumps = cf.ptx, dumps
		}
	})
	if run == nil || run.Module == nil {
		return status
	}
	if !run.Diags.HasErrors() {
		defer run.Progress.Done()
	}
	if cf.target != "" && cf.target != "go" && cf.target != "cuda" {
		fmt.Fprintf(stderr, "kiln compile: unknown -target %q (known: go, cuda)\n", cf.target)
		return 2
	}
	printed := len(run.Diags.Items) // compileWith printed these
	progs, err := driver.Backend(run, driver.BackendOptions{Fuse: lowering.FuseOptions{Disable: cf.noFuse},
		Go: cf.target != "cuda", CUDA: cf.target != "go"})
	if err != nil {
		fmt.Fprintf(stderr, "kiln compile: %v\n", err)
		return 1
	}
	printDiags(stderr, run.Diags.Items[printed:])
	if timePasses != nil && timePasses.Get() == true {
		printBackendTimes(stderr, progs)
	}
	if run.Diags.HasErrors() {
		status = 1
	}
	if err := driver.WriteOutputs(cf.outDir, cf.target, cf.ptx, run, progs); err != nil {
		fmt.Fprintf(stderr, "kiln compile: %v\n", err)
		return 1
	}
	for _, note := range run.Notes {
		fmt.Fprintf(stderr, "kiln compile: note: %s\n", note)
	}
	fmt.Fprintln(stdout, driver.Summary(run, progs, cf.target, cf.outDir, time.Since(start)))
	return status
}

// printBackendTimes continues -time-passes with the stages past the graph.
func printBackendTimes(w io.Writer, progs []*driver.Program) {
	for gi, p := range progs {
		var total time.Duration
		for _, pr := range p.Passes {
			total += pr.Duration
			fmt.Fprintf(w, "  graph %d  %-14s %10s  changed=%v\n", gi, pr.Pass, pr.Duration, pr.Changed)
		}
		fmt.Fprintf(w, "  graph %d  %-14s %10s\n", gi, "back end", total)
	}
}
