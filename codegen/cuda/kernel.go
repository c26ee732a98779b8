package cuda

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// kgen emits one loop kernel. Each thread takes one flattened outer index
// (or plan.lanes consecutive ones along the innermost variable) per turn
// of a grid-stride loop and runs the kernel's stages in order. An r-stage
// is a sequential loop over its reduction ranges with an accumulator per
// reduce: a deliberate simplification of Inductor's reductions, which
// split the range over a warp (shuffles) or a block (shared memory).
type kgen struct {
	p     *lowering.Program
	k     *lowering.Kernel
	e     *emitter
	plan  *vecPlan
	sig   *signature
	msgs  *checkMsgs // the program's check messages
	stage map[*lowering.Instr]int
	cross map[*lowering.Instr]bool // outer-level values later stages read
	cur   int                      // the stage being emitted
}

// signature is what the host needs to launch a kernel.
type signature struct {
	name    string // the kernel launched, for messages
	fn      string // the __global__ function that runs it: name, or the kernel's whose code it shares
	buffers []*lowering.Buffer
	written map[*lowering.Buffer]bool
	work    sym.Expr // threads' turns: outer indices / lanes
	lanes   int
	// serial launches one thread, which walks every outer index in order
	// (Kernel.Serial: a scatter-accumulate whose indices may repeat).
	serial bool
	// checks: the kernel checks indices and takes the error record.
	checks bool
}

func genKernel(e *emitter, p *lowering.Program, k *lowering.Kernel, msgs *checkMsgs) (*signature, error) {
	g := &kgen{p: p, k: k, e: e, plan: planVector(k), stage: map[*lowering.Instr]int{}, cross: map[*lowering.Instr]bool{}, msgs: msgs}
	g.sig = kernelSignature(k, g.plan.lanes)
	g.sig.checks = hasChecks(k)
	g.findCross()
	g.header()
	if err := g.body(); err != nil {
		return nil, fmt.Errorf("kernel %s: %w", k.Name, err)
	}
	return g.sig, nil
}

// kernelSignature lists the buffers a kernel touches, by ID.
// sharedSignature is the launch of k, which runs owner's code (signature
// of owner's code): owner's function on k's buffers.
func sharedSignature(k *lowering.Kernel, owner *signature) *signature {
	sig := *owner
	sig.name = k.Name
	sig.buffers = k.CallBuffers(owner.buffers)
	sig.written = make(map[*lowering.Buffer]bool, len(owner.written))
	for i, b := range owner.buffers {
		if owner.written[b] {
			sig.written[sig.buffers[i]] = true
		}
	}
	return &sig
}

func kernelSignature(k *lowering.Kernel, lanes int) *signature {
	sig := &signature{name: k.Name, fn: k.Name, written: map[*lowering.Buffer]bool{}, lanes: lanes, work: sym.Const(1), serial: k.Serial}
	seen := map[*lowering.Buffer]bool{}
	add := func(b *lowering.Buffer) {
		if b != nil && !seen[b] {
			seen[b] = true
			sig.buffers = append(sig.buffers, b)
		}
	}
	for _, s := range k.Stages {
		for _, in := range s.Body {
			if in.Access != nil {
				add(in.Access.Buffer)
				if in.Op == lowering.OpStore {
					sig.written[in.Access.Buffer] = true
				}
			}
		}
	}
	for i, o := range k.Outer {
		if !sig.serial || len(k.Split) == 0 || slices.Contains(k.Split, i) {
			sig.work = sym.Mul(sig.work, o)
		}
	}
	if sig.serial && len(k.Split) > 0 {
		// A thread per value of the split dims, each running the other
		// dims in order (splitBody).
		sig.serial = false
	}
	if lanes > 1 {
		sig.work = sym.FloorDiv(sig.work, sym.Const(int64(lanes)))
	}
	slices.SortFunc(sig.buffers, func(a, b *lowering.Buffer) int { return a.ID - b.ID })
	return sig
}

func (g *kgen) findCross() {
	for i, s := range g.k.Stages {
		for _, in := range s.Body {
			g.stage[in] = i
			for _, a := range in.Args {
				if j, ok := g.stage[a]; ok && j != i && a.Op != lowering.OpReduce {
					g.cross[a] = true
				}
			}
		}
	}
}

// header writes the kernel's comment and signature.
func (g *kgen) header() {
	k := g.k
	g.e.line("")
	g.e.line("// %s: %s kernel, origins [%s]", k.Name, k.Kind(), strings.Join(k.Origins, ", "))
	g.e.line("// %s", g.plan.why)
	for _, n := range g.plan.notes {
		g.e.line("//   %s", n)
	}
	params := make([]string, 0, len(g.sig.buffers)+len(g.p.Syms))
	for _, b := range g.sig.buffers {
		if g.sig.written[b] {
			params = append(params, fmt.Sprintf("%s* __restrict__ %s", storageOf(b.DType), bufParam(b)))
		} else {
			params = append(params, fmt.Sprintf("const %s* __restrict__ %s", storageOf(b.DType), bufParam(b)))
		}
	}
	for _, s := range g.p.Syms {
		params = append(params, "long long "+s)
	}
	if g.sig.checks {
		params = append(params, "long long* __restrict__ "+errParam)
	}
	g.e.line("extern \"C\" __global__ void %s(%s) {", k.Name, strings.Join(params, ", "))
}

