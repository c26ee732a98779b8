package lowering

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Inlining cheap pointwise producers, as Inductor computes a Pointwise
// node inside each consumer instead of realizing it: arange read through
// a transpose and a select, y * 2 read through a slice. Fusion needs the
// two kernels' loop nests to match (after reordering); inlining does not:
// the consumer recomputes the producer's value from the producer's
// inputs at the element it reads, whose loop indices are recovered from
// the flat offset (offset // stride % size, simplified with the
// consumer's loop ranges). It runs before fusion and only where fusion
// cannot join the two (no order of the consumer's loops reads the element
// the producer stores in the same iteration), so that what fusion does
// on matching spaces is unchanged.

const (
	// maxInlineInstrs bounds the producer's body (store excluded): only
	// cheap values are recomputed.
	maxInlineInstrs = 16
	// maxInlineLoads bounds the producer's own loads (memory traffic the
	// consumer takes on).
	maxInlineLoads = 2
	// maxInlineSites bounds the loads one producer that reads memory is
	// inlined into. One that reads none (index arithmetic over arange: the
	// source rows and columns of a bilinear resize, read by every corner;
	// arithmeticOnly) inlines anywhere, as Inductor leaves a Pointwise unrealized however
	// many users it has unless it reads more than realize_reads_threshold
	// buffers (ir.py TensorBox.mark_reuse).
	maxInlineSites = 4
	// maxInlineRatio bounds the consumer's space against the producer's
	// when the producer calls anything but plain arithmetic: a value
	// broadcast over a larger space (LayerNorm's rsqrt over a row) stays
	// computed once per element and is fused instead. Plain arithmetic
	// (arange * 2 scattered into a column) is inlined whatever the ratio,
	// as Inductor does: a few operations per element cost less than a
	// kernel launch and a buffer; so are a few cheap calls (sqrt, divide)
	// on values no reduction computes (fuse_recompute.go).
	maxInlineRatio = 8
)

// plainFns are the calls an inlined producer may repeat at any ratio.
var plainFns = map[string]bool{
	"add": true, "sub": true, "mul": true, "neg": true, "abs": true, "where": true,
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"logical_and": true, "logical_or": true, "logical_not": true, "maximum": true, "minimum": true,
	// a mask's & and | (HF's sdpa_mask: bitwise_and of bool tensors)
	"bitwise_and": true, "bitwise_or": true, "bitwise_xor": true, "bitwise_not": true,
}

// inlineSite is one load of a producer's buffer.
type inlineSite struct {
	k  *Kernel
	st *Stage
	ld *Instr
}

// inlineCheap inlines every cheap pointwise producer into the consumers
// whose iteration space it cannot fuse with, and drops producers nobody
// reads any more. It appends a remark per inlined producer.
func inlineCheap(p *Program) {
	pinned := map[*Buffer]bool{}
	for _, r := range p.Outputs {
		if r.Buffer != nil {
			pinned[r.Buffer] = true
		}
	}
	for _, k := range p.Kernels {
		foldAffineIndices(k) // fuse_affine.go
	}
	ix := newAccessIndex(p)
	arith := arithmeticOnly(p)
	// Last producer first: once a consumer computes it, the producer's own
	// producers are read from the consumer's space, where they may inline.
	// A consumer whose gather became direct once an arange was inlined
	// into it (pos[pos]) is visited again after the walk, and so are the
	// producers it reads: it may be a cheap producer now, and they no
	// longer feed an indirect access.
	folded := map[*Kernel]bool{}
	for i := len(p.Kernels) - 1; i >= 0; i-- {
		inlineOrUnroll(p, ix, p.Kernels[i], pinned, arith, folded)
	}
	for len(folded) > 0 {
		again := revisits(ix, folded)
		folded = map[*Kernel]bool{}
		for i := len(p.Kernels) - 1; i >= 0; i-- {
			if k := p.Kernels[i]; again[k] && !ix.gone[k] {
				inlineOrUnroll(p, ix, k, pinned, arith, folded)
			}
		}
	}
	// Dropped at once: a delete per producer moved the rest of the program
	// each time (0.7 s on a 100k-node graph of mutations).
	p.Kernels = slices.DeleteFunc(p.Kernels, func(k *Kernel) bool { return ix.gone[k] })
}

