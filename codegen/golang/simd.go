package golang

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// SIMD inner loops. An inner loop (a pointwise kernel's, or a stage of a
// reduction kernel) that reads and writes contiguous f32 (or f32 that
// does not move along the loop, or an f32 value of an earlier stage) and
// computes only functions with an exact 8-lane twin gets a second version
// of that loop on archsimd.Float32x8: the scalar loop first calls <kernel>AVX2,
// which runs the longest multiple of 8 elements and says how far it got,
// then finishes the row. The function lives in <pkg>_simd.go, built only
// with GOEXPERIMENT=simd on amd64; <pkg>_nosimd.go is its twin, returning
// 0, so the module builds and is correct either way. Lanes compute bit
// for bit what the scalar Go computes (see rt/simd_amd64.go): IEEE add,
// sub, mul and div (Go never fuses them on amd64 below GOAMD64=v3, and the
// scalar mul is wrapped in a conversion that forbids fusing above it),
// sign-bit neg and abs, min/max as the compiler lowers them, and its
// rewrites of x·±1 and x/±1. One freedom is left: which of two NaN
// operands an add or mul passes on, since the compiler may swap the
// operands of ADDSS or VADDPS alike. A reduction's lanes keep 8 partial
// results, folded pairwise after the loop: an f32 sum then adds in another
// order than the scalar loop (as Inductor's vectorised reductions do);
// max and min give the same value.

// simdFn is a loop-IR function on lanes: a template over the operands
// (%[1]s, %[2]s, %[3]s; "sign" is the loop's sign-bit mask) and whether
// it yields a mask (a comparison, usable only as where's condition).
type simdFn struct {
	tmpl string
	mask bool
	// expand, when set, writes the function out as statements (its tmpl
	// names the rt function it mirrors): see simd_math.go.
	expand func(l *simdLoop, dst string, args []string)
}

var simdFns = map[string]simdFn{
	"add":        {tmpl: "%[1]s.Add(%[2]s)"},
	"sub":        {tmpl: "%[1]s.Sub(%[2]s)"},
	"mul":        {tmpl: "%[1]s.Mul(%[2]s)"},
	"truediv":    {tmpl: "%[1]s.Div(%[2]s)"},
	"neg":        {tmpl: negLanes("%[1]s")},
	"abs":        {tmpl: absLanes("%[1]s")},
	"maximum":    {tmpl: "rt.MaxF32x8(%[1]s, %[2]s, sign)", expand: (*simdLoop).maxLanes},
	"minimum":    {tmpl: "rt.MinF32x8(%[1]s, %[2]s)", expand: (*simdLoop).minLanes},
	"exp":        {tmpl: "rt.ExpF32x8(%[1]s, sign)", expand: (*simdLoop).expLanes},
	"tanh":       {tmpl: "rt.TanhF32x8(%[1]s, sign)", expand: (*simdLoop).tanhLanes},
	"sqrt":       {tmpl: "%[1]s.Sqrt()"}, // VSQRTPS: correctly rounded, as the scalar loop
	"reciprocal": {tmpl: "rt.Reciprocal", expand: (*simdLoop).reciprocalLanes},
	"rsqrt":      {tmpl: "rt.RsqrtF32", expand: (*simdLoop).rsqrtLanes},
	"sigmoid":    {tmpl: "rt.SigmoidF32", expand: (*simdLoop).sigmoidLanes},
	"erf":        {tmpl: "rt.ErfF32", expand: (*simdLoop).erfLanes},
	"log":        {tmpl: "rt.LogF32", expand: (*simdLoop).logLanes},
	"log1p":      {tmpl: "rt.Log1pF32", expand: (*simdLoop).log1pLanes},
	"expm1":      {tmpl: "rt.Expm1F32", expand: (*simdLoop).expm1Lanes},
	"sin":        {tmpl: "rt.SinF32", expand: (*simdLoop).sinLanes},
	"cos":        {tmpl: "rt.CosF32", expand: (*simdLoop).cosLanes},
	// Ordered compares (false on NaN) as Go's <, <=, ...; != is unordered.
	"eq":    {tmpl: "%[1]s.Equal(%[2]s)", mask: true},
	"ne":    {tmpl: "%[1]s.NotEqual(%[2]s)", mask: true},
	"lt":    {tmpl: "%[1]s.Less(%[2]s)", mask: true},
	"le":    {tmpl: "%[1]s.LessEqual(%[2]s)", mask: true},
	"gt":    {tmpl: "%[1]s.Greater(%[2]s)", mask: true},
	"ge":    {tmpl: "%[1]s.GreaterEqual(%[2]s)", mask: true},
	"where": {tmpl: "%[2]s.Merge(%[3]s, %[1]s)"},
}

