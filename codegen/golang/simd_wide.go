package golang

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// Wide column lanes: a reduction over a middle dimension (softmax over
// dim 1) walked as Inductor's C++ walks it. Column lanes (simd_cols.go)
// run 16 outputs down the rows, one 64-byte piece of each row a step:
// every step crosses to another row, 4 KiB pages hold 8 rows of 128
// floats, and the 128 rows of a 16-column strip map to 8 of L1's 64
// sets, so each stage fetches the strip again from L2. <kernel>Wide runs
// up to wideCols outputs (a whole row of a 128-wide slab) with the rows
// outer and the row's 8-lane pieces inner, every stage: the loads walk
// memory in order, and each output's accumulator lives in a row of
// accumulators on the stack (a load and a store a step, from L1). Each
// lane still computes its output's scalar sequence in the scalar order:
// bit for bit the scalar loop. Softmax over dim 1 (64×128×128, one
// thread): 1489 µs → 902 µs CPU.

// wideCols is the most outputs <kernel>Wide runs at once (fewer when the
// rows are shorter); wideMin the fewest it is made for (narrower rows go
// to <kernel>Cols' registers).
const wideCols, wideMin = 128, 32

// wideStash is the largest stash (bytes) a wide run keeps per chunk:
// wideCols rows of the reduction ranges, within L2 with room to spare.
const wideStash = 64 << 10

// wideWidth is how many outputs a <kernel>Wide call may run: 0 when the
// kernel does not qualify (colsReject has passed already), or when its
// stash would not stay small (a dynamic or long reduction).
func (g *kernelGen) wideWidth() int {
	w := wideCols
	if e, ok := g.k.Outer[len(g.k.Outer)-1].Const(); ok {
		w = min(w, int(e)&^7)
	}
	for b, st := range g.scratch {
		n, ok := product(st.Reduce).Const()
		if !ok || n <= 0 {
			return 0
		}
		w = min(w, int(int64(wideStash)/(n*int64(b.DType.ItemSize())))&^7)
	}
	if w < wideMin {
		return 0
	}
	stageOf := map[*lowering.Instr]int{}
	for i, st := range g.k.Stages {
		for _, in := range st.Body {
			stageOf[in] = i
			for _, a := range in.Args {
				// only accumulators cross stages (they have a row each)
				if j, ok := stageOf[a]; ok && j != i && a.Op != lowering.OpReduce {
					return 0
				}
			}
		}
	}
	return w
}

// wideFn emits <kernel>Wide (w outputs at most; see wideWidth) with
// <kernel>Cols' parameters and returns its call.
func (g *kernelGen) wideFn(v string, w int, params, args []string) (string, error) {
	k := g.k
	l := g.newSIMDLoop(k.Name+"Wide", g.instrs())
	l.wide = w
	var rows []string
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == lowering.OpReduce {
				rows = append(rows, fmt.Sprintf("var a%d [%d]float32", in.ID, w))
			}
		}
	}
	for i, st := range k.Stages {
		l.body.line("// stage %d", i)
		if err := l.wideStage(i, st, v); err != nil {
			return "", fmt.Errorf("wide stage %d: %w", i, err)
		}
	}
	out := g.simd
	out.count++
	sig := fmt.Sprintf("func %s(%s) int64", l.name, strings.Join(params, ", "))
	f := &out.fns
	f.line("// %s runs %s for up to %d outputs from %s on lanes, rows outer and", l.name, k.Name, w, v)
	f.line("// each row's 8-lane pieces inner, one output a lane, bit for bit as the")
	f.line("// scalar loop, and returns how many; 0 when fewer than %d remain in the", wideMin)
	f.line("// row or the chunk, or without AVX2.")
	f.line("%s {", sig)
	f.line("if !rt.SIMD() || %s+%d > int64(%s) || p+%d > hi {", v, w, k.Outer[len(k.Outer)-1].Code(), w)
	f.line("return 0")
	f.line("}")
	wide := w%lanes16.n == 0
	if wide {
		f.line("if rt.AVX512() {")
		f.line("return %sAVX512(%s)", l.name, strings.Join(paramNames(params), ", "))
		f.line("}")
	}
	l.writeWideBody(f, lanes8, rows)
	if wide {
		var t code
		t.line("// %sAVX512 is %s on 16 lanes (AVX-512): the same outputs in", l.name, l.name)
		t.line("// 16-lane pieces, each lane bit for bit the scalar loop.")
		t.line("func %sAVX512(%s) int64 {", l.name, strings.Join(params, ", "))
		l.writeWideBody(&t, lanes16, rows)
		f.WriteString(lanes16.spell(t.String()))
	}
	out.stubs.line("// %s: no SIMD in this build; the scalar loop runs every output.", l.name)
	out.stubs.line("%s { return 0 }", sig)
	out.stubs.line("")
	return fmt.Sprintf("%s(%s, p, hi)", l.name, strings.Join(args, ", ")), nil
}

