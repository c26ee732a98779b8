package golang

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// Lanes for a pointwise loop that chooses by its own index: a scatter into
// a view lowered as one kernel over the base (slice_scatter: x[:, 2:4] =
// y, select_scatter) computes where(2 <= x1 < 4, y[...], x[...]), whose
// condition compares index expressions. Inductor's C++ evaluates such a
// mask on lanes and loads the source under it. Here each comparison is of
// two expressions affine in the loop variable, so over a block of 8
// elements it holds everywhere or nowhere exactly when the difference of
// its sides has the same sign at the block's first and last element. A
// block where every comparison is uniform runs the loop on lanes with the
// conditions known (each where becomes the operand it picks, the other
// operand and the predicates are not computed; a loop per case); a block where one changes,
// or whose picked operand has no lane version (a gather from the source),
// goes to the scalar loop, 8 elements at a time, and the lanes resume
// after it. Values are computed by the same operations as the scalar loop,
// so bit for bit the same.

// predPlan is a loop's index predicates.
type predPlan struct {
	conds  []*lowering.Instr       // the wheres' conditions (at most 3)
	wheres map[*lowering.Instr]int // each where on one, by its index in conds
	leaves []*lowering.Instr       // their comparisons
	ops    map[*lowering.Instr]bool
}

var predCmp = map[string]string{"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}

// planPred finds the where-conditions of body built only from
// comparisons of affine index expressions (and logical and/or/not); nil
// when there are none, or too many to have a loop per case.
func (g *kernelGen) planPred(v string, body []*lowering.Instr) *predPlan {
	p := &predPlan{ops: map[*lowering.Instr]bool{}, wheres: map[*lowering.Instr]int{}}
	for _, in := range body {
		if in.Op != lowering.OpCall || in.Fn != "where" || g.peep.folded[in] {
			continue
		}
		c := in.Args[0]
		if !p.indexBool(c, v) {
			continue
		}
		k := slices.Index(p.conds, c)
		if k < 0 {
			k = len(p.conds)
			p.conds = append(p.conds, c)
		}
		p.wheres[in] = k
	}
	if len(p.conds) == 0 || len(p.conds) > 3 || len(p.leaves) > 6 {
		return nil
	}
	return p
}

// indexBool reports a bool computed from index comparisons only,
// recording its instructions.
func (p *predPlan) indexBool(in *lowering.Instr, v string) bool {
	if in == nil || in.Op != lowering.OpCall || in.DType != ir.Bool {
		return false
	}
	switch in.Fn {
	case "logical_and", "logical_or", "logical_xor", "logical_not":
		for _, a := range in.Args {
			if !p.indexBool(a, v) {
				return false
			}
		}
	default:
		if predCmp[in.Fn] == "" || len(in.Args) != 2 {
			return false
		}
		for _, a := range in.Args {
			if a.DType != ir.I64 {
				return false
			}
			switch a.Op {
			case lowering.OpConst:
			case lowering.OpIndex:
				if _, _, ok := sym.Linear(a.Expr, []string{v}); !ok || indirect(a.Expr) {
					return false
				}
			default:
				return false
			}
			p.ops[a] = true
		}
		if !p.ops[in] {
			p.leaves = append(p.leaves, in)
		}
	}
	p.ops[in] = true
	return true
}

// intCode renders an index operand of a comparison.
func intCode(a *lowering.Instr) string {
	if a.Op == lowering.OpConst {
		return fmt.Sprintf("int64(%d)", a.Imm.Int)
	}
	return "int64(" + a.Expr.Code() + ")"
}

// condCode renders the condition from the leaves' differences d<i>s
// (at the block's first element).
func (p *predPlan) condCode(in *lowering.Instr) string {
	for i, l := range p.leaves {
		if l == in {
			return fmt.Sprintf("(d%ds %s 0)", i, predCmp[in.Fn])
		}
	}
	switch in.Fn {
	case "logical_not":
		return "!" + p.condCode(in.Args[0])
	case "logical_and":
		return "(" + p.condCode(in.Args[0]) + " && " + p.condCode(in.Args[1]) + ")"
	case "logical_or":
		return "(" + p.condCode(in.Args[0]) + " || " + p.condCode(in.Args[1]) + ")"
	}
	return "(" + p.condCode(in.Args[0]) + " != " + p.condCode(in.Args[1]) + ")"
}

// variant is body with the conditions known (bit k of mask: conds[k]):
// the instructions still needed, in order; the wheres are aliases of the
// operand they pick.
func (p *predPlan) variant(body []*lowering.Instr, mask int) []*lowering.Instr {
	live := map[*lowering.Instr]bool{}
	var mark func(in *lowering.Instr)
	mark = func(in *lowering.Instr) {
		if in == nil || live[in] {
			return
		}
		live[in] = true
		if k, ok := p.wheres[in]; ok {
			mark(in.Args[p.pick(k, mask)])
			return
		}
		for _, a := range in.Args {
			mark(a)
		}
	}
	for _, in := range body {
		if in.Op == lowering.OpStore {
			mark(in)
		}
	}
	var out []*lowering.Instr
	for _, in := range body {
		if live[in] {
			out = append(out, in)
		}
	}
	return out
}

// pick is the operand a where on conds[k] takes under mask.
func (p *predPlan) pick(k, mask int) int {
	if mask>>k&1 == 1 {
		return 1
	}
	return 2
}

// predCall emits the lanes of a predicated loop and returns the call
// (which takes the first index and returns where it stopped); "" when
// neither variant has lanes.
func (g *kernelGen) predCall(p *predPlan, v, start string, body []*lowering.Instr, acc map[*lowering.Access]loopAccess, contig []string) (string, error) {
	if g.simd == nil || g.k.Serial {
		return "", nil
	}
	variants := make([][]*lowering.Instr, 1<<len(p.conds))
	any := false
	for mask := range variants {
		vb := p.variant(body, mask)
		if why := g.predReject(p, vb, acc); why != "" {
			continue
		}
		variants[mask] = vb
		any = true
	}
	if !any {
		return "", nil
	}
	l := g.newAVX2Loop(body, acc, contig)
	bodies := make([]string, len(variants))
	for mask, vb := range variants {
		if vb == nil {
			bodies[mask] = "break lanes // no lanes for this case: the scalar loop takes the block\n"
			continue
		}
		for _, in := range body {
			if l.inBody[in] {
				delete(l.val, in)
			}
		}
		l.body.Reset()
		for _, in := range vb {
			if k, ok := p.wheres[in]; ok {
				l.val[in] = l.ref(l.operand(in.Args[p.pick(k, mask)]))
				continue
			}
			if err := l.instr(in); err != nil {
				return "", fmt.Errorf("simd tmp%d: %w", in.ID, err)
			}
		}
		bodies[mask] = l.body.String()
	}
	// The index variables the leaves read: the loop's start, outer
	// variables and the program's symbols.
	vars := map[string]bool{}
	for _, leaf := range p.leaves {
		for _, a := range leaf.Args {
			if a.Op == lowering.OpIndex {
				for _, name := range a.Expr.Free() {
					vars[name] = true
				}
			}
		}
	}
	delete(vars, v)
	var extra []string
	for _, s := range g.prog.Syms {
		if vars[s] {
			extra = append(extra, s)
			delete(vars, s)
		}
	}
	for i := range g.k.Outer {
		if name := lowering.OuterVar(i); vars[name] {
			extra = append(extra, name)
			delete(vars, name)
		}
	}
	if len(vars) > 0 { // reduction variables: not a pointwise loop
		return "", nil
	}
	// Each case declares the broadcasts it uses: keep one of each.
	seen := map[string]bool{}
	params, args := l.params[:0:0], l.args[:0:0]
	for i, prm := range l.params {
		if !seen[prm] {
			seen[prm] = true
			params, args = append(params, prm), append(args, l.args[i])
		}
	}
	l.params, l.args = params, args
	l.params = append(l.params, "start int64")
	l.args = append(l.args, start)
	for _, x := range extra {
		l.params = append(l.params, x+" int64")
		l.args = append(l.args, x)
	}
	// blocks of w elements (8, or 32 as four steps), leaving loop label
	block := func(w int, label string) string {
		var b code
		var decl []string
		for i := range p.leaves {
			decl = append(decl, fmt.Sprintf("d%ds, d%de", i, i))
		}
		b.line("var %s int64", strings.Join(decl, ", "))
		b.line("{")
		b.line("%s := start + int64(i)", v)
		for i, leaf := range p.leaves {
			b.line("d%ds = %s - %s", i, intCode(leaf.Args[0]), intCode(leaf.Args[1]))
		}
		b.line("}")
		b.line("{")
		b.line("%s := start + int64(i+%d)", v, w-1)
		for i, leaf := range p.leaves {
			b.line("d%de = %s - %s", i, intCode(leaf.Args[0]), intCode(leaf.Args[1]))
		}
		b.line("}")
		var mixed []string
		for i := range p.leaves {
			mixed = append(mixed, fmt.Sprintf("(d%[1]ds < 0) != (d%[1]de < 0) || (d%[1]ds > 0) != (d%[1]de > 0)", i))
		}
		b.line("if %s {", strings.Join(mixed, " || "))
		if w == 8 {
			b.line("break %s // a condition changes inside the block: the scalar loop takes it", label)
		} else {
			b.line("break %s // a condition changes inside the block: 8 at a time from here", label)
		}
		b.line("}")
		b.line("k := 0")
		for k, c := range p.conds {
			b.line("if %s {", p.condCode(c))
			b.line("k |= %d", 1<<k)
			b.line("}")
		}
		b.line("switch k {")
		for mask, body := range bodies {
			b.line("case %d:", mask)
			switch {
			case w == 8:
				b.WriteString(body)
			case variants[mask] == nil:
				b.line("break %s", label)
			default:
				b.line("for o := 0; o < %d; o += 8 {", w)
				b.line("i := i + o")
				b.WriteString(body)
				b.line("}")
			}
		}
		b.line("}")
		return b.String()
	}
	l.body.Reset()
	l.body.WriteString(block(8, "lanes"))
	l.wideBody = block(predWide, "wide")
	l.writePred()
	return fmt.Sprintf("%s(i, %s)", l.name, strings.Join(l.args, ", ")), nil
}

// predReject says why a variant of the loop cannot run on lanes.
func (g *kernelGen) predReject(p *predPlan, vb []*lowering.Instr, acc map[*lowering.Access]loopAccess) string {
	masks := map[*lowering.Instr]bool{}
	inBody := map[*lowering.Instr]bool{}
	for _, in := range vb {
		inBody[in] = true
	}
	for _, in := range vb {
		if _, isWhere := p.wheres[in]; g.peep.folded[in] || isWhere {
			continue
		}
		if why := g.simdRejectInstr(in, acc, masks); why != "" {
			return why
		}
		if why := g.simdRejectOuter(in, inBody); why != "" {
			return why
		}
		if in.Op == lowering.OpCall {
			fn, _ := g.callFn(in)
			masks[in] = simdFns[fn].mask
		}
	}
	for w := range p.wheres {
		if inBody[w] {
			for _, a := range w.Args[1:] {
				if a.DType != ir.F32 {
					return "a where of another dtype"
				}
			}
		}
	}
	return simdAliasing(vb, acc)
}

// predWide is the block of a predicated loop's first lane loop.
const predWide = 32

// writePred appends a predicated loop's function (it starts at i and
// returns where it stopped) and its scalar twin.
func (l *simdLoop) writePred() {
	g, out := l.g, l.g.simd
	out.count++
	sig := fmt.Sprintf("func %s(i int, %s) int", l.name, strings.Join(l.params, ", "))
	f := &out.fns
	f.line("// %s runs %s's inner loop on 8 float32 lanes (AVX2) from element i, bit for", l.name, g.k.Name)
	f.line("// bit as the scalar loop, over blocks where its index condition is uniform,")
	f.line("// and returns where it stopped: the scalar loop takes that block.")
	f.line("%s {", sig)
	f.line("if !rt.SIMD() {")
	f.line("return i")
	f.line("}")
	for _, s := range l.contig[1:] {
		f.line("%s = %s[:len(%s)]", s, s, l.contig[0])
	}
	mem := l.memOperands(l.wideBody, l.body.String())
	l.writeHoisted(f, mem, l.wideBody+l.body.String())
	// Four steps a block where the conditions are uniform over 32
	// elements: the per-block integer checks were the loop's cost (a
	// copy with a two-column slice assigned: 498 → 288 µs for 1024×1024).
	f.line("wide:")
	f.line("for ; i+%d <= len(%s); i += %d {", predWide, l.contig[0], predWide)
	f.WriteString(withMem(l.wideBody, mem))
	f.line("}")
	f.line("lanes:")
	f.line("for ; i+8 <= len(%s); i += 8 {", l.contig[0])
	f.WriteString(withMem(l.body.String(), mem))
	f.line("}")
	f.line("archsimd.ClearAVXUpperBits() // back to scalar SSE code without a transition penalty")
	f.line("return i")
	f.line("}")
	f.line("")
	out.stubs.line("// %s: no SIMD in this build; the scalar loop runs every element.", l.name)
	out.stubs.line("%s { return i }", sig)
	out.stubs.line("")
}
