package golang

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// Tiles for a pointwise kernel that reads an operand transposed: out[u, v]
// = f(x[v, u], ...) (arange(n).view(a, b) + x.t(), the held-out
// scale_column) stores along its inner variable v but reads x with a
// stride along v and contiguously along the row variable u, so the
// per-row lanes cannot load it and the scalar loop pays a strided load
// per element. As Inductor's C++ (transpose_mxn), rows run together in
// square tiles of one lane width: 16 rows of 16×16 tiles where the CPU
// has AVX-512 (rt.AVX512), else 8 rows of 8×8 tiles (AVX2). The tile of x
// is loaded as rows and transposed in registers (rt.Transpose16x16,
// rt.Transpose8x8) into a buffer, then each output row runs the body on
// lanes over the tile's columns. Values that do not move along v are
// computed as scalars, once per call or once per row, by the scalar
// loop's own code; index expressions along v are lanes of int32 (every
// value they take in the call fits, checked on entry, else the scalar
// loop runs), compared on lanes or converted to float32 (arange: the
// float64 arithmetic 0 + 1·float64(i) rounded to float32 is float32(i),
// exactly, for an integer i below 2^53). Bit for bit the scalar loop,
// at either width.
//
// The body is written once, for 8 lanes, with the width as the constant
// lanes of the function; lanes16.spell respells its vector types for
// the 16-lane twin (simd_width.go). On scale_column (1024×1024, one
// thread, this project's AMD EPYC) 8×8 tiles took 366-391 µs, 16×16 tiles
// 235-255 µs, Inductor's (16×16) 247-254 µs in the same runs. Most of it
// is the transposes' reads: x's rows are 4 KiB apart, so a tile's 16 lines
// share one L1 set (12-way); the same transposes at a row stride of 1040
// floats ran 2.5x faster. Blocks of 4×4 tiles (64 rows; each row of x
// read 4 lines at a time) made the transposes faster but the row loop
// slower (64 rows stored 4 lines each), 247 against 240 µs: not kept.

// Tile levels of a value: computed once per call, once per row, on lanes.
const (
	tileCall = iota
	tileRow
	tileLane
)

// tileLoop is a kernel's tile function being written.
type tileLoop struct {
	*simdLoop
	v, u   string
	level  map[*lowering.Instr]int
	trans  map[*lowering.Access]string // transposed loads: their tile buffer
	stride map[*lowering.Access]int64  // and its stride along v
	ints   map[*lowering.Instr]bool    // lanes of int32 (index values)
	// asInt maps an f64 lane value that is an exact integer (float64 of
	// an index, times 1, plus 0) to the index lane it equals.
	asInt  map[*lowering.Instr]*lowering.Instr
	checks []string // index expressions (Go) whose values must fit int32
	iotas  []int64  // the steps of the index lanes (kIota<step>)
}

// tileSrc is the tile functions' code common to both widths.
type tileSrc struct {
	// scalars per call and per row, by the scalar loop's code; lane
	// values broadcast from them, once per call and per row (into the
	// row arrays rows declares).
	scalars, bc [2]string
	rows        []string
	trans       []tileTranspose
}

// tileTranspose is a transposed operand: the tile buffer it is
// transposed into and the view, index (of the tile's first element) and
// stride along v it is read with.
type tileTranspose struct {
	buf, view, index string
	stride           int64
}

