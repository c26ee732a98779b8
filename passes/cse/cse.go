// Package cse merges identical pure computations.
package cse

import (
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

func init() {
	passes.Register(passes.Info{
		Name:    "cse",
		Summary: "common-subexpression elimination of pure ops (graphs without in-place ops only)",
		New:     func(passes.Options) (passes.Pass, error) { return pass{}, nil },
	})
}

type pass struct{}

func (pass) Name() string { return "cse" }

// Run keys every pure node by its target and arguments (values by id) and
// replaces later duplicates with the first. A graph that mutates anything is
// left alone: with aliasing, two equal-looking reads may see different data,
// and proving otherwise needs functionalization first.
func (pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	for _, n := range g.Nodes {
		if n.Op != nil && n.Op.Mutates() {
			ctx.Remark(n, "cse", "skipped: %s mutates its input; run functionalize first", n.Name)
			return false, nil
		}
	}
	seen := map[string]*ir.Node{}
	dead := map[*ir.Node]bool{}
	for _, n := range g.Nodes {
		ctx.At(n)
		if !ir.IsPure(n) || len(n.Results) == 0 {
			continue
		}
		key := nodeKey(n)
		first, ok := seen[key]
		if !ok {
			seen[key] = n
			continue
		}
		for i, r := range n.Results {
			if i < len(first.Results) {
				g.ReplaceAllUses(r, first.Results[i])
			}
		}
		if len(n.Results) <= len(first.Results) {
			dead[n] = true
			ctx.Remark(n, "cse", "%s is the same computation as %s", n.Name, first.Name)
		}
	}
	if len(dead) == 0 {
		return false, nil
	}
	g.RemoveDead(dead)
	return true, nil
}

// nodeKey is a canonical string for target + arguments; values print as
// their ids so that two different values with one name cannot collide.
func nodeKey(n *ir.Node) string {
	var b strings.Builder
	b.WriteString(n.Target)
	b.WriteByte('(')
	for _, a := range n.Args {
		writeKey(&b, a)
		b.WriteByte(',')
	}
	for _, kw := range n.Kwargs {
		b.WriteString(kw.Name + "=")
		writeKey(&b, kw.Arg)
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

func writeKey(b *strings.Builder, a ir.Arg) {
	switch a.Kind {
	case ir.ArgValue:
		b.WriteString("%" + strconv.Itoa(a.Value.ID))
	case ir.ArgList, ir.ArgTuple, ir.ArgDict, ir.ArgSlice:
		b.WriteString(strconv.Itoa(int(a.Kind)) + "[")
		for i, e := range a.Elems {
			if i < len(a.Keys) {
				writeKey(b, a.Keys[i])
				b.WriteByte(':')
			}
			writeKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		b.WriteString(strconv.Itoa(int(a.Kind)) + ":" + a.String())
	}
}