// negLanes and absLanes flip and clear the sign bit (the loop's "sign"
// mask) of lane value x, as rt.NegF32x8 and rt.AbsF32x8, written out:
// Go's compiler inlines those calls, but at 16 lanes the inlined call
// cost the pointwise chain exp(relu(2x+1))-x a quarter of its time
// (270 µs against 217 written out, 1024×1024, one thread).
func negLanes(x string) string { return x + ".AsUint32x8().Xor(sign).AsFloat32x8()" }
func absLanes(x string) string { return x + ".AsUint32x8().AndNot(sign).AsFloat32x8()" }

// simdOut collects one package's SIMD loops and their scalar twins.
type simdOut struct {
	fns   code // functions of <pkg>_simd.go
	stubs code // functions of <pkg>_nosimd.go
	count int
	mem   map[string]string // constants read from memory: k<Name> → value (memOperands)
}

// simdLoop is one inner loop being put on lanes.
type simdLoop struct {
	g      *kernelGen
	acc    map[*lowering.Access]loopAccess
	contig []string
	params []string // the function's parameters
	args   []string // the call's arguments
	val    map[*lowering.Instr]string
	hoist  []hoisted // before the loop: broadcasts
	used   map[string]bool
	body   code // the loop body
	sign   bool // body uses the sign-bit mask
	inBody map[*lowering.Instr]bool
	accs   []string // scalar accumulators the lanes fold into and return
	folds  code     // after the loop: lanes folded into the accumulators
	// sfolds are the folds' scalar statements, after the lanes' upper
	// halves are cleared (see write).
	sfolds code
	hs     []string // the arrays the folds store the lanes into (h<ID>)
	name   string   // the function's name
	// colIdx and colSteps: column lanes' stepped index variables
	// (simd_cols.go stepIndices) and their steps.
	colIdx   map[*lowering.Access]string
	colSteps []string
	// vaccs are a reduction loop's vector accumulators with the method
	// that joins two of them (unrolled: see unrolledBody).
	vaccs []vacc
	// sfx and idxOff name and place the second of two column groups
	// that column lanes run together (simd_cols.go): "B" and "+8".
	sfx, idxOff string
	pair        bool // the body runs two column groups
	// extFast: column lanes' max and min on VMAXPS/VMINPS with a record
	// of NaNs (simd_cols.go colsStage).
	extFast bool
	valB    map[*lowering.Instr]string // the second group's values
	wide    int                        // <kernel>Wide's outputs at most (simd_wide.go); 0 otherwise
	expSum  *expSum                    // the loop's 16-element blocks run in rt.ExpShiftSum (simd_expsum.go)
	// wideBody: a predicated loop's body over 32-element blocks (simd_pred.go)
	wideBody string
	// alt16 are body lines with another form on 16 lanes (lineAt16).
	alt16 map[string]string
	// fold16 runs a sum's two-step loop on 16 lanes where the CPU has
	// AVX-512 (simd_fold16.go); "" where it does not qualify.
	fold16 string
}

// vacc is a vector accumulator of a reduction loop.
type vacc struct{ name, join string }

// hoisted is a broadcast made once per call, emitted only if the loop
// uses it (a ±1 factor rewritten away leaves its constant unused).
type hoisted struct{ name, stmt string }

// operand returns a, first making a lane value of it (a parameter,
// broadcast before the loop) when it was computed before the loop.
func (l *simdLoop) operand(a *lowering.Instr) *lowering.Instr {
	if l.inBody[a] || l.val[a] != "" {
		return a
	}
	name, s := fmt.Sprintf("v%d", a.ID), scalarParam(a)
	l.params = append(l.params, s+" float32")
	l.args = append(l.args, tmp(a))
	l.hoist = append(l.hoist, hoisted{name, fmt.Sprintf("%s := archsimd.BroadcastFloat32x8(%s)", name, s)})
	l.val[a] = name
	return a
}

