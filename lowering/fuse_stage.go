package lowering

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Merging a kernel into a group: re-split or rename, append its stages
// (merging adjacent ones), forward its loads to values the group already
// holds, and drop stores nobody will read.

func (s *scheduler) merge(g *group, c *Kernel, pl mergePlan) {
	if pl.kind == caseResplit {
		st := g.k.Stages[0]
		renameStageVars(st, pl.gRename)
		st.Reduce = slices.Clone(pl.reduce)
		g.k.Outer = slices.Clone(pl.outer)
		// The innermost outer range changed: the proven width no longer
		// describes it.
		g.k.Vec = 1
		clear(g.loads) // their indexes changed
		for _, in := range st.Body {
			if in.Op == OpLoad {
				g.noteLoad(st, in)
			}
		}
	}
	if pl.kind == caseAppend && pl.gRename != nil {
		g.splitGroup(pl)
	}
	if pl.kind == caseAppend && (pl.gRename != nil || pl.cRename != nil) {
		g.k.Vec = 1 // the innermost outer range changed: the proven width no longer describes it
	}
	for _, st := range c.Stages {
		renameStageVars(st, pl.cRename)
	}
	if pl.kind == caseRStage {
		c.Stages[0].Reduce = slices.Clone(pl.reduce)
	}
	if pl.kind == caseResplit && pl.cRename != nil { // c's loops were split to g's sizes
		c.Outer = slices.Clone(pl.outer)
		for _, st := range c.Stages {
			if len(st.Reduce) > 0 {
				st.Reduce = slices.Clone(pl.reduce)
			}
		}
	}
	if pl.cRename != nil && pl.kind == caseOuter {
		// c's innermost loop changed: its accesses lost the proven width.
		g.k.Vec = 1
	}
	repl := map[*Instr]*Instr{}
	for i, st := range c.Stages {
		// Only c's first stage may join the group's last one; c's own
		// stages stay as lowering made them.
		target := st
		if n := len(g.k.Stages); i == 0 && n > 0 && s.canJoin(g, g.k.Stages[n-1], g.k.Stages[n-1].Reduce, st, st.Reduce) {
			target = g.k.Stages[n-1]
		} else {
			g.k.Stages = append(g.k.Stages, st)
		}
		body := st.Body
		if target == st {
			st.Body = make([]*Instr, 0, len(body))
		} else {
			g.alias[st] = target
		}
		for _, in := range body {
			s.place(g, target, in, repl)
		}
	}
	g.k.Origins = append(g.k.Origins, c.Origins...)
	g.k.Vec = min(g.k.Vec, c.Vec)
	// Serial is never lost: the fused kernel runs in the serial member's
	// loop order, one iteration after another, and unvectorized (lanes
	// would run one instruction for several iterations at once).
	if g.k.Serial = g.k.Serial || c.Serial; g.k.Serial {
		g.k.Vec = 1
	}
	g.members = append(g.members, c.Name)
}

// canJoin reports whether stage st (to run over stReduce) may be appended
// to the body of last (running over lastReduce): same ranges, and st does
// not need a reduction last completes (its loads of last's reduced results
// must wait for the loop to end).
func (s *scheduler) canJoin(g *group, last *Stage, lastReduce []sym.Expr, st *Stage, stReduce []sym.Expr) bool {
	if !sym.EqualLists(lastReduce, stReduce) {
		return false
	}
	if len(stReduce) == 0 {
		return true
	}
	for _, in := range st.Body {
		if in.Op != OpLoad {
			continue
		}
		for _, ref := range g.writes[in.Access.Buffer] {
			if g.stageOf(ref.stage) == last && ref.st.Args[0].Op == OpReduce {
				return false
			}
		}
	}
	return true
}

// place appends one of c's instructions to stage t of the group,
// forwarding a load when the group holds the stored value.
func (s *scheduler) place(g *group, t *Stage, in *Instr, repl map[*Instr]*Instr) {
	for i, a := range in.Args {
		if r, ok := repl[a]; ok {
			in.Args[i] = r
		}
	}
	if in.Access != nil && len(in.Access.Indirect) > 0 {
		s.replaceIndirect(in.Access, repl)
	}
	if in.Op == OpLoad {
		if v := s.forward(g, t, in); v != nil {
			repl[in] = v
			s.unuse(g, in.Access.Buffer)
			return
		}
	}
	if in.Op == OpCheck && hasCheck(t, in) {
		return // two ops gathering through one index tensor check it once
	}
	t.Body = append(t.Body, in)
	switch in.Op {
	case OpStore:
		b := in.Access.Buffer
		g.writes[b] = append(g.writes[b], storeRef{t, in})
	case OpLoad:
		g.noteLoad(t, in)
	}
}

