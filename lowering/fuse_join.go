package lowering

import "slices"

// Joining adjacent groups. Fusion is greedy in program order: a kernel
// joins one group, the latest that accepts it. When it reads what two
// groups write (where(x > 0, x, y * 2): gt and mul are independent
// producers, where reads both), it joins the later one and the earlier
// producer stays a kernel of its own, although Inductor computes all
// three in one loop. After such a fusion, when the group it joined is
// the last one and the group just before it writes what the kernel read,
// the two groups are merged: the later one's kernel is fused into the
// earlier one under the same rules as any kernel (matching spaces, reads
// where written, forwarded), which is sound because the two are adjacent
// in program order.

// maxJoinInstrs bounds the instructions of the two groups a join merges:
// a join rescans both, and the bound keeps that linear in the program.
const maxJoinInstrs = 512

// joinEarlier merges group gi (the last, which c just joined) into the
// group before it while that group writes something c reads.
func (s *scheduler) joinEarlier(gi int, c string, reads []*Buffer) {
	for gi > 0 && gi == len(s.groups)-1 && s.feeds(gi-1, reads) {
		gj := s.groups[gi-1]
		if gj.k.Extern != nil {
			return // never fused (its own remark says so)
		}
		g := s.groups[gi]
		if !s.join(gj, g, c) {
			return
		}
		gi--
	}
}

// feeds reports whether group gj is the latest writer of one of reads.
func (s *scheduler) feeds(gj int, reads []*Buffer) bool {
	for _, b := range reads {
		if s.level(s.maxWriter, b) == gj {
			return true
		}
	}
	return false
}

// join fuses the last group g into gj, the group before it; false, with
// a remark saying why, when it may not.
func (s *scheduler) join(gj, g *group, c string) bool {
	refuse := func(why string) bool {
		s.remark("%s (%s) not joined to %s (%s), which also feeds %s: %s",
			g.founder, kernelOrigin(g.k), gj.founder, kernelOrigin(gj.k), c, why)
		return false
	}
	if n := instrsUpTo(g.k, len(g.recorded), maxJoinInstrs); n > maxJoinInstrs {
		return refuse("they hold over " + itoa(maxJoinInstrs) + " instructions and buffer accesses")
	} else if instrsUpTo(gj.k, n, maxJoinInstrs) > maxJoinInstrs {
		return refuse("they hold over " + itoa(maxJoinInstrs) + " instructions and buffer accesses")
	}
	_, writes := kernelAccesses(g.k)
	jr, jw := kernelAccesses(gj.k)
	for _, b := range writes {
		if slices.Contains(jr, b) || slices.Contains(jw, b) {
			return refuse("it writes " + b.Name + ", which " + gj.founder + " reads or writes")
		}
	}
	pl, why := s.planMerge(gj, g.k, writes)
	if why != "" {
		return refuse(why)
	}
	s.remark("joined %s (%s) to %s (%s), which also feeds %s: %s",
		g.founder, kernelOrigin(g.k), gj.founder, kernelOrigin(gj.k), c, pl.why)
	members := g.members
	s.merge(gj, g.k, pl)
	// merge appended g's kernel as one member; it stands for all of g's.
	gj.members = append(gj.members[:len(gj.members)-1], members...)
	s.groups = s.groups[:g.idx]
	s.rerecord(g, gj)
	s.stats.Fusions++
	return true
}

// rerecord moves what record noted for the dissolved last group from
// to group to.
func (s *scheduler) rerecord(from, to *group) {
	for _, b := range from.recorded {
		if s.maxReader[b] == from.idx {
			s.maxReader[b] = to.idx
		}
		if s.maxWriter[b] == from.idx {
			s.maxWriter[b] = to.idx
		}
		if r, ok := s.recent[b]; ok && r[0] == from.idx {
			r[0] = to.idx
			if r[1] == to.idx {
				r[1] = -1
			}
			s.recent[b] = r
		}
	}
	to.recorded = append(to.recorded, from.recorded...)
}

// recordFor notes buffers record saw for the group.
func (g *group) recordFor(reads, writes []*Buffer) {
	if g.recorded == nil {
		g.recorded = make([]*Buffer, 0, 16)
	}
	g.recorded = append(append(g.recorded, reads...), writes...)
}

// instrsUpTo adds k's instructions to n, stopping once past limit (the
// count stays cheap on a large group).
func instrsUpTo(k *Kernel, n, limit int) int {
	for _, st := range k.Stages {
		if n > limit {
			break
		}
		n += len(st.Body) + 1 // an empty stage costs a step too
	}
	return n
}
