package lowering

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// What an inlined producer may cost when the consumer runs over more than
// maxInlineRatio times the producer's iterations, i.e. when inlining turns
// one computation per producer element into one per consumer element.
//
// Inductor inlines every pointwise node into its readers whatever the
// broadcast: batch_norm in inference computes 1/sqrt(running_var + eps)
// per element of the NCHW output (torch 2.15 CPU, one fused kernel), which
// costs a vector sqrt and a divide per element and saves a kernel and a
// buffer. kiln does the same for producers whose calls fit a small budget
// (plain arithmetic is free; sqrt, rsqrt, reciprocal and a divide cost one
// each, a few cycles on a vector unit) and keeps maxInlineRatio for
// anything more (exp, log, tanh, pow: tens of cycles each).
//
// A value computed from a reduction's result (LayerNorm's and RMSNorm's
// rsqrt of the per-row variance) is not recomputed at all beyond the
// ratio: fusion already computes it once per row, as a stage of the
// reduction's kernel, so recomputing it per element would save no kernel.

// maxRecomputeCost bounds the cost of the calls recomputed per consumer
// element, summed over every producer inlined into one consumer beyond
// maxInlineRatio (batch_norm's sqrt and reciprocal: 2).
const maxRecomputeCost = 2

// cheapFns cost 1 each in an inlined producer; other calls outside
// plainFns are never recomputed beyond maxInlineRatio. Inductor's own list
// of calls it will not recompute on reuse (ir.py,
// StorageBox.should_realize_on_reuse on CPU: exp, log, log10, log1p, log2,
// sigmoid, tanh) is a subset of those.
var cheapFns = map[string]bool{"sqrt": true, "rsqrt": true, "reciprocal": true, "truediv": true}

// recomputeCost is the cost of the producer's calls per element (0 for
// plain arithmetic) and the first call that is neither plain nor cheap,
// which no budget covers.
func recomputeCost(prod *Kernel) (cost int, heavy string) {
	for _, in := range prod.Stages[0].Body {
		switch {
		case in.Op != OpCall || plainFns[in.Fn]:
		case cheapFns[in.Fn]:
			cost++
		default:
			return cost, in.Fn
		}
	}
	return cost, ""
}

// withinRatio: the consumer runs at most maxInlineRatio times as many
// iterations as the producer (exactly as many when sizes are symbolic).
func withinRatio(prod, k *Kernel) bool {
	a, b := product(prod.Outer), product(k.Outer)
	na, okA := a.Const()
	nb, okB := b.Const()
	if okA && okB {
		return nb <= maxInlineRatio*max(na, 1)
	}
	return sym.Equal(a, b)
}

// recomputeRefusal says why the producer is not recomputed in consumer k,
// or "".
func (ix *accessIndex) recomputeRefusal(prod, k *Kernel) string {
	cost, heavy := recomputeCost(prod)
	if cost == 0 && heavy == "" || withinRatio(prod, k) {
		return ""
	}
	over := fmt.Sprintf("over %s, more than %d times the producer's %s", sizesString(k.Outer), maxInlineRatio, sizesString(prod.Outer))
	switch {
	case heavy != "":
		return fmt.Sprintf("%s, and the producer calls %s (only sqrt, rsqrt, reciprocal and truediv are recomputed per element)", over, heavy)
	case cost+ix.recomputed[k] > maxRecomputeCost:
		return fmt.Sprintf("%s, and recomputing its %d cheap call(s) would make %d per element of %s (at most %d)",
			over, cost, cost+ix.recomputed[k], k.Name, maxRecomputeCost)
	case ix.fromReduction(prod):
		return over + ", and it reads a reduction's result, which fusion computes once per outer iteration"
	}
	return ""
}

// noteRecompute records that prod was inlined into k, for k's budget.
func (ix *accessIndex) noteRecompute(prod, k *Kernel) {
	cost, _ := recomputeCost(prod)
	if cost == 0 || withinRatio(prod, k) {
		return // most inlined producers: plain arithmetic
	}
	if ix.recomputed == nil {
		ix.recomputed = map[*Kernel]int{}
	}
	ix.recomputed[k] += cost
}

// fromReduction: a buffer the producer loads is written by a kernel with a
// reduction loop, or derives from one through other kernels (extern
// results count as inputs: nothing fuses into them).
func (ix *accessIndex) fromReduction(prod *Kernel) bool {
	for _, in := range prod.Stages[0].Body {
		if in.Op == OpLoad && ix.reducedBuffer(in.Access.Buffer) {
			return true
		}
	}
	return false
}

func (ix *accessIndex) reducedBuffer(b *Buffer) bool {
	if v, ok := ix.reduced[b]; ok {
		return v
	}
	if ix.reduced == nil {
		ix.reduced = map[*Buffer]bool{}
	}
	ix.reduced[b] = false // a buffer read before it is written ends the walk
	v := false
	for _, w := range ix.writers.list[b] {
		if v = w.Extern == nil && kernelReduces(ix, w); v {
			break
		}
	}
	ix.reduced[b] = v
	return v
}

// kernelReduces: k has a reduction loop or loads a buffer that derives
// from one.
func kernelReduces(ix *accessIndex, k *Kernel) bool {
	for _, st := range k.Stages {
		if len(st.Reduce) > 0 {
			return true
		}
	}
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == OpLoad && ix.reducedBuffer(in.Access.Buffer) {
				return true
			}
		}
	}
	return false
}
