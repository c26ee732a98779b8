// Command kiln compiles PyTorch FX graph printouts through a pass pipeline
// and explains why they fail. Run `kiln help` for the commands.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// command is one subcommand: what it takes, what it does, and its body.
// run returns the process exit status (see the exit* constants). The usage
// line and the flag list are generated from the command's real FlagSet
// (`kiln help NAME` runs it with -h), so they cannot drift from the flags.
type command struct {
	args    string // positional arguments, for the usage line
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Exit statuses, one convention for every command.
const (
	exitOK     = 0 // success (warnings may have been printed)
	exitDiag   = 1 // diagnostics about the input were reported
	exitMisuse = 2 // bad command line: unknown command or flag, missing FILE
)

var commands map[string]command

// commandOrder is the order `kiln help` lists them in.
var commandOrder = []string{"compile", "opt", "run", "dot", "passes", "ops", "explain", "version", "help"}

func init() {
	commands = map[string]command{
		"compile": {"FILE", "run the whole pipeline, lower, fuse and generate code; write every stage into a folder", runCompile},
		"opt":     {"FILE", "run a pass pipeline and print the resulting graph(s) as FX text", runOpt},
		"run":     {"FILE", "execute the graph in interp, kiln's reference eager executor", runRun},
		"dot":     {"FILE", "draw the graph as DOT text or SVG", runDot},
		"passes":  {"", "print the pipeline table: every stage from parse to codegen, its options, needs and checks", runPasses},
		"ops":     {"NAME", "an op's facets in one place: schema, kind, meta rule, inverse, decomposition, eval kernel, lowering", runOps},
		"explain": {"CODE", "the story behind a diagnostic code", runExplain},
		"version": {"", "print kiln's version", runVersion},
		"help":    {"[COMMAND]", "show this list, or a command's flags", runHelp},
	}
}

func main() {
	limitMemory = true
	startMemoryLimit()
	stop := startProfiles(os.Getenv("KILN_CPUPROFILE"), os.Getenv("KILN_MEMPROFILE"), os.Getenv("KILN_TRACE"), os.Stderr)
	status := kilnMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}

func kilnMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout) // the list is the answer, but a command was missing
		return exitMisuse
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(nil, stdin, stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kiln: unknown command %q%s\n", args[0], suggestHint(args[0], commandOrder))
		fmt.Fprintln(stderr, "run 'kiln help' for the list of commands")
		return exitMisuse
	}
	if wantsHelp(args[1:]) {
		stderr = stdout // asked-for help goes to stdout
	}
	return cmd.run(args[1:], stdin, stdout, stderr)
}

func wantsHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "kiln: a compile-pipeline simulator for PyTorch 2 graphs")
	fmt.Fprintln(w, "\nusage: kiln COMMAND [flags] [FILE]")
	fmt.Fprintln(w, "\ncommands:")
	for _, name := range commandOrder {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nFILE is FX readable text (print_readable, TORCH_LOGS, fx_graph_readable.py) or a JSON-lines op trace;")
	fmt.Fprintln(w, "'-' reads stdin. Flags may come before or after FILE. 'kiln help COMMAND' lists a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 diagnostics about the input, 2 misuse of the command line.")
}

func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintln(stderr, "usage: kiln help [COMMAND]")
		return exitMisuse
	}
	cmd, ok := commands[args[0]]
	if !ok || args[0] == "help" {
		fmt.Fprintf(stderr, "kiln help: unknown command %q%s\n", args[0], suggestHint(args[0], commandOrder))
		return exitMisuse
	}
	return cmd.run([]string{"-h"}, stdin, stdout, stdout)
}
