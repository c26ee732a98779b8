package lowering

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Iteration-space matching: which of the four shapes of fusion joins a
// kernel c to a group g, and how c's (or g's) loop variables are renamed.

type mergeCase uint8

const (
	caseOuter   mergeCase = iota // c pointwise over g.Outer: an outer-level stage
	caseRStage                   // c pointwise over g.Outer ++ R: an r-stage over R
	caseAppend                   // c a reduction with g's Outer: its stages appended
	caseResplit                  // g pointwise over c.Outer ++ c's R: g becomes an r-stage
)

type mergePlan struct {
	kind    mergeCase
	reduce  []sym.Expr          // R, for caseRStage and caseResplit
	outer   []sym.Expr          // the merged outer ranges (caseResplit: c's, split to g's sizes)
	cRename map[string]sym.Expr // c's variables → g's (caseRStage)
	gRename map[string]sym.Expr // g's variables after the re-split (caseResplit)
	why     string              // for the remark
}

func isUnitSize(e sym.Expr) bool {
	v, ok := e.Const()
	return ok && v == 1
}

// dropUnitRanges removes size-1 ranges: their variable becomes 0 and the others
// are renumbered. keepOne keeps a single range when all are size 1 (an
// r-stage must keep a range to stay one).
func dropUnitRanges(sizes []sym.Expr, name func(int) string, keepOne bool, m map[string]sym.Expr) []sym.Expr {
	var kept []sym.Expr
	for i, e := range sizes {
		if isUnitSize(e) && !(keepOne && len(kept) == 0 && i == len(sizes)-1) {
			m[name(i)] = sym.Const(0)
			continue
		}
		if len(kept) != i {
			m[name(i)] = sym.Symbol(name(len(kept)))
		}
		kept = append(kept, e)
	}
	return kept
}

// normalizeKernel drops k's size-1 outer and reduction ranges, so that
// spaces compare by position (a keepdim reduction's [8, 1] is [8]).
func normalizeKernel(k *Kernel) {
	outer := map[string]sym.Expr{}
	k.Outer = dropUnitRanges(k.Outer, OuterVar, false, outer)
	for _, st := range k.Stages {
		m := map[string]sym.Expr{}
		for name, e := range outer {
			m[name] = e
		}
		if len(st.Reduce) > 0 {
			st.Reduce = dropUnitRanges(st.Reduce, ReduceVar, true, m)
		}
		renameStageVars(st, m)
	}
}

// renameStageVars substitutes loop variables in every index of a stage.
func renameStageVars(st *Stage, m map[string]sym.Expr) {
	if len(m) == 0 {
		return
	}
	for _, in := range st.Body {
		switch in.Op {
		case OpLoad, OpStore:
			in.Access.Index = in.Access.Index.Subst(m)
		case OpIndex, OpCheck:
			in.Expr = in.Expr.Subst(m)
		}
	}
}

func allOuterLevel(k *Kernel) bool {
	for _, st := range k.Stages {
		if len(st.Reduce) > 0 {
			return false
		}
	}
	return true
}

// sharedReduce is the Reduce of every r-stage of k when they agree.
func sharedReduce(k *Kernel) ([]sym.Expr, bool) {
	var r []sym.Expr
	for _, st := range k.Stages {
		if len(st.Reduce) == 0 {
			continue
		}
		if r != nil && !sym.EqualLists(r, st.Reduce) {
			return nil, false
		}
		r = st.Reduce
	}
	return r, r != nil
}

