package golang

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Constants as memory operands. The listings of the generated lane
// functions (go1.26.8, objdump) use Z0-Z14 only: loads and stores take
// the "v" register class, X0-X14 (cmd/compile/internal/ssa/_gen/AMD64Ops.go;
// X15 is the zero register), and a loop body that holds its constants in
// registers spills them and the values they displace.
// A constant used only as a polynomial's coefficient, a MulAdd's addend or
// its receiver in Horner's rule, is instead read from a package-level
// array (kx8<Name>, kx16<Name>) at each use: Go folds a load used once
// into VFMADD213PS's memory operand (simdAMD64.rules), and a receiver is
// one load where it is needed. Measured on 16 lanes, one thread,
// 1024×1024 (compare.py's rows): silu(x) * y 272 → 202 µs with exp's
// addends from memory; every constant from memory instead was slower
// (310 µs), a load that is not folded costing an instruction each time.

// addendRe and receiverRe find a constant's uses as a MulAdd's addend and
// receiver (apart: a receiver's match would hide its own addend's).
var (
	addendRe   = regexp.MustCompile(`\.MulAdd\(\w+, (k\w+)\)`)
	receiverRe = regexp.MustCompile(`\b(k\w+)\.MulAdd\(`)
)

// memOperands are the hoisted float constants (k<Name>) that the bodies
// (l's body where none are given) use only as a MulAdd's addend or
// receiver and nothing after the loop names, each with the load that
// replaces it; their arrays are declared once per package
// (simdOut.memDecls).
func (l *simdLoop) memOperands(bodies ...string) map[string]string {
	body := strings.Join(bodies, "\n")
	if len(bodies) == 0 {
		body = l.body.String()
	}
	uses := map[string]int{}
	for _, id := range identRe.FindAllString(body, -1) {
		uses[id]++
	}
	for _, id := range identRe.FindAllString(l.folds.String()+l.sfolds.String(), -1) {
		uses[id] = -1 // named after the loop: it stays a variable
	}
	foldable := map[string]int{}
	for _, re := range []*regexp.Regexp{addendRe, receiverRe} {
		for _, m := range re.FindAllStringSubmatch(body, -1) {
			foldable[m[1]]++
		}
	}
	mem := map[string]string{}
	for _, h := range l.hoist {
		value, isF32 := strings.CutPrefix(h.stmt, h.name+" := archsimd.BroadcastFloat32x8(")
		if !isF32 || uses[h.name] <= 0 || uses[h.name] != foldable[h.name] ||
			!l.g.simd.declareMem(h.name, strings.TrimSuffix(value, ")")) {
			continue
		}
		mem[h.name] = "archsimd.LoadFloat32x8(&kx8" + strings.TrimPrefix(h.name, "k") + ")"
	}
	return mem
}

// declareMem records the arrays of constant k<Name> = value for the
// package; false where the name already holds another value.
func (out *simdOut) declareMem(name, value string) bool {
	if out.mem == nil {
		out.mem = map[string]string{}
	}
	if v, ok := out.mem[name]; ok {
		return v == value
	}
	out.mem[name] = value
	return true
}

// memDecls declares the package's memory-operand constants at both widths
// (spell respells &kx8 as &kx16).
func (out *simdOut) memDecls() string {
	if len(out.mem) == 0 {
		return ""
	}
	var f code
	f.line("// Constants the lane loops read from memory: fused multiply-adds' memory operands.")
	f.line("var (")
	for _, name := range slices.Sorted(maps.Keys(out.mem)) {
		short := strings.TrimPrefix(name, "k")
		f.line("kx8%s = rt.Splat8(%s)", short, out.mem[name])
		f.line("kx16%s = rt.Splat16(%s)", short, out.mem[name])
	}
	f.line(")")
	return f.String()
}

// withMem is body reading the constants in mem from memory.
func withMem(body string, mem map[string]string) string {
	if len(mem) == 0 {
		return body
	}
	return identRe.ReplaceAllStringFunc(body, func(id string) string {
		if e, ok := mem[id]; ok {
			return e
		}
		return id
	})
}
