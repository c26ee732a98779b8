package lowering

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// FuseOptions tune the scheduler.
type FuseOptions struct {
	// MaxRecompute is how many times one stored value may be recomputed in
	// other stages instead of being read back from its buffer (0: the
	// default 2; negative: never recompute).
	MaxRecompute int
	// MaxStageInstrs bounds a fused stage: a fusion that would grow a stage
	// beyond it is refused (0: the default 256).
	MaxStageInstrs int
	// Disable turns fusion off: the program stays one kernel per node.
	Disable bool
}

// FuseStats count what Fuse did.
type FuseStats struct{ KernelsBefore, KernelsAfter, Fusions, Recomputes int }

func (o FuseOptions) withDefaults() FuseOptions {
	switch {
	case o.MaxRecompute == 0:
		o.MaxRecompute = 2
	case o.MaxRecompute < 0:
		o.MaxRecompute = 0
	}
	if o.MaxStageInstrs <= 0 {
		o.MaxStageInstrs = 256
	}
	return o
}

// maxCandidates bounds how many groups one kernel tries to join, which
// keeps the scheduler linear in the number of kernels.
const maxCandidates = 8

// Fuse rewrites p in place: kernels are merged greedily in program order
// (vertically into the group that produced what they read, horizontally
// into a group that reads the same buffer), loads of values the fused
// kernel already holds are forwarded, and stores and buffers nobody reads
// any more are removed. It appends a remark per decision to p.Remarks.
//
// Unlike Inductor's scheduler it never re-inlines a producer into each
// consumer: a producer shared by many consumers is computed once in its
// group, and a value is recomputed in another stage at most
// opts.MaxRecompute times, so fused size and compile time stay linear.
func Fuse(p *Program, opts FuseOptions) (FuseStats, error) {
	stats := FuseStats{KernelsBefore: len(p.Kernels), KernelsAfter: len(p.Kernels)}
	if err := checkFusable(p); err != nil {
		return stats, err
	}
	if opts.Disable {
		p.Remarks = append(p.Remarks, "fusion disabled: one kernel per node")
		setSplits(p)
		return stats, nil
	}
	inlineCheap(p)
	s := newScheduler(p, opts.withDefaults(), &stats)
	for _, k := range p.Kernels {
		s.schedule(k)
	}
	s.joinIndependentReductions()
	s.finish()
	storeInner(p)
	setSplits(p)
	stats.KernelsAfter = len(p.Kernels)
	p.Remarks = append(p.Remarks, fmt.Sprintf("fusion: %d kernels -> %d (%d fusions, %d recomputes)",
		stats.KernelsBefore, stats.KernelsAfter, stats.Fusions, stats.Recomputes))
	return stats, nil
}

// checkFusable rejects programs the scheduler cannot read (what Verify
// would reject too), so that malformed input is an error, not a panic.
func checkFusable(p *Program) error {
	for _, k := range p.Kernels {
		if k == nil {
			return fmt.Errorf("fuse: nil kernel")
		}
		if k.Extern != nil {
			if len(k.Extern.Written()) == 0 {
				return fmt.Errorf("fuse: %s: extern call without an output buffer", k.Name)
			}
			continue
		}
		for _, st := range k.Stages {
			if st == nil {
				return fmt.Errorf("fuse: %s: nil stage", k.Name)
			}
			for _, in := range st.Body {
				if err := checkFuseInstr(in); err != nil {
					return fmt.Errorf("fuse: %s: %w", k.Name, err)
				}
			}
		}
	}
	return nil
}

func checkFuseInstr(in *Instr) error {
	if in == nil {
		return fmt.Errorf("nil instruction")
	}
	if (in.Op == OpLoad || in.Op == OpStore) && (in.Access == nil || in.Access.Buffer == nil) {
		return fmt.Errorf("tmp%d: %s without a buffer", in.ID, in.Op)
	}
	if in.Op == OpStore && len(in.Args) != 1 {
		return fmt.Errorf("tmp%d: store needs one argument", in.ID)
	}
	if in.Op == OpCheck && (len(in.Args) != 1 || in.Check == nil) {
		return fmt.Errorf("tmp%d: check needs one argument and its message", in.ID)
	}
	for _, a := range in.Args {
		if a == nil {
			return fmt.Errorf("tmp%d: nil argument", in.ID)
		}
	}
	return nil
}