// tileCall returns the call that runs rows of the pointwise kernel in
// tiles from row u ("" when the kernel does not qualify): it returns how
// many columns of each row it ran (a multiple of the lanes) and how many
// rows (16 or 8).
func (g *kernelGen) tileCall(body []*lowering.Instr, used map[string]bool) (string, error) {
	k := g.k
	if g.simd == nil || k.Serial || len(k.Outer) < 2 || !hasTransposed(body, len(k.Outer)) {
		return "", nil
	}
	t := &tileLoop{simdLoop: g.newSIMDLoop(k.Name+"Tile", nil), // plan adds the values it puts on lanes
		v: lowering.OuterVar(len(k.Outer) - 1), u: lowering.OuterVar(len(k.Outer) - 2),
		level: map[*lowering.Instr]int{}, trans: map[*lowering.Access]string{}, stride: map[*lowering.Access]int64{},
		ints: map[*lowering.Instr]bool{}, asInt: map[*lowering.Instr]*lowering.Instr{}}
	if !used[t.u] {
		return "", nil
	}
	if why := t.plan(body); why != "" {
		g.c.line("// no tiles: %s", why)
		return "", nil
	}
	var views, vars []string
	for _, in := range body {
		if in.Access != nil && !slices.Contains(views, viewName(in.Access)) {
			views = append(views, viewName(in.Access))
		}
	}
	vars = append(vars, g.prog.Syms...)
	for i := range k.Outer[:len(k.Outer)-1] {
		if name := lowering.OuterVar(i); used[name] {
			vars = append(vars, name)
		}
	}
	src, err := t.write(body)
	if err != nil {
		return "", err
	}
	var params []string
	for _, s := range views {
		params = append(params, s+" []float32")
	}
	for _, s := range vars {
		params = append(params, s+" int64")
	}
	args := strings.Join(append(views, vars...), ", ")
	t.emit(src, strings.Join(params, ", "), args)
	return fmt.Sprintf("%s(%s, nIn, rows)", t.name, args), nil
}

// emit writes the tile functions, <kernel>Tile (8 lanes, which runs the
// 16-lane one where it can) and <kernel>TileAVX512, and the stub of the
// first for builds without SIMD.
func (t *tileLoop) emit(src *tileSrc, params, args string) {
	out := t.g.simd
	out.count++
	k := t.g.k
	wide := t.name + "AVX512"
	sig := fmt.Sprintf("func %s(%s, nIn, rows int64) (int64, int64)", t.name, params)
	out.fns.line("// %s runs rows of %s from %s in tiles on float32 lanes, bit for bit as", t.name, k.Name, t.u)
	out.fns.line("// the scalar loop: 16 rows in 16×16 tiles (%s) where the CPU has", wide)
	out.fns.line("// AVX-512 and the caller has 16 (rows), else 8 rows in 8×8 tiles (AVX2).")
	out.fns.line("// It returns how many columns of each row it ran and how many rows; the")
	out.fns.line("// scalar loop finishes the rows.")
	out.fns.line("%s {", sig)
	out.fns.line("if rt.AVX512() && rows >= 16 && nIn >= 16 {")
	out.fns.line("return %s(%s, nIn), 16", wide, args)
	out.fns.line("}")
	out.fns.WriteString(t.frame(src, lanes8, ", 8"))
	out.fns.line("}")
	out.fns.line("")
	out.fns.line("// %s runs 16 rows of %s from %s in 16×16 tiles on float32 lanes", wide, k.Name, t.u)
	out.fns.line("// (AVX-512), bit for bit as the scalar loop, and returns how many columns")
	out.fns.line("// of each row it ran.")
	out.fns.line("func %s(%s, nIn int64) int64 {", wide, params)
	out.fns.WriteString(t.frame(src, lanes16, ""))
	out.fns.line("}")
	out.fns.line("")
	out.stubs.line("// %s: no SIMD in this build; the scalar loop runs every element.", t.name)
	out.stubs.line("%s { return 0, 8 }", sig)
	out.stubs.line("")
}

// emitTileCall runs the tiles at the start of 8 or 16 whole rows of one
// chunk (rows u.. of the same outer indices); each of those rows then
// skips the columns the tiles ran.
func (g *kernelGen) emitTileCall(call, u string, size sym.Expr) {
	if call == "" {
		return
	}
	g.c.line("if trows == 0 && xs == 0 && p+8*nIn <= hi && %s+8 <= int64(%s) {", u, size.Code())
	g.c.line("rows := min((hi-p)/nIn, int64(%s)-%s) // whole rows of the chunk from %s", size.Code(), u, u)
	g.c.line("tn, trows = %s", call)
	g.c.line("}")
	g.c.line("if trows > 0 {")
	g.c.line("trows--")
	g.c.line("xs, p = tn, p+tn")
	g.c.line("}")
}