// reduce folds the operand into a vector accumulator per lane; after the
// loop the lanes fold pairwise into the scalar accumulator, which the
// scalar loop goes on with. A sum so adds in another order than the
// scalar loop alone (as Inductor's vectorised reductions do); max and
// min give the same value either way.
func (l *simdLoop) reduce(in *lowering.Instr) {
	acc, r, h := tmp(in), accName(in), fmt.Sprintf("h%d", in.ID)
	x := l.ref(l.operand(in.Args[0]))
	l.params = append(l.params, acc+" float32")
	l.args = append(l.args, acc)
	l.accs = append(l.accs, acc)
	start := map[lowering.ReduceOp]string{lowering.ReduceSum: "0", lowering.ReduceMax: "rt.Inf32(-1)", lowering.ReduceMin: "rt.Inf32(1)"}[in.Reduce]
	l.hoist = append(l.hoist, hoisted{r, fmt.Sprintf("%s := %s", r, broadcastF32(start))})
	l.used[r] = true
	store := func() {
		l.hs = append(l.hs, h)
		l.folds.line("%s.Store(%s)", r, h)
	}
	switch in.Reduce {
	case lowering.ReduceSum:
		store()
		l.vaccs = append(l.vaccs, vacc{r, "Add"})
		l.body.line("%s = %s.Add(%s)", r, r, x)
		l.sfolds.line("%s = %s + (((%[3]s[0] + %[3]s[1]) + (%[3]s[2] + %[3]s[3])) + ((%[3]s[4] + %[3]s[5]) + (%[3]s[6] + %[3]s[7])))", acc, acc, h)
	case lowering.ReduceMax:
		l.extremum(in, r, x, "Max", "0", "0x7fc00000")
		store()
		l.sfolds.line("%s = max(%s, max(max(max(%[3]s[0], %[3]s[1]), max(%[3]s[2], %[3]s[3])), max(max(%[3]s[4], %[3]s[5]), max(%[3]s[6], %[3]s[7]))))", acc, acc, h)
	default:
		l.extremum(in, r, x, "Min", "-0x80000000", "0x7fc00000")
		store()
		l.sfolds.line("%s = min(%s, min(min(min(%[3]s[0], %[3]s[1]), min(%[3]s[2], %[3]s[3])), min(min(%[3]s[4], %[3]s[5]), min(%[3]s[6], %[3]s[7]))))", acc, acc, h)
	}
}

// extremum is a max (or min) reduction's step on lanes: one VMAXPS
// (VMINPS) on the accumulator's chain instead of MaxF32x8's nine
// operations, whose latency bound the loop. VMAXPS returns one of its
// operands, the larger where they are ordered and unequal; which one it
// returns for two zeros or a NaN depends on an operand order the compiler
// may swap, so two masks off the chain record what decides those: a NaN
// seen (the lane's result is then NaN) and a zero of the winning sign
// seen (+0 for max, -0 for min: Go's max(-0, +0) is +0, its min -0).
// After the loop each lane is the value Go's max (min) of its elements
// has; a NaN result may carry another payload than the scalar loop's, as
// the pairwise fold of the lanes already may.
func (l *simdLoop) extremum(in *lowering.Instr, r, x, op, zeroBits, nanBits string) {
	nan, zero := fmt.Sprintf("q%d", in.ID), fmt.Sprintf("z%d", in.ID)
	l.hoist = append(l.hoist, hoisted{nan, fmt.Sprintf("%s := archsimd.BroadcastInt32x8(0)", nan)},
		hoisted{zero, fmt.Sprintf("%s := archsimd.BroadcastInt32x8(0)", zero)},
		hoisted{"kZeroBits" + op, fmt.Sprintf("kZeroBits%s := archsimd.BroadcastInt32x8(%s)", op, zeroBits)})
	l.used[nan], l.used[zero], l.used["kZeroBits"+op] = true, true, true
	l.vaccs = append(l.vaccs, vacc{r, op}, vacc{nan, "Or"}, vacc{zero, "Or"})
	l.body.line("%s = %s.%s(%s)", r, r, op, x)
	l.body.line("%s = %s.Or(%s.IsNaN().ToInt32x8())", nan, nan, x)
	l.body.line("%s = %s.Or(%s.AsInt32x8().Equal(kZeroBits%s).ToInt32x8())", zero, zero, x, op)
	l.folds.line("%s = kZeroBits%s.AsFloat32x8().Merge(%s, %s.Equal(kZeroBits%s.AsFloat32x8()).And(%s.NotEqual(archsimd.BroadcastInt32x8(0))))",
		r, op, r, r, op, zero)
	l.folds.line("%s = archsimd.BroadcastInt32x8(%s).AsFloat32x8().Merge(%s, %s.NotEqual(archsimd.BroadcastInt32x8(0)))", r, nanBits, r, nan)
}