// group is a fused kernel being built; idx is its place in the new order.
type group struct {
	idx     int
	k       *Kernel
	founder string // the first member's name, which remarks use
	members []string
	writes  map[*Buffer][]storeRef // the group's stores, by buffer
	alias   map[*Stage]*Stage      // a stage merged into an earlier one
	// recomputed counts, per stored value, its clones in other stages.
	recomputed map[*Instr]int
	// loads are the group's loads of buffers it does not write, for
	// reusing one load per stage and element.
	loads map[loadKey][]storeRef
	// recorded lists the buffers record noted for the group (maxReader,
	// maxWriter, recent), for a join that moves them to another group;
	// past maxJoinInstrs the group is too large to join and it stops.
	recorded []*Buffer
}

// loadKey names one element read as one type.
type loadKey struct {
	buf   *Buffer
	index string
	dtype string
}

func keyOf(a *Access, dt string) loadKey { return loadKey{a.Buffer, a.Index.Key(), dt} }

// storeRef is one store of a group and the stage it sits in (resolve it:
// stages merge).
type storeRef struct {
	stage *Stage
	st    *Instr
}

// stageOf follows merges to the stage that now holds an instruction.
func (g *group) stageOf(s *Stage) *Stage {
	for {
		t, ok := g.alias[s]
		if !ok {
			return s
		}
		s = t
	}
}

type scheduler struct {
	p      *Program
	opts   FuseOptions
	stats  *FuseStats
	groups []*group
	// maxWriter and maxReader are the latest group that writes / reads a
	// buffer; recent are the last two groups that read it (horizontal
	// candidates).
	maxWriter map[*Buffer]int
	maxReader map[*Buffer]int
	recent    map[*Buffer][2]int
	// uses counts the loads (and extern operands) of each buffer left in
	// the whole program; pinned buffers keep their stores whatever it is.
	uses   map[*Buffer]int
	pinned map[*Buffer]bool
	// indName is the stable symbol an indirect index instruction goes by
	// while ids change; finish writes "tmp<ID>" back.
	indName map[*Instr]string
	// sets caches kernels' buffer sets during joinIndependentReductions.
	sets map[*Kernel]bufferSets
}

func newScheduler(p *Program, opts FuseOptions, stats *FuseStats) *scheduler {
	s := &scheduler{p: p, opts: opts, stats: stats,
		maxWriter: map[*Buffer]int{}, maxReader: map[*Buffer]int{}, recent: map[*Buffer][2]int{},
		uses: map[*Buffer]int{}, pinned: map[*Buffer]bool{}, indName: map[*Instr]string{}}
	for _, b := range p.Buffers {
		if b.Kind != BufIntermediate {
			s.pinned[b] = true
		}
	}
	for _, r := range p.Outputs {
		if r.Buffer != nil {
			s.pinned[r.Buffer] = true
		}
	}
	for _, k := range p.Kernels {
		countBufferUses(k, s.uses, s.pinned)
	}
	return s
}

// countBufferUses adds k's reads to uses and pins what an extern writes.
func countBufferUses(k *Kernel, uses map[*Buffer]int, pinned map[*Buffer]bool) {
	if k.Extern != nil {
		for _, a := range k.Extern.Args {
			if a.Buffer != nil {
				uses[a.Buffer]++
			}
		}
		for _, w := range k.Extern.Written() {
			pinned[w] = true
		}
		return
	}
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == OpLoad {
				uses[in.Access.Buffer]++
			}
		}
	}
}

// kernelAccesses lists the buffers k reads and writes, in first-use order.
func kernelAccesses(k *Kernel) (reads, writes []*Buffer) {
	seenR, seenW := map[*Buffer]bool{}, map[*Buffer]bool{}
	add := func(list []*Buffer, seen map[*Buffer]bool, b *Buffer) []*Buffer {
		if b == nil || seen[b] {
			return list
		}
		seen[b] = true
		return append(list, b)
	}
	if k.Extern != nil {
		for _, a := range k.Extern.Args {
			reads = add(reads, seenR, a.Buffer)
		}
		for _, w := range k.Extern.Written() {
			writes = add(writes, seenW, w)
		}
		return reads, writes
	}
	for _, st := range k.Stages {
		for _, in := range st.Body {
			switch in.Op {
			case OpLoad:
				reads = add(reads, seenR, in.Access.Buffer)
			case OpStore:
				writes = add(writes, seenW, in.Access.Buffer)
			}
		}
	}
	return reads, writes
}