// hasTransposed is the cheap test first: some access moves along the
// innermost variable by other than 0 or 1 element.
func hasTransposed(body []*lowering.Instr, rank int) bool {
	v := lowering.OuterVar(rank - 1)
	for _, in := range body {
		if in.Op != lowering.OpLoad {
			continue
		}
		coeffs, _, ok := sym.Linear(in.Access.Index, []string{v})
		if !ok {
			continue
		}
		if c, isConst := coeffs[0].Const(); isConst && c > 1 {
			return true
		}
	}
	return false
}

// coefs are an access's constant coefficients in v and u.
func (t *tileLoop) coefs(e sym.Expr) (cv, cu int64, ok bool) {
	if indirect(e) {
		return 0, 0, false
	}
	coeffs, _, ok := sym.Linear(e, []string{t.v, t.u})
	if !ok {
		return 0, 0, false
	}
	cv, ok1 := coeffs[0].Const()
	cu, ok2 := coeffs[1].Const()
	return cv, cu, ok1 && ok2
}

// plan gives each instruction its level and lane kind; the reason the
// kernel cannot run in tiles, or "".
func (t *tileLoop) plan(body []*lowering.Instr) string {
	written := map[*lowering.Buffer]bool{}
	for _, in := range body {
		if in.Op == lowering.OpStore {
			written[in.Access.Buffer] = true
		}
		if in.Op == lowering.OpReduce || in.Op == lowering.OpCheck {
			return "a " + in.Op.String()
		}
	}
	for _, in := range body {
		if why := t.planInstr(in, written); why != "" {
			return fmt.Sprintf("tmp%d: %s", in.ID, why)
		}
	}
	if len(t.trans) == 0 {
		return "no transposed load"
	}
	return ""
}

func (t *tileLoop) planInstr(in *lowering.Instr, written map[*lowering.Buffer]bool) string {
	g := t.g
	switch in.Op {
	case lowering.OpLoad, lowering.OpStore:
		return t.planAccess(in, written)
	case lowering.OpConst:
		t.level[in] = tileCall
		return ""
	case lowering.OpIndex:
		free := in.Expr.Free()
		switch {
		case slices.Contains(free, t.v):
			t.level[in] = tileLane
			return t.laneIndex(in)
		case slices.Contains(free, t.u):
			t.level[in] = tileRow
		default:
			t.level[in] = tileCall
		}
		return ""
	}
	lvl := tileCall
	ops := in.Args
	if in.Op == lowering.OpCall {
		ops = g.callOperands(in)
	}
	for _, a := range ops {
		lvl = max(lvl, t.level[a])
	}
	t.level[in] = lvl
	if lvl < tileLane {
		return t.scalarOK(in)
	}
	t.inBody[in] = true
	if g.peep.folded[in] {
		return ""
	}
	switch in.Op {
	case lowering.OpCast:
		a := in.Args[0]
		switch {
		case t.asInt[a] != nil && in.DType == ir.F32:
			return ""
		case a.DType == ir.F32 && in.DType == ir.F32 && t.isF32Lane(a):
			return ""
		}
		return "a cast on lanes other than f32 or an index to f32"
	case lowering.OpCall:
		return t.planCall(in, ops)
	}
	return "a " + in.Op.String() + " on lanes"
}