// revisits are the folded kernels and the writers of what they read.
func revisits(ix *accessIndex, folded map[*Kernel]bool) map[*Kernel]bool {
	again := map[*Kernel]bool{}
	for k := range folded {
		again[k] = true
		for _, st := range k.Stages {
			for _, in := range st.Body {
				if in.Op == OpLoad {
					for _, w := range ix.writers.list[in.Access.Buffer] {
						again[w] = true
					}
				}
			}
		}
	}
	return again
}

// inlineOrUnroll inlines k where it is a cheap producer, or unrolls it
// where it is a small reduction. Consumers whose indices fold once k is
// inlined into them are added to folded (when not nil).
func inlineOrUnroll(p *Program, ix *accessIndex, k *Kernel, pinned, arith map[*Buffer]bool, folded map[*Kernel]bool) {
	b, st, ok := cheapProducer(k)
	undo := func() {}
	if !ok {
		// A producer storing a permuted layout (neg of a transposed
		// view) is the same kernel with its loops in storage order.
		if undo, ok = loopsInStoreOrder(k); ok {
			b, st, ok = cheapProducer(k)
		}
	}
	if !ok {
		undo()
		unrollSmallReduction(p, ix, k, pinned) // fuse_inline_unroll.go
		return
	}
	if !inlineProducer(p, ix, k, b, st, pinned, arith, folded) {
		undo()
	}
}

// inlineProducer inlines producer k (buffer b, store st) where inlineSites
// allows and reports whether it did anywhere.
func inlineProducer(p *Program, ix *accessIndex, k *Kernel, b *Buffer, st *Instr, pinned, arith map[*Buffer]bool, folded map[*Kernel]bool) bool {
	{
		if b.Kind != BufIntermediate || pinned[b] {
			return false
		}
		sites, all, refused, ok := inlineSites(ix, k, b, st, false)
		for _, why := range refused {
			p.Remarks = append(p.Remarks, fmt.Sprintf("%s (%s) not inlined: %s", k.Name, kernelOrigin(k), why))
		}
		if !ok || len(sites) == 0 {
			return false
		}
		if len(sites) > maxInlineSites && !arith[b] {
			p.Remarks = append(p.Remarks, fmt.Sprintf("%s (%s) not inlined: read at %d places over other spaces (max %d)",
				k.Name, kernelOrigin(k), len(sites), maxInlineSites))
			return false
		}
		var into []string
		for _, s := range sites {
			inlineAt(k, st, s, ix.memo.at(k, s))
			ix.noteRecompute(k, s.k)
			ix.addKernel(s.k, k) // s.k now also reads what k reads
			into = append(into, s.k.Name)
		}
		into = slices.Compact(into)
		for _, s := range sites { // after every site: folding drops instructions
			if foldAffineIndices(s.k) && folded != nil {
				folded[s.k] = true
			}
		}
		p.Remarks = append(p.Remarks, fmt.Sprintf("inlined %s (%s) into %v: a cheap pointwise producer read over another iteration space",
			k.Name, kernelOrigin(k), into))
		if len(sites) == all {
			ix.gone[k] = true
		}
		return true
	}
}

