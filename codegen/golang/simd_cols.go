package golang

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// Column lanes for a reduction over a dimension that is not the last
// (sum(x, dim=1) of a 3-d tensor, softmax over dim 1): the innermost
// outer variable v is contiguous in memory, the reduction strides over
// rows. Eight outputs at consecutive v run together, one per lane, every
// stage of the kernel on vectors (accumulators, earlier stages' values),
// each lane computing its output's scalar sequence in the scalar order:
// bit for bit the scalar loop's result, as Inductor's C++ vectorises
// such a reduction along the outer dimension.

// colsCalls returns the calls the scalar outer loop tries first for
// each index (none when the kernel does not qualify); each function,
// <kernel>Wide (simd_wide.go, when the kernel qualifies) then
// <kernel>Cols, does 8 or more indices from p when it can and says how
// many it did. It sets g.wide.
func (g *kernelGen) colsCalls(used map[string]bool) ([]string, error) {
	k := g.k
	if g.simd == nil || k.Serial || len(k.Outer) == 0 {
		return nil, nil
	}
	v := lowering.OuterVar(len(k.Outer) - 1)
	if why := g.colsReject(v); why != "" {
		return nil, nil
	}
	l := g.newSIMDLoop(k.Name+"Cols", g.instrs())
	var views []string
	for _, in := range g.instrs() {
		if in.Access != nil && !slices.Contains(views, viewName(in.Access)) {
			views = append(views, viewName(in.Access))
		}
	}
	vars := []string{}
	for i := range k.Outer {
		if name := lowering.OuterVar(i); used[name] {
			vars = append(vars, name)
		}
	}
	for _, s := range views {
		l.params = append(l.params, s+" []float32")
	}
	// The program's symbols (dynamic sizes) appear in indices and sizes.
	vars = append(slices.Clone(g.prog.Syms), vars...)
	for _, x := range vars {
		l.params = append(l.params, x+" int64")
	}
	l.params = append(l.params, "p, hi int64")
	// Two bodies: 16 outputs as two groups of 8 whose steps interleave
	// (each reduction's chain of dependent adds is the loop's bound; two
	// independent chains halve it, and each lane still computes its
	// output's scalar sequence), and 8 outputs.
	var bodies [2]string
	for pairs := range 2 {
		l.body.Reset()
		l.val, l.valB = map[*lowering.Instr]string{}, map[*lowering.Instr]string{}
		l.pair = pairs == 0
		for i, st := range k.Stages {
			l.body.line("// stage %d", i)
			if err := l.colsStage(st, v); err != nil {
				return nil, fmt.Errorf("cols stage %d: %w", i, err)
			}
		}
		bodies[pairs] = l.body.String()
	}
	l.pair = false
	out := g.simd
	out.count++
	sig := fmt.Sprintf("func %s(%s) int64", l.name, strings.Join(l.params, ", "))
	f := &out.fns
	f.line("// %s runs %s for the 16 (or 8) outputs from %s on on lanes, one output", l.name, k.Name, v)
	f.line("// a lane, bit for bit as the scalar loop, and returns how many; 0 when")
	f.line("// fewer than 8 remain in the row or the chunk, or without AVX2.")
	f.line("%s {", sig)
	f.line("if !rt.SIMD() || %s+8 > int64(%s) || p+8 > hi {", v, k.Outer[len(k.Outer)-1].Code())
	f.line("return 0")
	f.line("}")
	mem := l.memOperands(bodies[0], bodies[1])
	l.writeHoisted(f, mem, bodies[0]+bodies[1]) // both bodies hoisted their constants
	pairBody, single := withMem(bodies[0], mem), withMem(bodies[1], mem)
	f.line("if %s+16 <= int64(%s) && p+16 <= hi {", v, k.Outer[len(k.Outer)-1].Code())
	f.WriteString(pairBody)
	f.line("archsimd.ClearAVXUpperBits()")
	f.line("return 16")
	f.line("}")
	f.WriteString(single)
	f.line("archsimd.ClearAVXUpperBits() // back to scalar SSE code without a transition penalty")
	f.line("return 8")
	f.line("}")
	f.line("")
	out.stubs.line("// %s: no SIMD in this build; the scalar loop runs every output.", l.name)
	out.stubs.line("%s { return 0 }", sig)
	out.stubs.line("")
	args := append(slices.Clone(views), vars...)
	call := fmt.Sprintf("%s(%s, p, hi)", l.name, strings.Join(args, ", "))
	if g.wide = g.wideWidth(); g.wide == 0 {
		return []string{call}, nil
	}
	wide, err := g.wideFn(v, g.wide, l.params, args)
	if err != nil {
		return nil, err
	}
	return []string{wide, call}, nil
}

