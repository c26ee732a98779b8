package lowering

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// String prints the program as kiln's loop-IR dump (what Inductor writes to
// ir_pre_fusion.txt / ir_post_fusion.txt): buffers, then each kernel with
// its ranges and scalar body, then the outputs. Deterministic.
func (p *Program) String() string {
	var b strings.Builder
	b.Grow(64 * (1 + len(p.Inputs) + len(p.Buffers))) // the kernels grow it once more (writeKernels)
	fmt.Fprintf(&b, "program %s", p.Name)
	if len(p.Syms) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(p.Syms, ", "))
	}
	b.WriteString("\n")
	for _, in := range p.Inputs {
		fmt.Fprintf(&b, "input %s: %s\n", in.Name, paramString(in))
	}
	for _, buf := range p.Buffers {
		writeBuffer(&b, buf)
	}
	var tail strings.Builder
	n := 1
	for _, r := range p.Remarks {
		n += len(r) + 3
	}
	tail.Grow(n)
	tail.WriteString("\n")
	for _, r := range p.Outputs {
		fmt.Fprintf(&tail, "output %s = %s\n", r.Name, resultString(r))
	}
	for _, r := range p.Remarks {
		tail.WriteString("# ")
		tail.WriteString(r)
		tail.WriteString("\n")
	}
	writeKernels(&b, p.Kernels, tail.Len())
	b.WriteString(tail.String())
	return b.String()
}

// writeBuffer prints a buffer's line (a post-fusion program has tens of
// thousands: no fmt).
func writeBuffer(b *strings.Builder, buf *Buffer) {
	b.WriteString("buffer ")
	b.WriteString(buf.Name)
	b.WriteString(": ")
	b.WriteString(buf.DType.Abbr())
	b.WriteString("[")
	b.WriteString(buf.Size.String())
	b.WriteString("] ")
	b.WriteString(buf.Kind.String())
	b.WriteString(" align=")
	b.WriteString(strconv.Itoa(buf.Align))
	if buf.ReuseOf != nil {
		b.WriteString(" reuses=")
		b.WriteString(buf.ReuseOf.Name)
	}
	b.WriteString("\n")
}

// writeKernels prints kernels, each after a blank line. Many kernels print
// in chunks on every core, joined in order into a builder grown once for
// them and the extra bytes the caller writes after them: the text is the
// same, and a large program (three prints per compile, tens of MB each)
// is neither printed on one core nor copied by a doubling builder.
func writeKernels(b *strings.Builder, kernels []*Kernel, extra int) {
	parts := make([]strings.Builder, chunks(len(kernels)))
	inChunks(len(kernels), func(w, lo, hi int) {
		out := b
		if len(parts) > 1 {
			out = &parts[w]
		}
		size := 0
		for _, k := range kernels[lo:hi] {
			size += printedSize(k)
		}
		out.Grow(size) // once, not doubling from nothing: 2-4× the text in garbage
		for _, k := range kernels[lo:hi] {
			out.WriteString("\n")
			writeKernel(out, k)
		}
	})
	if len(parts) < 2 {
		return
	}
	n := extra
	for w := range parts {
		n += parts[w].Len()
	}
	b.Grow(n)
	for w := range parts {
		b.WriteString(parts[w].String())
	}
}

// printedSize is about (a little over) how many bytes writeKernel prints
// for k: on transformer blocks a line of the body is 30-60 bytes.
func printedSize(k *Kernel) int {
	n := 64
	for _, o := range k.Origins {
		n += len(o) + 2
	}
	for _, s := range k.Stages {
		n += 48 + 56*len(s.Body)
	}
	return n
}

// String prints one kernel.
func (k *Kernel) String() string {
	var b strings.Builder
	writeKernel(&b, k)
	return b.String()
}