// loopsInStoreOrder reorders the loops of a one-stage pointwise kernel
// whose one store is a dense layout of its space in another dim order
// (strides a permutation of the row-major ones), so that the store is
// row-major; undo restores the kernel. ok is false, and k unchanged, for
// any other kernel.
func loopsInStoreOrder(k *Kernel) (undo func(), ok bool) {
	if k.Extern != nil || k.Serial || len(k.Stages) != 1 || len(k.Stages[0].Reduce) > 0 || len(k.Outer) < 2 {
		return func() {}, false
	}
	var store *Instr
	for _, in := range k.Stages[0].Body {
		if in.Op == OpStore {
			if store != nil {
				return func() {}, false
			}
			store = in
		}
	}
	if store == nil {
		return func() {}, false
	}
	vars := make([]string, len(k.Outer))
	for i := range vars {
		vars[i] = OuterVar(i)
	}
	coeffs, rest, ok := sym.Linear(store.Access.Index, vars)
	if !ok || !isZero(rest) {
		return func() {}, false
	}
	c := make([]int64, len(coeffs))
	for i, e := range coeffs {
		if c[i], ok = e.Const(); !ok {
			return func() {}, false
		}
	}
	perm := make([]int, len(k.Outer)) // new position j holds old loop perm[j]
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return int(c[b] - c[a]) }) // outermost: largest stride
	if slices.IsSorted(perm) {
		return func() {}, false
	}
	outer := k.Outer // kernels lowered from one shape share its slice: replaced, never written
	k.Outer = make([]sym.Expr, len(outer))
	fwd, back := map[string]sym.Expr{}, map[string]sym.Expr{}
	for j, i := range perm {
		k.Outer[j] = outer[i]
		fwd[OuterVar(i)] = sym.Symbol(OuterVar(j))
		back[OuterVar(j)] = sym.Symbol(OuterVar(i))
	}
	vec := k.Vec
	renameStageVars(k.Stages[0], fwd)
	k.Vec = 1 // the align pass's width was along the old innermost loop
	undo = func() {
		renameStageVars(k.Stages[0], back)
		k.Outer = outer
		k.Vec = vec
	}
	if !sym.Equal(store.Access.Index, rowMajorIndex(k.Outer)) {
		undo()
		return func() {}, false
	}
	return undo, true
}

// arithmeticOnly are the buffers of cheap producers that read no memory
// but other such buffers: values computed from indices alone (arange and
// the arithmetic over it), which inline at any number of sites.
func arithmeticOnly(p *Program) map[*Buffer]bool {
	arith := map[*Buffer]bool{}
	for _, k := range p.Kernels {
		b, _, ok := cheapProducer(k)
		if !ok || b.Kind != BufIntermediate {
			continue
		}
		pure := true
		for _, in := range k.Stages[0].Body {
			if in.Op == OpLoad && !arith[in.Access.Buffer] {
				pure = false
				break
			}
		}
		if pure {
			arith[b] = true
		}
	}
	return arith
}

// cheapProducer: k is one outer-level stage with one direct store of a
// row-major buffer of its own space, no reduce, and a small body. It may
// gather (a load through an index read from a tensor, checked first):
// inlineRefusal keeps its checks where every element is read.
func cheapProducer(k *Kernel) (*Buffer, *Instr, bool) {
	if k.Extern != nil || k.Serial || len(k.Stages) != 1 || len(k.Stages[0].Reduce) > 0 {
		return nil, nil, false
	}
	var store *Instr
	loads := 0
	for _, in := range k.Stages[0].Body {
		switch {
		case in.Op == OpReduce || in.Op == OpScan:
			return nil, nil, false
		case in.Op == OpStore && len(in.Access.Indirect) > 0:
			return nil, nil, false
		case in.Op == OpLoad:
			loads++
		case in.Op == OpStore:
			if store != nil {
				return nil, nil, false
			}
			store = in
		}
	}
	if store == nil || loads > maxInlineLoads || len(k.Stages[0].Body)-1 > maxInlineInstrs {
		return nil, nil, false
	}
	if !sym.Equal(store.Access.Index, rowMajorIndex(k.Outer)) || store.Access.DType != store.Access.Buffer.DType {
		return nil, nil, false
	}
	return store.Access.Buffer, store, true
}

// rowMajorIndex is Σ x_i · Π_{j>i} size_j.
// FlatReduceIndex is the row-major position of (r0, r1, ...) in the
// reduction ranges sizes: r0·size1·… + … + r(n-1) (what argmax returns; a
// stash's slot).
func FlatReduceIndex(sizes []sym.Expr) sym.Expr {
	idx := sym.Const(0)
	for i, s := range sizes {
		idx = sym.Add(sym.Mul(idx, s), sym.Symbol(ReduceVar(i)))
	}
	return idx
}

