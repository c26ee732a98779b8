// Package lit is kiln's one vocabulary for txtar test cases, after LLVM's
// lit and MLIR's tests: a case is a txtar archive whose comment says what
// it checks and whose sections are
//
//	input        the graph (input.fx, input.jsonl, ...), or input.path naming a file
//	pipeline     the passes to run (pipeline text, as -passes takes)
//	output       the expected output, only what the pass owns (output.fx;
//	             output.facts and output.nodes where a pass owns two views)
//	remarks      the expected remarks, one per line
//	diagnostics  the expected errors and warnings
//
// plus settings a runner declares for itself (Extras). Older cases still
// use the names in Aliases; Get accepts both, so runners can move to the
// vocabulary one at a time, and TestVocabulary keeps new names out.
package lit

import (
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Sections are the canonical section names.
var Sections = []string{"input", "pipeline", "output", "remarks", "diagnostics"}

// Aliases maps each legacy section name to the canonical one it means.
var Aliases = map[string]string{
	"in":      "input",       // testdata/fusion, testdata/lowering
	"source":  "input",       // testdata/lowering (align says input.path)
	"want":    "output",      // testdata/fakeprop before it moved to output (none left)
	"program": "output",      // testdata/lowering: the loop program
	"fused":   "output",      // testdata/fusion: the fused program
	"facts":   "output",      // align before output.facts (none left)
	"nodes":   "output",      // align before output.nodes (none left)
	"diags":   "diagnostics", // align before diagnostics (none left)
	"error":   "diagnostics", // testdata/lowering
}

// Extras are the settings runners declare beyond the vocabulary.
var Extras = map[string]string{
	"checks":     "testdata/fusion: fusion facts to check (kernel counts, stages)",
	"env":        "testdata/fusion: symbol values for runs",
	"ints":       "testdata/lowering/badindex: integer input data",
	"novalidate": "decompose, functionalize: skip translation validation, with the reason",
	"tv":         "testdata/align: translation-validation settings",
	"rows":       "testdata/fakeprop: a custom-op file the pipeline loads",
}

// Canonical is the vocabulary word a section name means (its extension
// dropped: input.fx is input), and whether the name is known at all.
func Canonical(name string) (string, bool) {
	base, _, _ := strings.Cut(name, ".")
	for _, s := range Sections {
		if base == s {
			return s, true
		}
	}
	if c, ok := Aliases[base]; ok {
		return c, true
	}
	if _, ok := Extras[base]; ok {
		return base, true
	}
	return "", false
}

// Get returns the data of ar's section that means want (a canonical name),
// under its own name or an alias, and whether there was one.
func Get(ar *txtar.Archive, want string) (string, bool) {
	for _, f := range ar.Files {
		if c, ok := Canonical(f.Name); ok && c == want {
			return string(f.Data), true
		}
	}
	return "", false
}