// planAccess places a load or store: stores and loads along v contiguous,
// transposed loads (contiguous along u) from a tile, loads that do not
// move along v as scalars.
func (t *tileLoop) planAccess(in *lowering.Instr, written map[*lowering.Buffer]bool) string {
	a := in.Access
	cv, cu, ok := t.coefs(a.Index)
	if !ok || a.DType != ir.F32 || t.g.scratch[a.Buffer] != nil {
		return "an access that is not f32 or not affine in the two inner variables"
	}
	if in.Op == lowering.OpStore {
		if cv != 1 || in.Args[0].DType != ir.F32 {
			return "a store that does not move by one element along " + t.v
		}
		t.level[in] = tileLane
		return ""
	}
	if written[a.Buffer] {
		return "a buffer is read and written"
	}
	switch {
	case cv == 0 && cu == 0:
		t.level[in] = tileCall
		return t.scalarOK(in)
	case cv == 0:
		t.level[in] = tileRow
		return t.scalarOK(in)
	case in.DType != ir.F32:
		return "a load along " + t.v + " to another dtype"
	case cv == 1:
	case cu == 1 && cv > 1 && cv < 1<<28:
		t.trans[a] = fmt.Sprintf("t%d", in.ID)
		t.stride[a] = cv
	default:
		return "a load that is neither contiguous nor transposed"
	}
	t.level[in] = tileLane
	t.inBody[in] = true
	return ""
}

// scalarOK rejects a scalar (per call or per row) instruction whose
// scalar code could fail (an integer division, a random draw).
func (t *tileLoop) scalarOK(in *lowering.Instr) string {
	if in.Op == lowering.OpLoad && in.DType != ir.F32 {
		return "a load to another dtype"
	}
	if in.Op != lowering.OpCall {
		return ""
	}
	if _, ok := lowering.RandFns[in.Fn]; ok {
		return "a random draw"
	}
	if fnImpls[in.Fn].divides {
		return "a function that can divide by zero"
	}
	return ""
}

// laneIndex plans an index expression along v: lanes of int32 (an i64
// index, or f64 for arange's arithmetic), or converted to f32.
func (t *tileLoop) laneIndex(in *lowering.Instr) string {
	cv, _, ok := t.coefs(in.Expr)
	if !ok || cv*15 != int64(int32(cv*15)) { // the last lane's step from the first, at 16 lanes
		return "an index that is not affine in the two inner variables"
	}
	switch in.DType {
	case ir.I64:
		t.ints[in] = true
	case ir.F64:
		t.ints[in] = true
		t.asInt[in] = in
	case ir.F32:
	default:
		return "an index of dtype " + in.DType.Abbr()
	}
	t.checks = append(t.checks, in.Expr.Code())
	t.inBody[in] = true
	return ""
}

// isF32Lane reports a float32 value the lanes can use: a lane value, or
// a scalar f32 variable they broadcast.
func (t *tileLoop) isF32Lane(a *lowering.Instr) bool {
	if t.level[a] < tileLane {
		return a.DType == ir.F32 && !t.g.peep.folded[a]
	}
	return a.DType == ir.F32 && !t.ints[a] && t.asInt[a] == nil
}

// isIntLane reports an integer a lane comparison can use: an index lane,
// or a scalar i64 index or constant that fits int32 (checked on entry).
func (t *tileLoop) isIntLane(a *lowering.Instr) bool {
	if a.DType != ir.I64 {
		return false
	}
	if t.level[a] == tileLane {
		return t.ints[a]
	}
	switch a.Op {
	case lowering.OpConst:
		return a.Imm.Int == int64(int32(a.Imm.Int))
	case lowering.OpIndex:
		if _, _, ok := t.coefs(a.Expr); !ok {
			return false
		}
		if !slices.Contains(t.checks, a.Expr.Code()) {
			t.checks = append(t.checks, a.Expr.Code())
		}
		return true
	}
	return false
}

