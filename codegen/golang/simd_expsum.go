package golang

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// A reduction loop that is exactly softmax's middle stage, e = exp(x - s)
// summed (and stored to a scratch row or an output, or not: logsumexp),
// runs its 16-element blocks in rt.ExpShiftSum (rt/expsum_amd64.s), the
// two-step lane loop written in assembly: the same ExpF32x8 steps and the
// same two accumulators in the same order, so the same bits as the lanes
// Go would compile. Go's compiler held that loop's 16 constants and two
// chains in 16 registers only by spilling around every step, and the
// spills of the values live across its loop were legacy-SSE stores after
// 256-bit code (a transition penalty per call): softmax over the last
// dimension of 1024×1024 went from 1303 to 866 µs of CPU (hand-edited
// generated code, one thread). The lane function then calls it alone
// (simd_reduce.go writeReduction): no broadcast and no Go lane loop.

// expShiftSumOn: tests turn it off to build the same loops as Go lanes
// and compare the two builds bit for bit.
var expShiftSumOn = true

// expSum is what rt.ExpShiftSum takes: the lane function's slice
// parameters, the shift's scalar parameter and the sum's accumulator.
type expSum struct {
	src, dst, shift string
	acc             string // the lanes' accumulator (accName)
}

// matchExpSum returns body as rt.ExpShiftSum's arguments, or nil: one
// contiguous f32 load x, sub(x, s) with s computed before the loop (or an
// invariant load), exp of that, a sum of the exp and at most one
// contiguous store of it; nothing else.
func (l *simdLoop) matchExpSum(body []*lowering.Instr) *expSum {
	if !expShiftSumOn {
		return nil
	}
	var load, sub, exp, red, store *lowering.Instr
	var invariant []*lowering.Instr
	for _, in := range body {
		if l.g.peep.folded[in] {
			continue
		}
		var slot **lowering.Instr
		switch {
		case in.Op == lowering.OpLoad && l.acc[in.Access].kind == accContig:
			slot = &load
		case in.Op == lowering.OpLoad && l.acc[in.Access].kind == accInvariant:
			invariant = append(invariant, in) // only the shift, checked below
			continue
		case in.Op == lowering.OpCall && in.Fn == "sub":
			slot = &sub
		case in.Op == lowering.OpCall && in.Fn == "exp":
			slot = &exp
		case in.Op == lowering.OpReduce && in.Reduce == lowering.ReduceSum && in.DType == ir.F32:
			slot = &red
		case in.Op == lowering.OpStore && l.acc[in.Access].kind == accContig:
			slot = &store
		default:
			return nil
		}
		if *slot != nil {
			return nil
		}
		*slot = in
	}
	if load == nil || sub == nil || exp == nil || red == nil {
		return nil
	}
	if fn, neg := l.g.callFn(sub); fn != "sub" || neg {
		return nil
	}
	ops := l.g.callOperands(sub)
	if len(ops) != 2 || ops[0] != load || ops[1].DType != ir.F32 || len(invariant) > 1 ||
		len(invariant) == 1 && ops[1] != invariant[0] || l.inBody[ops[1]] && len(invariant) == 0 {
		return nil
	}
	if fn, neg := l.g.callFn(exp); fn != "exp" || neg || len(l.g.callOperands(exp)) != 1 || l.g.callOperands(exp)[0] != sub {
		return nil
	}
	if red.Args[0] != exp || store != nil && store.Args[0] != exp || l.g.uses[sub] != 1 {
		return nil
	}
	m := &expSum{src: l.acc[load.Access].name, dst: "nil", shift: scalarParam(ops[1]), acc: accName(red)}
	if store != nil {
		m.dst = l.acc[store.Access].name
	}
	return m
}
