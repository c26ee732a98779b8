package golang

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/rt"
)

// code accumulates Go source; go/format indents it at the end.
type code struct{ strings.Builder }

func (c *code) line(format string, args ...any) {
	fmt.Fprintf(c, format, args...)
	c.WriteByte('\n')
}

// kernelGen emits one kernel function.
type kernelGen struct {
	c    *code
	prog *lowering.Program
	k    *lowering.Kernel
	// orig is the program's kernel, k the one emitted (with recomputed
	// values stashed: stash.go); the signature is orig's.
	orig *lowering.Kernel
	// scratch are k's stash buffers (local to each chunk, not
	// parameters), each with the stage whose ranges size it.
	scratch map[*lowering.Buffer]*lowering.Stage
	uses    map[*lowering.Instr]int
	// slot numbers the per-loop slices and offsets (a0, o1, ...).
	slot int
	peep peephole
	// simd collects 8-lane inner loops; nil when generating one
	// scalar-only file (Generate).
	simd *simdOut
	// lanes counts this kernel's 8-lane loops (one per stage at most).
	lanes int
	// wide is how many outputs <kernel>Wide runs at most (simd_wide.go);
	// 0 when the kernel has none.
	wide int
}

// accessFn renders an access as a Go element expression (an lvalue).
type accessFn func(a *lowering.Access) string

func viewName(a *lowering.Access) string { return fmt.Sprintf("v%d_%s", a.Buffer.ID, a.DType.Abbr()) }

func bufName(b *lowering.Buffer) string { return fmt.Sprintf("b%d", b.ID) }

// general renders an access by its full index expression.
// renderLoopAccess renders the accesses of an inner loop: contiguous ones through
// contig (the row slice at the loop index), invariant ones at their hoisted
// index, the rest through their full index expression.
func renderLoopAccess(acc map[*lowering.Access]loopAccess, contig func(name string) string) accessFn {
	return func(a *lowering.Access) string {
		la := acc[a]
		switch la.kind {
		case accContig:
			return contig(la.name)
		case accInvariant:
			return viewName(a) + "[" + la.name + "]"
		}
		return general(a)
	}
}

func general(a *lowering.Access) string { return viewName(a) + "[" + a.Index.Code() + "]" }

// instrs lists every instruction of the kernel.
func (g *kernelGen) instrs() []*lowering.Instr {
	var out []*lowering.Instr
	for _, s := range g.k.Stages {
		out = append(out, s.Body...)
	}
	return out
}

// buffers lists the buffers the kernel touches, by ID.
func kernelBuffers(k *lowering.Kernel) []*lowering.Buffer {
	seen := map[*lowering.Buffer]bool{}
	add := func(b *lowering.Buffer) {
		if b != nil {
			seen[b] = true
		}
	}
	if e := k.Extern; e != nil {
		for _, o := range e.Outs {
			add(o.Buffer)
		}
		for _, a := range e.Args {
			add(a.Buffer)
		}
	}
	for _, s := range k.Stages {
		for _, in := range s.Body {
			if in.Access != nil {
				add(in.Access.Buffer)
			}
		}
	}
	out := make([]*lowering.Buffer, 0, len(seen))
	for b := range seen {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *lowering.Buffer) int { return a.ID - b.ID })
	return out
}

// signature is "kernel3(s0 int64, b0 []byte, b2 []byte)".
func signature(p *lowering.Program, k *lowering.Kernel) string {
	var params []string
	for _, s := range p.Syms {
		params = append(params, s+" int64")
	}
	for _, b := range kernelBuffers(k) {
		params = append(params, bufName(b)+" []byte")
	}
	return k.Name + "(" + strings.Join(params, ", ") + ")"
}

func (g *kernelGen) emit() error {
	k := g.k
	if len(k.Origins) > 0 {
		g.c.line("// %s is a %s kernel computing %s.", k.Name, k.Kind(), strings.Join(k.Origins, ", "))
	} else {
		g.c.line("// %s is a %s kernel.", k.Name, k.Kind())
	}
	switch {
	case k.Serial && len(k.Split) > 0:
		g.c.line("// It is serial: it accumulates through indices that may repeat, in index")
		g.c.line("// order; iterations that differ in %s never update one element.", splitVars(k.Split))
	case k.Serial:
		g.c.line("// It is serial: it accumulates through indices that may repeat, so it")
		g.c.line("// runs on one goroutine in index order, never split across cores.")
	}
	sigK := k
	if g.orig != nil {
		sigK = g.orig
	}
	g.c.line("func %s error {", signature(g.prog, sigK))
	var err error
	switch k.Kind() {
	case lowering.KernelExtern:
		err = g.emitExtern()
	case lowering.KernelPointwise:
		g.emitViews()
		err = g.emitPointwise()
	default:
		g.emitViews()
		err = g.emitReduction()
	}
	g.c.line("}")
	g.c.line("")
	if err != nil {
		return fmt.Errorf("%s: %w", k.Name, err)
	}
	return nil
}