// colsReject says why the kernel cannot run on column lanes along v.
func (g *kernelGen) colsReject(v string) string {
	acc := map[*lowering.Access]loopAccess{}
	written := map[*lowering.Buffer]bool{}
	strided := false
	for _, st := range g.k.Stages {
		for _, in := range st.Body {
			if in.Access == nil {
				continue
			}
			if in.Access.DType != ir.F32 || indirect(in.Access.Index) {
				return "an access that is not f32 or reads loaded values"
			}
			if g.scratch[in.Access.Buffer] != nil {
				// a stash: one row of the ranges per lane (colsInstr)
				acc[in.Access] = loopAccess{kind: accContig}
				continue
			}
			coeffs, _, ok := sym.Linear(in.Access.Index, []string{v})
			c, isConst := int64(-1), false
			if ok {
				c, isConst = coeffs[0].Const()
			}
			switch {
			case isConst && c == 1:
				acc[in.Access] = loopAccess{kind: accContig}
				strided = strided || (in.Op == lowering.OpLoad && len(st.Reduce) > 0 && !innerContig(in.Access.Index, st))
			case isConst && c == 0 && in.Op == lowering.OpLoad:
				acc[in.Access] = loopAccess{kind: accInvariant}
			default:
				return "an access that does not move by 0 or 1 element along " + v
			}
			if in.Op == lowering.OpStore {
				written[in.Access.Buffer] = true
			}
		}
	}
	if !strided {
		return "no reduction strides along rows"
	}
	masks := map[*lowering.Instr]bool{}
	for _, st := range g.k.Stages {
		for _, in := range st.Body {
			if in.Op == lowering.OpLoad && written[in.Access.Buffer] && g.scratch[in.Access.Buffer] == nil {
				return "a buffer is read and written"
			}
			if g.peep.folded[in] {
				continue
			}
			if in.Access != nil && in.Access.DType != ir.F32 {
				return "a " + in.Access.DType.Abbr() + " buffer (column lanes read and write f32 only)"
			}
			if why := g.simdRejectInstr(in, acc, masks); why != "" {
				return why
			}
			if in.Op == lowering.OpCall {
				fn, _ := g.callFn(in)
				masks[in] = simdFns[fn].mask
			}
			for _, a := range in.Args {
				if a != nil && a.DType != ir.F32 && !masks[a] {
					return "a non-f32 operand"
				}
			}
		}
	}
	return ""
}

// innerContig reports an index that moves by one element along the
// stage's innermost reduction variable (the per-row lanes then serve).
func innerContig(idx sym.Expr, st *lowering.Stage) bool {
	r := lowering.ReduceVar(len(st.Reduce) - 1)
	coeffs, _, ok := sym.Linear(idx, []string{r})
	if !ok {
		return false
	}
	c, isConst := coeffs[0].Const()
	return isConst && c == 1
}

// colsStage emits one stage on column lanes. A stage that only takes
// maxima or minima (softmax's first) runs first on one VMAXPS (VMINPS) a
// step with a record of NaNs seen: that is Go's max (min) except where a
// NaN was seen or the result is a zero (whose sign VMAXPS picks by
// operand order); there the stage runs again on the exact lanes
// (rt.MaxF32x8, nine operations a step), so every lane keeps the scalar
// loop's bits.
func (l *simdLoop) colsStage(st *lowering.Stage, v string) error {
	return l.extremaStage(st, func(redo bool) error { return l.colsStageOnce(st, v, redo) }, func() string {
		var special []string
		for _, in := range st.Body {
			if in.Op == lowering.OpReduce {
				for _, sfx := range l.groups() {
					r, q := accName(in)+sfx, fmt.Sprintf("q%d", in.ID)+sfx
					special = append(special, fmt.Sprintf("rt.AnyInt32x8(%s) || rt.AnyInt32x8(%s.Equal(archsimd.Float32x8{}).ToInt32x8())", q, r))
				}
			}
		}
		return strings.Join(special, " || ")
	})
}

