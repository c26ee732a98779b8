package golang

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// Values a reduction kernel computes twice. Softmax's second stage sums
// exp(x - max) over a row, its third stage divides exp(x - max) by that
// sum: fusion keeps each stage a function of the kernel's inputs, so the
// exp is computed twice per element. Inductor's C++ stores the first
// stage's values in a row-sized local buffer and reads them back in the
// last loop. stashRecomputed does the same on a copy of the kernel: an
// expensive value (one with a transcendental or a division in it) that a
// later stage computes again, from the same loads at the same indices,
// over the same reduction ranges, is stored by the earlier stage into a
// scratch buffer indexed by the flat reduction index and loaded by the
// later one; the loads and arithmetic only it used go away. The value is
// the same bits either way, so results do not change.

// cheapFns are computed again rather than stashed: a store and a load
// cost as much.
var cheapFns = map[string]bool{
	"add": true, "sub": true, "mul": true, "neg": true, "abs": true, "maximum": true, "minimum": true,
	"where": true, "eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"logical_and": true, "logical_or": true, "logical_not": true, "bitwise_and": true, "bitwise_or": true,
	"bitwise_xor": true, "bitwise_not": true,
}

// scratchBase numbers scratch buffers apart from the program's.
const scratchBase = 1 << 30

// stashRecomputed returns k with recomputed values stashed (a copy; k is
// not changed) and the scratch buffers it introduced, each with the
// stage whose reduction ranges size it; k itself when nothing is.
func stashRecomputed(k *lowering.Kernel) (*lowering.Kernel, map[*lowering.Buffer]*lowering.Stage) {
	if len(k.Stages) < 2 || k.Extern != nil {
		return k, nil
	}
	written := map[*lowering.Buffer]bool{}
	maxID := 0
	for _, s := range k.Stages {
		for _, in := range s.Body {
			maxID = max(maxID, in.ID)
			if in.Op == lowering.OpStore {
				written[in.Access.Buffer] = true
			}
		}
	}
	type found struct {
		src    *lowering.Instr // in the earlier stage
		js, ks int             // stage indexes
		later  *lowering.Instr // the recomputation
	}
	var plan []found
	taken := map[*lowering.Instr]bool{}
	kk := newKeyer(written)
	for ks := 1; ks < len(k.Stages); ks++ {
		st := k.Stages[ks]
		if len(st.Reduce) == 0 || !hasCostlyCall(st) {
			continue
		}
		for js := 0; js < ks; js++ {
			if !sameSizes(k.Stages[js].Reduce, st.Reduce) {
				continue
			}
			earlier := map[int]*lowering.Instr{}
			for in, key := range kk.keys(k.Stages[js]) {
				if prev := earlier[key]; prev == nil || in.ID < prev.ID {
					earlier[key] = in
				}
			}
			keys := kk.keys(st)
			matched := func(x *lowering.Instr) bool {
				kx, ok := keys[x]
				return ok && earlier[kx] != nil
			}
			inStage := map[*lowering.Instr]bool{}
			for _, in := range st.Body {
				inStage[in] = true
			}
			for _, in := range st.Body {
				key, ok := keys[in]
				if !ok || taken[in] || !expensive(in, inStage) {
					continue
				}
				src := earlier[key]
				if src == nil || !frontier(in, st, matched) || stashDType(in.DType) == "" {
					continue
				}
				taken[in] = true
				plan = append(plan, found{src, js, ks, in})
			}
		}
	}
	if len(plan) == 0 {
		return k, nil
	}
	// Copy the stages (instructions too: later stages' operands point to
	// the copies) and rewrite the copies.
	cp := *k
	cp.Stages = make([]*lowering.Stage, len(k.Stages))
	remap := map[*lowering.Instr]*lowering.Instr{}
	for i, s := range k.Stages {
		ns := &lowering.Stage{Reduce: s.Reduce, Body: make([]*lowering.Instr, len(s.Body))}
		for j, in := range s.Body {
			c := *in
			ns.Body[j] = &c
			remap[in] = &c
		}
		cp.Stages[i] = ns
	}
	for _, s := range cp.Stages {
		for _, in := range s.Body {
			in.Args = remapAll(in.Args, remap)
			if in.Access != nil && len(in.Access.Indirect) > 0 {
				a := *in.Access
				a.Indirect = remapAll(a.Indirect, remap)
				in.Access = &a
			}
		}
	}
	scratch := map[*lowering.Buffer]*lowering.Stage{}
	for n, f := range plan {
		st := cp.Stages[f.ks]
		buf := &lowering.Buffer{ID: scratchBase + n, Name: fmt.Sprintf("stash%d", n), DType: f.later.DType,
			Size: product(st.Reduce)}
		scratch[buf] = st
		acc := &lowering.Access{Buffer: buf, DType: f.later.DType, Index: lowering.FlatReduceIndex(st.Reduce)}
		maxID++
		store := &lowering.Instr{ID: maxID, Op: lowering.OpStore, DType: f.later.DType,
			Args: []*lowering.Instr{remap[f.src]}, Access: acc}
		js := cp.Stages[f.js]
		js.Body = append(js.Body, store)
		later := remap[f.later]
		*later = lowering.Instr{ID: later.ID, Op: lowering.OpLoad, DType: later.DType, Access: acc}
	}
	dropDead(cp.Stages)
	return &cp, scratch
}

