package golang

import (
	"fmt"
	"strings"
)

// Lane widths. Every lane function is written for 8 float32 lanes
// (archsimd.Float32x8, AVX2). Pointwise loops, wide column reductions
// (simd_wide.go) and transposed-read tiles (simd_tile.go) also get a
// 16-lane twin (archsimd.Float32x16, AVX-512), which their 8-lane function
// runs first on a CPU with AVX-512 (rt.AVX512): on the project's machine,
// an AMD EPYC with full-width AVX-512, the pointwise chain exp(relu(2x+1))-x
// over 1024×1024 took 397 µs of CPU on 8 lanes and 217 µs on 16 (one
// thread), Inductor's C++ 220 µs. Those lanes compute each element or
// output in the scalar loop's order, so the width changes no bits; row
// reductions, whose lanes fold in an order that depends on the width,
// stay on 8.

// laneWidth is one lane width: its count and the instruction set named
// in function names and comments.
type laneWidth struct {
	n   int
	isa string
}

var (
	lanes8  = laneWidth{8, "AVX2"}
	lanes16 = laneWidth{16, "AVX512"}
)

// lanes16Spelling respells an 8-lane function for 16 lanes: its vector
// and mask types, rt's lane helpers, its arrays and the blocks its loops
// step by (i in a pointwise loop, j over a wide row). An all-false test
// of a mask is VPTEST on 8 lanes, a mask register's bits on 16.
var lanes16Spelling = strings.NewReplacer(
	".ToInt32x8().IsZero()", ".ToBits() == 0",
	"Float32x8", "Float32x16",
	"Uint32x8", "Uint32x16",
	"Int32x8", "Int32x16",
	"F32x8", "F32x16",
	"[8]float32", "[16]float32",
	"[8]uint16", "[16]uint16",
	"Uint16x8", "Uint16x16",
	"[i : i+8]", "[i : i+16]",
	"[j:][:8]", "[j:][:16]",
	"j += 8 {", "j += 16 {",
	"&kx8", "&kx16",
)

// spell writes src, lane code spelled for 8 lanes, at this width: the
// generators spell a loop body for 8 lanes, and this is the one place
// that knows the other width's names. Spelling is idempotent.
func (w laneWidth) spell(src string) string {
	if w.n == 8 {
		return src
	}
	return lanes16Spelling.Replace(src)
}

// lineAt16 writes a body line whose 16-lane form is not its respelling:
// an AVX-512 instruction the 8-lane code has no twin of.
func (l *simdLoop) lineAt16(line8, line16 string) {
	l.body.line("%s", line8)
	if l.alt16 == nil {
		l.alt16 = map[string]string{}
	}
	l.alt16[line8] = line16
}

// bodyAt is the loop body at width w (lineAt, line by line).
func (l *simdLoop) bodyAt(w laneWidth, mem map[string]string) string {
	lines := strings.Split(l.body.String(), "\n")
	for i, line := range lines {
		lines[i] = l.lineAt(w, line, mem)
	}
	return strings.Join(lines, "\n")
}

// lineAt is one body line at width w: at 16 lanes its own form where it
// has one (lineAt16), else its respelling; the constants in mem read from
// memory where they are used (memOperands).
func (l *simdLoop) lineAt(w laneWidth, line string, mem map[string]string) string {
	if alt, ok := l.alt16[strings.TrimSpace(line)]; ok && w.n == 16 {
		line = alt
	}
	return w.spell(withMem(line, mem))
}

// wideTwin returns the 16-lane twin of pointwise loop l and the call
// that runs it; "" where the loop is not plain pointwise (a reduction, or
// softmax's exp-sum in assembly).
func (l *simdLoop) wideTwin() (fn, call string) {
	if len(l.accs) > 0 || l.expSum != nil {
		return "", ""
	}
	name := l.g.k.Name + "AVX512" + strings.TrimPrefix(l.name, l.g.k.Name+"AVX2")
	var f code
	f.line("// %s runs %s's inner loop on 16 float32 lanes (AVX-512), bit for", name, l.g.k.Name)
	f.line("// bit as the scalar loop, over the longest multiple of 16 elements,")
	f.line("// and returns how many it ran; %s goes on from there.", l.name)
	f.line("func %s(%s) int {", name, strings.Join(l.params, ", "))
	f.line("if len(%s) < 16 {", l.contig[0])
	f.line("return 0")
	f.line("}")
	l.writeLoops(&f, lanes16, "")
	f.line("archsimd.ClearAVXUpperBits() // back to scalar SSE code without a transition penalty")
	f.line("return i")
	f.line("}")
	f.line("")
	return lanes16.spell(f.String()), fmt.Sprintf("%s(%s)", name, strings.Join(paramNames(l.params), ", "))
}

// paramNames are the names of a function's parameters ("a0 []float32",
// "p, hi int64").
func paramNames(params []string) []string {
	var names []string
	for _, p := range params {
		f := strings.Fields(p)
		for _, n := range f[:len(f)-1] {
			names = append(names, strings.TrimSuffix(n, ","))
		}
	}
	return names
}