// matchSpaces finds how c's iteration space fits g's. Spaces compare as
// lists of sizes after size-1 ranges are dropped, in loop order or after
// reordering loops (a reduction over a middle dim has [B, N] reduce [M],
// its pointwise prologue [B, M, N]): among the orders that fit, the first
// under which c reads every value g writes where g wrote it (the index
// expressions, renamed, are equal) wins; loop order itself when nothing
// tells them apart.
func matchSpaces(g, c *Kernel) (mergePlan, string) {
	space := sizesString(g.Outer)
	if allOuterLevel(c) {
		var plans []mergePlan
		for _, p := range reorderings(c.Outer, g.Outer) {
			if c.Serial && !isIdentity(p) {
				continue // serialReordered
			}
			plans = append(plans, mergePlan{kind: caseOuter, cRename: renameTo(p, OuterVar, g.Outer, nil),
				why: "same iteration space " + space + reorderNote(p)})
		}
		for _, st := range g.Stages {
			if len(st.Reduce) == 0 || c.Serial {
				continue // serialInReduce
			}
			target := append(append([]sym.Expr{}, g.Outer...), st.Reduce...)
			for _, p := range reorderings(c.Outer, target) {
				plans = append(plans, mergePlan{kind: caseRStage, reduce: st.Reduce, cRename: renameTo(p, OuterVar, g.Outer, st.Reduce),
					why: fmt.Sprintf("iteration space %s is %s reduce %s%s", sizesString(c.Outer), space, sizesString(st.Reduce), reorderNote(p))})
			}
		}
		plans = append(plans, mirroredPlans(plans)...)
		if len(plans) == 0 && !c.Serial { // a split reorders a serial kernel's loops
			plans = splitOuterPlans(g, c)
		}
		if pl, ok := pickPlan(g, c, plans); ok {
			return pl, ""
		}
		if c.Serial && len(reorderings(c.Outer, g.Outer)) > 0 {
			return mergePlan{}, serialReordered
		}
		if c.Serial && fitsReduction(g, c) {
			return mergePlan{}, serialInReduce
		}
		return mergePlan{}, fmt.Sprintf("iteration spaces %s and %s differ", sizesString(c.Outer), describeKernelSpace(g))
	}
	if sym.EqualLists(c.Outer, g.Outer) {
		return mergePlan{kind: caseAppend, why: "reduction over the same outer space " + space}, ""
	}
	if pl, ok := splitAppendPlan(g, c); ok {
		return pl, ""
	}
	r, ok := sharedReduce(c)
	if ok && allOuterLevel(g) && len(g.Stages) == 1 {
		target := append(append([]sym.Expr{}, c.Outer...), r...)
		if g.Serial && len(reorderings(g.Outer, target)) > 0 {
			return mergePlan{}, serialResplit
		}
		plans := resplitPlans(g, c.Outer, r, nil)
		if len(plans) == 0 && !g.Serial {
			if sp, ok := splitRanges(c.Outer, r, g.Outer); ok {
				plans = resplitPlans(g, sp.outer, sp.reduce, sp.rename)
			}
		}
		if pl, ok := pickPlan(g, c, plans); ok {
			return pl, ""
		}
	}
	return mergePlan{}, fmt.Sprintf("iteration spaces %s and %s differ", describeKernelSpace(c), describeKernelSpace(g))
}

// resplitPlans re-split pointwise g over outer reduce r (c's space, after
// splitRanges when split renames c's variables).
func resplitPlans(g *Kernel, outer, r []sym.Expr, split map[string]sym.Expr) []mergePlan {
	var plans []mergePlan
	target := append(append([]sym.Expr{}, outer...), r...)
	for _, p := range reorderings(g.Outer, target) {
		why := fmt.Sprintf("producer space %s re-split as %s reduce %s%s", sizesString(g.Outer), sizesString(outer), sizesString(r), reorderNote(p))
		if split != nil {
			why += " (the consumer's loops split to the producer's sizes)"
		}
		plans = append(plans, mergePlan{kind: caseResplit, reduce: r, outer: outer, cRename: split,
			gRename: renameTo(p, OuterVar, outer, r), why: why})
	}
	return plans
}

