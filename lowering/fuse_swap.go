package lowering

import (
	"fmt"
	"strings"
)

// Sinking a group past independent ones. Fusion is greedy in program
// order, so a kernel c that reads what two independent groups write may
// only join the later one: sum(x, 1) * x.mean() cannot put the multiply
// after the row sum when the mean's kernel comes later in program order,
// though the mean depends on nothing the sum does (Dynamo graph 01: "it
// reads buf31, written by kernel22 which runs later"). Inductor's
// scheduler, which fuses on the dependency graph, computes the mean first
// and the multiply in the sum's loop. When every group from the earlier
// one up to the one c must follow shares no buffer with it that either
// writes, they may run in either order: sinkToJoin moves the earlier group
// down to that place and lets c try it again (Dynamo graph 05: a norm's
// epilogue that adds a variance's sum computed by two later kernels; an
// attention block's backward, which sums grad_x over the q, k and v
// projections' products, each add after its mm:
// testdata/fusion/sink_past_externs.txtar).

// maxSinkPast bounds the groups one sink passes (each is scanned).
const maxSinkPast = 8

// sinkToJoin moves group gi down to position floor, past the groups after
// it, when each is independent of it, and merges c there; else it
// restores the order and returns false.
func (s *scheduler) sinkToJoin(c *Kernel, gi, floor int, reads, writes []*Buffer) bool {
	if floor-gi > maxSinkPast || floor <= gi {
		return false
	}
	a := s.groups[gi]
	// the bound of a join keeps the scans linear in the program
	// (a serial group may move too: reordering independent kernels keeps
	// its own loop order)
	if a.k.Extern != nil || instrsUpTo(a.k, 0, maxJoinInstrs) > maxJoinInstrs {
		return false
	}
	var passed []string
	for j := gi + 1; j <= floor; j++ {
		b := s.groups[j]
		if instrsUpTo(b.k, 0, maxJoinInstrs) > maxJoinInstrs || !independent(a.k, b.k) {
			return false
		}
		passed = append(passed, fmt.Sprintf("%s (%s)", b.founder, kernelOrigin(b.k)))
	}
	for j := gi; j < floor; j++ {
		s.swapGroups(j, j+1)
	}
	at := -1
	for _, buf := range reads {
		at = max(at, s.level(s.maxWriter, buf))
	}
	for _, buf := range writes {
		at = max(at, s.level(s.maxReader, buf), s.level(s.maxWriter, buf))
	}
	if at <= floor {
		if plan, reason := s.planMerge(a, c, writes); reason == "" {
			verb, obj := "runs", "it"
			if len(passed) > 1 {
				verb, obj = "run", "them"
			}
			s.remark("%s %s before %s (%s), which does not depend on %s, so that %s can join %s",
				strings.Join(passed, ", "), verb, a.founder, kernelOrigin(a.k), obj, c.Name, a.founder)
			s.remark("fused %s (%s) into %s (%s): %s", c.Name, kernelOrigin(c), a.founder, kernelOrigin(a.k), plan.why)
			s.merge(a, c, plan)
			s.record(floor, reads, writes)
			s.stats.Fusions++
			return true
		}
	}
	for j := floor; j > gi; j-- {
		s.swapGroups(j-1, j)
	}
	return false
}

// independent reports whether kernels a and b touch no buffer that either
// writes: running them in either order computes the same.
func independent(a, b *Kernel) bool {
	ar, aw := accessSets(a)
	br, bw := accessSets(b)
	as, bs := bufferSets{ar, aw}, bufferSets{br, bw}
	return !writesOver(as, bs) && !writesOver(bs, as)
}

// swapGroups exchanges adjacent groups i and j = i+1 and the indices the
// scheduler keeps of them (latest reader and writer, recent readers); the
// group now at j is the later, so a buffer both read (or both wrote) keeps
// j.
func (s *scheduler) swapGroups(i, j int) {
	s.groups[i], s.groups[j] = s.groups[j], s.groups[i]
	s.groups[i].idx, s.groups[j].idx = i, j
	ri, wi := accessSets(s.groups[i].k)
	rj, wj := accessSets(s.groups[j].k)
	relevel := func(m map[*Buffer]int, buf *Buffer, inI, inJ bool) {
		if v, ok := m[buf]; ok && (v == i || v == j) {
			if inJ {
				m[buf] = j
			} else if inI {
				m[buf] = i
			}
		}
	}
	swap := func(x int) int {
		switch x {
		case i:
			return j
		case j:
			return i
		}
		return x
	}
	for _, set := range []map[*Buffer]bool{ri, wi, rj, wj} {
		for buf := range set {
			relevel(s.maxReader, buf, ri[buf], rj[buf])
			relevel(s.maxWriter, buf, wi[buf], wj[buf])
		}
	}
	readers := map[*Buffer]bool{}
	for buf := range ri {
		readers[buf] = true
	}
	for buf := range rj {
		readers[buf] = true
	}
	for buf := range readers { // once each: a buffer both read swaps once
		if r, ok := s.recent[buf]; ok {
			r = [2]int{swap(r[0]), swap(r[1])}
			if r[1] > r[0] {
				r[0], r[1] = r[1], r[0]
			}
			s.recent[buf] = r
		}
	}
}

// accessSets is kernelAccesses as sets.
func accessSets(k *Kernel) (reads, writes map[*Buffer]bool) {
	r, w := kernelAccesses(k)
	reads, writes = make(map[*Buffer]bool, len(r)), make(map[*Buffer]bool, len(w))
	for _, b := range r {
		reads[b] = true
	}
	for _, b := range w {
		writes[b] = true
	}
	return reads, writes
}