// ref is the lane value of in, marked used.
func (l *simdLoop) ref(in *lowering.Instr) string {
	name := l.val[in]
	l.used[name] = true
	return name
}

// simdCall returns the call that runs the inner loop's lanes ("" when the
// loop stays scalar: no SIMD output, or the loop does not qualify) and
// the accumulators it returns after the count (a reduction's loop).
// newSIMDLoop starts lane function name, whose values are body's (the
// instructions it computes on lanes; more may be added).
func (g *kernelGen) newSIMDLoop(name string, body []*lowering.Instr) *simdLoop {
	l := &simdLoop{g: g, name: name, val: map[*lowering.Instr]string{}, used: map[string]bool{},
		inBody: make(map[*lowering.Instr]bool, len(body))}
	for _, in := range body {
		l.inBody[in] = true
	}
	return l
}

// newAVX2Loop starts an 8-lane version of a pointwise inner loop over the
// contiguous views contig (its parameters). A kernel's lane functions are
// numbered in program order: kernelN_AVX2, kernelN_AVX2_1, ...
func (g *kernelGen) newAVX2Loop(body []*lowering.Instr, acc map[*lowering.Access]loopAccess, contig []string) *simdLoop {
	name := g.k.Name + "AVX2"
	if g.lanes > 0 {
		name += fmt.Sprintf("_%d", g.lanes)
	}
	g.lanes++
	l := g.newSIMDLoop(name, body)
	l.acc, l.contig = acc, contig
	elem := map[string]string{}
	for a, la := range acc {
		if la.kind == accContig && a.DType == ir.BF16 {
			elem[la.name] = "uint16" // bf16 bits
		}
	}
	for _, s := range contig {
		l.params = append(l.params, fmt.Sprintf("%s []%s", s, cmp.Or(elem[s], "float32")))
		l.args = append(l.args, s)
	}
	return l
}

func (g *kernelGen) simdCall(body []*lowering.Instr, acc map[*lowering.Access]loopAccess, contig []string) (string, []string, error) {
	if g.simd == nil || g.k.Serial || len(contig) == 0 {
		return "", nil, nil
	}
	if why := g.simdReject(body, acc); why != "" {
		g.c.line("// scalar only: %s", why)
		return "", nil, nil
	}
	l := g.newAVX2Loop(body, acc, contig)
	for _, in := range body {
		if err := l.instr(in); err != nil {
			return "", nil, fmt.Errorf("simd tmp%d: %w", in.ID, err)
		}
	}
	l.expSum = l.matchExpSum(body)
	l.write()
	return fmt.Sprintf("%s(%s)", l.name, strings.Join(l.args, ", ")), l.accs, nil
}

// simdReject says why body cannot run on lanes; "" when it can.
func (g *kernelGen) simdReject(body []*lowering.Instr, acc map[*lowering.Access]loopAccess) string {
	masks := map[*lowering.Instr]bool{}
	inBody := map[*lowering.Instr]bool{}
	for _, in := range body {
		inBody[in] = true
	}
	for _, in := range body {
		if g.peep.folded[in] {
			continue
		}
		if why := g.simdRejectInstr(in, acc, masks); why != "" {
			return fmt.Sprintf("tmp%d: %s", in.ID, why)
		}
		if why := g.simdRejectOuter(in, inBody); why != "" {
			return fmt.Sprintf("tmp%d: %s", in.ID, why)
		}
		if in.Op == lowering.OpCall {
			fn, _ := g.callFn(in)
			masks[in] = simdFns[fn].mask
		}
	}
	return simdAliasing(body, acc)
}