// openReduceLoops opens st's reduction loops; the innermost steps its
// accesses' offsets (stepIndices), which l.colIdx holds until the
// returned function runs, at the stage's end.
func (l *simdLoop) openReduceLoops(st *lowering.Stage) (done func()) {
	l.colIdx = map[*lowering.Access]string{}
	for i, size := range st.Reduce {
		rv := lowering.ReduceVar(i)
		if i == len(st.Reduce)-1 {
			l.stepIndices(st, rv)
		}
		l.body.line("for %s := int64(0); %s < int64(%s); %s++ {", rv, rv, size.Code(), rv)
	}
	return func() { l.colIdx = nil }
}

// extremaStage emits a stage through once; a stage of max or min
// reductions alone first runs on VMAXPS (VMINPS), then again on the exact
// lanes under the condition special emits (a NaN seen, or a zero result).
func (l *simdLoop) extremaStage(st *lowering.Stage, once func(redo bool) error, special func() string) error {
	if !extremaOnly(st) {
		return once(false)
	}
	l.extFast = true
	err := once(false)
	l.extFast = false
	if err != nil {
		return err
	}
	l.body.line("if %s {", special())
	err = once(true)
	l.body.line("}")
	return err
}

// extremaOnly reports a reduction stage whose reductions are all max or
// min and which stores nothing.
func extremaOnly(st *lowering.Stage) bool {
	if len(st.Reduce) == 0 {
		return false
	}
	for _, in := range st.Body {
		switch {
		case in.Op == lowering.OpStore:
			return false
		case in.Op == lowering.OpReduce && in.Reduce != lowering.ReduceMax && in.Reduce != lowering.ReduceMin:
			return false
		}
	}
	return true
}

// colsStageOnce emits the stage's reduction loops around its body,
// accumulators declared before them (assigned again when redo).
func (l *simdLoop) colsStageOnce(st *lowering.Stage, v string, redo bool) error {
	decl := ":="
	if redo {
		decl = "="
	}
	for _, in := range st.Body {
		if in.Op == lowering.OpReduce {
			start := map[lowering.ReduceOp]string{lowering.ReduceSum: "0", lowering.ReduceMax: "rt.Inf32(-1)", lowering.ReduceMin: "rt.Inf32(1)"}[in.Reduce]
			for _, sfx := range l.groups() {
				l.body.line("%s %s %s", accName(in)+sfx, decl, broadcastF32(start))
				if l.extFast {
					l.body.line("%s := archsimd.BroadcastInt32x8(0)", fmt.Sprintf("q%d", in.ID)+sfx)
				}
			}
		}
	}
	defer l.openReduceLoops(st)()
	for _, in := range st.Body {
		for _, sfx := range l.groups() {
			if sfx != "" { // the second group's values
				l.val, l.valB = l.valB, l.val
				l.sfx, l.idxOff = sfx, "+8"
			}
			err := l.colsInstr(in, v)
			if sfx != "" {
				l.val, l.valB = l.valB, l.val
				l.sfx, l.idxOff = "", ""
			}
			if err != nil {
				return fmt.Errorf("tmp%d: %w", in.ID, err)
			}
		}
	}
	if len(st.Reduce) > 0 {
		for _, s := range l.colSteps {
			l.body.line("%s", s)
		}
		l.colSteps = nil
	}
	for range st.Reduce {
		l.body.line("}")
	}
	return nil
}