// planCall plans a function on lanes.
func (t *tileLoop) planCall(in *lowering.Instr, ops []*lowering.Instr) string {
	fn, negate := t.g.callFn(in)
	if src := t.exactInt(fn, in, ops); src != nil && !negate {
		t.asInt[in] = src
		return ""
	}
	if predCmp[fn] != "" && len(ops) == 2 && ops[0].DType == ir.I64 && !negate {
		if t.isIntLane(ops[0]) && t.isIntLane(ops[1]) {
			return ""
		}
		return "a comparison of integers that are not index lanes"
	}
	f, ok := simdFns[fn]
	if !ok {
		return "function " + fn + " has no exact lane version"
	}
	if in.DType != ir.F32 && !f.mask {
		return fn + " computed in " + in.DType.Abbr()
	}
	if fn == "where" {
		if c := ops[0]; t.level[c] < tileLane || c.DType != ir.Bool {
			return "where's condition is not a comparison on lanes"
		}
		ops = ops[1:]
	}
	for _, a := range ops {
		if !t.isF32Lane(a) {
			return fn + " on an operand that is not f32"
		}
	}
	return ""
}

// exactInt is the index lane an f64 product by 1 or sum with 0 of an
// exact-integer lane equals (arange's start + step·i with start 0, step
// 1); nil otherwise.
func (t *tileLoop) exactInt(fn string, in *lowering.Instr, ops []*lowering.Instr) *lowering.Instr {
	if in.DType != ir.F64 || len(ops) != 2 || (fn != "mul" && fn != "add") {
		return nil
	}
	unit := map[string]float64{"mul": 1, "add": 0}[fn]
	for i, c := range ops {
		if c.Op == lowering.OpConst && c.DType == ir.F64 && c.Imm.Float == unit {
			return t.asInt[ops[1-i]]
		}
	}
	return nil
}

// write renders what the tile functions of both widths share.
func (t *tileLoop) write(body []*lowering.Instr) (*tileSrc, error) {
	g := t.g
	saved := g.c
	defer func() { g.c = saved }()
	// Scalars once per call and once per row, by the scalar loop's code;
	// then the broadcasts the lanes take of them.
	var scalars [2]code
	for _, in := range body {
		lvl := t.level[in]
		if lvl == tileLane {
			continue
		}
		g.c = &scalars[lvl]
		if err := g.emitInstr(in, general); err != nil {
			return nil, fmt.Errorf("tile tmp%d: %w", in.ID, err)
		}
		if !g.peep.folded[in] {
			g.c.line("_ = %s", tmp(in))
		}
	}
	g.c = saved
	var bc [2]code
	src := &tileSrc{}
	for _, in := range body {
		if t.level[in] == tileLane && !g.peep.folded[in] {
			t.broadcasts(in, &bc, &src.rows)
		}
	}
	for _, in := range body {
		if t.level[in] != tileLane || g.peep.folded[in] {
			continue
		}
		if err := t.laneInstr(in); err != nil {
			return nil, fmt.Errorf("tile tmp%d: %w", in.ID, err)
		}
	}
	for _, in := range body {
		if name := t.val[in]; t.level[in] == tileLane && name != "" {
			t.body.line("_ = %s", name)
		}
	}
	src.scalars = [2]string{scalars[tileCall].String(), scalars[tileRow].String()}
	src.bc = [2]string{bc[tileCall].String(), bc[tileRow].String()}
	seen := map[string]string{}
	for _, in := range body {
		a := in.Access
		name := t.trans[a]
		if in.Op != lowering.OpLoad || name == "" {
			continue
		}
		key := viewName(a) + "|" + a.Index.Code()
		if first, ok := seen[key]; ok {
			t.trans[a] = first
			continue
		}
		seen[key] = name
		src.trans = append(src.trans, tileTranspose{name, viewName(a), a.Index.Code(), t.stride[a]})
	}
	return src, nil
}