// body writes the grid-stride loop, the outer index decomposition and the
// stages.
func (g *kgen) body() error {
	e, n, lanes := g.e, len(g.k.Outer), g.plan.lanes
	e.in()
	e.line("const long long nwork = %s;", g.sig.work.Code())
	e.line("for (long long w = (long long)KILN_BID * KILN_BDIM + KILN_TID; w < nwork; w += (long long)KILN_GDIM * KILN_BDIM) {")
	e.in()
	if g.k.Serial && len(g.k.Split) > 0 {
		return g.splitBody()
	}
	if n > 0 {
		e.line("long long rest = w * %d;", lanes)
	}
	for i := n - 1; i >= 0; i-- {
		name := lowering.OuterVar(i)
		if i == n-1 && lanes > 1 {
			name += "_0"
		}
		if i == 0 {
			e.line("const long long %s = rest;", name)
			continue
		}
		size := "(" + g.k.Outer[i].Code() + ")"
		e.line("const long long %s = rest %% %s;", name, size)
		e.line("rest /= %s;", size)
	}
	if err := g.emitStages(); err != nil {
		return err
	}
	e.out()
	e.line("}")
	e.out()
	e.line("}")
	return nil
}

// splitBody is body for a serial kernel with Split: thread w takes one
// value of the split dims (iterations that differ in them never update
// one element) and runs the other dims in loop order, as the serial
// kernel would for that value.
func (g *kgen) splitBody() error {
	e := g.e
	var split, rest []int
	for i := range g.k.Outer {
		if slices.Contains(g.k.Split, i) {
			split = append(split, i)
		} else {
			rest = append(rest, i)
		}
	}
	e.line("// serial: iterations that differ in %s never update one element, so a", outerNames(split))
	e.line("// thread takes each of their values and walks the other dims in order.")
	g.unravel("w", split)
	serialWork := sym.Const(1)
	for _, i := range rest {
		serialWork = sym.Mul(serialWork, g.k.Outer[i])
	}
	e.line("for (long long q = 0; q < (long long)(%s); ++q) {", serialWork.Code())
	e.in()
	g.unravel("q", rest)
	if err := g.emitStages(); err != nil {
		return err
	}
	e.out()
	e.line("}")
	e.out()
	e.line("}")
	e.out()
	e.line("}")
	return nil
}

// unravel defines the outer variables dims (ascending) from the flat
// row-major index flat over their sizes.
func (g *kgen) unravel(flat string, dims []int) {
	if len(dims) == 0 {
		return
	}
	r := "rest_" + flat
	g.e.line("long long %s = %s;", r, flat)
	for j := len(dims) - 1; j >= 0; j-- {
		name := lowering.OuterVar(dims[j])
		if j == 0 {
			g.e.line("const long long %s = %s;", name, r)
			continue
		}
		size := "(" + g.k.Outer[dims[j]].Code() + ")"
		g.e.line("const long long %s = %s %% %s;", name, r, size)
		g.e.line("%s /= %s;", r, size)
	}
}

func outerNames(dims []int) string {
	names := make([]string, len(dims))
	for i, d := range dims {
		names[i] = lowering.OuterVar(d)
	}
	return strings.Join(names, ", ")
}

// declareCarried declares, at thread scope, the values that outlive their
// stage: reduce and scan accumulators and outer-level values later stages
// read.
func (g *kgen) declareCarried() error {
	for _, s := range g.k.Stages {
		for _, in := range s.Body {
			acc := in.Op == lowering.OpReduce || in.Op == lowering.OpScan
			if !acc && !g.cross[in] {
				continue
			}
			d, err := info(in.DType)
			if err != nil {
				return err
			}
			name := "tmp" + itoa(in.ID)
			if !acc {
				name += "_x"
			} else if isArg(in.Reduce) {
				a, err := info(in.Args[0].DType)
				if err != nil {
					return err
				}
				g.e.line("%s tmp%d_v%s;", cType(a.reg), in.ID, g.dim())
			}
			g.e.line("%s %s%s;", cType(d.reg), name, g.dim())
		}
	}
	return nil
}

func (g *kgen) dim() string {
	if g.plan.lanes > 1 {
		return fmt.Sprintf("[%d]", g.plan.lanes)
	}
	return ""
}

// lane indexes a per-lane array in the lane loop.
func (g *kgen) lane(name string) string {
	if g.plan.lanes > 1 {
		return name + "[v]"
	}
	return name
}