// emitViews makes each typed slice the kernel reads or writes, once.
func (g *kernelGen) emitViews() {
	seen := map[string]bool{}
	for _, in := range g.instrs() {
		if in.Access == nil || seen[viewName(in.Access)] || g.scratch[in.Access.Buffer] != nil {
			continue
		}
		seen[viewName(in.Access)] = true
		d := dtInfos[in.Access.DType]
		g.c.line("%s := %s(%s)", viewName(in.Access), d.view, bufName(in.Access.Buffer))
	}
}

// countUses counts the operand uses of every value.
func countUses(k *lowering.Kernel) map[*lowering.Instr]int {
	uses := map[*lowering.Instr]int{}
	for _, s := range k.Stages {
		for _, in := range s.Body {
			for _, a := range in.Args {
				uses[a]++
			}
		}
	}
	return uses
}

// emitPointwise flattens the outer ranges into one index split across
// cores; each chunk walks rows of the innermost range with a tight loop.
func (g *kernelGen) emitPointwise() error {
	var body []*lowering.Instr
	for _, s := range g.k.Stages {
		body = append(body, s.Body...)
	}
	outer := g.k.Outer
	if len(outer) == 0 {
		if err := g.emitBody(body, general); err != nil {
			return err
		}
		g.c.line("return nil")
		return nil
	}
	last := len(outer) - 1
	inner := lowering.OuterVar(last)
	var used map[string]bool
	var tile string
	if last > 0 {
		used = g.mentioned()
		var err error
		if tile, err = g.tileCall(body, used); err != nil {
			return err
		}
	}
	g.c.line("nIn := int64(%s)", outer[last].Code())
	g.c.line("total := nIn * int64(%s)", product(outer[:last]).Code())
	g.forChunks("1")
	if tile != "" {
		g.c.line("var tn, trows int64 // columns the tiles ran of each of the rows left in them")
	}
	g.c.line("for p := lo; p < hi; {")
	if last > 0 {
		g.c.line("row := p / nIn")
		g.c.line("xs := p - row*nIn")
		g.emitUnravel("row", outer[:last], used)
		g.emitTileCall(tile, lowering.OuterVar(last-1), outer[last-1])
	} else {
		g.c.line("xs := p")
	}
	g.c.line("xe := min(nIn, xs+hi-p)")
	if err := g.tightLoop(inner, "xs", "xe", body, g.k.Vec, true, nil); err != nil {
		return err
	}
	g.c.line("p += xe - xs")
	g.c.line("}")
	g.c.line("return nil")
	g.c.line("})")
	return nil
}

// forChunks opens the closure that runs [lo, hi) of total outer indexes:
// split across cores by rt.ParallelFor (cost: work per index), or, for a
// Serial kernel, all of them on this goroutine in index order, or, when
// its leading dims are split (Kernel.SplitPrefix), whole blocks of the
// other dims across cores, each block in order. A split that is not a
// prefix (index_add along dim 0: columns apart) stays on one goroutine:
// ranges of columns, each core walking every row, made index_put over
// [65536, 256] 2x to 5x slower on 2 cores than one goroutine's contiguous
// rows (CUDA, whose threads of a warp read neighbouring columns of one
// row, does split them).
func (g *kernelGen) forChunks(cost string) {
	if n := g.k.SplitPrefix(); g.k.Serial && n > 0 {
		g.c.line("// serial in blocks of %s outer indexes: iterations in different blocks never", product(g.k.Outer[n:]).Code())
		g.c.line("// update one element (split along %s), so blocks run across cores, each in order", splitVars(g.k.Split[:n]))
		g.c.line("blk := max(int64(%s), 1)", product(g.k.Outer[n:]).Code())
		g.c.line("return rt.ParallelFor(total/blk, blk*(%s), func(lo, hi int64) error {", cost)
		g.c.line("lo, hi = lo*blk, hi*blk")
		return
	}
	if g.k.Serial {
		g.c.line("// serial: one goroutine, outer indexes in order (repeated indices accumulate)")
		g.c.line("return rt.SerialFor(total, func(lo, hi int64) error {")
		return
	}
	g.c.line("return rt.ParallelFor(total, %s, func(lo, hi int64) error {", cost)
}