func remapAll(xs []*lowering.Instr, remap map[*lowering.Instr]*lowering.Instr) []*lowering.Instr {
	out := make([]*lowering.Instr, len(xs))
	for i, x := range xs {
		if r := remap[x]; r != nil {
			out[i] = r
		} else {
			out[i] = x
		}
	}
	return out
}

func sameSizes(a, b []sym.Expr) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i].Code() != b[i].Code() {
			return false
		}
	}
	return true
}

// stashDType is the view function for a stashed value's dtype (dtInfos'),
// "" for dtypes not stashed: only the two float registers are.
func stashDType(dt ir.DType) string {
	if dt != ir.F32 && dt != ir.F64 {
		return ""
	}
	return dtInfos[dt].view
}

// hasCostlyCall says whether s computes any function that is not cheap
// arithmetic: without one, nothing in s is worth stashing (most kernels).
func hasCostlyCall(s *lowering.Stage) bool {
	for _, in := range s.Body {
		if in.Op == lowering.OpCall && !cheapFns[in.Fn] {
			return true
		}
	}
	return false
}

// keyer gives each pure in-loop value of a kernel's stages a key that
// equals another stage's key exactly when both compute the same value for
// the same reduction index: loads of buffers the kernel never writes, at
// the same index expression; constants; index values; functions of keyed
// values; and values from before the loop by identity. A key is a number:
// a value's description names its operands by their numbers (hash
// consing), so descriptions stay short however deep the expression.
type keyer struct {
	written map[*lowering.Buffer]bool
	ids     map[string]int                              // description → key
	stages  map[*lowering.Stage]map[*lowering.Instr]int // keys, per stage
	outside map[*lowering.Instr]int                     // values from before a loop, numbered by identity
	buf     []byte                                      // the description being written
}

func newKeyer(written map[*lowering.Buffer]bool) *keyer {
	return &keyer{written: written, ids: map[string]int{}, stages: map[*lowering.Stage]map[*lowering.Instr]int{},
		outside: map[*lowering.Instr]int{}}
}

// keys are s's values' keys, computed once per stage.
func (kk *keyer) keys(s *lowering.Stage) map[*lowering.Instr]int {
	if keys, ok := kk.stages[s]; ok {
		return keys
	}
	keys := map[*lowering.Instr]int{}
	inStage := map[*lowering.Instr]bool{}
	for _, in := range s.Body {
		inStage[in] = true
	}
	for _, in := range s.Body {
		var ok bool
		if kk.buf, ok = kk.describe(kk.buf[:0], in, keys, inStage); !ok {
			continue
		}
		id, ok := kk.ids[string(kk.buf)] // no allocation for a lookup
		if !ok {
			id = len(kk.ids)
			kk.ids[string(kk.buf)] = id
		}
		keys[in] = id
	}
	kk.stages[s] = keys
	return keys
}