func (g *kernelGen) simdRejectInstr(in *lowering.Instr, acc map[*lowering.Access]loopAccess, masks map[*lowering.Instr]bool) string {
	switch in.Op {
	case lowering.OpLoad:
		if in.DType != in.Access.DType || !laneBuffers[in.DType] || acc[in.Access].kind == accGeneral ||
			in.DType == ir.BF16 && acc[in.Access].kind != accContig {
			return "a load that is not f32 (or contiguous bf16) or not contiguous"
		}
	case lowering.OpStore:
		if in.Access.DType != in.Args[0].DType || !laneBuffers[in.Access.DType] || acc[in.Access].kind != accContig {
			return "a store that is not contiguous f32 or bf16"
		}
		return operandsAreVectors(in.Args, masks)
	case lowering.OpConst:
		if in.DType != ir.F32 {
			return "a constant that is not f32"
		}
	case lowering.OpCast:
		if !laneCasts[[2]ir.DType{in.Args[0].DType, in.DType}] {
			return "a cast from " + in.Args[0].DType.Abbr() + " to " + in.DType.Abbr()
		}
		return operandsAreVectors(in.Args, masks)
	case lowering.OpReduce:
		switch in.Reduce {
		case lowering.ReduceSum, lowering.ReduceMax, lowering.ReduceMin:
		default:
			return "a " + in.Reduce.String() + " reduction"
		}
		if in.DType != ir.F32 || len(in.Args) != 1 || in.Args[0].DType != ir.F32 {
			return "a reduction that is not f32"
		}
		return operandsAreVectors(in.Args, masks)
	case lowering.OpCall:
		fn, _ := g.callFn(in)
		f, ok := simdFns[fn]
		if !ok {
			return "function " + fn + " has no exact lane version"
		}
		if in.DType != ir.F32 && !f.mask {
			return fn + " computed in " + in.DType.Abbr()
		}
		ops := g.callOperands(in)
		if fn == "where" {
			if !masks[ops[0]] {
				return "where's condition is not an f32 comparison in the loop"
			}
			ops = ops[1:]
		}
		for _, a := range ops {
			if a.DType != ir.F32 {
				return fn + " on a non-f32 operand"
			}
		}
		return operandsAreVectors(ops, masks)
	default:
		return "a " + in.Op.String()
	}
	return ""
}

// simdRejectOuter rejects an operand computed before the loop (an earlier
// stage's value, broadcast on the lanes) unless it is an f32 variable.
func (g *kernelGen) simdRejectOuter(in *lowering.Instr, inBody map[*lowering.Instr]bool) string {
	ops := in.Args
	if in.Op == lowering.OpCall {
		ops = g.callOperands(in)
	}
	for _, a := range ops {
		if a != nil && !inBody[a] && (a.DType != ir.F32 || g.peep.folded[a]) {
			return fmt.Sprintf("operand tmp%d from before the loop is not an f32 variable", a.ID)
		}
	}
	return ""
}

// operandsAreVectors rejects a mask used other than as where's condition.
func operandsAreVectors(ops []*lowering.Instr, masks map[*lowering.Instr]bool) string {
	for _, a := range ops {
		if masks[a] {
			return "a comparison used other than as where's condition"
		}
	}
	return ""
}

// simdAliasing rejects a loop that reads a buffer it writes other than
// at the element it writes: lanes read 8 elements before writing any.
func simdAliasing(body []*lowering.Instr, acc map[*lowering.Access]loopAccess) string {
	written := map[*lowering.Buffer]string{}
	for _, in := range body {
		if in.Op == lowering.OpStore {
			written[in.Access.Buffer] = acc[in.Access].name
		}
	}
	for _, in := range body {
		a := in.Access
		if a == nil {
			continue
		}
		if name, ok := written[a.Buffer]; ok && (acc[a].kind != accContig || acc[a].name != name) {
			return fmt.Sprintf("buffer %s is read and written at different elements", a.Buffer.Name)
		}
	}
	return ""
}