// splitVars names split dims: "x0, x1".
func splitVars(dims []int) string {
	vars := make([]string, len(dims))
	for i, d := range dims {
		vars[i] = lowering.OuterVar(d)
	}
	return strings.Join(vars, ", ")
}

// product multiplies sizes (1 for none).
func product(sizes []sym.Expr) sym.Expr {
	p := sym.Const(1)
	for _, s := range sizes {
		p = sym.Mul(p, s)
	}
	return p
}

// mentioned is the set of loop variables any index of the kernel uses.
func (g *kernelGen) mentioned() map[string]bool {
	m := map[string]bool{}
	for _, in := range g.instrs() {
		var e sym.Expr
		switch {
		case in.Access != nil:
			e = in.Access.Index
		case in.Op == lowering.OpIndex:
			e = in.Expr
		default:
			continue
		}
		for _, v := range e.Free() {
			m[v] = true
		}
	}
	return m
}

// emitUnravel defines the used outer variables x0..x(n-1) from a flat
// row-major index.
func (g *kernelGen) emitUnravel(flat string, sizes []sym.Expr, used map[string]bool) {
	for i := range sizes {
		name := lowering.OuterVar(i)
		if !used[name] {
			continue
		}
		e := flat
		if rest := product(sizes[i+1:]); !isOne(rest) {
			e = fmt.Sprintf("%s / int64(%s)", flat, rest.Code())
		}
		if i > 0 {
			e = fmt.Sprintf("(%s) %% int64(%s)", e, sizes[i].Code())
		}
		g.c.line("%s := %s", name, e)
	}
}

func isOne(e sym.Expr) bool { v, ok := e.Const(); return ok && v == 1 }

// loopAccess says how the tight loop addresses one access.
type loopAccess struct {
	kind  int    // accContig, accInvariant, accGeneral
	name  string // the slice (contiguous) or offset (invariant) variable
	index sym.Expr
}

const (
	accContig = iota
	accInvariant
	accGeneral
)

// classify decides, for the loop over v, how each access of body is made:
// a contiguous access (coefficient 1 in v) becomes a per-row subslice
// indexed by the loop counter, so the compiler drops the bounds checks; an
// access that does not move with v reads a precomputed offset.
func (g *kernelGen) classify(v, start, end string, body []*lowering.Instr) (map[*lowering.Access]loopAccess, []string) {
	out := map[*lowering.Access]loopAccess{}
	byKey := map[string]string{}
	var slicesInOrder []string
	for _, in := range body {
		a := in.Access
		if a == nil {
			continue
		}
		coeffs, rest, ok := sym.Linear(a.Index, []string{v})
		c, isConst := int64(0), false
		if ok && !indirect(a.Index) {
			c, isConst = coeffs[0].Const()
		}
		switch {
		case isConst && c == 1:
			key := viewName(a) + "|" + rest.Code()
			name, seen := byKey[key]
			if !seen {
				name = fmt.Sprintf("a%d", g.slot)
				g.slot++
				byKey[key] = name
				g.c.line("%s := %s[%s+%s : %s+%s]", name, viewName(a), rest.Code(), start, rest.Code(), end)
				if len(slicesInOrder) > 0 {
					g.c.line("%s = %s[:len(%s)]", name, name, slicesInOrder[0])
				}
				slicesInOrder = append(slicesInOrder, name)
			}
			out[a] = loopAccess{kind: accContig, name: name}
		case isConst && c == 0:
			name := fmt.Sprintf("o%d", g.slot)
			g.slot++
			g.c.line("%s := %s", name, a.Index.Code())
			out[a] = loopAccess{kind: accInvariant, name: name}
		default:
			out[a] = loopAccess{kind: accGeneral, index: a.Index}
		}
	}
	return out, slicesInOrder
}

// indirect reports an index that reads loaded values (tmp<N>: gather,
// embedding), which cannot be hoisted out of the loop.
func indirect(e sym.Expr) bool {
	for _, name := range e.Free() {
		if strings.HasPrefix(name, "tmp") {
			return true
		}
	}
	return false
}

