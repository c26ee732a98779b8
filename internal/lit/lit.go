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
// plus settings a runner declares for itself (Extras). There are no
// aliases: every case under testdata/ uses these words, and TestVocabulary
// refuses any other, so a new name is added here on purpose.
package lit

import (
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Sections are the canonical section names.
var Sections = []string{"input", "pipeline", "output", "remarks", "diagnostics"}

// Extras are the settings runners declare beyond the vocabulary.
var Extras = map[string]string{
	"checks":     "testdata/fusion: fusion facts to check (kernel counts, stages)",
	"env":        "testdata/fusion: symbol values for runs",
	"ints":       "testdata/lowering/badindex: integer input data",
	"good":       "testdata/lowering/badindex: in-range integer input data where 0 and 1 are not (offsets)",
	"novalidate": "decompose, functionalize, aten: skip translation validation, with the reason",
	"eager":      "testdata/aten: PyTorch eager's outputs on interp's inputs (tools/aten_cases/gen.py)",
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
	if _, ok := Extras[base]; ok {
		return base, true
	}
	return "", false
}

// Get returns the data of ar's first section that means want (a canonical
// name, any extension: input finds input.fx), and whether there was one.
func Get(ar *txtar.Archive, want string) (string, bool) {
	if c, ok := Canonical(want); !ok || c != want {
		panic(fmt.Sprintf("lit: Get(%q): not a vocabulary word (internal/lit Sections, Extras)", want))
	}
	for _, f := range ar.Files {
		if c, ok := Canonical(f.Name); ok && c == want {
			return string(f.Data), true
		}
	}
	return "", false
}

// Section is the text of ar's section called exactly name ("" when
// absent), for runners that own several views of one word (output.facts
// and output.nodes). name must be in the vocabulary: a runner asking for a
// word no case may hold would read "" forever and check nothing, so that
// is a bug in the runner and panics.
func Section(ar *txtar.Archive, name string) string {
	mustKnow(name)
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

// Has reports whether ar has a section called exactly name (which must be
// in the vocabulary).
func Has(ar *txtar.Archive, name string) bool {
	mustKnow(name)
	for _, f := range ar.Files {
		if f.Name == name {
			return true
		}
	}
	return false
}

// SetSection replaces the text of ar's section called name, appending the
// section when absent (for -update).
func SetSection(ar *txtar.Archive, name, body string) {
	mustKnow(name)
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(body)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(body)})
}

func mustKnow(name string) {
	if _, ok := Canonical(name); !ok {
		panic(fmt.Sprintf("lit: section %q is not in the vocabulary (internal/lit Sections, Extras)", name))
	}
}