// frame writes the tile function's body at width w: lanes rows of tiles
// of lanes columns. ret follows the count of columns in its returns.
func (t *tileLoop) frame(src *tileSrc, w laneWidth, ret string) string {
	// Scalar code first (checks, values per call and per row), then the
	// AVX code: SSE and AVX instructions alternating in the loop cost
	// a state transition each time on some CPUs.
	var f, lanes code
	f.line("const lanes = %d // float32 lanes (%s): lanes rows of lanes×lanes tiles", w.n, w.isa)
	f.line("if !rt.SIMD() || nIn < lanes {")
	f.line("return 0%s", ret)
	f.line("}")
	f.line("n := nIn &^ (lanes - 1)")
	f.line("xU := %s", t.u)
	t.writeChecks(&f, ret)
	f.WriteString(src.scalars[tileCall])
	for _, r := range src.rows {
		f.line("%s", w.spell(r))
	}
	if len(src.rows) > 0 {
		f.line("for i := int64(0); i < lanes; i++ {")
		f.line("%s := xU + i", t.u)
		f.line("_ = %s", t.u)
		f.WriteString(src.scalars[tileRow])
		f.WriteString(w.spell(src.bc[tileRow]))
		f.line("archsimd.ClearAVXUpperBits() // the next row's scalar code is SSE")
		f.line("}")
	}
	if t.sign {
		lanes.line("sign := rt.SignF32x8()")
	}
	for _, h := range t.hoist {
		if t.used[h.name] {
			lanes.line("%s", h.stmt)
		}
	}
	for _, c := range t.iotas {
		steps := make([]string, w.n)
		for j := range steps {
			steps[j] = fmt.Sprint(int64(j) * c)
		}
		lanes.line("%s := archsimd.LoadInt32x8(&[%d]int32{%s})", iotaName(c), w.n, strings.Join(steps, ", "))
	}
	lanes.WriteString(src.bc[tileCall])
	for _, tr := range src.trans {
		lanes.line("var %s [lanes * lanes]float32", tr.buf)
	}
	lanes.line("for %[1]s := int64(0); %[1]s < n; %[1]s += lanes {", t.v)
	for _, tr := range src.trans {
		lanes.line("{")
		lanes.line("%s := xU", t.u)
		lanes.line("rt.Transpose%[1]dx%[1]d(%[2]s[%[3]s:], %[4]d, &%[5]s)", w.n, tr.view, tr.index, tr.stride, tr.buf)
		lanes.line("}")
	}
	lanes.line("for i := int64(0); i < lanes; i++ {")
	lanes.line("%s := xU + i", t.u)
	lanes.line("_ = %s", t.u)
	lanes.WriteString(t.body.String())
	lanes.line("}")
	lanes.line("}")
	f.WriteString(w.spell(lanes.String()))
	f.line("archsimd.ClearAVXUpperBits() // back to scalar SSE code without a transition penalty")
	f.line("return n%s", ret)
	return f.String()
}

// writeChecks returns 0 (the scalar loop runs) unless every index the
// lanes hold as int32 fits at the four corners of the call's rows and
// columns (each is affine in u and v, so in between as well).
func (t *tileLoop) writeChecks(f *code, ret string) {
	if len(t.checks) == 0 {
		return
	}
	f.line("for _, du := range [2]int64{0, lanes - 1} {")
	f.line("for _, dv := range [2]int64{0, n - 1} {")
	f.line("%s, %s := xU+du, dv", t.u, t.v)
	f.line("_, _ = %s, %s", t.u, t.v)
	for _, e := range t.checks {
		f.line("if e := int64(%s); e != int64(int32(e)) {", e)
		f.line("return 0%s", ret)
		f.line("}")
	}
	f.line("}")
	f.line("}")
}

