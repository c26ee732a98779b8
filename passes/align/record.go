package align

import (
	"fmt"

	"strconv"

	"github.com/kiln-compiler/kiln/ir"
)

// record decides vector widths and writes align/vec on every tensor
// value, with one remark each, in program order.
func (a *analysis) record() bool {
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
	f := a.facts[v]
	if f == nil {
		return false
	}
	v.Attrs.Set(AttrAlign, strconv.FormatInt(f.used, 10))
	msg := fmt.Sprintf("%s is %d-byte aligned: %s", v.Name, f.used, f.why)
	if f.assumed() {
		msg = fmt.Sprintf("%s is assumed %d-byte aligned (assume=%s) but proved only %d: %s", v.Name, f.used, a.p.assume, f.proved, f.why)
	}
	if f.accessed {
		f.vec, f.vecWhy = vectorWidth(v.Type.Tensor, f.used)
		v.Attrs.Set(AttrVec, strconv.FormatInt(f.vec, 10))
		msg += fmt.Sprintf("; vector width %d: %s", f.vec, f.vecWhy)
	} else {
		v.Attrs = without(v.Attrs, AttrVec) // from an earlier run
	}
	if n == nil {
		a.remarkAt(v, msg)
	} else {
		a.ctx.Remark(n, CodeRemark, "%s", msg)
	}
	return true
}

// remarkAt reports a remark about a graph input, at its position.
func (a *analysis) remarkAt(v *ir.Value, msg string) {
	a.ctx.RemarkAt(v.Pos, v.Name, CodeRemark, msg)
}

func without(as ir.Attrs, key string) ir.Attrs {
	var out ir.Attrs
	for _, kv := range as {
		if kv.Key != key {
			out = append(out, kv)
		}
	}
	return out
}
