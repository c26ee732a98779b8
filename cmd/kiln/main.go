// Command kiln compiles PyTorch FX graph printouts through a pass pipeline
// and explains why they fail. Run `kiln help` for the commands.
package main

import (
	"fmt"
	"io"
	"os"
)

// command is one subcommand: its usage line and its body. run returns the
// process exit status: 0 success, 1 errors reported about the input, 2 misuse.
type command struct {
	usage string
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"opt":     {"kiln opt [-passes=LIST] [-print-after-all] [-print-after=NAME] [-time-passes] FILE", runOpt},
		"dot":     {"kiln dot [-passes=LIST] [-o OUT.svg|OUT.dot] FILE", runDot},
		"compile": {compileUsage, runCompile},
		"passes":  {"kiln passes", runPasses},
		"explain": {"kiln explain CODE", runExplain},
		"run":     {runUsage, runRun},
	}
}

func main() {
	os.Exit(kilnMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func kilnMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return boolExit(len(args) == 0)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kiln: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(args[1:], stdin, stdout, stderr)
}

func boolExit(misuse bool) int {
	if misuse {
		return 2
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "kiln: a compile-pipeline simulator for PyTorch 2 graphs")
	fmt.Fprintln(w, "\nusage:")
	for _, name := range []string{"compile", "opt", "run", "dot", "passes", "explain"} {
		fmt.Fprintln(w, "  "+commands[name].usage)
	}
	fmt.Fprintln(w, "\nFILE is FX readable text (print_readable, TORCH_LOGS, fx_graph_readable.py); '-' reads stdin.")
}