// broadcasts makes lane values of the scalars a lane instruction uses:
// once per call, or once per row into an array of lanes the lanes index by
// row (so that no scalar SSE code runs between the AVX instructions of
// the tile loop).
func (t *tileLoop) broadcasts(in *lowering.Instr, bc *[2]code, rows *[]string) {
	ops := in.Args
	if in.Op == lowering.OpCall {
		ops = t.g.callOperands(in)
	}
	for _, a := range ops {
		if a == nil || t.level[a] == tileLane || t.val[a] != "" || t.g.peep.folded[a] {
			continue
		}
		var name, e string
		switch a.DType {
		case ir.F32:
			name, e = fmt.Sprintf("bf%d", a.ID), fmt.Sprintf("archsimd.BroadcastFloat32x8(%s)", tmp(a)) // not u<ID>: an unbacked symbol
			if a.Op == lowering.OpConst {
				e = broadcastF32(f32Lit(float32(a.Imm.Float)))
			}
		case ir.I64:
			name, e = fmt.Sprintf("w%d", a.ID), fmt.Sprintf("archsimd.BroadcastInt32x8(int32(%s))", tmp(a))
		default:
			continue // an f64 unit of arange's arithmetic: not on lanes
		}
		t.val[a] = name
		if t.level[a] == tileCall {
			bc[tileCall].line("%s := %s", name, e)
			bc[tileCall].line("_ = %s", name)
			continue
		}
		typ := "Float32x8"
		if a.DType == ir.I64 {
			typ = "Int32x8"
		}
		*rows = append(*rows, fmt.Sprintf("var %sr [lanes]archsimd.%s", name, typ))
		bc[tileRow].line("%sr[i] = %s", name, e)
		t.body.line("%s := %sr[i]", name, name)
	}
}

// laneInstr emits one instruction on the lanes of row u, columns from v.
func (t *tileLoop) laneInstr(in *lowering.Instr) error {
	name := fmt.Sprintf("v%d", in.ID)
	b := &t.body
	switch in.Op {
	case lowering.OpLoad:
		if buf := t.trans[in.Access]; buf != "" {
			b.line("%s := archsimd.LoadFloat32x8((*[lanes]float32)(%s[lanes*i : lanes*i+lanes]))", name, buf)
			break
		}
		b.line("o%d := int64(%s)", in.ID, in.Access.Index.Code())
		b.line("%s := archsimd.LoadFloat32x8((*[lanes]float32)(%s[o%d : o%d+lanes]))", name, viewName(in.Access), in.ID, in.ID)
	case lowering.OpStore:
		b.line("o%d := int64(%s)", in.ID, in.Access.Index.Code())
		b.line("%s.Store((*[lanes]float32)(%s[o%d : o%d+lanes]))", t.val[in.Args[0]], viewName(in.Access), in.ID, in.ID)
		return nil
	case lowering.OpIndex:
		cv, _, _ := t.coefs(in.Expr)
		e := fmt.Sprintf("archsimd.BroadcastInt32x8(int32(%s)).Add(%s)", in.Expr.Code(), t.iota(cv))
		if in.DType == ir.F32 {
			e += ".ConvertToFloat32()"
		}
		b.line("%s := %s", name, e)
	case lowering.OpCast:
		if src := t.asInt[in.Args[0]]; src != nil {
			b.line("%s := %s.ConvertToFloat32()", name, t.val[src])
			break
		}
		return t.instr(in)
	case lowering.OpCall:
		if src := t.asInt[in]; src != nil {
			t.val[in] = t.val[src]
			return nil
		}
		fn, _ := t.g.callFn(in)
		ops := t.g.callOperands(in)
		if predCmp[fn] != "" && ops[0].DType == ir.I64 {
			b.line("%s := %s", name, fmt.Sprintf(simdFns[fn].tmpl, t.val[ops[0]], t.val[ops[1]]))
			break
		}
		return t.instr(in)
	default:
		return fmt.Errorf("%s has no tile version", in.Op)
	}
	t.val[in] = name
	return nil
}

// iota is the hoisted int32 lanes 0, c, 2c, ... (frame writes it at
// each width).
func (t *tileLoop) iota(c int64) string {
	if !slices.Contains(t.iotas, c) {
		t.iotas = append(t.iotas, c)
	}
	return iotaName(c)
}

// iotaName names the lanes 0, c, 2c, ...
func iotaName(c int64) string {
	if c < 0 {
		return fmt.Sprintf("kIotaM%d", -c)
	}
	return fmt.Sprintf("kIota%d", c)
}
