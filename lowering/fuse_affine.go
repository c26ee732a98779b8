package lowering

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Folding indices that are loop variables in disguise. x[arange(n)] and
// pos[pos] with pos = arange(t) read an index tensor whose values are the
// loop's own position: once the arange is lowered (or inlined) into the
// gather, the "indirect" index is `index x0`, wrapped for negatives
// (where(x0 < 0, x0 + n, x0)) and bounds-checked, although the loop
// ranges already prove x0 in [0, n). Inductor's indexing simplifies such
// an index to the loop variable. foldAffineIndices does the same: every
// int64 value computed from loop variables and constants by add, sub,
// mul, and a where whose condition the loop ranges decide, is an index
// expression; a check of such a value that the ranges prove passes is
// dropped, and an access through it becomes direct. The gather is then a
// plain load, which fuses and inlines like any pointwise kernel.

// foldAffineIndices rewrites k's indices derived from loop variables,
// drops the checks and instructions that no longer serve, and reports
// whether it changed anything.
func foldAffineIndices(k *Kernel) bool {
	if k.Extern != nil || !hasIndirect(k) {
		return false // most kernels: nothing to fold, and no maps built
	}
	changed := false
	val := map[*Instr]sym.Expr{}
	for _, st := range k.Stages {
		f := loopFacts(k.Outer, st.Reduce)
		for _, in := range st.Body {
			if e, ok := affineValue(in, val, f); ok {
				val[in] = e
			}
		}
		for _, in := range st.Body {
			switch {
			case in.Op == OpCheck:
				if e, ok := val[in.Args[0]]; ok && provablyAccepted(in, e, f) {
					in.Check, changed = nil, true // marked: removed below
				}
			case in.Access != nil && len(in.Access.Indirect) > 0:
				changed = directAccess(in.Access, val) || changed
			}
		}
	}
	if changed {
		for _, st := range k.Stages {
			st.Body = slices.DeleteFunc(st.Body, func(in *Instr) bool { return in.Op == OpCheck && in.Check == nil })
		}
		dropDeadInstrs(k)
	}
	return changed
}

// hasIndirect: some access of k goes through an index read from a
// tensor, or some check guards one.
func hasIndirect(k *Kernel) bool {
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == OpCheck || in.Access != nil && len(in.Access.Indirect) > 0 {
				return true
			}
		}
	}
	return false
}

// affineValue is in's value as an index expression over loop variables,
// when it is an int64 one computed from them.
func affineValue(in *Instr, val map[*Instr]sym.Expr, f *sym.Facts) (sym.Expr, bool) {
	args := make([]sym.Expr, len(in.Args))
	for i, a := range in.Args {
		e, ok := val[a]
		if !ok {
			return sym.Expr{}, false
		}
		args[i] = e
	}
	switch {
	case in.Op == OpIndex && in.DType.IsInt() && in.DType.ItemSize() == 8:
		return in.Expr, true
	case in.Op == OpConst && in.DType.IsInt():
		return sym.Const(in.Imm.Int), true
	case in.Op != OpCall:
		return sym.Expr{}, false
	}
	if in.Fn == "where" {
		if v, known := f.Decide(args[0]); known && v {
			return args[1], in.Args[1].DType == in.DType
		} else if known {
			return args[2], in.Args[2].DType == in.DType
		}
		return sym.Expr{}, false
	}
	rel := map[string]func(a, b sym.Expr) sym.Expr{"lt": sym.Lt, "le": sym.Le, "gt": sym.Gt, "ge": sym.Ge}
	if r, ok := rel[in.Fn]; ok {
		return r(args[0], args[1]), true // a condition, for a where to decide
	}
	if in.DType.ItemSize() != 8 || !in.DType.IsInt() {
		return sym.Expr{}, false // narrower ints wrap
	}
	switch in.Fn {
	case "add":
		return sym.Add(args[0], args[1]), true
	case "sub":
		return sym.Sub(args[0], args[1]), true
	case "mul":
		return sym.Mul(args[0], args[1]), true
	}
	return sym.Expr{}, false
}

// provablyAccepted: the loop ranges prove that index e passes check c.
func provablyAccepted(c *Instr, e sym.Expr, f *sym.Facts) bool {
	lo := sym.Const(0)
	if c.Check.Neg {
		lo = sym.Neg(c.Expr)
	}
	below, ok1 := f.Decide(sym.Lt(e, c.Expr))
	above, ok2 := f.Decide(sym.Ge(e, lo))
	return ok1 && ok2 && below && above
}

// directAccess substitutes the index expressions of a's indirect values
// that have one into its index.
func directAccess(a *Access, val map[*Instr]sym.Expr) bool {
	m := map[string]sym.Expr{}
	kept := a.Indirect[:0:0]
	for _, t := range a.Indirect {
		if e, ok := val[t]; ok && t.DType.IsInt() {
			m["tmp"+itoa(t.ID)] = e
			continue
		}
		kept = append(kept, t)
	}
	if len(m) == 0 {
		return false
	}
	a.Index, a.Indirect = a.Index.Subst(m), kept
	return true
}

// dropDeadInstrs removes instructions whose value nothing uses (stores,
// checks, reductions and scans stay).
func dropDeadInstrs(k *Kernel) {
	for {
		used := map[*Instr]bool{}
		for _, st := range k.Stages {
			for _, in := range st.Body {
				for _, a := range in.Args {
					used[a] = true
				}
				if in.Access != nil {
					for _, t := range in.Access.Indirect {
						used[t] = true
					}
				}
			}
		}
		removed := false
		for _, st := range k.Stages {
			st.Body = slices.DeleteFunc(st.Body, func(in *Instr) bool {
				switch in.Op {
				case OpStore, OpCheck, OpReduce, OpScan:
					return false
				}
				if !used[in] {
					removed = true
					return true
				}
				return false
			})
		}
		if !removed {
			return
		}
	}
}
