package driver

import (
	"fmt"
	"sort"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

// runOrder is kiln's pipeline table in run order, from parsing to codegen.
// Each row's facts (summary, options, what it needs before it and why,
// what is checked after it) are declared once, in the row's passes.Info:
// the graph passes' in their packages, the stages past the graph in
// backEnd below, parsing in parseRow. A pipeline runs a subsequence of it.
var runOrder = []string{
	"parse",
	"fakeprop", "aten", "functionalize", "vmap", "decompose", "postgrad", "align", "dce", "cse",
	"lower", "verify", "fuse", "plan", "go", "cuda",
}

// parseRow is the frontend as a row of the table: the driver runs it
// before the manager takes over, timed and dumped (-print-after=parse).
var parseRow = passes.Info{
	Name:    "parse",
	Summary: "read the input (FX text, or a dispatcher op trace when it starts with '{') into one graph per GraphModule",
	Stage:   ir.StageParsed,
	Checks:  "the IR verifier at stage parsed: ids unique, definitions before uses, use counts, arity against the schema",
}

// Table returns the rows of the pipeline table in run order. A registered
// pass the order does not name (a test's) comes last, by name.
func Table() []passes.Info {
	out := []passes.Info{parseRow}
	listed := map[string]bool{"parse": true}
	for _, name := range runOrder[1:] {
		listed[name] = true
		if info, ok := passes.Lookup(name); ok {
			out = append(out, info)
		}
	}
	var rest []passes.Info
	for _, info := range passes.All() {
		if !listed[info.Name] {
			rest = append(rest, info)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].Name < rest[j].Name })
	return append(out, rest...)
}

// Checks says what is verified after a row.
func Checks(info passes.Info) string {
	if info.Checks != "" {
		return info.Checks
	}
	return fmt.Sprintf("the IR verifier at stage %s; after a pass that changed the graph", stageName(info.Stage))
}

func stageName(s ir.Stage) string {
	switch s {
	case ir.StageTyped:
		return "typed: every value typed, rank of shape = rank of strides"
	case ir.StageFunctional:
		return "functional: no mutating op but the input-mutation epilogue"
	}
	return "parsed"
}