func (s *scheduler) level(m map[*Buffer]int, b *Buffer) int {
	if v, ok := m[b]; ok {
		return v
	}
	return -1
}

// schedule places kernel c: into an existing group when a candidate
// accepts it, else as a new group.
func (s *scheduler) schedule(c *Kernel) {
	reads, writes := kernelAccesses(c)
	if c.Extern == nil {
		ownAccesses(c)
		normalizeKernel(c)
		s.nameIndirect(c)
	}
	switch {
	case c.Extern != nil:
		s.remark("%s (%s) is an extern call: not fused", c.Name, kernelOrigin(c))
	case s.tryFuse(c, reads, writes):
		return
	}
	g := &group{idx: len(s.groups), k: c, founder: c.Name, members: []string{c.Name},
		writes: map[*Buffer][]storeRef{}, alias: map[*Stage]*Stage{}, recomputed: map[*Instr]int{},
		loads: map[loadKey][]storeRef{}}
	// The founder goes through the same placement as later members, so
	// that its own repeated loads are shared too.
	repl := map[*Instr]*Instr{}
	for _, st := range c.Stages {
		body := st.Body
		st.Body = make([]*Instr, 0, len(body))
		for _, in := range body {
			s.place(g, st, in, repl)
		}
	}
	s.groups = append(s.groups, g)
	s.record(g.idx, reads, writes)
}

// record notes that group gi reads and writes these buffers.
func (s *scheduler) record(gi int, reads, writes []*Buffer) {
	if g := s.groups[gi]; len(g.recorded) <= maxJoinInstrs {
		g.recordFor(reads, writes)
	}
	for _, b := range reads {
		s.maxReader[b] = max(s.level(s.maxReader, b), gi)
		r, ok := s.recent[b]
		if !ok {
			r = [2]int{-1, -1}
		}
		if r[0] != gi {
			r = [2]int{gi, r[0]}
		}
		s.recent[b] = r
	}
	for _, b := range writes {
		s.maxWriter[b] = max(s.level(s.maxWriter, b), gi)
	}
}