// splitOuterPlans are the plans of pointwise c over g's outer space (and
// an r-stage's) after splitRanges split c's loops to g's sizes.
func splitOuterPlans(g, c *Kernel) []mergePlan {
	var plans []mergePlan
	sp, ok := splitRanges(c.Outer, nil, g.Outer)
	if ok {
		for _, p := range reorderings(sp.outer, g.Outer) {
			plans = append(plans, mergePlan{kind: caseOuter, cRename: composeRename(sp.rename, renameTo(p, OuterVar, g.Outer, nil)),
				why: "same iteration space " + sizesString(g.Outer) + " (the consumer's loops split to the producer's sizes)" + reorderNote(p)})
		}
	}
	for _, st := range g.Stages {
		if len(st.Reduce) == 0 {
			continue
		}
		target := append(append([]sym.Expr{}, g.Outer...), st.Reduce...)
		sp, ok := splitRanges(c.Outer, nil, target)
		if !ok {
			continue
		}
		for _, p := range reorderings(sp.outer, target) {
			plans = append(plans, mergePlan{kind: caseRStage, reduce: st.Reduce, cRename: composeRename(sp.rename, renameTo(p, OuterVar, g.Outer, st.Reduce)),
				why: fmt.Sprintf("iteration space %s is %s reduce %s (the consumer's loops split to the producer's sizes)%s",
					sizesString(c.Outer), sizesString(g.Outer), sizesString(st.Reduce), reorderNote(p))})
		}
	}
	return plans
}

// mirroredPlans are the r-stage plans with c's point mirrored along the
// reduce ranges: c's variable mapped to r runs at step R-1-r instead. An
// epilogue that reads the stage's result at the mirrored element
// (cumsum(x).flip(), and so a cumsum backward: flip, scan, flip) then reads
// what the stage stores at the step it runs in; c is pointwise, so which
// step computes each of its points does not matter. Tried after the plain
// plans (pickPlan takes the first that reads where g writes).
func mirroredPlans(plans []mergePlan) []mergePlan {
	var out []mergePlan
	for _, pl := range plans {
		if pl.kind != caseRStage {
			continue
		}
		m := map[string]sym.Expr{}
		for v, to := range pl.cRename {
			m[v] = to
		}
		mirrored := false
		for i, size := range pl.reduce {
			r := sym.Symbol(ReduceVar(i))
			for v, to := range m {
				if sym.Equal(to, r) {
					m[v] = sym.Sub(sym.Sub(size, sym.Const(1)), r)
					mirrored = true
				}
			}
		}
		if !mirrored {
			continue
		}
		pl.cRename = m
		pl.why += " (mirrored along the reduce range: it reads the stage's result at the mirrored element)"
		out = append(out, pl)
	}
	return out
}

// Serial kernels keep their loop order. A Serial kernel accumulates in
// its loop order (the order PyTorch's CPU kernel and interp add in), so
// fusion may run other work beside it in that order but never reorder or
// re-split its loops: a serial c only joins as an outer-level stage in
// loop order (or, a reduction, appended over the same outer space), and a
// serial group is never re-split into another kernel's reduction loop.
const (
	serialReordered = "it is serial (it accumulates in loop order) and its loops would be reordered"
	serialInReduce  = "it is serial (it accumulates in loop order) and would run inside the group's reduction loop"
	serialResplit   = "the group is serial (it accumulates in loop order) and would be re-split into a reduction loop"
)

// fitsReduction reports whether c's space is g's outer space followed by
// the ranges of one of g's reductions, in some order (caseRStage).
func fitsReduction(g, c *Kernel) bool {
	for _, st := range g.Stages {
		if len(st.Reduce) > 0 && len(reorderings(c.Outer, append(slices.Clone(g.Outer), st.Reduce...))) > 0 {
			return true
		}
	}
	return false
}

// maxReorderings bounds the loop orders tried for one pair of kernels
// (equal sizes make many: [4, 4, 4, 4] has 24).
const maxReorderings = 24

// reorderings lists the bijections p, from[i] ↦ to[p[i]], between two
// lists of loop sizes with equal sizes paired, loop order first.
func reorderings(from, to []sym.Expr) [][]int {
	if len(from) != len(to) {
		return nil
	}
	var out [][]int
	p := make([]int, len(from))
	used := make([]bool, len(to))
	var walk func(i int)
	walk = func(i int) {
		if len(out) >= maxReorderings {
			return
		}
		if i == len(from) {
			out = append(out, slices.Clone(p))
			return
		}
		for j := range to {
			if !used[j] && sym.Equal(from[i], to[j]) {
				used[j], p[i] = true, j
				walk(i + 1)
				used[j] = false
			}
		}
	}
	walk(0)
	return out
}