// ref is how the current stage names a value.
func (g *kgen) ref(in *lowering.Instr) string {
	name := "tmp" + itoa(in.ID)
	switch {
	case in.Op == lowering.OpReduce || in.Op == lowering.OpScan:
		return g.lane(name)
	case g.stage[in] != g.cur && g.cross[in]:
		return g.lane(name + "_x")
	}
	return name
}

func (g *kgen) emitStage(i int, s *lowering.Stage) error {
	e := g.e
	if len(s.Reduce) == 0 {
		e.line("// stage %d", i)
	} else {
		e.line("// stage %d: sequential loop over %s (a simplification: Inductor splits a reduction", i, rangesText(s.Reduce))
		e.line("// across a warp with shuffles or a block with shared memory)")
		if hasScan(s) {
			// One thread per outer point walks the scanned dim in order: correct
			// and simple, not fast for long rows (Inductor's Triton scans with
			// tl.associative_scan across a block).
			e.line("// a scan: this thread walks the range in order, each prefix stored as it is reached")
		}
		if err := g.initAccumulators(s); err != nil {
			return err
		}
	}
	e.line("{")
	e.in()
	for j, r := range s.Reduce {
		v := lowering.ReduceVar(j)
		e.line("for (long long %s = 0; %s < (%s); ++%s) {", v, v, r.Code(), v)
		e.in()
	}
	if err := g.emitVectorLoads(s); err != nil {
		return err
	}
	stores := g.vectorStores(s)
	if g.plan.lanes > 1 {
		e.line("#pragma unroll")
		e.line("for (int v = 0; v < %d; ++v) {", g.plan.lanes)
		e.in()
		e.line("const long long %s = %s_0 + v;", g.plan.inner, g.plan.inner)
	}
	g.copyIndirect(s)
	for _, in := range s.Body {
		if err := g.instr(s, in); err != nil {
			return fmt.Errorf("tmp%d: %w", in.ID, err)
		}
	}
	if g.plan.lanes > 1 {
		e.out()
		e.line("}")
	}
	g.emitVectorStores(stores)
	for range s.Reduce {
		e.out()
		e.line("}")
	}
	e.out()
	e.line("}")
	return nil
}

// copyIndirect binds, in this stage, the index values (tmp<ID> symbols of
// indirect accesses) that an earlier stage computed.
func (g *kgen) copyIndirect(s *lowering.Stage) {
	done := map[*lowering.Instr]bool{}
	for _, in := range s.Body {
		if in.Access == nil {
			continue
		}
		for _, t := range in.Access.Indirect {
			if g.stage[t] != g.cur && !done[t] {
				done[t] = true
				g.e.line("const long long tmp%d = %s;", t.ID, g.ref(t))
			}
		}
	}
}

func rangesText(sizes []sym.Expr) string {
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = fmt.Sprintf("%s < %s", lowering.ReduceVar(i), s)
	}
	return strings.Join(parts, ", ")
}

// bufParam is a buffer's kernel parameter (and host variable) name:
// unique by ID, and never a loop variable, symbol or C keyword.
func bufParam(b *lowering.Buffer) string {
	var s strings.Builder
	for _, c := range b.Name {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			s.WriteRune(c)
		} else {
			s.WriteByte('_')
		}
	}
	return "p" + itoa(b.ID) + "_" + s.String()
}

func itoa(i int) string { return fmt.Sprint(i) }

// emitter writes CUDA C a line at a time into b, handing b's bytes to w
// every 64 KiB: a large program streams to its file, never one string.
type emitter struct {
	b      bytes.Buffer // reused: Reset keeps its 64 KiB
	w      io.Writer
	err    error // w's first error
	indent int
}

// flush hands what b holds to w.
func (e *emitter) flush() {
	if e.err == nil {
		_, e.err = e.w.Write(e.b.Bytes())
	}
	e.b.Reset()
}

// indentSpaces indents a line without a string of its own per line (a
// 100k-node program's CUDA C is 1.8M lines).
const indentSpaces = "                                "

func (e *emitter) line(format string, args ...any) {
	if format == "" {
		e.b.WriteString("\n")
		return
	}
	if 2*e.indent <= len(indentSpaces) {
		e.b.WriteString(indentSpaces[:2*e.indent])
	} else {
		e.b.WriteString(strings.Repeat("  ", e.indent))
	}
	if len(args) == 0 && !strings.Contains(format, "%") {
		e.b.WriteString(format) // most lines: no fmt, no allocation
	} else {
		fmt.Fprintf(&e.b, format, args...)
	}
	e.b.WriteString("\n")
	if e.b.Len() >= 64<<10 {
		e.flush()
	}
}

func (e *emitter) in()  { e.indent++ }
func (e *emitter) out() { e.indent-- }

// emitStages declares the values carried across stages and emits every
// stage of the kernel, for one outer point.
func (g *kgen) emitStages() error {
	if err := g.declareCarried(); err != nil {
		return err
	}
	for i, s := range g.k.Stages {
		g.cur = i
		if err := g.emitStage(i, s); err != nil {
			return fmt.Errorf("stage %d: %w", i, err)
		}
	}
	return nil
}