// needsVar reports whether body needs the loop variable's value itself.
func needsVar(v string, body []*lowering.Instr, acc map[*lowering.Access]loopAccess) bool {
	for _, in := range body {
		if in.Access != nil && acc[in.Access].kind == accGeneral && slices.Contains(in.Access.Index.Free(), v) {
			return true
		}
		if in.Op == lowering.OpIndex && slices.Contains(in.Expr.Free(), v) {
			return true
		}
		if in.Op == lowering.OpReduce && (in.Reduce == lowering.ReduceArgMax || in.Reduce == lowering.ReduceArgMin) {
			return true
		}
	}
	return false
}

// tightLoop emits the innermost loop over v in [start, end). extra runs
// inside the loop before the body (reduction index bookkeeping). lanes
// asks for an 8-lane version of the loop where it qualifies (simd.go):
// the scalar loop then starts where the lanes stopped.
func (g *kernelGen) tightLoop(v, start, end string, body []*lowering.Instr, vec int, lanes bool, extra func()) error {
	acc, contig := g.classify(v, start, end, body)
	render := func(i string) accessFn {
		return renderLoopAccess(acc, func(name string) string { return name + "[" + i + "]" })
	}
	need := needsVar(v, body, acc)
	if len(contig) == 0 {
		g.c.line("for %s := %s; %s < %s; %s++ {", v, start, v, end, v)
		if extra != nil {
			extra()
		}
		if err := g.emitBody(body, render("")); err != nil {
			return err
		}
		g.c.line("}")
		return nil
	}
	if lanes && need && extra == nil {
		if done, err := g.predLoop(v, start, body, acc, contig); done || err != nil {
			return err
		}
	}
	first := "0"
	if lanes && !need {
		call, accs, err := g.simdCall(body, acc, contig)
		if err != nil {
			return err
		}
		switch {
		case call != "" && len(accs) > 0:
			// The lanes fold their part into the accumulators.
			first = fmt.Sprintf("n%d", g.slot)
			g.slot++
			g.c.line("var %s int", first)
			g.c.line("%s, %s = %s", first, strings.Join(accs, ", "), call)
		case call != "":
			first = call
		}
	}
	counter := "i"
	switch {
	case vec > 1:
		if err := g.unrolled(v, start, first, body, vec, contig, need, acc); err != nil {
			return err
		}
		g.c.line("for ; i < len(%s); i++ {", contig[0])
	case first != "0":
		g.c.line("for i := %s; i < len(%s); i++ {", first, contig[0])
	default:
		g.c.line("for i := range %s {", contig[0])
	}
	if need {
		g.c.line("%s := %s + int64(%s)", v, start, counter)
	}
	if extra != nil {
		extra()
	}
	if err := g.emitBody(body, render(counter)); err != nil {
		return err
	}
	g.c.line("}")
	return nil
}

// predLoop emits a pointwise loop whose wheres choose by an index
// predicate (simd_pred.go): lanes over the blocks where it is uniform,
// the scalar loop over each block the lanes leave; false when the loop
// does not qualify.
func (g *kernelGen) predLoop(v, start string, body []*lowering.Instr, acc map[*lowering.Access]loopAccess, contig []string) (bool, error) {
	for _, in := range body {
		if in.Op == lowering.OpReduce {
			return false, nil
		}
	}
	p := g.planPred(v, body)
	if p == nil {
		return false, nil
	}
	call, err := g.predCall(p, v, start, body, acc, contig)
	if call == "" || err != nil {
		return false, err
	}
	g.c.line("for i := 0; i < len(%s); {", contig[0])
	g.c.line("i = %s", call)
	g.c.line("for e := min(i+8, len(%s)); i < e; i++ {", contig[0])
	g.c.line("%s := %s + int64(i)", v, start)
	err = g.emitBody(body, renderLoopAccess(acc, func(name string) string { return name + "[i]" }))
	g.c.line("}")
	g.c.line("}")
	return true, err
}

// unrolled emits the loop's main part unrolled by vec: each contiguous
// access takes a vec-element subslice per step (one bounds check), the
// copies index it by constants. The remainder loop follows.
func (g *kernelGen) unrolled(v, start, first string, body []*lowering.Instr, vec int, contig []string, need bool, acc map[*lowering.Access]loopAccess) error {
	g.c.line("// vec=%d: the align pass proved %d-element vectors along %s; unrolled by %d.", vec, vec, v, vec)
	g.c.line("i := %s", first)
	g.c.line("for ; i+%d <= len(%s); i += %d {", vec, contig[0], vec)
	for _, s := range contig {
		g.c.line("%s_v := %s[i : i+%d : i+%d]", s, s, vec, vec)
	}
	step, err := g.laneText(body, acc)
	if err != nil {
		return err
	}
	for j := range vec {
		g.c.line("{")
		if need {
			g.c.line("%s := %s + int64(i+%d)", v, start, j)
		}
		g.c.WriteString(strings.ReplaceAll(step, laneMark, strconv.Itoa(j)))
		g.c.line("}")
	}
	g.c.line("}")
	return nil
}