func rowMajorIndex(sizes []sym.Expr) sym.Expr {
	idx, stride := sym.Const(0), sym.Const(1)
	for i := len(sizes) - 1; i >= 0; i-- {
		idx = sym.Add(idx, sym.Mul(stride, sym.Symbol(OuterVar(i))))
		stride = sym.Mul(stride, sizes[i])
	}
	return idx
}

// inlineSites are the loads of b (written only by kernel i, store st)
// that inlining should replace: in later kernels whose spaces hold other
// sizes. all counts every load of b; ok is false when b is read or
// written in a way inlining cannot follow (an extern reads it, another
// kernel writes it or a buffer the producer reads, a load changes type).
// An unrolled reduction may be inlined inside a reduction loop.
func inlineSites(ix *accessIndex, prod *Kernel, b *Buffer, st *Instr, unrolled bool) (sites []inlineSite, all int, refused []string, ok bool) {
	i := ix.pos[prod]
	reads := map[*Buffer]bool{}
	for _, in := range prod.Stages[0].Body {
		if in.Op == OpLoad {
			reads[in.Access.Buffer] = true
		}
	}
	// Only kernels that touch b or a buffer the producer reads can answer;
	// visiting them in program order keeps the result of a full scan.
	for _, k := range ix.touching(b, reads) {
		j := ix.pos[k]
		if k.Extern != nil {
			if k.Extern.Writes(b) || slices.ContainsFunc(k.Extern.Args, func(a Operand) bool { return a.Buffer == b }) {
				return nil, 0, nil, false
			}
			if j > i && slices.ContainsFunc(k.Extern.Written(), func(w *Buffer) bool { return reads[w] }) {
				return nil, 0, nil, false
			}
			continue
		}
		for _, s := range k.Stages {
			for _, in := range s.Body {
				if in.Access == nil {
					continue
				}
				switch {
				case in.Op == OpStore && in.Access.Buffer == b && in != st:
					return nil, 0, nil, false
				case in.Op == OpStore && j > i && reads[in.Access.Buffer]:
					return nil, 0, nil, false // the producer's inputs change after it ran
				case in.Op == OpLoad && in.Access.Buffer == b:
					all++
					if j <= i || len(in.Access.Indirect) > 0 || in.Access.DType != st.Access.DType {
						return nil, 0, nil, false
					}
					if ix.memo.fusableAt(prod, k, s, st, in) {
						continue // fusion joins them
					}
					if why := inlineRefusal(ix, prod, k, s, in, unrolled); why != "" {
						refused = append(refused, fmt.Sprintf("%s reads it %s", k.Name, why))
						continue
					}
					sites = append(sites, inlineSite{k, s, in})
				}
			}
		}
	}
	return sites, all, refused, true
}

// accessIndex maps each buffer to the kernels that access it, and to the
// kernels that write it, so that inlineSites visits a handful of kernels
// instead of the whole program per producer (quadratic on 10^4 kernels).
// Of the buffers a producer reads only the writers matter (a read-only
// input is read by every layer: listing its readers for each producer was
// quadratic again, 34 s on a 100k-node symbolic transformer). Sets only
// grow (inlining adds loads to consumers); a kernel in a set is scanned in
// full, so a stale member costs time, never a wrong answer.
type accessIndex struct {
	pos     map[*Kernel]int // program order, fixed before inlining starts
	by      kernelSets      // buffer → the kernels that load or store it
	writers kernelSets      // buffer → the kernels that store it
	gone    map[*Kernel]bool
	// The recompute policy's state (fuse_recompute.go), made on first use.
	recomputed map[*Kernel]int  // cost inlined into a consumer beyond maxInlineRatio
	reduced    map[*Buffer]bool // the buffer derives from a reduction
	memo       *indexMemo
}

// kernelSets lists, per buffer, kernels in the order added, each once.
// Most buffers have a few kernels, found by a scan; only long lists also
// go in one map of pairs (a map per buffer was 64 MB on a 155k-node graph).
type kernelSets struct {
	list map[*Buffer][]*Kernel
	long map[bufferKernel]bool // members of the lists longer than shortSet
}