// writeKernel prints k's header line, then its body; a kernel that shares
// an earlier kernel's code prints, instead of the same body again, the
// buffers it runs that code on: "  as kernel12 with buf3=buf401, ..." (the
// earlier kernel's buffer, then this one's, in order of first use).
func writeKernel(b *strings.Builder, k *Kernel) {
	writeKernelHeader(b, k)
	if owner := k.SharesCode; owner != nil && len(owner.codeBuffers) == len(k.codeBuffers) {
		b.WriteString("  as ")
		b.WriteString(owner.Name)
		for i, buf := range k.codeBuffers {
			if i == 0 {
				b.WriteString(" with ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(owner.codeBuffers[i].Name)
			b.WriteByte('=')
			b.WriteString(buf.Name)
		}
		b.WriteString("\n")
		return
	}
	writeKernelBody(b, k)
}

func writeKernelHeader(b *strings.Builder, k *Kernel) {
	fmt.Fprintf(b, "%s %s", k.Name, k.Kind())
	if len(k.Origins) > 0 {
		fmt.Fprintf(b, " origins=[%s]", strings.Join(k.Origins, ", "))
	}
	if k.Vec > 1 {
		fmt.Fprintf(b, " vec=%d", k.Vec)
	}
	if k.Serial {
		b.WriteString(" serial")
	}
	if len(k.Split) > 0 {
		vars := make([]string, len(k.Split))
		for i, d := range k.Split {
			vars[i] = OuterVar(d)
		}
		fmt.Fprintf(b, " split=[%s]", strings.Join(vars, ", "))
	}
	if k.SharesCode != nil {
		b.WriteString(" code=" + k.SharesCode.Name)
	}
	b.WriteString("\n")
}

func writeKernelBody(b *strings.Builder, k *Kernel) {
	if k.Extern != nil {
		writeExtern(b, k.Extern)
		return
	}
	fmt.Fprintf(b, "  for %s:\n", rangesString(k.Outer, OuterVar))
	for i, s := range k.Stages {
		if len(s.Reduce) == 0 {
			fmt.Fprintf(b, "    stage %d:\n", i)
		} else {
			fmt.Fprintf(b, "    stage %d reduce %s:\n", i, rangesString(s.Reduce, ReduceVar))
		}
		for _, in := range s.Body {
			b.WriteString("      ")
			in.write(b)
			b.WriteString("\n")
		}
	}
}

func writeExtern(b *strings.Builder, e *Extern) {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = operandString(a)
	}
	outs := make([]string, len(e.Outs))
	for i, o := range e.Outs {
		outs[i] = "_"
		if o.Buffer != nil {
			outs[i] = operandString(o)
		}
	}
	lhs := strings.Join(outs, ", ")
	if len(outs) != 1 {
		lhs = "(" + lhs + ")"
	}
	fmt.Fprintf(b, "  %s = %s(%s)", lhs, e.Op, strings.Join(args, ", "))
	for _, key := range sortedKeys(e.Params) {
		if name, ok := strings.CutSuffix(key, F64BitsSuffix); ok && len(e.Params[key]) == 1 {
			fmt.Fprintf(b, " %s=%s", name, strconv.FormatFloat(math.Float64frombits(uint64(e.Params[key][0])), 'g', -1, 64))
			continue
		}
		fmt.Fprintf(b, " %s=%v", key, e.Params[key])
	}
	b.WriteString("\n")
}

// rangesString prints "x0 < 8, x1 < s0" ("()" for no ranges: one iteration).
func rangesString(sizes []sym.Expr, name func(int) string) string {
	if len(sizes) == 0 {
		return "()"
	}
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = fmt.Sprintf("%s < %s", name(i), s)
	}
	return strings.Join(parts, ", ")
}

// String prints one instruction: "tmp3 = add(tmp1, tmp2) : f32".
func (in *Instr) String() string {
	var b strings.Builder
	in.write(&b)
	return b.String()
}