// stepIndices gives each access of the stage that moves along the
// innermost reduction variable rv by a constant stride its own index
// variable, set before the loop and stepped at the end of each
// iteration: the loop then adds a constant per access instead of
// evaluating the whole index expression (sum over a middle dimension:
// 25 instructions an iteration fell to about 12).
func (l *simdLoop) stepIndices(st *lowering.Stage, rv string) {
	for _, in := range st.Body {
		a := in.Access
		if a == nil || l.g.scratch[a.Buffer] != nil || l.colIdx[a] != "" {
			continue
		}
		coeffs, rest, ok := sym.Linear(a.Index, []string{rv})
		if !ok {
			continue
		}
		c, isConst := coeffs[0].Const()
		if !isConst || c == 0 {
			continue
		}
		name := fmt.Sprintf("o%d", in.ID)
		l.body.line("%s := int64(%s)", name, rest.Code())
		l.colIdx[a] = name
		l.colSteps = append(l.colSteps, fmt.Sprintf("%s += %d", name, c))
	}
}

// scratchIdx is where a column group's 8 lanes of a stash row are.
func (l *simdLoop) scratchIdx(idx string) string {
	if l.wide > 0 { // wide runs: lane j's value at row r is at wide·r + j
		return fmt.Sprintf("%d*(%s)+j", l.wide, idx)
	}
	if l.pair {
		return "16*(" + idx + ")" + l.idxOff
	}
	return "8*(" + idx + ")"
}

// groups are the suffixes of the column groups a body runs.
func (l *simdLoop) groups() []string {
	if l.pair {
		return []string{"", "B"}
	}
	return []string{""}
}

func (l *simdLoop) colsInstr(in *lowering.Instr, v string) error {
	if l.g.peep.folded[in] {
		return nil
	}
	name := fmt.Sprintf("v%d", in.ID) + l.sfx
	switch in.Op {
	case lowering.OpLoad:
		idx := in.Access.Index.Code()
		if o := l.colIdx[in.Access]; o != "" {
			idx = o
		}
		if l.g.scratch[in.Access.Buffer] != nil { // lane j's value at row r is at 8·r + j (16·r + j paired)
			l.body.line("%s := archsimd.LoadFloat32x8((*[8]float32)(%s[%s:][:8]))", name, viewName(in.Access), l.scratchIdx(idx))
			l.val[in] = name
			return nil
		}
		coeffs, _, _ := sym.Linear(in.Access.Index, []string{v})
		if c, _ := coeffs[0].Const(); c == 0 {
			l.body.line("%s := archsimd.BroadcastFloat32x8(%s[%s])", name, viewName(in.Access), idx)
		} else {
			idx += l.idxOff
			l.body.line("%s := archsimd.LoadFloat32x8((*[8]float32)(%s[%s : %s+8]))", name, viewName(in.Access), idx, idx)
		}
		l.val[in] = name
		if l.g.uses[in] == 0 {
			l.body.line("_ = %s", name)
		}
		return nil
	case lowering.OpStore:
		idx := in.Access.Index.Code()
		if o := l.colIdx[in.Access]; o != "" {
			idx = o
		}
		if l.g.scratch[in.Access.Buffer] != nil {
			idx = l.scratchIdx(idx)
		} else {
			idx += l.idxOff
		}
		l.body.line("%s.Store((*[8]float32)(%s[%s:][:8]))", l.ref(in.Args[0]), viewName(in.Access), idx)
		return nil
	case lowering.OpReduce:
		r, x := accName(in)+l.sfx, l.ref(in.Args[0])
		switch in.Reduce {
		case lowering.ReduceSum:
			l.body.line("%s = %s.Add(%s)", r, r, x)
		case lowering.ReduceMax, lowering.ReduceMin:
			if l.extFast { // see colsStage
				op := map[lowering.ReduceOp]string{lowering.ReduceMax: "Max", lowering.ReduceMin: "Min"}[in.Reduce]
				q := fmt.Sprintf("q%d", in.ID) + l.sfx
				l.body.line("%s = %s.%s(%s)", r, r, op, x)
				l.body.line("%s = %s.Or(%s.IsNaN().ToInt32x8())", q, q, x)
				break
			}
			if in.Reduce == lowering.ReduceMin {
				l.body.line("%s = rt.MinF32x8(%s, %s)", r, r, x)
				break
			}
			l.sign = true
			l.body.line("%s = rt.MaxF32x8(%s, %s, sign)", r, r, x)
		}
		l.val[in] = r
		return nil
	}
	return l.instr(in)
}