// laneMark stands for the step's element in laneText: no Go source has a
// NUL byte.
const laneMark = "\x00"

// laneText is the body of one step of an unrolled loop, emitted once with
// laneMark for the step's element (name_v[laneMark]): the steps differ in
// nothing else, and emitting the body vec times cost 0.4 s of the Go back
// end's 3.2 s on a 146k-node graph.
func (g *kernelGen) laneText(body []*lowering.Instr, acc map[*lowering.Access]loopAccess) (string, error) {
	outer := g.c
	defer func() { g.c = outer }()
	g.c = &code{}
	err := g.emitBody(body, renderLoopAccess(acc, func(name string) string { return name + "_v[" + laneMark + "]" }))
	return g.c.String(), err
}

// emitBody emits straight-line statements for body (reductions excluded:
// see emitReduceUpdate).
func (g *kernelGen) emitBody(body []*lowering.Instr, access accessFn) error {
	for _, in := range body {
		if err := g.emitInstr(in, access); err != nil {
			return fmt.Errorf("tmp%d: %w", in.ID, err)
		}
	}
	return nil
}

func tmp(in *lowering.Instr) string { return "tmp" + strconv.Itoa(in.ID) }

// arg renders operand i converted to dtype dt.
func arg(in *lowering.Instr, i int, dt ir.DType) (string, error) {
	if i >= len(in.Args) || in.Args[i] == nil {
		return "", fmt.Errorf("%s has no operand %d", in.Op, i)
	}
	return castExpr(tmp(in.Args[i]), in.Args[i].DType, dt)
}

func (g *kernelGen) emitInstr(in *lowering.Instr, access accessFn) error {
	if in.Op == lowering.OpReduce || in.Op == lowering.OpScan {
		return g.emitReduceUpdate(in) // a scan's users read the running value
	}
	if g.peep.folded[in] {
		return nil // computed by its one user (peephole.go)
	}
	d, err := info(in.DType)
	if err != nil {
		return err
	}
	var rhs string
	switch in.Op {
	case lowering.OpLoad:
		ad, err := info(in.Access.DType)
		if err != nil {
			return err
		}
		rhs, err = castExpr(fmt.Sprintf(ad.load, access(in.Access)), in.Access.DType, in.DType)
		if err != nil {
			return err
		}
	case lowering.OpStore:
		ad, err := info(in.Access.DType)
		if err != nil {
			return err
		}
		v, err := arg(in, 0, in.Access.DType)
		if err != nil {
			return err
		}
		g.c.line("%s = %s", access(in.Access), fmt.Sprintf(ad.store, v))
		return nil
	case lowering.OpConst:
		rhs = constExpr(in.Imm, in.DType, d)
	case lowering.OpIndex:
		rhs, err = castExpr("int64("+in.Expr.Code()+")", ir.I64, in.DType)
	case lowering.OpCast:
		rhs, err = arg(in, 0, in.DType)
	case lowering.OpBitcast:
		if len(in.Args) != 1 {
			return fmt.Errorf("bitcast wants one operand")
		}
		rhs, err = bitcastExpr(tmp(in.Args[0]), in.Args[0].DType, in.DType)
	case lowering.OpCall:
		return g.emitCall(in, d)
	case lowering.OpCheck:
		return g.emitCheck(in)
	default:
		return fmt.Errorf("unknown opcode %d", in.Op)
	}
	if err != nil {
		return err
	}
	g.c.line("%s := %s", tmp(in), rhs)
	g.markUnused(in)
	return nil
}

// emitCheck fails the kernel with PyTorch's message when an index read
// from a tensor is out of range; the accesses that use it come after.
// One unsigned compare when negative indices are rejected.
func (g *kernelGen) emitCheck(in *lowering.Instr) error {
	if in.Check == nil {
		return fmt.Errorf("check without a message")
	}
	v, err := arg(in, 0, ir.I64)
	if err != nil {
		return err
	}
	size := "int64(" + in.Expr.Code() + ")"
	if in.Check.Neg {
		g.c.line("if %s < -%s || %s >= %s {", v, size, v, size)
	} else {
		g.c.line("if uint64(%s) >= uint64(%s) {", v, size)
	}
	g.c.line("return rt.IndexError(%s, %s, %s)", strconv.Quote(in.Check.Msg), v, size)
	g.c.line("}")
	return nil
}

