package align

import (
	"slices"
	"strconv"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
)

// record decides vector widths and writes align/vec on every tensor
// value, with one remark each, in program order.
func (a *analysis) record() bool {
	// One remark per tensor value, up to the bound: grow the list once,
	// not by doubling up to a million 120-byte diagnostics.
	n := a.g.NumValueIDs()
	if limit := limits.RemarksPerPass; limit > 0 {
		n = min(n, limit)
	}
	a.ctx.Diags.Items = slices.Grow(a.ctx.Diags.Items, n)
	changed := false
	for _, v := range a.g.Inputs {
		changed = a.recordValue(nil, v) || changed
	}
	for _, n := range a.g.Nodes {
		for _, r := range n.Results {
			changed = a.recordValue(n, r) || changed
		}
	}
	return changed
}

func (a *analysis) recordValue(n *ir.Node, v *ir.Value) bool {
	f := a.facts.At(v)
	if f == nil {
		return false
	}
	used := strconv.FormatInt(f.used, 10)
	fresh := len(v.Attrs) == 0 // nothing recorded yet: the shared list will do
	if !fresh {
		v.Attrs.Set(AttrAlign, used)
	}
	vec := ""
	if f.accessed {
		f.vec, f.vecWhy = vectorWidth(v.Type.Tensor, f.used)
		vec = strconv.FormatInt(f.vec, 10)
		if !fresh {
			v.Attrs.Set(AttrVec, vec)
		}
	} else if !fresh {
		v.Attrs = without(v.Attrs, AttrVec) // from an earlier run
	}
	if fresh {
		v.Attrs = a.shared(used, vec)
	}
	pos, node := v.Pos, v.Name
	if n != nil {
		pos, node = n.Pos, n.Name
	}
	// Built only for the remarks kept (limits.RemarksPerPass), in a buffer
	// the values share: a million throwaway strings are not made.
	a.ctx.RemarkFunc(pos, node, CodeRemark, func() string { return a.remarkText(v, f, used, vec) })
	a.facts.Set(v, nil) // recorded: its fact (and reasons) can go while the remarks pile up
	return true
}

// remarkText is a value's remark: its alignment, why, and its vector width.
func (a *analysis) remarkText(v *ir.Value, f *fact, used, vec string) string {
	msg := append(a.msg[:0], v.Name...)
	if f.assumed() {
		msg = append(msg, " is assumed "...)
		msg = append(msg, used...)
		msg = append(msg, "-byte aligned (assume="...)
		msg = append(msg, a.p.assume...)
		msg = append(msg, ") but proved only "...)
		msg = strconv.AppendInt(msg, f.proved, 10)
	} else {
		msg = append(msg, " is "...)
		msg = append(msg, used...)
		msg = append(msg, "-byte aligned"...)
	}
	msg = append(msg, ": "...)
	msg = append(msg, f.why...)
	if f.accessed {
		msg = append(msg, "; vector width "...)
		msg = append(msg, vec...)
		msg = append(msg, ": "...)
		msg = append(msg, f.vecWhy...)
	}
	a.msg = msg
	return string(msg)
}

// shared returns `align=used vec=vec` (no vec when ""), one list for every
// value with the same facts: a million values carry a handful of distinct
// lists. (ir.Attrs.Set copies a shared list before it changes it.)
func (a *analysis) shared(used, vec string) ir.Attrs {
	key := [2]string{used, vec}
	if s, ok := a.attrs[key]; ok {
		return s
	}
	s := ir.Attrs{{Key: AttrAlign, Val: used}}
	if vec != "" {
		s = append(s, ir.Attr{Key: AttrVec, Val: vec})
	}
	s = slices.Clip(s)
	if a.attrs == nil {
		a.attrs = map[[2]string]ir.Attrs{}
	}
	a.attrs[key] = s
	return s
}

// remarkAt reports a remark about a graph input, at its position.
func (a *analysis) remarkAt(v *ir.Value, msg string) {
	a.ctx.RemarkAt(v.Pos, v.Name, CodeRemark, msg)
}

func without(as ir.Attrs, key string) ir.Attrs {
	if _, ok := as.Get(key); !ok {
		return as
	}
	var out ir.Attrs
	for _, kv := range as {
		if kv.Key != key {
			out = append(out, kv)
		}
	}
	return out
}
