package lowering

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Splitting a consumer's ranges to its producer's. A view that flattens
// dims gives its consumer one loop where the producer has several: the
// bias gradient of a linear layer sums a [10, 16] view of gelu_backward's
// [2, 5, 16] over dim 0, so the sum runs [16] reduce [10] and its producer
// [2, 5, 16]. Splitting the consumer's range 10 into the run 2, 5 of the
// producer's ranges (its variable r becoming 5·r0 + r1, the same elements
// in the same order) makes the two spaces lists of the same sizes, which
// the reorderings of matchSpaces then pair. A range splits only into a
// run of consecutive producer ranges, as a flattening view merges
// consecutive dims: constant sizes by value, symbolic ones when the run's
// product is the same expression (2*s0 into s0, 2).

// rangeSplit is a consumer's ranges after the split and the substitution
// of its old variables (each the row-major position over its pieces).
type rangeSplit struct {
	outer, reduce []sym.Expr
	rename        map[string]sym.Expr
}

// splitRanges splits the consumer's outer and reduce ranges into runs of
// the producer's sizes; ok is false when nothing needs splitting or some
// range fits neither a producer size nor a run of them.
func splitRanges(outer, reduce, producer []sym.Expr) (rangeSplit, bool) {
	ranges := append(append([]sym.Expr{}, outer...), reduce...)
	used := make([]bool, len(producer))
	pieces := make([][]sym.Expr, len(ranges))
	for i, s := range ranges { // exact sizes first
		for j, p := range producer {
			if !used[j] && sym.Equal(s, p) {
				used[j], pieces[i] = true, []sym.Expr{s}
				break
			}
		}
	}
	split := false
	for i, s := range ranges {
		if pieces[i] != nil {
			continue
		}
		run, ok := consecutiveRun(s, producer, used)
		if !ok {
			return rangeSplit{}, false
		}
		pieces[i], split = run, true
	}
	if !split {
		return rangeSplit{}, false
	}
	out := rangeSplit{rename: map[string]sym.Expr{}}
	for i, ps := range pieces {
		isOuter := i < len(outer)
		old := OuterVar(i)
		if !isOuter {
			old = ReduceVar(i - len(outer))
		}
		expr := sym.Const(0)
		for _, p := range ps {
			v := OuterVar(len(out.outer))
			if isOuter {
				out.outer = append(out.outer, p)
			} else {
				v = ReduceVar(len(out.reduce))
				out.reduce = append(out.reduce, p)
			}
			expr = sym.Add(sym.Mul(expr, p), sym.Symbol(v))
		}
		if !sym.Equal(expr, sym.Symbol(old)) {
			out.rename[old] = expr
		}
	}
	return out, true
}

// consecutiveRun finds unused consecutive producer ranges, at least two,
// whose constant sizes multiply to s, and marks them used. A symbolic s
// (a dynamic batch's 2*s0, flattened from [s0, 2]) takes a run whose
// product is s in canonical form.
func consecutiveRun(s sym.Expr, producer []sym.Expr, used []bool) ([]sym.Expr, bool) {
	want, ok := s.Const()
	if !ok {
		return symbolicRun(s, producer, used)
	}
	if want <= 1 {
		return nil, false
	}
	for i := range producer {
		prod := int64(1)
		for j := i; j < len(producer) && !used[j]; j++ {
			v, ok := producer[j].Const()
			if !ok || v <= 0 {
				break
			}
			if prod *= v; prod > want {
				break
			}
			if prod == want && j > i {
				for k := i; k <= j; k++ {
					used[k] = true
				}
				return producer[i : j+1], true
			}
		}
	}
	return nil, false
}

// symbolicRun is consecutiveRun for a symbolic size: the first run of
// at least two unused ranges whose product equals s.
func symbolicRun(s sym.Expr, producer []sym.Expr, used []bool) ([]sym.Expr, bool) {
	for i := range producer {
		prod := sym.Const(1)
		for j := i; j < len(producer) && !used[j]; j++ {
			if prod = sym.Mul(prod, producer[j]); j > i && sym.Equal(prod, s) {
				for k := i; k <= j; k++ {
					used[k] = true
				}
				return producer[i : j+1], true
			}
		}
	}
	return nil, false
}

// composeRename is a then b: each variable a maps, with b substituted in
// its expression; b's own entries for variables a does not map are kept.
func composeRename(a, b map[string]sym.Expr) map[string]sym.Expr {
	out := map[string]sym.Expr{}
	for v, e := range b {
		out[v] = e
	}
	for v, e := range a {
		out[v] = substVars(e, b)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// splitAppendPlan joins reduction c to g when their outer ranges are the
// same elements in the same order, one side's ranges a split of the
// other's: argmax over [2, 8] reduce [50] beside log_softmax over a
// [16, 50] view of the same logits. The coarser side's loops split to the
// finer side's sizes (x becomes 8·x0 + x1, exact without any floor
// division), and c's stages are appended as over one outer space. A
// serial group keeps its loops (serialResplit's reason).
func splitAppendPlan(g, c *Kernel) (mergePlan, bool) {
	if sp, ok := splitRanges(c.Outer, nil, g.Outer); ok && sym.EqualLists(sp.outer, g.Outer) {
		return mergePlan{kind: caseAppend, cRename: sp.rename,
			why: "reduction over the same outer space " + sizesString(g.Outer) + " (the consumer's loops split to the group's sizes)"}, true
	}
	if g.Serial {
		return mergePlan{}, false
	}
	if sp, ok := splitRanges(g.Outer, nil, c.Outer); ok && sym.EqualLists(sp.outer, c.Outer) {
		return mergePlan{kind: caseAppend, outer: sp.outer, gRename: sp.rename,
			why: "reduction over the same outer space " + sizesString(c.Outer) + " (the group's loops split to the consumer's sizes)"}, true
	}
	return mergePlan{}, false
}

// splitGroup renames every stage of g's kernel to the split outer ranges
// of pl (splitAppendPlan).
func (g *group) splitGroup(pl mergePlan) {
	for _, st := range g.k.Stages {
		renameStageVars(st, pl.gRename)
	}
	g.k.Outer = slices.Clone(pl.outer)
	clear(g.loads) // their indexes changed
	for _, st := range g.k.Stages {
		for _, in := range st.Body {
			if in.Op == OpLoad {
				g.noteLoad(st, in)
			}
		}
	}
}