type bufferKernel struct {
	b *Buffer
	k *Kernel
}

// shortSet is the longest list searched by a scan.
const shortSet = 8

func (ks *kernelSets) add(b *Buffer, k *Kernel) {
	if b == nil {
		return
	}
	l := ks.list[b]
	if len(l) <= shortSet && slices.Contains(l, k) || len(l) > shortSet && ks.long[bufferKernel{b, k}] {
		return
	}
	l = append(l, k)
	ks.list[b] = l
	switch {
	case len(l) == shortSet+1:
		for _, m := range l {
			ks.long[bufferKernel{b, m}] = true
		}
	case len(l) > shortSet+1:
		ks.long[bufferKernel{b, k}] = true
	}
}

func newKernelSets() kernelSets {
	return kernelSets{list: map[*Buffer][]*Kernel{}, long: map[bufferKernel]bool{}}
}

func newAccessIndex(p *Program) *accessIndex {
	ix := &accessIndex{pos: make(map[*Kernel]int, len(p.Kernels)), by: newKernelSets(), writers: newKernelSets(), gone: map[*Kernel]bool{}, memo: newIndexMemo()}
	for j, k := range p.Kernels {
		ix.pos[k] = j
		ix.addKernel(k, k)
	}
	return ix
}

// addKernel records k as touching every buffer kernel src accesses: its
// own accesses (k == src, stores recorded as writes too), or an inlined
// producer's, whose loads k now makes (its store became a value of k's).
func (ix *accessIndex) addKernel(k, src *Kernel) {
	own := k == src
	if src.Extern != nil {
		for _, w := range src.Extern.Written() {
			ix.by.add(w, k)
			if own {
				ix.writers.add(w, k)
			}
		}
		for _, a := range src.Extern.Args {
			ix.by.add(a.Buffer, k)
		}
		return
	}
	for _, s := range src.Stages {
		for _, in := range s.Body {
			if in.Access == nil {
				continue
			}
			ix.by.add(in.Access.Buffer, k)
			if own && in.Op == OpStore {
				ix.writers.add(in.Access.Buffer, k)
			}
		}
	}
}

// touching lists, in program order, the live kernels that access b or
// write a buffer of reads: every kernel that can change inlineSites'
// answer for a producer of b reading reads.
func (ix *accessIndex) touching(b *Buffer, reads map[*Buffer]bool) []*Kernel {
	set := map[*Kernel]bool{}
	var out []*Kernel
	collect := func(ks []*Kernel) {
		for _, k := range ks {
			if !set[k] && !ix.gone[k] {
				set[k] = true
				out = append(out, k)
			}
		}
	}
	collect(ix.by.list[b])
	for r := range reads {
		collect(ix.writers.list[r])
	}
	slices.SortFunc(out, func(x, y *Kernel) int { return ix.pos[x] - ix.pos[y] })
	return out
}

// inlineRefusal says why the load ld of a producer's buffer in stage s of
// k is not replaced by the producer's body, or "".
func inlineRefusal(ix *accessIndex, prod, k *Kernel, s *Stage, ld *Instr, unrolled bool) string {
	gather := gathers(prod)
	switch {
	case len(s.Reduce) > 0 && !unrolled && !gather && !noMoreThanOnce(prod, k, s):
		return "inside a reduction loop, which runs over more elements than the producer stores"
	case namedIndirect(k, ld) && (unrolled || !gather):
		return "as an indirect index"
	case hasChecks(prod) && !readsEveryElement(ix.memo.at(prod, inlineSite{k, s, ld}), prod, k, s):
		return "at some of its elements, and it checks indices (an unread element's bad index must still raise)"
	}
	return ix.recomputeRefusal(prod, k)
}

// gathers: prod loads through an index it reads from a tensor (an
// embedding row, a gathered token type id). Inlined, the gather costs the
// consumer a load more per read, as the realized buffer's load did, so it
// inlines inside a reduction loop whatever the loop's length and where
// its value is itself an index, as Inductor inlines an embedding into a
// LayerNorm.
func gathers(prod *Kernel) bool {
	return slices.ContainsFunc(prod.Stages[0].Body, func(in *Instr) bool {
		return in.Op == OpLoad && len(in.Access.Indirect) > 0
	})
}

