package lowering

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// storeInner reorders the loops of a pointwise kernel whose stores all
// move by one element along an outer variable that is not the innermost,
// so that they run contiguously: fusion may have matched a transposed
// consumer's loops to its producer's order (issue 13's scale_column
// writes its output a column at a time), and a strided store costs a
// cache line per element where a strided load is shared by neighbours.
// Inductor's C++ picks the loop order (or tiles) for the same reason.
// Each element is computed independently, so the order changes no
// value; a kernel that reads a buffer it writes keeps its order.
func storeInner(p *Program) {
	remarks := make([]string, len(p.Kernels))
	inChunks(len(p.Kernels), func(_, lo, hi int) { // each kernel on its own
		for i := lo; i < hi; i++ {
			remarks[i] = storeInnerKernel(p.Kernels[i])
		}
	})
	for _, r := range remarks {
		if r != "" {
			p.Remarks = append(p.Remarks, r)
		}
	}
}

// storeInnerKernel swaps k's loops as storeInner says and returns the
// remark saying so; "" when k stays as it is.
func storeInnerKernel(k *Kernel) string {
	if k.Extern != nil || k.Serial || len(k.Outer) < 2 || len(k.Stages) != 1 || !allOuterLevel(k) {
		return ""
	}
	last := len(k.Outer) - 1
	j := contiguousStoreVar(k)
	if j < 0 || j == last {
		return ""
	}
	a, b := OuterVar(j), OuterVar(last)
	renameStageVars(k.Stages[0], map[string]sym.Expr{a: sym.Symbol(b), b: sym.Symbol(a)})
	k.Outer = slices.Clone(k.Outer) // kernels lowered from one shape share its slice (and the layout's)
	k.Outer[j], k.Outer[last] = k.Outer[last], k.Outer[j]
	k.Vec = 1 // the align pass's vector width was along the old innermost loop
	return fmt.Sprintf("%s: loops %s and %s swapped so that its stores are contiguous in the innermost loop", k.Name, a, b)
}

// contiguousStoreVar is the outer variable along which every store of k
// moves by exactly one element; -1 when there is none, or when k reads a
// buffer it writes.
func contiguousStoreVar(k *Kernel) int {
	vars := make([]string, len(k.Outer))
	for i := range vars {
		vars[i] = OuterVar(i)
	}
	written := map[*Buffer]bool{}
	for _, in := range k.Stages[0].Body {
		if in.Op == OpStore {
			written[in.Access.Buffer] = true
		}
	}
	found := -1
	for _, in := range k.Stages[0].Body {
		switch in.Op {
		case OpLoad:
			if written[in.Access.Buffer] {
				return -1
			}
		case OpStore:
			coeffs, _, ok := sym.Linear(in.Access.Index, vars)
			if !ok {
				return -1
			}
			j := -1
			for i, c := range coeffs {
				if v, isConst := c.Const(); isConst && v == 1 {
					j = i
				}
			}
			if j < 0 || (found >= 0 && j != found) {
				return -1
			}
			found = j
		}
	}
	return found
}