// writeWideBody writes the rest of a wide function at width w: its
// broadcasts, accumulator rows and stages (the body, written for 8 lanes).
func (l *simdLoop) writeWideBody(f *code, w laneWidth, rows []string) {
	mem := l.memOperands()
	body := l.bodyAt(w, mem)
	l.writeHoisted(f, mem, body)
	for _, r := range rows {
		f.line("%s", r)
	}
	f.WriteString(body)
	f.line("archsimd.ClearAVXUpperBits()")
	f.line("return %d", l.wide)
	f.line("}")
	f.line("")
}

// wideStage emits one stage; a max or min runs on VMAXPS (VMINPS) first
// and again on the exact lanes where needed, as colsStage.
func (l *simdLoop) wideStage(i int, st *lowering.Stage, v string) error {
	return l.extremaStage(st, func(redo bool) error { return l.wideStageOnce(st, v, redo) }, func() string {
		redo := fmt.Sprintf("redo%d", i)
		var qs, zs []string
		for _, in := range st.Body {
			if in.Op == lowering.OpReduce {
				qs = append(qs, fmt.Sprintf("rt.AnyInt32x8(q%d)", in.ID))
				zs = append(zs, fmt.Sprintf("rt.AnyInt32x8(archsimd.LoadFloat32x8((*[8]float32)(a%d[j:][:8])).Equal(archsimd.Float32x8{}).ToInt32x8())", in.ID))
			}
		}
		l.body.line("%s := %s", redo, strings.Join(qs, " || "))
		l.body.line("for j := 0; j < %d && !%s; j += 8 {", l.wide, redo)
		l.body.line("%s = %s", redo, strings.Join(zs, " || "))
		l.body.line("}")
		return redo
	})
}

// wideStageOnce emits the stage's accumulator rows' start values, its
// reduction loops and, innermost, the loop over the row's 8-lane pieces;
// each access's row is sliced once per row, so the pieces need no
// bounds checks.
func (l *simdLoop) wideStageOnce(st *lowering.Stage, v string, redo bool) error {
	for _, in := range st.Body {
		if in.Op != lowering.OpReduce {
			continue
		}
		start := map[lowering.ReduceOp]string{lowering.ReduceSum: "0", lowering.ReduceMax: "rt.Inf32(-1)", lowering.ReduceMin: "rt.Inf32(1)"}[in.Reduce]
		l.body.line("for j := 0; j < %d; j += 8 {", l.wide)
		l.body.line("%s.Store((*[8]float32)(a%d[j:][:8]))", broadcastF32(start), in.ID)
		l.body.line("}")
		if l.extFast && !redo {
			l.body.line("q%d := archsimd.BroadcastInt32x8(0)", in.ID)
		}
	}
	defer l.openReduceLoops(st)()
	rows := l.wideRows(st, v)
	l.body.line("for j := 0; j < %d; j += 8 {", l.wide)
	l.wideAccs(st)
	for _, x := range st.Body {
		if err := l.wideInstr(x, v, rows); err != nil {
			return fmt.Errorf("tmp%d: %w", x.ID, err)
		}
	}
	for _, x := range st.Body {
		if x.Op == lowering.OpReduce {
			l.body.line("%s.Store((*[8]float32)(a%d[j:][:8]))", accName(x), x.ID)
		}
	}
	l.body.line("}")
	for _, s := range l.colSteps {
		l.body.line("%s", s)
	}
	l.colSteps = nil
	for range st.Reduce {
		l.body.line("}")
	}
	return nil
}