func hasChecks(prod *Kernel) bool {
	return slices.ContainsFunc(prod.Stages[0].Body, func(in *Instr) bool { return in.Op == OpCheck })
}

// readsEveryElement: at the site, each of the producer's loop variables
// is a distinct loop variable of the consumer over the same size (or the
// producer's range is 1), so the consumer reads, and checks, every
// element the producer would have.
func readsEveryElement(at *producerAt, prod, k *Kernel, s *Stage) bool {
	sizes := map[string]sym.Expr{}
	for i, e := range k.Outer {
		sizes[OuterVar(i)] = e
	}
	for i, e := range s.Reduce {
		sizes[ReduceVar(i)] = e
	}
	seen := map[string]bool{}
	for i, size := range prod.Outer {
		if isUnitSize(size) {
			continue
		}
		e := at.vars[OuterVar(i)]
		if !e.IsSymbol() || seen[e.Name()] || !sym.Equal(sizes[e.Name()], size) {
			return false
		}
		seen[e.Name()] = true
	}
	return true
}

// noMoreThanOnce: stage s of k runs no more iterations (outer × reduce)
// than prod stores elements, so inlining prod into the reduction loop
// computes each value about once (a sum over a view of a roll: each
// element read once), not once per reduction step of a broadcast value.
func noMoreThanOnce(prod, k *Kernel, s *Stage) bool {
	p, c := product(prod.Outer), sym.Mul(product(k.Outer), product(s.Reduce))
	np, okP := p.Const()
	nc, okC := c.Const()
	if okP && okC {
		return nc <= np
	}
	return sym.Equal(p, c)
}

// namedIndirect: ld is an indirect index of an access of k (its tmp name
// is in the index expression), which inlining would have to rename.
func namedIndirect(k *Kernel, ld *Instr) bool {
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Access != nil && slices.Contains(in.Access.Indirect, ld) {
				return true
			}
		}
	}
	return false
}

// fusableAt: some order of the consumer's loops (outer and the stage's
// reduce; size-1 ranges aside) runs over the producer's sizes and reads
// the element the producer stores in the same iteration, so fusion can
// join them; any other read (a broadcast, a view, a diagonal) inlines.
func fusableAt(prod, k *Kernel, s *Stage, store, ld *Instr) bool {
	if len(s.Reduce) == 0 && slices.EqualFunc(prod.Outer, k.Outer, sym.Equal) && sym.Equal(store.Access.Index, ld.Access.Index) {
		return true // the identity order, first of the reorderings: most loads, found without building maps
	}
	pv, psz, pz := liveVars(prod.Outer, nil)
	cv, csz, cz := liveVars(k.Outer, s.Reduce)
	st, at := store.Access.Index.Subst(pz), ld.Access.Index.Subst(cz)
	for _, p := range reorderings(psz, csz) {
		m := map[string]sym.Expr{}
		for i, j := range p {
			m[pv[i]] = sym.Symbol(cv[j])
		}
		if sym.Equal(st.Subst(m), at) {
			return true
		}
	}
	return false
}

// liveVars are the names and sizes of the loop variables of ranges
// outer (x) and reduce (r) larger than 1, and the substitution of 0 for
// the others.
func liveVars(outer, reduce []sym.Expr) (names []string, sizes []sym.Expr, zero map[string]sym.Expr) {
	zero = map[string]sym.Expr{}
	add := func(n string, e sym.Expr) {
		if isUnitSize(e) {
			zero[n] = sym.Const(0)
			return
		}
		names, sizes = append(names, n), append(sizes, e)
	}
	for i, e := range outer {
		add(OuterVar(i), e)
	}
	for i, e := range reduce {
		add(ReduceVar(i), e)
	}
	return names, sizes, zero
}

func product(sizes []sym.Expr) sym.Expr {
	n := sym.Const(1)
	for _, e := range sizes {
		n = sym.Mul(n, e)
	}
	return n
}