// instr emits one instruction on lanes.
func (l *simdLoop) instr(in *lowering.Instr) error {
	g := l.g
	if g.peep.folded[in] {
		return nil
	}
	name := fmt.Sprintf("v%d", in.ID) + l.sfx
	switch in.Op {
	case lowering.OpLoad:
		la := l.acc[in.Access]
		if la.kind == accInvariant {
			s := scalarParam(in)
			l.params = append(l.params, s+" float32")
			l.args = append(l.args, fmt.Sprintf("%s[%s]", viewName(in.Access), la.name))
			l.hoist = append(l.hoist, hoisted{name, fmt.Sprintf("%s := archsimd.BroadcastFloat32x8(%s)", name, s)})
			break
		}
		if in.Access.DType == ir.BF16 {
			l.body.line("%s := %s", name, l.loadBF16Lanes(la.name))
			break
		}
		l.body.line("%s := archsimd.LoadFloat32x8((*[8]float32)(%s[i : i+8]))", name, la.name)
	case lowering.OpStore:
		if in.Access.DType == ir.BF16 {
			l.storeBF16Lanes(l.ref(l.operand(in.Args[0])), l.acc[in.Access].name)
			return nil
		}
		l.body.line("%s.Store((*[8]float32)(%s[i : i+8]))", l.ref(l.operand(in.Args[0])), l.acc[in.Access].name)
		return nil
	case lowering.OpReduce:
		l.reduce(in)
		return nil
	case lowering.OpConst:
		l.hoist = append(l.hoist, hoisted{name, fmt.Sprintf("%s := %s", name, broadcastF32(f32Lit(float32(in.Imm.Float))))})
	case lowering.OpCast:
		l.castLanes(name, l.ref(l.operand(in.Args[0])), in.DType)
	case lowering.OpCall:
		e, expand, args, err := l.call(in)
		if err != nil {
			return err
		}
		if expand != nil {
			expand(l, name, args)
			break
		}
		l.body.line("%s := %s", name, e)
	default:
		return fmt.Errorf("%s has no lane version", in.Op)
	}
	l.val[in] = name
	if g.uses[in] == 0 {
		l.body.line("_ = %s", l.ref(in))
	}
	return nil
}

// call renders a function on lanes: the function and operands the scalar
// code computes (peepholes included), and the compiler's own rewrites of
// a product or quotient by ±1 (x·1 = x and x·-1 = -x, which keep a
// signalling NaN's bits and flip a NaN's sign where IEEE mul would not).
// A function written out as statements comes back as its expander and
// its operands.
func (l *simdLoop) call(in *lowering.Instr) (string, func(*simdLoop, string, []string), []string, error) {
	fn, negate := l.g.callFn(in)
	ops := l.g.callOperands(in)
	args := make([]string, len(ops))
	for i, a := range ops {
		args[i] = l.val[l.operand(a)]
		if args[i] == "" {
			return "", nil, nil, fmt.Errorf("operand tmp%d is not on lanes", a.ID)
		}
		if negate {
			args[i] = negLanes(args[i])
			l.sign = true
		}
	}
	if e, ok := l.byUnit(fn, ops, args, negate); ok {
		return e, nil, nil, nil
	}
	if e, ok := l.maxZero(fn, ops, negate); ok {
		return e, nil, nil, nil
	}
	for _, a := range ops {
		l.ref(a)
	}
	f := simdFns[fn]
	if f.expand != nil {
		return "", f.expand, args, nil
	}
	if strings.Contains(f.tmpl, "sign") {
		l.sign = true
	}
	vals := make([]any, 3)
	for i := range vals {
		vals[i] = ""
		if i < len(args) {
			vals[i] = args[i]
		}
	}
	return fmt.Sprintf(f.tmpl, vals...), nil, nil, nil
}

// byUnit mirrors Go's generic rewrites (Mul32F x (Const32F [±1])) and
// (Div32F x (Const32F [±1])) (through x·(1/c)).
func (l *simdLoop) byUnit(fn string, ops []*lowering.Instr, args []string, negate bool) (string, bool) {
	if negate || (fn != "mul" && fn != "truediv") {
		return "", false
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if fn == "truediv" && i == 0 {
			break // only the divisor
		}
		c := ops[i]
		if c.Op != lowering.OpConst || c.DType != ir.F32 {
			continue
		}
		// Only the operand the rewrite keeps is marked used: a constant
		// factor that is not ±1 must not keep the other one's broadcast.
		switch float32(c.Imm.Float) {
		case 1:
			return l.ref(ops[1-i]), true
		case -1:
			l.sign = true
			return negLanes(l.ref(ops[1-i])), true
		}
	}
	return "", false
}