// wideRows emits, before the loop over a row's pieces, each access's row
// (a slice of l.wide elements) or, for a load that does not move along v,
// its broadcast value; it returns the rows by instruction.
func (l *simdLoop) wideRows(st *lowering.Stage, v string) map[*lowering.Instr]string {
	rows := map[*lowering.Instr]string{}
	for _, in := range st.Body {
		if in.Access == nil || l.g.peep.folded[in] {
			continue
		}
		idx := in.Access.Index.Code()
		if o := l.colIdx[in.Access]; o != "" {
			idx = o
		}
		view := viewName(in.Access)
		if l.g.scratch[in.Access.Buffer] != nil { // row r of the stash: wide·r
			idx = fmt.Sprintf("%d*(%s)", l.wide, idx)
		} else if coeffs, _, _ := sym.Linear(in.Access.Index, []string{v}); in.Op == lowering.OpLoad && isZero(coeffs[0]) {
			name := fmt.Sprintf("v%d", in.ID)
			l.body.line("%s := archsimd.BroadcastFloat32x8(%s[%s])", name, view, idx)
			l.val[in] = name
			if l.g.uses[in] == 0 {
				l.body.line("_ = %s", name)
			}
			continue
		}
		rows[in] = fmt.Sprintf("row%d", in.ID) // not s<ID>: a symbol (s0) may be a parameter
		l.body.line("%s := %s[%s:][:%d]", rows[in], view, idx, l.wide)
	}
	return rows
}

// wideAccs loads, at the top of a piece, the stage's accumulators and the
// earlier stages' accumulators it reads.
func (l *simdLoop) wideAccs(st *lowering.Stage) {
	in := map[*lowering.Instr]bool{}
	for _, x := range st.Body {
		in[x] = true
	}
	loaded := map[*lowering.Instr]bool{}
	for _, x := range st.Body {
		for _, a := range x.Args {
			if a != nil && !in[a] && a.Op == lowering.OpReduce && !loaded[a] {
				loaded[a] = true
				l.body.line("w%d := archsimd.LoadFloat32x8((*[8]float32)(a%d[j:][:8]))", a.ID, a.ID)
				l.val[a] = fmt.Sprintf("w%d", a.ID)
			}
		}
		if x.Op == lowering.OpReduce {
			l.body.line("%s := archsimd.LoadFloat32x8((*[8]float32)(a%d[j:][:8]))", accName(x), x.ID)
		}
	}
}

// wideInstr emits one instruction on a piece: accesses through their rows.
func (l *simdLoop) wideInstr(in *lowering.Instr, v string, rows map[*lowering.Instr]string) error {
	if l.g.peep.folded[in] {
		return nil
	}
	switch {
	case in.Op == lowering.OpLoad && rows[in] != "":
		name := fmt.Sprintf("v%d", in.ID)
		l.body.line("%s := archsimd.LoadFloat32x8((*[8]float32)(%s[j:][:8]))", name, rows[in])
		l.val[in] = name
		if l.g.uses[in] == 0 {
			l.body.line("_ = %s", name)
		}
		return nil
	case in.Op == lowering.OpLoad: // broadcast before the loop (wideRows)
		return nil
	case in.Op == lowering.OpStore:
		l.body.line("%s.Store((*[8]float32)(%s[j:][:8]))", l.ref(in.Args[0]), rows[in])
		return nil
	}
	return l.colsInstr(in, v)
}

func isZero(e sym.Expr) bool {
	c, ok := e.Const()
	return ok && c == 0
}
