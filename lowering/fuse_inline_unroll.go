package lowering

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Small reductions unrolled, as Inductor does: ir.py Reduction.create
// turns a reduction over fewer than config.unroll_reductions_threshold (8)
// elements whose result is not a single element (on the CPU) into a
// Pointwise node that combines its loads one by one, and that node, like
// any pointwise one, is computed inside its reader. x.sum(2).amax(1) over
// 4x5x6 is one Inductor kernel: the six-element sums are the amax's
// prologue.
//
// kiln's stages hold one reduction level, and fusion joins a reduction
// with a later one only over the same outer sizes, so a small reduction
// read inside another reduction's loop over other outer sizes, directly
// or through pointwise kernels ((x.sum(2) + 1).amax(1)), stays a kernel
// of its own. Only there does kiln unroll it: its loop becomes
// straight-line code, and its reader either takes it as a pointwise
// producer (fusion) or computes it at each element it reads (inlining,
// past maxInlineLoads: Inductor inlines a pointwise node read once
// whatever its loads). A small reduction read anywhere else keeps its
// loop, where fusion already joins it with its epilogue as one kernel
// (x - x.sum(1, keepdim=True)); unrolling it there would only trade one
// kernel for another. When some reader can neither fuse nor inline the
// unrolled body, the reduction is left as it was, so unrolling replaces
// a kernel by at most one.

const (
	// unrollReductionThreshold is Inductor's unroll_reductions_threshold:
	// reductions over fewer elements unroll.
	unrollReductionThreshold = 8
	// maxUnrollInstrs bounds the unrolled body (stores excluded).
	maxUnrollInstrs = 64
)

// unrollFns combine two values as a reduction's combining op does
// (maximum and minimum propagate NaN, as ReduceMax and ReduceMin).
var unrollFns = map[ReduceOp]string{
	ReduceSum: "add", ReduceProd: "mul", ReduceMax: "maximum", ReduceMin: "minimum",
	ReduceAny: "logical_or", ReduceAll: "logical_and",
}

// unrollSmallReduction unrolls k, a small reduction whose every read is
// inside the reduction loop of a kernel over other outer sizes (directly
// or through pointwise kernels), and inlines it where fusion will not
// take it. It reports whether k was
// unrolled (and may now be gone).
func unrollSmallReduction(p *Program, ix *accessIndex, k *Kernel, pinned map[*Buffer]bool) bool {
	n, reduces, ok := smallReduction(k)
	if !ok {
		return false
	}
	last := k.Stages[len(k.Stages)-1].Body
	st := last[len(last)-1]
	b := st.Access.Buffer
	if b.Kind != BufIntermediate || pinned[b] || st.Access.DType != b.DType || !sym.Equal(st.Access.Index, rowMajorIndex(k.Outer)) ||
		!readInOtherLoops(ix, k, b) {
		return false
	}
	saved := k.Stages
	k.Stages = unrolledStages(k, reduces)
	st = k.Stages[0].Body[len(k.Stages[0].Body)-1] // the store's copy
	sites, all, refused, ok := inlineSites(ix, k, b, st, true)
	if !ok || len(refused) > 0 || len(sites) > maxInlineSites {
		k.Stages = saved
		return false
	}
	var into []string
	for _, s := range sites {
		inlineAt(k, st, s, ix.memo.at(k, s))
		ix.addKernel(s.k, k)
		into = append(into, s.k.Name)
	}
	msg := fmt.Sprintf("unrolled %s (%s): a reduction over %d elements (fewer than %d) read, directly or through pointwise kernels, only inside the reduction loops of kernels over other outer sizes",
		k.Name, kernelOrigin(k), n, unrollReductionThreshold)
	if len(sites) > 0 {
		msg += fmt.Sprintf("; inlined into %v", slices.Compact(into))
	}
	p.Remarks = append(p.Remarks, msg)
	if len(sites) == all {
		ix.gone[k] = true
	}
	return true
}

// readInOtherLoops: b, written by k, is read only by later kernels, each
// time inside a reduction loop of a kernel whose outer sizes differ from
// k's (so no fusion makes them stages of one kernel), or by a pointwise
// kernel whose results are in turn read only so, up to
// maxUnrollChain kernels deep ((x.sum(2) + 1).amax(1): the add is the
// amax's prologue, and the unrolled sum fuses with it).
func readInOtherLoops(ix *accessIndex, k *Kernel, b *Buffer) bool {
	return readsEndInLoops(ix, k, b, k.Outer, maxUnrollChain)
}

// maxUnrollChain bounds the pointwise kernels between a small reduction
// and the reduction loop that reads it.
const maxUnrollChain = 3

func readsEndInLoops(ix *accessIndex, k *Kernel, b *Buffer, outer []sym.Expr, depth int) bool {
	reads := 0
	for _, c := range ix.by.list[b] {
		if c == k || ix.gone[c] {
			continue
		}
		if c.Extern != nil || ix.pos[c] < ix.pos[k] {
			return false
		}
		pointwise := c.Kind() == KernelPointwise
		for _, s := range c.Stages {
			for _, in := range s.Body {
				switch {
				case in.Access == nil || in.Access.Buffer != b:
				case in.Op != OpLoad:
					return false
				case pointwise:
					reads++
				case len(s.Reduce) == 0 || slices.EqualFunc(c.Outer, outer, sym.Equal):
					return false
				default:
					reads++
				}
			}
		}
		if pointwise && (depth == 0 || !pointwiseReadsEndInLoops(ix, c, outer, depth-1)) {
			return false
		}
	}
	return reads > 0
}