// inlineAt replaces the load s.ld by a copy of the producer's body
// (store st excluded) computed at the element the load reads (at).
func inlineAt(prod *Kernel, st *Instr, s inlineSite, at *producerAt) {
	next := nextInstrID(s.k)
	clones := map[*Instr]*Instr{}
	var body []*Instr
	for _, in := range prod.Stages[0].Body {
		if in == st {
			continue
		}
		c := cloneMoved(in, clones, at.move)
		c.ID, next = next, next+1
		clones[in] = c
		body = append(body, c)
	}
	v := clones[st.Args[0]]
	i := slices.Index(s.st.Body, s.ld)
	s.st.Body = slices.Insert(slices.Delete(s.st.Body, i, i+1), i, body...)
	for _, x := range s.k.Stages {
		for _, in := range x.Body {
			for i, a := range in.Args {
				if a == s.ld {
					in.Args[i] = v
				}
			}
			if in.Access != nil && slices.Contains(in.Access.Indirect, s.ld) { // the load was an index (a gathered one)
				renameIndirect(in.Access, map[*Instr]*Instr{s.ld: v})
			}
		}
	}
}

// renameIndirect points access a's indirect values at their replacements
// in m, the "tmp<ID>" symbols of its index along; the list is copied (an
// access may share it with another).
func renameIndirect(a *Access, m map[*Instr]*Instr) {
	names := map[string]sym.Expr{}
	a.Indirect = slices.Clone(a.Indirect)
	for i, t := range a.Indirect {
		if r, ok := m[t]; ok {
			names["tmp"+itoa(t.ID)] = sym.Symbol("tmp" + itoa(r.ID))
			a.Indirect[i] = r
		}
	}
	a.Index = a.Index.Subst(names)
}

// nextInstrID is an instruction ID k does not use yet.
func nextInstrID(k *Kernel) int {
	next := 0
	for _, s := range k.Stages {
		for _, in := range s.Body {
			next = max(next, in.ID+1)
		}
	}
	return next
}

// cloneMoved copies in (its ID too) with its arguments taken from clones
// and the index it loads or computes moved by move: one instruction of a
// body computed at another element (inlined, or an unrolled reduction's
// step).
func cloneMoved(in *Instr, clones map[*Instr]*Instr, move func(sym.Expr) sym.Expr) *Instr {
	c := *in
	c.Args = make([]*Instr, len(in.Args))
	for i, a := range in.Args {
		c.Args[i] = clones[a]
	}
	switch in.Op {
	case OpLoad:
		a := *in.Access
		a.Index = move(a.Index)
		c.Access = &a
		if len(a.Indirect) > 0 { // a gather: its index values are clones too
			renameIndirect(c.Access, clones)
		}
	case OpIndex:
		c.Expr = move(in.Expr)
	}
	return &c
}

// producerIndex maps the producer's loop variables to the element at the
// flat offset e of its row-major buffer: x_i = e // stride_i % size_i.
func producerIndex(sizes []sym.Expr, e sym.Expr, f *sym.Facts) map[string]sym.Expr {
	m := map[string]sym.Expr{}
	stride := sym.Const(1)
	for i := len(sizes) - 1; i >= 0; i-- {
		x := sym.FloorDiv(e, stride)
		if i > 0 {
			x = sym.Mod(x, sizes[i])
		}
		m[OuterVar(i)] = f.Simplify(x)
		stride = sym.Mul(stride, sizes[i])
	}
	return m
}

// loopFacts are the ranges of the loop variables of outer (x) and
// reduce (r) ranges (constant sizes), to simplify index expressions with.
func loopFacts(outer, reduce []sym.Expr) *sym.Facts {
	f := &sym.Facts{}
	for i, e := range outer {
		if n, ok := e.Const(); ok {
			f.SetRange(OuterVar(i), 0, n-1)
		}
	}
	for i, e := range reduce {
		if n, ok := e.Const(); ok {
			f.SetRange(ReduceVar(i), 0, n-1)
		}
	}
	return f
}
