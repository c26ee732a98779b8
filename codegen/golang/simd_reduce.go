package golang

import "strings"

// A reduction's lane function is two: <name> holds the scalar
// accumulators and folds the lanes into them, <name>Lanes runs the 256-bit
// loops and stores the lanes into arrays <name> passes. In one function,
// Go's compiler spilled a float32 accumulator and loaded the folds'
// constants with legacy-SSE instructions between the loop's 256-bit code
// and ClearAVXUpperBits (it may move them above it): a transition penalty
// every call, on this project's machine hundreds of cycles. Softmax over
// the last dimension of 1024×1024 (a call per row and stage): 1029 →
// 830 µs of CPU for the max stage's split alone (hand-edited generated
// code, one thread).

// writeReduction writes the rest of a reduction's lane function <name>
// (its check for SIMD written) and its <name>Lanes.
func (l *simdLoop) writeReduction(f *code, ret string) {
	for _, h := range l.hs {
		f.line("var %s [8]float32", h)
	}
	isAcc := map[string]bool{}
	for _, a := range l.accs {
		isAcc[a] = true
	}
	var params, args []string // <name>Lanes's, and <name>'s own parameters passed on
	for i, a := range l.args {
		if isAcc[a] && l.params[i] == a+" float32" {
			continue
		}
		params, args = append(params, l.params[i]), append(args, strings.Fields(l.params[i])[0])
	}
	for _, h := range l.hs {
		params, args = append(params, h+" *[8]float32"), append(args, "&"+h)
	}
	if m := l.expSum; m != nil {
		l.writeReslices(f)
		f.line("i := rt.ExpShiftSum(%s, %s, %s, &%s)", m.src, m.dst, m.shift, l.hs[0])
	} else {
		f.line("i := %sLanes(%s)", l.name, strings.Join(args, ", "))
	}
	f.WriteString(l.sfolds.String())
	f.line("return i%s", ret)
	f.line("}")
	f.line("")
	if l.expSum != nil {
		return
	}
	f.line("// %sLanes is %s's 256-bit part: it stores the lanes into %s.", l.name, l.name, strings.Join(l.hs, ", "))
	f.line("//")
	f.line("//go:noinline")
	f.line("func %sLanes(%s) int {", l.name, strings.Join(params, ", "))
	twin, call := l.fold16Twin(l.name+"Lanes", params)
	l.fold16 = call
	l.writeLoops(f, lanes8, "")
	f.WriteString(l.folds.String())
	f.line("archsimd.ClearAVXUpperBits() // back to scalar SSE code without a transition penalty")
	f.line("return i")
	f.line("}")
	f.line("")
	f.WriteString(twin)
}

// writeReslices bounds every contiguous view by the first one's length.
func (l *simdLoop) writeReslices(f *code) {
	for _, s := range l.contig[1:] {
		f.line("%s = %s[:len(%s)]", s, s, l.contig[0])
	}
}

// writeLoops writes the lane loops at width w: the call of the loop's
// 16-lane twin where it has one (wide), the broadcasts, the loop two
// steps an iteration where it pays, then w.n elements a step.
func (l *simdLoop) writeLoops(f *code, w laneWidth, wide string) {
	f.line("i := 0")
	if wide != "" {
		f.line("if rt.AVX512() {")
		f.line("if i = %s; i == len(%s) {", wide, l.contig[0])
		f.line("return i // the 16 lanes ran every element")
		f.line("}")
		f.line("}")
	}
	l.writeReslices(f)
	mem := l.memOperands()
	body := l.bodyAt(w, mem)
	l.writeHoisted(f, mem, body)
	if len(l.vaccs) > 0 || strings.Count(body, "\n") >= unrollLines {
		l.unrolledBody(f, w, body)
	}
	f.line("for ; i+%d <= len(%s); i += %d {", w.n, l.contig[0], w.n)
	f.WriteString(body)
	f.line("}")
}