// maxZero is Go's max(x, +0) (relu) in three lane operations instead of
// MaxF32x8's nine. Go's max is -min(-x, -y), and its min is the smaller
// of two ordered unequal operands and their bitwise or elsewhere; with
// y = +0 that is x for x > 0, +0 for x < 0, and x with its sign bit
// cleared for ±0 and NaN: |x| unless x <= 0 (ordered), where +0.
func (l *simdLoop) maxZero(fn string, ops []*lowering.Instr, negate bool) (string, bool) {
	if negate || fn != "maximum" || len(ops) != 2 {
		return "", false
	}
	for i, c := range ops {
		if c.Op != lowering.OpConst || c.DType != ir.F32 || math.Float32bits(float32(c.Imm.Float)) != 0 {
			continue
		}
		x, zero := l.ref(ops[1-i]), l.ref(c)
		l.sign = true
		return fmt.Sprintf("%s.Merge(%s, %s.LessEqual(%s))", zero, absLanes(x), x, zero), true
	}
	return "", false
}

// write appends the loop's function and its scalar twin.
func (l *simdLoop) write() {
	g, out := l.g, l.g.simd
	out.count++
	name := l.name
	results, ret := "int", ""
	if len(l.accs) > 0 {
		results = "(int" + strings.Repeat(", float32", len(l.accs)) + ")"
		ret = ", " + strings.Join(l.accs, ", ")
	}
	sig := fmt.Sprintf("func %s(%s) %s", name, strings.Join(l.params, ", "), results)
	f := &out.fns
	if len(l.accs) > 0 {
		f.line("// %s runs one of %s's reduction loops on 8 float32 lanes (AVX2)", name, g.k.Name)
		f.line("// over the longest multiple of 8 elements, folds the lanes into the")
		f.line("// accumulators and returns how many it ran; the scalar loop finishes.")
	} else {
		f.line("// %s runs %s's inner loop on 8 float32 lanes (AVX2), bit for bit", name, g.k.Name)
		f.line("// as the scalar loop, over the longest multiple of 8 elements, and")
		f.line("// returns how many it ran; the scalar loop finishes the row.")
	}
	f.line("%s {", sig)
	f.line("if !rt.SIMD() || len(%s) < 8 {", l.contig[0])
	f.line("return 0%s", ret)
	f.line("}")
	if len(l.accs) > 0 {
		l.writeReduction(f, ret)
	} else {
		twin, call := l.wideTwin()
		l.writeLoops(f, lanes8, call)
		f.line("archsimd.ClearAVXUpperBits() // back to scalar SSE code without a transition penalty")
		f.line("return i")
		f.line("}")
		f.line("")
		f.WriteString(twin)
	}
	out.stubs.line("// %s: no SIMD in this build; the scalar loop runs every element.", name)
	out.stubs.line("%s { return 0%s }", sig, ret)
	out.stubs.line("")
}

// unrolledBody writes a loop's main part two steps at a time, the second
// step on its own copy of every accumulator of a reduction (joined into
// the first after it): one vector accumulator chains every step through
// the add's latency (3-4 cycles for 8 elements, the bound of a sum over a
// row), two chains halve that; a long pointwise body likewise gets two
// independent chains. A sum so adds in another order again (as
// the lanes already do); max and min keep their values.
func (l *simdLoop) unrolledBody(f *code, w laneWidth, body string) {
	rename := map[string]bool{}
	for _, a := range l.vaccs {
		rename[a.name] = true
	}
	for _, line := range strings.Split(body, "\n") {
		if m := definedRe.FindStringSubmatch(line); m != nil {
			rename[m[1]] = true
		}
	}
	second := identRe.ReplaceAllStringFunc(body, func(id string) string {
		if rename[id] {
			return id + "B"
		}
		return id
	})
	second = strings.ReplaceAll(second, fmt.Sprintf("[i : i+%d]", w.n), fmt.Sprintf("[i+%d : i+%d]", w.n, 2*w.n))
	for _, a := range l.vaccs {
		for _, h := range l.hoist {
			if h.name == a.name {
				f.line("%s", strings.Replace(h.stmt, a.name+" :=", a.name+"B :=", 1))
			}
		}
	}
	if l.fold16 != "" && w.n == 8 {
		f.line("if rt.AVX512() {")
		f.line("%s", l.fold16)
		f.line("}")
	}
	f.line("for ; i+%d <= len(%s); i += %d {", 2*w.n, l.contig[0], 2*w.n)
	f.WriteString(body)
	f.WriteString(second)
	f.line("}")
	for _, a := range l.vaccs {
		f.line("%s = %s.%s(%sB)", a.name, a.name, a.join, a.name)
	}
}