// write prints the instruction into b: a program prints hundreds of
// thousands of them, so without a string each.
func (in *Instr) write(b *strings.Builder) {
	switch in.Op {
	case OpStore:
		b.WriteString("store ")
		writeAccess(b, in.Access)
		b.WriteString(" = ")
		writeTmp(b, in.Args[0])
		return
	case OpCheck:
		b.WriteString(checkString(in))
		return
	}
	writeTmp(b, in)
	b.WriteString(" = ")
	switch in.Op {
	case OpLoad:
		b.WriteString("load ")
		writeAccess(b, in.Access)
	case OpConst:
		b.WriteString("const ")
		b.WriteString(in.Imm.format(in.DType))
	case OpIndex:
		b.WriteString("index ")
		b.WriteString(in.Expr.String())
	default: // call, reduce, scan, cast, bitcast
		switch in.Op {
		case OpCall:
			b.WriteString(in.Fn)
		case OpReduce, OpScan:
			b.WriteString(in.Op.String())
			b.WriteByte(' ')
			b.WriteString(in.Reduce.String())
		default:
			b.WriteString(in.Op.String())
		}
		b.WriteByte('(')
		writeArgs(b, in.Args)
		b.WriteByte(')')
	}
	b.WriteString(" : ")
	b.WriteString(in.DType.Abbr())
}

func writeTmp(b *strings.Builder, in *Instr) {
	b.WriteString("tmp")
	b.WriteString(strconv.Itoa(in.ID))
}

func writeArgs(b *strings.Builder, args []*Instr) {
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeTmp(b, a)
	}
}

// checkString prints "check 0 <= tmp3 < 100 "index {index} is out of
// bounds ..."" (the lower bound is -size when negative indices count from
// the end).
func checkString(in *Instr) string {
	lo, msg := "0", ""
	if in.Check != nil {
		msg = in.Check.Msg
		if in.Check.Neg {
			lo = sym.Neg(in.Expr).String()
		}
	}
	return fmt.Sprintf("check %s <= %s < %s %s", lo, argsString(in.Args), in.Expr, strconv.Quote(msg))
}

func argsString(args []*Instr) string {
	var b strings.Builder
	writeArgs(&b, args)
	return b.String()
}

// accessString prints "buf2[4*x0 + r0]", with ".as(bf16)" when the access
// type differs from the buffer's.
func accessString(a *Access) string {
	var b strings.Builder
	writeAccess(&b, a)
	return b.String()
}

func writeAccess(b *strings.Builder, a *Access) {
	b.WriteString(a.Buffer.Name)
	b.WriteByte('[')
	b.WriteString(a.Index.String())
	b.WriteByte(']')
	if a.DType != a.Buffer.DType {
		b.WriteString(".as(" + a.DType.Abbr() + ")")
	}
}

func (s Scalar) format(dt ir.DType) string {
	switch dt.Category() {
	case ir.CatBool:
		if s.Bool {
			return "True"
		}
		return "False"
	case ir.CatFloat:
		return ir.PyFloat(s.Float)
	default:
		return fmt.Sprint(s.Int)
	}
}

// String prints a layout as FX annotates a tensor: "f32[8, 4][4, 1]+0".
func (l Layout) String() string {
	return fmt.Sprintf("%s[%s][%s]+%s", l.DType.Abbr(), joinExprs(l.Shape), joinExprs(l.Strides), l.Offset)
}

func joinExprs(xs []sym.Expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, ", ")
}

func operandString(o Operand) string {
	if o.Buffer == nil {
		return "None"
	}
	return o.Buffer.Name + ":" + o.Layout.String()
}

func paramString(p *Param) string {
	if p.Buffer != nil && p.Mutated {
		return fmt.Sprintf("%s in %s (mutated)", p.Layout, p.Buffer.Name)
	}
	if p.Buffer != nil {
		return fmt.Sprintf("%s in %s", p.Layout, p.Buffer.Name)
	}
	if p.Sym != "" {
		return "Sym(" + p.Sym + ")"
	}
	if p.Type.IsKnown() {
		return p.Type.String()
	}
	return "?"
}

func resultString(r *Result) string {
	if r.Buffer != nil {
		return r.Buffer.Name + ":" + r.Layout.String()
	}
	return fmt.Sprint(r.Value)
}

func sortedKeys(m map[string][]int64) []string { return slices.Sorted(maps.Keys(m)) }