func (g *kernelGen) markUnused(in *lowering.Instr) {
	if g.uses[in] == 0 {
		g.c.line("_ = %s", tmp(in))
	}
}

// emitCall emits a scalar function: operands converted to the compute
// type, the result rounded or wrapped into the instruction's dtype.
func (g *kernelGen) emitCall(in *lowering.Instr, d dtInfo) error {
	arity, ok := lowering.Fns[in.Fn]
	if !ok || len(in.Args) != arity {
		return fmt.Errorf("call %s: want %d operands, got %d", in.Fn, arity, len(in.Args))
	}
	if _, ok := lowering.RandFns[in.Fn]; ok {
		return g.emitRandCall(in)
	}
	if in.Fn == "where" {
		c, err := arg(in, 0, ir.Bool)
		if err != nil {
			return err
		}
		a, err := arg(in, 1, in.DType)
		if err != nil {
			return err
		}
		b, err := arg(in, 2, in.DType)
		if err != nil {
			return err
		}
		g.c.line("%s := %s", tmp(in), b)
		g.c.line("if %s {", c)
		g.c.line("%s = %s", tmp(in), a)
		g.c.line("}")
		g.markUnused(in)
		return nil
	}
	fn, negate := g.callFn(in)
	operands := g.callOperands(in)
	compute := in.DType
	if lowering.BoolFns[fn] {
		compute = operands[0].DType
	}
	cd, err := info(compute)
	if err != nil {
		return err
	}
	args := make([]string, len(operands))
	for i, a := range operands {
		if args[i], err = castExpr(tmp(a), a.DType, compute); err != nil {
			return err
		}
		if negate {
			args[i] = "(-" + args[i] + ")"
		}
	}
	e, divides, err := callExpr(fn, cd.reg, cd.width, args)
	if err != nil {
		return err
	}
	if divides {
		g.c.line("if %s == 0 {", args[1])
		g.c.line("return rt.ErrZeroDivision")
		g.c.line("}")
	}
	if !lowering.BoolFns[in.Fn] {
		e = fmt.Sprintf(d.round, e)
	}
	g.c.line("%s := %s", tmp(in), e)
	g.markUnused(in)
	return nil
}

// constExpr renders a constant exactly, rounded into its dtype.
func constExpr(s lowering.Scalar, dt ir.DType, d dtInfo) string {
	switch d.reg {
	case regBool:
		return strconv.FormatBool(s.Bool)
	case regI64:
		return "int64(" + strconv.FormatInt(dt.WrapInt(s.Int), 10) + ")"
	case regF64:
		return f64Lit(s.Float)
	}
	return f32Lit(roundConst(dt, float32(s.Float)))
}

func f64Lit(v float64) string {
	switch {
	case math.IsNaN(v):
		return "math.NaN()"
	case math.IsInf(v, 0):
		return fmt.Sprintf("math.Inf(%d)", int(math.Copysign(1, v)))
	case v == 0 && math.Signbit(v):
		return "rt.NegZero64()"
	}
	return "float64(" + strconv.FormatFloat(v, 'g', -1, 64) + ")"
}

func f32Lit(v float32) string {
	switch {
	case v != v:
		return "rt.NaN32()"
	case math.IsInf(float64(v), 0):
		return fmt.Sprintf("rt.Inf32(%d)", int(math.Copysign(1, float64(v))))
	case v == 0 && math.Signbit(float64(v)):
		return "rt.NegZero32()"
	}
	return "float32(" + strconv.FormatFloat(float64(v), 'g', -1, 32) + ")"
}

// roundConst rounds a float32 constant into a reduced dtype at generation
// time, with the runtime's own conversions.
func roundConst(dt ir.DType, f float32) float32 {
	round := map[ir.DType]func(float32) float32{
		ir.BF16: rt.RoundBF16, ir.F16: rt.RoundF16, ir.F8E4M3FN: rt.RoundE4M3FN, ir.F8E5M2: rt.RoundE5M2,
		ir.F8E4M3FNUZ: rt.RoundE4M3FNUZ, ir.F8E5M2FNUZ: rt.RoundE5M2FNUZ,
	}[dt]
	if round == nil {
		return f
	}
	return round(f)
}