// renameTo maps variable i of the reordered kernel (named by name) to the
// target's variable p[i]: an outer one (x) below len(outer), else a
// reduction one (r). nil when nothing moves.
func renameTo(p []int, name func(int) string, outer, reduce []sym.Expr) map[string]sym.Expr {
	m := map[string]sym.Expr{}
	for i, j := range p {
		v := OuterVar(j)
		if j >= len(outer) {
			v = ReduceVar(j - len(outer))
		}
		if v != name(i) {
			m[name(i)] = sym.Symbol(v)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func isIdentity(p []int) bool {
	for i, j := range p {
		if i != j {
			return false
		}
	}
	return true
}

// reorderNote says in a remark that loops were reordered to match.
func reorderNote(p []int) string {
	if isIdentity(p) {
		return ""
	}
	return fmt.Sprintf(" (loops reordered %v)", p)
}

// pickPlan is the first plan under which every load in c of a buffer g
// writes reads an index g stores at, or the first plan when c reads
// nothing g writes; ok is false when there are none.
func pickPlan(g, c *Kernel, plans []mergePlan) (mergePlan, bool) {
	if len(plans) == 0 {
		return mergePlan{}, false
	}
	stores := map[*Buffer][]sym.Expr{}
	for _, st := range g.Stages {
		for _, in := range st.Body {
			if in.Op == OpStore {
				stores[in.Access.Buffer] = append(stores[in.Access.Buffer], in.Access.Index)
			}
		}
	}
	for _, pl := range plans {
		if readsWhereWritten(c, stores, &pl) {
			return pl, true
		}
	}
	return plans[0], true
}

// readsWhereWritten: under pl, each of c's loads of a buffer in stores
// reads at one of its store indexes.
func readsWhereWritten(c *Kernel, stores map[*Buffer][]sym.Expr, pl *mergePlan) bool {
	for _, st := range c.Stages {
		for _, in := range st.Body {
			if in.Op != OpLoad || len(stores[in.Access.Buffer]) == 0 {
				continue
			}
			idx := substVars(in.Access.Index, pl.cRename)
			if !slices.ContainsFunc(stores[in.Access.Buffer], func(e sym.Expr) bool { return sym.Equal(idx, substVars(e, pl.gRename)) }) {
				return false
			}
		}
	}
	return true
}

// describeKernelSpace prints a kernel's space: "[8, 4]" or "[8] reduce [4]".
func describeKernelSpace(k *Kernel) string {
	if r, ok := sharedReduce(k); ok {
		return sizesString(k.Outer) + " reduce " + sizesString(r)
	}
	return sizesString(k.Outer)
}

// targetReduce is the Reduce c's stage i will have inside the group.
func (pl *mergePlan) targetReduce(c *Kernel, i int) []sym.Expr {
	if pl.kind == caseRStage || pl.kind == caseResplit && pl.cRename != nil && len(c.Stages[i].Reduce) > 0 {
		return pl.reduce
	}
	return c.Stages[i].Reduce
}

// groupReduce is the Reduce a stage of the group will have after the plan.
func (pl *mergePlan) groupReduce(st *Stage) []sym.Expr {
	if pl.kind == caseResplit {
		return pl.reduce
	}
	return st.Reduce
}

func substVars(e sym.Expr, m map[string]sym.Expr) sym.Expr {
	if m == nil {
		return e
	}
	return e.Subst(m)
}

// planMerge decides whether c may join g and how; the reason when not.
func (s *scheduler) planMerge(g *group, c *Kernel, writes []*Buffer) (mergePlan, string) {
	if g.k.Extern != nil {
		return mergePlan{}, g.founder + " is an extern call"
	}
	// A serial group (or c) may take in other work: its accumulations
	// through repeated indices only touch buffers it writes through an
	// indirect index, which checkReads and checkOverwrites keep every other
	// member from reading or writing, so the fused body in the serial
	// order computes what the two kernels computed one after the other.
	if why := serialPut(g.k, c); why != "" {
		return mergePlan{}, why
	}
	if why := serialReduction(g.k, c); why != "" {
		return mergePlan{}, why
	}
	pl, why := matchSpaces(g.k, c)
	if why != "" {
		return pl, why
	}
	if readsTransposed(g.k, c) {
		return mergePlan{}, "they read a buffer along and across their reduce range (a column sum beside a row's): the joined stage could not run on lanes"
	}
	if why := s.checkSize(g, c, &pl); why != "" {
		return pl, why
	}
	if why := s.checkReads(g, c, &pl); why != "" {
		return pl, why
	}
	return pl, s.checkOverwrites(g, c, &pl, writes)
}

// readsTransposed: a and b read some buffer in reduction stages along
// their innermost reduce range in one and across it in the other (a
// stride other than 1: a column sum walked as a row), each over at least
// a lane block. Such a pair stays two kernels: over equal outer ranges (a
// square matrix's rows where the other sums its columns) the joined stage
// would mix the two directions, which lanes cannot run, and the generated
// loop runs it scalar: layer_norm's forward and backward over 1024×1024,
// grad_bias (Σ grad over rows) joined to the row kernel reading grad
// along its rows, took 3194 µs against Inductor's 799.
func readsTransposed(a, b *Kernel) bool {
	da, db := reduceDirections(a), reduceDirections(b)
	for buf, d := range da {
		if e, ok := db[buf]; ok && d|e == along|across {
			return true
		}
	}
	return false
}

const (
	along  = 1 << iota // stride 1 along the innermost reduce range
	across             // another stride
)

// reduceDirections are the directions k's reduction stages read each
// buffer in, over innermost reduce ranges of a lane block or more (a sum
// over a batch of 2 is scalar work either way); a gather's index says
// nothing.
func reduceDirections(k *Kernel) map[*Buffer]int {
	dirs := map[*Buffer]int{}
	for _, st := range k.Stages {
		if len(st.Reduce) == 0 {
			continue
		}
		if n, ok := st.Reduce[len(st.Reduce)-1].Const(); ok && n < 8 {
			continue
		}
		r := ReduceVar(len(st.Reduce) - 1)
		for _, in := range st.Body {
			if in.Op != OpLoad || in.Access == nil {
				continue
			}
			coeffs, _, ok := sym.Linear(in.Access.Index, []string{r})
			if !ok {
				continue
			}
			switch c, isConst := coeffs[0].Const(); {
			case isConst && c == 1:
				dirs[in.Access.Buffer] |= along
			case !isConst || c != 0:
				dirs[in.Access.Buffer] |= across
			}
		}
	}
	return dirs
}

// serialPut refuses to make a plain put (a store through an indirect
// index that does not accumulate: scatter.src, index_put) serial by fusing
// it with a serial kernel: with repeated indices its result is whichever
// write lands last, which the fused kernel's order would change from the
// put's own parallel run.
func serialPut(g, c *Kernel) string {
	switch {
	case g.Serial && !c.Serial && storesIndirect(c):
		return "it stores through an indirect index without accumulating, and the group is serial (the fused order would pick another of its writes to one element)"
	case c.Serial && !g.Serial && storesIndirect(g):
		return "it is serial, and the group stores through an indirect index without accumulating (the fused order would pick another of its writes to one element)"
	}
	return ""
}

// serialReduction keeps reductions out of serial kernels: fused, a
// reduction's loop would run on the serial kernel's one thread (or its
// few, Kernel.Split), where pointwise work over the same space only adds
// a constant to each of its iterations.
func serialReduction(g, c *Kernel) string {
	switch {
	case (g.Serial || c.Serial) && !allOuterLevel(c):
		return "it is a reduction, and the group is serial (its loop would run on the serial kernel's thread)"
	case (g.Serial || c.Serial) && !allOuterLevel(g):
		return "it is serial, and the group holds a reduction (its loop would run on the serial kernel's thread)"
	}
	return ""
}

// storesIndirect reports whether k stores through an indirect index.
func storesIndirect(k *Kernel) bool {
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == OpStore && len(in.Access.Indirect) > 0 {
				return true
			}
		}
	}
	return false
}

// checkSize refuses a fusion that would grow a stage past the limit.
func (s *scheduler) checkSize(g *group, c *Kernel, pl *mergePlan) string {
	if len(c.Stages) == 0 || len(g.k.Stages) == 0 {
		return ""
	}
	last := g.k.Stages[len(g.k.Stages)-1]
	if !sym.EqualLists(pl.groupReduce(last), pl.targetReduce(c, 0)) {
		return ""
	}
	if n := len(last.Body) + len(c.Stages[0].Body); n > s.opts.MaxStageInstrs {
		return fmt.Sprintf("the fused stage would have %d instructions (max %d)", n, s.opts.MaxStageInstrs)
	}
	return ""
}

// checkReads: c may read what g writes only at an index g wrote in the
// same outer iteration (an outer-level store, or one in an r-stage over
// the same ranges), never an element another iteration produces; and
// every such read must be forwarded after the merge (a kernel never reads
// back its own store: Verify rejects that, and it costs memory traffic).
func (s *scheduler) checkReads(g *group, c *Kernel, pl *mergePlan) string {
	pending := map[*Instr]int{}
	joins := len(c.Stages) > 0 && s.joinsLast(g, pl, c)
	for i, st := range c.Stages {
		tr := pl.targetReduce(c, i)
		size := 0 // what the target stage will hold beyond c's stage: recomputes
		for _, in := range st.Body {
			if in.Op != OpLoad {
				continue
			}
			refs := g.writes[in.Access.Buffer]
			if len(refs) == 0 {
				continue
			}
			if slices.ContainsFunc(refs, func(r storeRef) bool { return len(r.st.Access.Indirect) > 0 }) {
				return fmt.Sprintf("it reads %s, which %s writes through an indirect index (another iteration may write the same element)",
					in.Access.Buffer.Name, g.founder)
			}
			idx := substVars(in.Access.Index, pl.cRename)
			ref, ok := latestStoreAt(refs, idx, pl.gRename)
			if !ok {
				return fmt.Sprintf("it reads %s at %s, not where %s writes it (%s)",
					in.Access.Buffer.Name, idx, g.founder, substVars(refs[len(refs)-1].st.Access.Index, pl.gRename))
			}
			at := g.stageOf(ref.stage)
			if sr := pl.groupReduce(at); len(sr) > 0 && !sym.EqualLists(sr, tr) {
				return fmt.Sprintf("it reads %s in a loop over %s, %s writes it in a loop over %s",
					in.Access.Buffer.Name, sizesString(tr), g.founder, sizesString(sr))
			}
			same := joins && i == 0 && at == g.k.Stages[len(g.k.Stages)-1]
			if i == 0 && joins && size == 0 {
				size = len(g.k.Stages[len(g.k.Stages)-1].Body)
			}
			if why := s.willForward(g, pl, at, same, &size, st, ref.st, in, pending); why != "" {
				return why
			}
		}
	}
	return ""
}

// latestStoreAt is the last of refs that stores at idx.
func latestStoreAt(refs []storeRef, idx sym.Expr, gRename map[string]sym.Expr) (storeRef, bool) {
	for i := len(refs) - 1; i >= 0; i-- {
		if sym.Equal(idx, substVars(refs[i].st.Access.Index, gRename)) {
			return refs[i], true
		}
	}
	return storeRef{}, false
}

// joinsLast predicts whether c's first stage merges into g's last one.
func (s *scheduler) joinsLast(g *group, pl *mergePlan, c *Kernel) bool {
	n := len(g.k.Stages)
	if n == 0 {
		return false
	}
	last := g.k.Stages[n-1]
	return s.canJoin(g, last, pl.groupReduce(last), c.Stages[0], pl.targetReduce(c, 0))
}

// willForward predicts what forward will do with load ld of store st
// (stage at): the reason it will not forward, or "".
func (s *scheduler) willForward(g *group, pl *mergePlan, at *Stage, same bool, size *int, cst *Stage, st, ld *Instr, pending map[*Instr]int) string {
	v := st.Args[0]
	if st.Access.DType != ld.Access.DType || v.DType != ld.DType {
		return fmt.Sprintf("it reads %s as %s, %s stores %s", st.Access.Buffer.Name, ld.DType.Abbr(), g.founder, v.DType.Abbr())
	}
	switch {
	case len(pl.groupReduce(at)) == 0:
		return ""
	case same && v.Op != OpReduce:
		return ""
	case same:
		return fmt.Sprintf("it reads %s, a reduction still running in that stage", st.Access.Buffer.Name)
	}
	if g.recomputed[v]+pending[v] >= s.opts.MaxRecompute {
		return fmt.Sprintf("the value of %s was recomputed %d times already (max %d)",
			st.Access.Buffer.Name, g.recomputed[v]+pending[v], s.opts.MaxRecompute)
	}
	order, ok := cloneOrder(at, v)
	if !ok {
		return fmt.Sprintf("the value of %s needs a reduction of its own stage", st.Access.Buffer.Name)
	}
	if n := *size + len(cst.Body) + len(order); n > s.opts.MaxStageInstrs {
		return fmt.Sprintf("recomputing %s would grow the stage to %d instructions (max %d)",
			st.Access.Buffer.Name, n, s.opts.MaxStageInstrs)
	}
	*size += len(order)
	pending[v]++
	return ""
}

// checkOverwrites: when c writes a buffer g reads (the copy_ epilogue
// into a mutated input) or writes too (a scatter into a copy of self),
// every access to it must be to the same element of the same iteration,
// read before written, and not through an indirect index (another
// iteration may hold the same index); otherwise it is a barrier.
func (s *scheduler) checkOverwrites(g *group, c *Kernel, pl *mergePlan, writes []*Buffer) string {
	for _, b := range writes {
		reads := s.level(s.maxReader, b) == g.idx
		if !reads && len(g.writes[b]) == 0 {
			continue
		}
		verb := "writes"
		if reads {
			verb = "reads"
		}
		if pl.kind == caseResplit {
			return fmt.Sprintf("it overwrites %s, which %s %s", b.Name, g.founder, verb)
		}
		same, direct := s.sameElement(g, c, pl, b)
		if !direct {
			return fmt.Sprintf("it overwrites %s, which %s %s, through an indirect index", b.Name, g.founder, verb)
		}
		if !same {
			return fmt.Sprintf("it overwrites %s, which %s %s at other elements", b.Name, g.founder, verb)
		}
	}
	return ""
}

// sameElement reports whether every access of g and c to b is at one
// index over one set of reduction ranges, and whether none is indirect.
func (s *scheduler) sameElement(g *group, c *Kernel, pl *mergePlan, b *Buffer) (same, direct bool) {
	var idx sym.Expr
	var red []sym.Expr
	first, same, direct := true, true, true
	see := func(a *Access, e sym.Expr, r []sym.Expr) {
		direct = direct && len(a.Indirect) == 0
		if first {
			idx, red, first = e, r, false
		} else if !sym.Equal(e, idx) || !sym.EqualLists(r, red) {
			same = false
		}
	}
	for _, st := range g.k.Stages {
		for _, in := range st.Body {
			if (in.Op == OpLoad || in.Op == OpStore) && in.Access.Buffer == b {
				see(in.Access, substVars(in.Access.Index, pl.gRename), st.Reduce)
			}
		}
	}
	for i, st := range c.Stages {
		for _, in := range st.Body {
			if (in.Op == OpLoad || in.Op == OpStore) && in.Access.Buffer == b {
				see(in.Access, substVars(in.Access.Index, pl.cRename), pl.targetReduce(c, i))
			}
		}
	}
	return same, direct
}