// describe appends in's description to b (kk.buf, reused); false for a
// value with no key. Written with appends, not fmt: this ran for every value of
// every multi-stage kernel (0.5 s of CPU on a 100k-node transformer).
func (kk *keyer) describe(b []byte, in *lowering.Instr, keys map[*lowering.Instr]int, inStage map[*lowering.Instr]bool) ([]byte, bool) {
	b = strconv.AppendInt(b, int64(in.Op), 10)
	b = append(append(b, '/'), in.DType.Abbr()...)
	switch in.Op {
	case lowering.OpLoad:
		a := in.Access
		if kk.written[a.Buffer] || len(a.Indirect) > 0 || indirect(a.Index) {
			return b, false
		}
		b = strconv.AppendInt(append(b, "/b"...), int64(a.Buffer.ID), 10)
		b = append(append(append(append(b, '/'), a.DType.Abbr()...), '/'), a.Index.Code()...)
	case lowering.OpConst:
		b = strconv.AppendInt(append(b, '/'), in.Imm.Int, 10)
		b = strconv.AppendUint(append(b, '/'), math.Float64bits(in.Imm.Float), 16)
		b = strconv.AppendBool(append(b, '/'), in.Imm.Bool)
	case lowering.OpIndex:
		b = append(append(b, '/'), in.Expr.Code()...)
	case lowering.OpCall, lowering.OpCast, lowering.OpBitcast:
		if _, random := lowering.RandFns[in.Fn]; in.Op == lowering.OpCall && random {
			return b, false
		}
		b = append(append(b, '/'), in.Fn...)
		for _, a := range in.Args {
			switch k, ok := keys[a]; {
			case a == nil:
				return b, false
			case !inStage[a]:
				b = strconv.AppendInt(append(b, "(X"...), int64(kk.outsideID(a)), 10) // from before the loop: by identity
				b = append(b, ')')
			case !ok:
				return b, false
			default:
				b = append(strconv.AppendInt(append(b, '('), int64(k), 10), ')')
			}
		}
	default:
		return b, false
	}
	return b, true
}

// outsideID numbers a value from before the loop by its identity.
func (kk *keyer) outsideID(in *lowering.Instr) int {
	id, ok := kk.outside[in]
	if !ok {
		id = len(kk.outside)
		kk.outside[in] = id
	}
	return id
}

// expensive reports a value whose computation in its stage includes a
// function that is not cheap arithmetic.
func expensive(in *lowering.Instr, inStage map[*lowering.Instr]bool) bool {
	seen := map[*lowering.Instr]bool{}
	var walk func(x *lowering.Instr) bool
	walk = func(x *lowering.Instr) bool {
		if x == nil || !inStage[x] || seen[x] {
			return false
		}
		seen[x] = true
		if x.Op == lowering.OpCall && !cheapFns[x.Fn] {
			return true
		}
		for _, a := range x.Args {
			if walk(a) {
				return true
			}
		}
		return false
	}
	return walk(in)
}

// frontier reports a value with a user in s that the earlier stage does
// not compute (a store, a reduction, a value that also reads something
// else): the largest shared values, whose operands need not be stashed.
func frontier(in *lowering.Instr, s *lowering.Stage, matched func(*lowering.Instr) bool) bool {
	for _, x := range s.Body {
		for _, a := range x.Args {
			if a == in && !matched(x) {
				return true
			}
		}
	}
	return false
}

// dropDead removes pure values nothing uses any more, in any stage (an
// outer-level stage's values serve later stages), and then the values
// only they used, and so on. The stages' bodies are filtered in place.
func dropDead(stages []*lowering.Stage) {
	uses := map[*lowering.Instr]int{}
	for _, s := range stages {
		for _, in := range s.Body {
			for _, a := range in.Args {
				uses[a]++
			}
			if in.Access != nil {
				for _, a := range in.Access.Indirect {
					uses[a]++
				}
			}
		}
	}
	dead := map[*lowering.Instr]bool{}
	var kill func(in *lowering.Instr)
	kill = func(in *lowering.Instr) {
		dead[in] = true
		release := func(a *lowering.Instr) {
			if uses[a]--; uses[a] == 0 && a != nil && pureValue(a) && !dead[a] {
				kill(a)
			}
		}
		for _, a := range in.Args {
			release(a)
		}
		if in.Access != nil {
			for _, a := range in.Access.Indirect {
				release(a)
			}
		}
	}
	for _, s := range stages {
		for _, in := range s.Body {
			if uses[in] == 0 && pureValue(in) && !dead[in] {
				kill(in)
			}
		}
	}
	if len(dead) == 0 {
		return
	}
	for _, s := range stages {
		s.Body = slices.DeleteFunc(s.Body, func(in *lowering.Instr) bool { return dead[in] })
	}
}

// pureValue is an instruction with no effect but its value: unused, it
// can go.
func pureValue(in *lowering.Instr) bool {
	_, random := lowering.RandFns[in.Fn]
	return in.Op == lowering.OpLoad || in.Op == lowering.OpConst || in.Op == lowering.OpIndex ||
		in.Op == lowering.OpCast || in.Op == lowering.OpBitcast || (in.Op == lowering.OpCall && !random)
}