// hasCheck reports whether stage t already makes check c: same value,
// bound, range and message.
func hasCheck(t *Stage, c *Instr) bool {
	for _, in := range t.Body {
		if in.Op == OpCheck && in.Args[0] == c.Args[0] && sym.Equal(in.Expr, c.Expr) && *in.Check == *c.Check {
			return true
		}
	}
	return false
}

// noteLoad remembers a load of a buffer the group does not write.
func (g *group) noteLoad(t *Stage, in *Instr) {
	if len(g.writes[in.Access.Buffer]) == 0 {
		key := keyOf(in.Access, in.DType.Abbr())
		g.loads[key] = append(g.loads[key], storeRef{t, in})
	}
}

// sameLoad finds an earlier load of the same element in stage t (or an
// earlier outer-level stage) of a buffer the group never writes.
func (g *group) sameLoad(t *Stage, ld *Instr) *Instr {
	if len(g.writes[ld.Access.Buffer]) > 0 {
		return nil
	}
	for _, ref := range g.loads[keyOf(ld.Access, ld.DType.Abbr())] {
		if at := g.stageOf(ref.stage); at == t || len(at.Reduce) == 0 {
			return ref.st
		}
	}
	return nil
}

// forward returns the value a load of the group's own store reads, or
// nil. Same stage or an earlier outer-level stage: the stored value
// itself. An earlier r-stage over the same ranges: a bounded recompute.
func (s *scheduler) forward(g *group, t *Stage, ld *Instr) *Instr {
	refs := g.writes[ld.Access.Buffer]
	if len(refs) == 0 {
		return g.sameLoad(t, ld)
	}
	ref, ok := latestStoreAt(refs, ld.Access.Index, nil)
	if !ok {
		return nil
	}
	a, v := ref.st.Access, ref.st.Args[0]
	if a.DType != ld.Access.DType || v.DType != ld.DType {
		return nil // a conversion in memory: read it back
	}
	at := g.stageOf(ref.stage)
	switch {
	case len(at.Reduce) == 0:
		return v
	case at == t && v.Op == OpReduce:
		return nil // the running value, not the result
	case at == t:
		return v
	case sym.EqualLists(at.Reduce, t.Reduce):
		return s.recompute(g, at, t, ref.st)
	}
	return nil
}

// recompute clones the part of stage `from` that computes st's value into
// stage t, when it holds no reduction of its own, the value was not
// recomputed MaxRecompute times yet, and t stays under the size limit.
func (s *scheduler) recompute(g *group, from, t *Stage, st *Instr) *Instr {
	v := st.Args[0]
	if g.recomputed[v] >= s.opts.MaxRecompute {
		return nil
	}
	order, ok := cloneOrder(from, v)
	if !ok || len(t.Body)+len(order) > s.opts.MaxStageInstrs {
		return nil
	}
	clones := make(map[*Instr]*Instr, len(order))
	for _, in := range order {
		cl := *in
		cl.Args = make([]*Instr, len(in.Args))
		for i, a := range in.Args {
			if c, ok := clones[a]; ok {
				cl.Args[i] = c
			} else {
				cl.Args[i] = a
			}
		}
		if in.Access != nil {
			acc := *in.Access
			acc.Indirect = slices.Clone(acc.Indirect)
			cl.Access = &acc
			s.replaceIndirect(cl.Access, clones)
			s.uses[acc.Buffer]++
		}
		clones[in] = &cl
		t.Body = append(t.Body, &cl)
	}
	g.recomputed[v]++
	s.stats.Recomputes++
	s.remark("recomputed the value of %s (%d instructions) in a later stage of %s instead of reading it back",
		st.Access.Buffer.Name, len(order), g.founder)
	return clones[v]
}

// cloneOrder lists, in dependency order, the instructions of stage from
// that compute v; false when they include a reduction of that stage.
func cloneOrder(from *Stage, v *Instr) ([]*Instr, bool) {
	local := make(map[*Instr]bool, len(from.Body))
	for _, in := range from.Body {
		local[in] = true
	}
	var order []*Instr
	seen := map[*Instr]bool{}
	var visit func(in *Instr) bool
	visit = func(in *Instr) bool {
		if !local[in] || seen[in] {
			return true
		}
		seen[in] = true
		if in.Op == OpReduce {
			return false
		}
		for _, a := range in.Args {
			if !visit(a) {
				return false
			}
		}
		if in.Access != nil {
			for _, a := range in.Access.Indirect {
				if !visit(a) {
					return false
				}
			}
		}
		order = append(order, in)
		return true
	}
	return order, visit(v)
}

