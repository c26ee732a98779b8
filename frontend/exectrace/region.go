package exectrace

import (
	"fmt"
	"regexp"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

var notIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// region turns a compiled region or a kernel launch into one opaque node:
// its inputs are the tensors its calls read that were made outside it, its
// results every tensor its calls wrote.
func (b *builder) region(n *node) error {
	if b.opaque == nil {
		b.opaque = map[*node]bool{}
	}
	b.opaque[n] = true
	var all []*node
	seen := map[*node]bool{}
	stack := []*node{n}
	for len(stack) > 0 { // preorder, children in id order; seen guards a cyclic tree
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[m] {
			continue
		}
		seen[m] = true
		all = append(all, m)
		for i := len(m.children) - 1; i >= 0; i-- {
			stack = append(stack, m.children[i])
		}
	}
	written := map[tkey]slot{}
	var order []tkey
	var args []ir.Arg
	isInput := map[tkey]bool{}
	aten := 0
	for _, m := range all {
		if isATen(m.Name) {
			aten++
		}
		_, schema := target(m)
		for i, s := range m.In.slots() {
			for _, e := range flatten([]slot{s}) {
				k, t, err := b.tensor(e)
				if err != nil || isInput[k] {
					continue
				}
				if _, mine := written[k]; mine {
					continue
				}
				if _, known := b.values[k]; !known && writes(schema, i) {
					continue // an out= buffer the region allocated where the trace does not show
				}
				isInput[k] = true
				args = append(args, ir.ValueArg(b.lookup(m, k, t)))
			}
		}
		for _, s := range flatten(m.Out.slots()) {
			k, _, err := b.tensor(s)
			if err != nil || isInput[k] {
				continue // a call returning its input (resolve_conj, out=) makes no new tensor
			}
			if _, dup := written[k]; !dup {
				order = append(order, k)
			}
			written[k] = s
		}
	}
	name := notIdent.ReplaceAllString(n.Name, "_")
	node := b.g.NewNode(b.fresh(name), "execution_trace."+name, ir.FormFunction, args, nil, max(1, len(order)))
	node.Pos = b.pos(n.Line)
	if len(node.Results) > 1 {
		for i, r := range node.Results {
			r.Name = fmt.Sprintf("%s_out%d", node.Name, i)
		}
	}
	for i, k := range order {
		_, t, _ := b.tensor(written[k])
		r := node.Results[i]
		r.Type, r.Annot = t, t
		b.values[k] = r
		b.noteStorage(k, r)
	}
	b.g.Append(node)
	b.res.Diags = append(b.res.Diags, diag.Diagnostic{Severity: diag.Remark, Code: CodeNonATen, Pos: node.Pos,
		Message: fmt.Sprintf("%q became the opaque node %s: %d tensors in, %d out; the %d ATen calls recorded inside are not the whole region (fused kernels are not recorded)",
			n.Name, node.Name, len(args), len(order), aten)})
	return nil
}

// writes reports whether parameter i of schema is written (`Tensor(a!) out`).
func writes(schema *ops.Schema, i int) bool {
	return schema != nil && i < len(schema.Params) && schema.Params[i].Alias != nil && schema.Params[i].Alias.Write
}
