package lowering

import (
	"fmt"
	"strings"
)

// Swapping the last two groups. Fusion is greedy in program order, so a
// kernel c that reads what two independent groups write may only join the
// later one: sum(x, 1) * x.mean() cannot put the multiply after the row
// sum when the mean's kernel comes later in program order, though the mean
// depends on nothing the sum does (Dynamo graph 01: "it reads buf31,
// written by kernel22 which runs later"). Inductor's scheduler, which
// fuses on the dependency graph, computes the mean first and the multiply
// in the sum's loop. When the later group is the last one and the two
// share no buffer that either writes, they may run in either order:
// sinkToLast puts the earlier one last and lets c try it again.

// maxSink bounds the groups one group moves past (the swaps keep the
// scheduler's indices, each a pass over both kernels' accesses).
const maxSink = 8

// sinkToLast moves group gi after every later group when none of them
// touches a buffer it writes or writes one it touches (at most maxSink of
// them), so that c, which reads what the last of them writes, can join it;
// else it restores the order and returns false. Two groups are the swap
// above; more are a chain of adds after matrix products (an attention
// block's backward sums grad_x over the q, k and v projections' products:
// add_1 after mm_7 could not take add_2, which reads mm_9, until it runs
// after mm_8 and mm_9).
func (s *scheduler) sinkToLast(gi int, c *Kernel, reads, writes []*Buffer) bool {
	n := len(s.groups)
	if gi < 0 || gi >= n-1 || n-1-gi > maxSink {
		return false
	}
	a := s.groups[gi]
	// the bound of a join keeps the scans linear in the program
	if a.k.Extern != nil || instrsUpTo(a.k, 0, maxJoinInstrs) > maxJoinInstrs {
		return false
	}
	passed := make([]string, 0, n-1-gi)
	for _, b := range s.groups[gi+1:] {
		if instrsUpTo(b.k, 0, maxJoinInstrs) > maxJoinInstrs || !independent(a.k, b.k) {
			return false
		}
		passed = append(passed, fmt.Sprintf("%s (%s)", b.founder, kernelOrigin(b.k)))
	}
	for j := gi; j < n-1; j++ {
		s.swapGroups(j, j+1)
	}
	if plan, reason := s.planMerge(a, c, writes); reason == "" {
		verb := "runs before"
		if len(passed) > 1 {
			verb = "run before"
		}
		s.remark("%s %s %s (%s), which does not depend on %s, so that %s can join %s",
			strings.Join(passed, ", "), verb, a.founder, kernelOrigin(a.k), pronoun(len(passed)), c.Name, a.founder)
		s.remark("fused %s (%s) into %s (%s): %s", c.Name, kernelOrigin(c), a.founder, kernelOrigin(a.k), plan.why)
		s.merge(a, c, plan)
		s.record(n-1, reads, writes)
		s.stats.Fusions++
		return true
	}
	for j := n - 2; j >= gi; j-- {
		s.swapGroups(j, j+1)
	}
	return false
}

func pronoun(n int) string {
	if n > 1 {
		return "them"
	}
	return "it"
}

// independent reports whether kernels a and b touch no buffer that either
// writes: running them in either order computes the same.
func independent(a, b *Kernel) bool {
	ar, aw := accessSets(a)
	br, bw := accessSets(b)
	for buf := range aw {
		if br[buf] || bw[buf] {
			return false
		}
	}
	for buf := range bw {
		if ar[buf] {
			return false
		}
	}
	return true
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