// unuse notes that one load of b is gone; when none is left anywhere and
// nobody outside needs b, the group's stores to it are dropped now, which
// keeps stages small while a chain fuses.
func (s *scheduler) unuse(g *group, b *Buffer) {
	s.uses[b]--
	if s.uses[b] > 0 || s.pinned[b] {
		return
	}
	for _, ref := range g.writes[b] {
		at := g.stageOf(ref.stage)
		at.Body = slices.DeleteFunc(at.Body, func(in *Instr) bool { return in == ref.st })
	}
	delete(g.writes, b)
}

// cleanProgram removes stores to buffers nobody reads (and the buffers),
// dead instructions, empty stages and kernels, merges stages that became
// adjacent, and renumbers instructions.
func cleanProgram(p *Program, maxStage int) {
	uses, pinned := map[*Buffer]int{}, map[*Buffer]bool{}
	for _, b := range p.Buffers {
		if b.Kind != BufIntermediate {
			pinned[b] = true
		}
	}
	for _, r := range p.Outputs {
		if r.Buffer != nil {
			pinned[r.Buffer] = true
		}
	}
	for _, k := range p.Kernels {
		countBufferUses(k, uses, pinned)
	}
	dead := func(b *Buffer) bool { return uses[b] == 0 && !pinned[b] }
	inChunks(len(p.Kernels), func(_, lo, hi int) { // each kernel on its own; the maps are only read
		for _, k := range p.Kernels[lo:hi] {
			if k.Extern == nil {
				cleanKernel(k, dead, maxStage)
			}
		}
	})
	p.Kernels = slices.DeleteFunc(p.Kernels, func(k *Kernel) bool { return k.Extern == nil && len(k.Stages) == 0 })
	var removed []string
	p.Buffers = slices.DeleteFunc(p.Buffers, func(b *Buffer) bool {
		if dead(b) {
			removed = append(removed, b.Name)
			return true
		}
		return false
	})
	if len(removed) > 0 {
		p.Remarks = append(p.Remarks, fmt.Sprintf("removed %d buffers nobody reads after fusion: %s",
			len(removed), strings.Join(removed, ", ")))
	}
}

// cleanKernel drops dead stores and instructions, empty stages, merges
// stages that became adjacent and renumbers.
func cleanKernel(k *Kernel, dead func(*Buffer) bool, maxStage int) {
	live := map[*Instr]bool{}
	for i := len(k.Stages) - 1; i >= 0; i-- {
		body := k.Stages[i].Body
		for j := len(body) - 1; j >= 0; j-- {
			in := body[j]
			// Roots: live stores, and checks, which raise whether or not
			// anything reads the value they guard (as PyTorch raises).
			if in.Op == OpStore && !dead(in.Access.Buffer) || in.Op == OpCheck {
				live[in] = true
			}
			if live[in] {
				for _, a := range in.Args {
					live[a] = true
				}
				if in.Access != nil {
					for _, a := range in.Access.Indirect {
						live[a] = true
					}
				}
			}
		}
	}
	stages := k.Stages[:0]
	for _, st := range k.Stages {
		st.Body = slices.DeleteFunc(st.Body, func(in *Instr) bool { return !live[in] })
		if len(st.Body) == 0 {
			continue
		}
		if n := len(stages); n > 0 && canMergeAdjacent(stages[n-1], st, maxStage) {
			stages[n-1].Body = append(stages[n-1].Body, st.Body...)
			continue
		}
		stages = append(stages, st)
	}
	k.Stages = stages
	id := 0
	for _, st := range k.Stages {
		for _, in := range st.Body {
			in.ID = id
			id++
		}
	}
}

// canMergeAdjacent: equal ranges, within the size limit, and the later
// stage uses no reduction result of the earlier one.
func canMergeAdjacent(a, b *Stage, maxStage int) bool {
	if !sym.EqualLists(a.Reduce, b.Reduce) || len(a.Body)+len(b.Body) > maxStage {
		return false
	}
	if len(a.Reduce) == 0 {
		return true
	}
	reduces := map[*Instr]bool{}
	for _, in := range a.Body {
		if in.Op == OpReduce {
			reduces[in] = true
		}
	}
	for _, in := range b.Body {
		for _, x := range in.Args {
			if reduces[x] {
				return false
			}
		}
	}
	return true
}