// broadcastF32 is the lanes of a float32 literal: +0 as the zero vector
// (VPXOR; Go materialises a broadcast 0 with a legacy-SSE XORPS, which
// costs a transition after 256-bit AVX code).
func broadcastF32(lit string) string {
	if lit == "0" || lit == "float32(0)" {
		return "archsimd.Float32x8{}"
	}
	return "archsimd.BroadcastFloat32x8(" + lit + ")"
}

// unrollLines: a pointwise loop body this long (exp, tanh written out)
// is one long chain of dependent operations; two steps an iteration give
// the core two independent chains to overlap.
const unrollLines = 16

var (
	definedRe = regexp.MustCompile(`^\s*(\w+) :=`)
	identRe   = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)
)

// files renders the GOEXPERIMENT=simd file and its twin for package
// pkg; nil when no loop went on lanes.
func (out *simdOut) files(graph, pkg, rtImport string) (simdSrc, twinSrc []byte) {
	if out == nil || out.count == 0 {
		return nil, nil
	}
	head := func(tag, doc string) string {
		return fmt.Sprintf("// Code generated by kiln from graph %q; DO NOT EDIT.\n\n//go:build %s\n\n// %s\n\npackage %s\n\n",
			graph, tag, doc, pkg)
	}
	simd := head("goexperiment.simd && amd64", "The lane inner loops: 8 lanes, and 16 for pointwise loops, wide column reductions, transposed tiles and row sums' bodies where the CPU has AVX-512; built by GOEXPERIMENT=simd go build.") +
		fmt.Sprintf("import (\n\t\"simd/archsimd\"\n\n\t%q\n)\n\n", rtImport) + out.fns.String() + out.memDecls()
	twin := head("!(goexperiment.simd && amd64)", "Without GOEXPERIMENT=simd, the scalar loops run every element.") +
		out.stubs.String()
	return []byte(simd), []byte(twin)
}

// Names the lane functions give an instruction's values must not be a
// loop variable's (lowering.OuterVar x0.., ReduceVar r0..) or a symbol's,
// which the functions take as parameters: PyTorch names a graph's symbols
// s<N>, u<N>, zf<N>, zuf<N> (torch.utils._sympy.symbol.prefix_str).

// accName is the lane accumulator of reduction in.
func accName(in *lowering.Instr) string { return fmt.Sprintf("acc%d", in.ID) }

// scalarParam is the parameter that carries in's value, computed before
// the loop, into a lane function.
func scalarParam(in *lowering.Instr) string { return fmt.Sprintf("sv%d", in.ID) }

// writeHoisted writes what a lane function computes before its loops:
// the sign mask when a stage needs it, then each hoisted value a body
// uses, once (the column functions' two bodies hoist the same constants),
// less the constants the bodies read from memory (mem) and, given the
// bodies' text, the k<Name> constants neither it nor the folds name: exp's
// kBias has no use on 16 lanes, where VSCALEFPS takes its place.
func (l *simdLoop) writeHoisted(f *code, mem map[string]string, body string) {
	if l.sign {
		f.line("sign := rt.SignF32x8()")
	}
	named := map[string]bool{}
	for _, id := range identRe.FindAllString(body+l.folds.String()+l.sfolds.String(), -1) {
		named[id] = true
	}
	seen := map[string]bool{}
	for _, h := range l.hoist {
		if _, ok := mem[h.name]; ok || body != "" && strings.HasPrefix(h.name, "k") && !named[h.name] {
			continue
		}
		if l.used[h.name] && !seen[h.name] {
			seen[h.name] = true
			f.line("%s", h.stmt)
		}
	}
}
