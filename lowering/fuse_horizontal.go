package lowering

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Horizontal fusion of independent reductions. Fusion follows data: a
// kernel joins a group that writes what it reads or reads what it reads.
// Two reductions over one outer space that share no buffer stay apart,
// though one loop nest could compute both: a norm backward's column sums
// (grad_weight's Σ grad·x̂ over the batch and grad_bias's Σ grad), where
// kiln's row kernel stores grad·x̂ and Inductor, which recomputes it in the
// column loop, fuses the two because both read grad. After scheduling,
// each group whose reductions match the previous group's outer space and
// touch nothing it writes joins it as further stages. A group that reads
// what the previous one writes joins it too when planMerge finds every
// such read at the element stored in the same outer iteration (so it is
// forwarded), as a vertical fusion would have: a loss's sum and a second
// sum whose epilogue adds the loss (hit + loss) are one kernel, though
// the greedy pass met the second sum before its epilogue read the loss.

// joinIndependentReductions merges adjacent independent reduction groups
// over the same outer space, in program order. A group that cannot join
// the one before it may join an earlier one that can sink to it: one of
// the maxSinkPast groups before it, independent of every group between
// (a norm backward's column sums, met before the row kernel whose
// dropout gradient another column sum reads: whichever order the greedy
// pass placed them in, the column sums end up one kernel).
func (s *scheduler) joinIndependentReductions() {
	if len(s.groups) < 2 {
		return
	}
	s.sets = map[*Kernel]bufferSets{}
	defer func() { s.sets = nil }()
	kept := make([]*group, 0, len(s.groups))
	kept = append(kept, s.groups[0])
	for _, g := range s.groups[1:] {
		if s.joinIndependently(kept[len(kept)-1], g) {
			continue
		}
		if j := s.sinkAndJoin(kept, g); j >= 0 {
			h := kept[j] // it now runs where g ran
			kept = append(slices.Delete(kept, j, j+1), h)
			continue
		}
		kept = append(kept, g)
	}
	for i, g := range kept {
		g.idx = i
	}
	s.groups = kept
}

// sinkAndJoin finds an earlier group, at most maxSinkPast back, that is
// independent of every group after it (so it may run later, where g
// runs) and that g joins; its index in kept, or -1.
func (s *scheduler) sinkAndJoin(kept []*group, g *group) int {
	if !reductionGroup(g.k) {
		return -1
	}
	for j := len(kept) - 2; j >= 0 && j >= len(kept)-1-maxSinkPast; j-- {
		h := kept[j]
		if !reductionGroup(h.k) || !sym.Equal(product(h.k.Outer), product(g.k.Outer)) {
			continue // planMerge would refuse: no split makes the outer spaces one
		}
		hs := s.setsOf(h.k)
		free := !slices.ContainsFunc(kept[j+1:], func(m *group) bool {
			ms := s.setsOf(m.k)
			return writesOver(hs, ms) || writesOver(ms, hs)
		})
		if free && s.joinIndependently(h, g) {
			s.remark("%s (%s) runs after the %d group(s) that followed it, which do not touch what it does, so that %s joined it",
				h.founder, kernelOrigin(h.k), len(kept)-1-j, g.founder)
			return j
		}
	}
	return -1
}

// touches: some buffer of a is in b.
func touches(a, b map[*Buffer]bool) bool {
	for buf := range a {
		if b[buf] {
			return true
		}
	}
	return false
}

// reductionGroup: k may take part in a horizontal join.
func reductionGroup(k *Kernel) bool {
	return k.Extern == nil && !k.Serial && !allOuterLevel(k)
}

// joinIndependently merges group g into prev, the group before it, when
// both are reductions (a stage loops over a reduce range) with equal outer
// ranges, neither writes what the other touches, and their size allows.
func (s *scheduler) joinIndependently(prev, g *group) bool {
	for _, k := range []*Kernel{prev.k, g.k} {
		if k.Extern != nil || k.Serial || allOuterLevel(k) || instrsUpTo(k, 0, maxJoinInstrs) > maxJoinInstrs {
			return false
		}
	}
	if !sym.Equal(product(prev.k.Outer), product(g.k.Outer)) {
		return false // planMerge would refuse: no split makes the outer spaces one
	}
	// a scan walks its range in order, one thread per row: a reduction
	// joined to it would lose its vector lanes (codegen/golang simd)
	ps, gs := s.setsOf(prev.k), s.setsOf(g.k)
	if writesOver(ps, gs) || hasScanStage(prev.k) != hasScanStage(g.k) {
		return false
	}
	reads := touches(ps.w, gs.r) // forwarded: g reads what prev stores, where it stores it
	_, writes := kernelAccesses(g.k)
	pl, why := s.planMerge(prev, g.k, writes)
	if why != "" || pl.kind != caseAppend {
		return false
	}
	how := "which it shares no buffer with"
	if reads {
		how = "whose results it reads where they are stored"
	}
	s.remark("joined %s (%s) to %s (%s), %s: %s",
		g.founder, kernelOrigin(g.k), prev.founder, kernelOrigin(prev.k), how, pl.why)
	members := g.members
	s.merge(prev, g.k, pl)
	delete(s.sets, prev.k) // it reads and writes g's buffers now
	// merge appended g's kernel as one member; it stands for all of g's.
	prev.members = append(prev.members[:len(prev.members)-1], members...)
	s.stats.Fusions++
	return true
}

// hasScanStage: some stage of k folds a scan.
func hasScanStage(k *Kernel) bool {
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == OpScan {
				return true
			}
		}
	}
	return false
}

// bufferSets are the buffers a kernel reads and writes.
type bufferSets struct{ r, w map[*Buffer]bool }

// setsOf is k's buffer sets, kept while the horizontal joins run (a
// group's kernel changes only when it takes another: join deletes it).
func (s *scheduler) setsOf(k *Kernel) bufferSets {
	if bs, ok := s.sets[k]; ok {
		return bs
	}
	r, w := accessSets(k)
	bs := bufferSets{r, w}
	if s.sets != nil {
		s.sets[k] = bs
	}
	return bs
}

// writesOver: b writes what a reads or writes, so b cannot run with a
// (or before it); b reading what a writes is allowed.
func writesOver(a, b bufferSets) bool { return touches(b.w, a.r) || touches(b.w, a.w) }