// candidates are the groups c may join, latest first: writers of what c
// reads (vertical) and recent readers of it (horizontal).
func (s *scheduler) candidates(reads []*Buffer) []int {
	var out []int
	for _, b := range reads {
		if w := s.level(s.maxWriter, b); w >= 0 {
			out = append(out, w)
		}
		if r, ok := s.recent[b]; ok {
			for _, gi := range r {
				if gi >= 0 {
					out = append(out, gi)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b int) int { return b - a })
	out = slices.Compact(out)
	if len(out) > maxCandidates {
		out = out[:maxCandidates]
	}
	return out
}

// tryFuse merges c into the latest legal candidate group.
func (s *scheduler) tryFuse(c *Kernel, reads, writes []*Buffer) bool {
	// floor is the earliest group c may move to: after every writer of
	// what it reads, and after every reader or writer of what it writes.
	floor, why := -1, ""
	raise := func(gi int, format string, b *Buffer) {
		if gi > floor {
			floor, why = gi, fmt.Sprintf(format, b.Name, s.groups[gi].founder)
		}
	}
	for _, b := range reads {
		raise(s.level(s.maxWriter, b), "it reads %s, written by %s which runs later", b)
	}
	for _, b := range writes {
		raise(s.level(s.maxReader, b), "it writes %s, read by %s which runs later", b)
		raise(s.level(s.maxWriter, b), "it writes %s, also written by %s which runs later", b)
	}
	for _, gi := range s.candidates(reads) {
		g := s.groups[gi]
		if gi < floor {
			if s.sinkToJoin(c, gi, floor, reads, writes) {
				return true
			}
			s.remark("%s not fused into %s: %s", c.Name, g.founder, why)
			break
		}
		plan, reason := s.planMerge(g, c, writes)
		if reason != "" {
			s.remark("%s (%s) not fused into %s (%s): %s", c.Name, kernelOrigin(c), g.founder, kernelOrigin(g.k), reason)
			continue
		}
		s.remark("fused %s (%s) into %s (%s): %s", c.Name, kernelOrigin(c), g.founder, kernelOrigin(g.k), plan.why)
		s.merge(g, c, plan)
		s.record(gi, reads, writes)
		s.stats.Fusions++
		s.joinEarlier(gi, c.Name, reads)
		return true
	}
	return false
}

func (s *scheduler) remark(format string, args ...any) {
	s.p.Remarks = append(s.p.Remarks, fmt.Sprintf(format, args...))
}

func kernelOrigin(k *Kernel) string {
	if len(k.Origins) == 0 {
		return "?"
	}
	if len(k.Origins) == 1 {
		return k.Origins[0]
	}
	return fmt.Sprintf("%s +%d", k.Origins[0], len(k.Origins)-1)
}

// sizesString prints sizes as "[8, s0]".
func sizesString(sizes []sym.Expr) string {
	parts := make([]string, len(sizes))
	for i, e := range sizes {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// finish emits the groups as the new kernel list, removes what nobody
// reads any more, renames kernels densely and says what each one holds.
func (s *scheduler) finish() {
	kernels := make([]*Kernel, 0, len(s.groups))
	members := map[*Kernel][]string{}
	for _, g := range s.groups {
		kernels = append(kernels, g.k)
		members[g.k] = g.members
	}
	s.p.Kernels = kernels
	cleanProgram(s.p, s.opts.MaxStageInstrs)
	s.unnameIndirect()
	for i, k := range s.p.Kernels {
		k.Name = "kernel" + itoa(i)
		switch m := members[k]; {
		case len(m) > 6:
			s.remark("%s (was %d kernels: %s ... %s)", k.Name, len(m), strings.Join(m[:3], " + "), m[len(m)-1])
		case len(m) > 1:
			s.remark("%s (was %s)", k.Name, strings.Join(m, " + "))
		}
	}
}

// nameIndirect renames the "tmp<ID>" symbols of k's indirect indexes to
// names unique in the program, which survive merging and renumbering.
func (s *scheduler) nameIndirect(k *Kernel) {
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Access == nil || len(in.Access.Indirect) == 0 {
				continue
			}
			m := map[string]sym.Expr{}
			for _, t := range in.Access.Indirect {
				m["tmp"+itoa(t.ID)] = sym.Symbol(s.indirectName(t))
			}
			in.Access.Index = in.Access.Index.Subst(m)
		}
	}
}

func (s *scheduler) indirectName(t *Instr) string {
	name, ok := s.indName[t]
	if !ok {
		name = "ind" + itoa(len(s.indName))
		s.indName[t] = name
	}
	return name
}

// replaceIndirect points an access at replacement instructions, renaming
// their symbols in the index along. The list is copied before it changes:
// lowering may give a load and a store one list (scatter_add's
// read-modify-write), and the other access must still name its own tmps.
func (s *scheduler) replaceIndirect(a *Access, repl map[*Instr]*Instr) {
	copied := false
	for i, t := range a.Indirect {
		r, ok := repl[t]
		if !ok {
			continue
		}
		if !copied {
			a.Indirect, copied = slices.Clone(a.Indirect), true
		}
		a.Index = a.Index.Subst(map[string]sym.Expr{s.indirectName(t): sym.Symbol(s.indirectName(r))})
		a.Indirect[i] = r
	}
}

// ownAccesses gives every load and store of k an Access and Indirect list
// of its own, so that renaming one access (loop variables, indirect
// symbols) never renames another that lowering built from the same parts.
func ownAccesses(k *Kernel) {
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Access != nil {
				a := *in.Access
				a.Indirect = slices.Clone(a.Indirect)
				in.Access = &a
			}
		}
	}
}

// unnameIndirect writes the final "tmp<ID>" names back.
func (s *scheduler) unnameIndirect() {
	for _, k := range s.p.Kernels {
		for _, st := range k.Stages {
			for _, in := range st.Body {
				if in.Access == nil || len(in.Access.Indirect) == 0 {
					continue
				}
				m := map[string]sym.Expr{}
				for _, t := range in.Access.Indirect {
					m[s.indirectName(t)] = sym.Symbol("tmp" + itoa(t.ID))
				}
				in.Access.Index = in.Access.Index.Subst(m)
			}
		}
	}
}