// pointwiseReadsEndInLoops: every buffer the pointwise kernel c stores is
// an intermediate that readsEndInLoops accepts.
func pointwiseReadsEndInLoops(ix *accessIndex, c *Kernel, outer []sym.Expr, depth int) bool {
	for _, s := range c.Stages {
		for _, in := range s.Body {
			if in.Op != OpStore {
				continue
			}
			if b := in.Access.Buffer; b.Kind != BufIntermediate || !readsEndInLoops(ix, c, b, outer, depth) {
				return false
			}
		}
	}
	return true
}

// smallReduction: k is a reduction that unrolls: reduce stages over the
// same constant sizes with fewer than unrollReductionThreshold elements n,
// each followed by a stage without a loop (a variance's mean, then its sum
// of squares: ATen's two-pass var, which Inductor unrolls as well); the
// last one stores one buffer last; outer sizes not all 1, no indirect
// access, check or scan. reduces are the stages' OpReduces, one a stage.
// The checks that reject most kernels come first: this runs on every
// kernel inlining does not take.
func smallReduction(k *Kernel) (n int64, reduces []*Instr, ok bool) {
	if k.Extern != nil || k.Serial || len(k.Stages) < 2 || len(k.Stages)%2 != 0 || len(k.Stages[0].Reduce) == 0 {
		return 0, nil, false
	}
	ranges := k.Stages[0].Reduce
	n = 1
	for _, e := range ranges {
		c, isConst := e.Const()
		if !isConst || c < 1 {
			return 0, nil, false
		}
		n *= c
	}
	if n >= unrollReductionThreshold {
		return 0, nil, false
	}
	size := 0
	for i, st := range k.Stages {
		switch {
		case i%2 == 1 && len(st.Reduce) > 0, i%2 == 0 && !sym.EqualLists(st.Reduce, ranges):
			return 0, nil, false
		case i%2 == 0:
			size += int(n) * (len(st.Body) - 1)
		default:
			size += len(st.Body)
		}
	}
	if size > maxUnrollInstrs {
		return 0, nil, false
	}
	if m, isConst := product(k.Outer).Const(); isConst && m == 1 {
		return 0, nil, false // Inductor's CPU backend keeps a reduction to one element
	}
	reduces, ok = unrollableBody(k.Stages)
	return n, reduces, ok
}

// unrolledStages returns k's reduction (smallReduction's) as one
// outer-level stage, its loops unrolled: each reduce stage's body once per
// element of the reduced ranges (row-major), the values combined left to
// right as Inductor's _unroll_reduction_fn does, then the stage after it.
func unrolledStages(k *Kernel, reduces []*Instr) []*Stage {
	next := nextInstrID(k)
	fresh := func(c Instr) *Instr {
		c.ID, next = next, next+1
		return &c
	}
	var body []*Instr
	done := map[*Instr]*Instr{} // values of earlier stages, as unrolled
	for i, st := range k.Stages {
		if i%2 == 1 {
			for _, in := range st.Body {
				c := *in // keeps its ID: the unrolled copies took fresh ones
				c.Args = make([]*Instr, len(in.Args))
				for j, a := range in.Args {
					c.Args[j] = done[a]
				}
				if in.Access != nil {
					a := *in.Access
					c.Access = &a
				}
				done[in] = &c
				body = append(body, &c)
			}
			continue
		}
		reduce := reduces[i/2]
		var acc *Instr
		for _, at := range reduceElements(st.Reduce) {
			clones := maps.Clone(done)
			for _, in := range st.Body {
				if in == reduce {
					v := clones[in.Args[0]]
					if v.DType != in.DType {
						v = fresh(Instr{Op: OpCast, DType: in.DType, Args: []*Instr{v}})
						body = append(body, v)
					}
					if acc != nil {
						v = fresh(Instr{Op: OpCall, Fn: unrollFns[in.Reduce], DType: in.DType, Args: []*Instr{acc, v}})
						body = append(body, v)
					}
					acc = v
					continue
				}
				c := fresh(*cloneMoved(in, clones, func(e sym.Expr) sym.Expr { return e.Subst(at) }))
				clones[in] = c
				body = append(body, c)
			}
		}
		done[reduce] = acc
	}
	return []*Stage{{Body: body}}
}

// unrollableBody returns each reduce stage's one OpReduce when the stages
// unroll: a combining op unrollFns has, direct loads only, no store,
// check or scan but exactly one store, the last instruction of the last
// stage.
func unrollableBody(stages []*Stage) ([]*Instr, bool) {
	var reduces []*Instr
	for i, st := range stages {
		var reduce *Instr
		for j, in := range st.Body {
			switch {
			case in.Op == OpReduce:
				if i%2 == 1 || reduce != nil || unrollFns[in.Reduce] == "" {
					return nil, false
				}
				reduce = in
			case in.Op == OpStore:
				if i != len(stages)-1 || j != len(st.Body)-1 {
					return nil, false
				}
			case in.Op == OpCheck || in.Op == OpScan:
				return nil, false
			case in.Access != nil && len(in.Access.Indirect) > 0:
				return nil, false
			}
		}
		if i%2 == 0 {
			if reduce == nil {
				return nil, false
			}
			reduces = append(reduces, reduce)
		}
	}
	last := stages[len(stages)-1].Body
	if len(last) == 0 || last[len(last)-1].Op != OpStore {
		return nil, false
	}
	return reduces, true
}

// reduceElements lists the substitutions of constants for r0, r1, ...
// over constant sizes, in row-major order.
func reduceElements(sizes []sym.Expr) []map[string]sym.Expr {
	out := []map[string]sym.Expr{{}}
	for i, s := range sizes {
		n, _ := s.Const()
		var next []map[string]sym.Expr
		for _, m := range out {
			for v := range n {
				c := make(map[string]sym.Expr, len(m)+1)
				for k, e := range m {
					c[k] = e
				}
				c[ReduceVar(i)] = sym.Const(v)
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}
