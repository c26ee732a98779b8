package golang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// stepStatements bounds the statements of one step function. Run's work
// (bind each input, allocate each buffer, call each kernel) grows with the
// graph, and the Go compiler's cost of one function grows faster than its
// length: a 10k-node graph's Run as one function took 76 s and 3.4 GB of
// `go build`, a 100k-node one over ten minutes. In steps of bounded size the
// build is linear in the graph.
const stepStatements = 128

// runNames are names the generated Run, its steps and kernels use, which a
// symbol (a parameter there) must not hide.
var runNames = map[string]bool{"f": true, "syms": true, "inputs": true, "err": true, "rt": true, "fmt": true, "math": true}

// runStmt is one statement of Run's work, with what it needs declared.
type runStmt struct {
	text    string
	usesErr bool // assigns to err (declared once per step)
}

// runGen emits the Run entry of one program: a frame type holding the
// buffers, Run itself, and step functions on the frame that do its work in
// order. Steps before the symbols are bound take no arguments; the rest
// take the symbols, which index expressions name.
type runGen struct {
	p    *lowering.Program
	pre  []runStmt // binding inputs to symbols, before the symbols exist
	post []runStmt // everything after
	cur  *[]runStmt
	owns map[*lowering.Buffer]string // input buffers: the "copied" flag expression
	root map[*lowering.Buffer]*lowering.Buffer
	done map[*lowering.Buffer]bool
}

// emitRun returns Run's declarations as chunks of unformatted source: the
// frame and Info, Run, then one chunk per step.
func emitRun(p *lowering.Program) ([]string, error) {
	r := &runGen{p: p, owns: map[*lowering.Buffer]string{}, root: map[*lowering.Buffer]*lowering.Buffer{},
		done: map[*lowering.Buffer]bool{}}
	r.cur = &r.pre
	if err := r.bindInputs(); err != nil {
		return nil, err
	}
	r.cur = &r.post
	for _, phase := range []func() error{r.checkShapes, r.allocInputs, r.allocBuffers, r.callKernels, r.emitOutputs} {
		if err := phase(); err != nil {
			return nil, err
		}
	}
	head := &code{}
	r.emitFrame(head)
	r.emitInfo(head)
	chunks := []string{head.String(), ""}
	pre, post := r.steps("bind", "", r.pre), r.steps("step", r.symParams(), r.post)
	chunks[1] = r.runFunc(len(pre), len(post))
	chunks = append(chunks, pre...)
	return append(chunks, post...), nil
}

// stmt adds a statement to the current phase.
func (r *runGen) stmt(usesErr bool, format string, args ...any) {
	*r.cur = append(*r.cur, runStmt{text: fmt.Sprintf(format, args...), usesErr: usesErr})
}

// emitFrame declares the frame: Run's inputs, environment, buffers (by
// buffer ID, as the loop IR names them) and outputs.
func (r *runGen) emitFrame(c *code) {
	c.line("// frame holds one call of Run: its inputs, symbol environment and")
	c.line("// buffers (b[7] is the loop IR's buf7), for the step functions.")
	c.line("type frame struct {")
	c.line("inputs  []*rt.Tensor")
	c.line("env     *rt.Env")
	c.line("b       [][]byte")
	if r.anyMutated() {
		c.line("own     []bool // a mutated input's buffer is a copy, written back")
	}
	c.line("outputs []any")
	c.line("}")
	c.line("")
}

func (r *runGen) anyMutated() bool {
	return slices.ContainsFunc(r.p.Inputs, func(in *lowering.Param) bool { return in.Buffer != nil && in.Mutated })
}

// bufSlots is one more than the largest buffer ID.
func (r *runGen) bufSlots() int {
	n := 0
	for _, b := range r.p.Buffers {
		n = max(n, b.ID+1)
	}
	for _, in := range r.p.Inputs {
		if in.Buffer != nil {
			n = max(n, in.Buffer.ID+1)
		}
	}
	return n
}

func (r *runGen) emitInfo(c *code) {
	var params []string
	for _, in := range r.p.Inputs {
		switch {
		case in.Buffer != nil:
			params = append(params, fmt.Sprintf("{Name: %q, Kind: \"tensor\", DType: %q, Mutated: %t}", in.Name, in.Layout.DType.Abbr(), in.Mutated))
		case in.Sym != "":
			params = append(params, fmt.Sprintf("{Name: %q, Kind: \"sym\", Sym: %q}", in.Name, in.Sym))
		default:
			params = append(params, fmt.Sprintf("{Name: %q, Kind: \"scalar\"}", in.Name))
		}
	}
	var outs []string
	for _, o := range r.p.Outputs {
		outs = append(outs, strconv.Quote(o.Name))
	}
	c.line("// Info describes the graph to the generated main.")
	c.line("var Info = &rt.Program{Name: %q, Run: Run,", r.p.Name)
	c.line("Inputs: []rt.Param{%s},", strings.Join(params, ",\n"))
	c.line("Outputs: []string{%s},", strings.Join(outs, ", "))
	c.line("}")
	c.line("")
}

// runFunc is Run: check the inputs' count, make the frame, run the bind
// steps, bind the symbols, run the other steps.
func (r *runGen) runFunc(pre, post int) string {
	c := &code{}
	p := r.p
	c.line("// Run runs graph %s: inputs has one entry per graph input (nil for", strconv.Quote(p.Name))
	c.line("// a non-tensor); outputs are *rt.Tensor or int64/float64/bool values.")
	c.line("func Run(syms map[string]int64, inputs []*rt.Tensor) ([]any, error) {")
	c.line("if len(inputs) != %d {", len(p.Inputs))
	c.line("return nil, fmt.Errorf(\"graph %%s takes %%d inputs, got %%d\", %q, %d, len(inputs))", p.Name, len(p.Inputs))
	c.line("}")
	own := ""
	if r.anyMutated() {
		own = fmt.Sprintf(", own: make([]bool, %d)", r.bufSlots())
	}
	c.line("f := &frame{inputs: inputs, env: rt.NewEnv(syms), b: make([][]byte, %d)%s, outputs: make([]any, %d)}",
		r.bufSlots(), own, len(p.Outputs))
	for i := range pre {
		c.line("if err := f.bind%d(); err != nil {", i)
		c.line("return nil, err")
		c.line("}")
	}
	for _, s := range p.Syms {
		c.line("%s, err := f.env.Get(%q)", s, s)
		c.line("if err != nil {")
		c.line("return nil, err")
		c.line("}")
	}
	args := strings.Join(p.Syms, ", ")
	for i := range post {
		c.line("if err := f.step%d(%s); err != nil {", i, args)
		c.line("return nil, err")
		c.line("}")
	}
	c.line("return f.outputs, nil")
	c.line("}")
	c.line("")
	return c.String()
}

// symParams is the step functions' parameter list: every symbol, int64.
func (r *runGen) symParams() string {
	if len(r.p.Syms) == 0 {
		return ""
	}
	return strings.Join(r.p.Syms, ", ") + " int64"
}

// steps cuts stmts into functions name0, name1, ... of at most
// stepStatements statements each.
func (r *runGen) steps(name, params string, stmts []runStmt) []string {
	var out []string
	for lo := 0; lo < len(stmts); lo += stepStatements {
		part := stmts[lo:min(lo+stepStatements, len(stmts))]
		c := &code{}
		c.line("func (f *frame) %s%d(%s) error {", name, len(out), params)
		if slices.ContainsFunc(part, func(s runStmt) bool { return s.usesErr }) {
			c.line("var err error")
		}
		for _, s := range part {
			c.WriteString(s.text)
		}
		c.line("return nil")
		c.line("}")
		c.line("")
		out = append(out, c.String())
	}
	return out
}

// frameBuf is how a step names buffer b.
func frameBuf(b *lowering.Buffer) string { return "f.b[" + strconv.Itoa(b.ID) + "]" }

// bindInputs binds symbols from bare-symbol dims.
func (r *runGen) bindInputs() error {
	for i, in := range r.p.Inputs {
		if in.Buffer == nil {
			continue
		}
		if _, err := info(in.Layout.DType); err != nil {
			return fmt.Errorf("input %s: %w", in.Name, err)
		}
		dims := make([]string, len(in.Layout.Shape))
		for d, e := range in.Layout.Shape {
			if e.IsSymbol() {
				dims[d] = strconv.Quote(e.Name())
			} else {
				dims[d] = `""`
			}
		}
		r.stmt(false, "if err := f.env.Bind(%q, f.inputs[%d], %q, []string{%s}); err != nil {\nreturn err\n}\n",
			in.Name, i, in.Layout.DType.Abbr(), strings.Join(dims, ", "))
	}
	return nil
}

// checkShapes checks every input's shape against its symbols.
func (r *runGen) checkShapes() error {
	for i, in := range r.p.Inputs {
		if in.Buffer != nil {
			r.stmt(false, "if err := rt.CheckShape(%q, f.inputs[%d], %s); err != nil {\nreturn err\n}\n",
				in.Name, i, exprList(in.Layout.Shape))
		}
	}
	return nil
}

// isContiguous reports a row-major layout from offset 0.
func isContiguous(l lowering.Layout) bool {
	if v, ok := l.Offset.Const(); !ok || v != 0 {
		return false
	}
	want := ir.ContiguousStrides(l.Shape)
	for i := range l.Shape {
		if !sym.Equal(l.Strides[i], want[i]) {
			if v, ok := l.Shape[i].Const(); !ok || v != 1 {
				return false
			}
		}
	}
	return true
}

// covers reports that a contiguous layout spans its whole buffer.
func covers(l lowering.Layout, b *lowering.Buffer) bool {
	return l.DType == b.DType && isContiguous(l) && sym.Equal(product(l.Shape), b.Size)
}

// allocInputs makes each input buffer: the caller's memory when one
// contiguous input fills it, else a copy at the layout.
func (r *runGen) allocInputs() error {
	params := map[*lowering.Buffer][]int{}
	var order []*lowering.Buffer
	for i, in := range r.p.Inputs {
		if in.Buffer == nil {
			continue
		}
		if len(in.Layout.Strides) != len(in.Layout.Shape) {
			return fmt.Errorf("input %s: layout has %d strides for %d dims", in.Name, len(in.Layout.Strides), len(in.Layout.Shape))
		}
		if params[in.Buffer] == nil {
			order = append(order, in.Buffer)
		}
		params[in.Buffer] = append(params[in.Buffer], i)
	}
	for _, b := range order {
		ps := params[b]
		name, own := frameBuf(b), "f.own["+strconv.Itoa(b.ID)+"]"
		r.done[b], r.root[b] = true, nil
		if len(ps) == 1 {
			in := r.p.Inputs[ps[0]]
			r.owns[b] = own
			if !in.Mutated {
				own = "_"
			}
			r.stmt(true, "if %s, %s, err = rt.InputBuffer(f.inputs[%d], %s, %s, %s, %t); err != nil {\nreturn rt.Wrap(%q, err)\n}\n",
				name, own, ps[0], int64Code(b.Bytes()), exprList(in.Layout.Strides), int64Code(in.Layout.Offset), covers(in.Layout, b), "input "+in.Name)
			continue
		}
		r.owns[b] = "true"
		var s strings.Builder
		fmt.Fprintf(&s, "%s = rt.Alloc(%s)\n", name, int64Code(b.Bytes()))
		for _, i := range ps {
			in := r.p.Inputs[i]
			fmt.Fprintf(&s, "if err := rt.Scatter(%s, f.inputs[%d], %s, %s); err != nil {\nreturn rt.Wrap(%q, err)\n}\n",
				name, i, exprList(in.Layout.Strides), int64Code(in.Layout.Offset), "input "+in.Name)
		}
		r.stmt(false, "%s", s.String())
	}
	return nil
}

// allocBuffers allocates every other buffer, taking over a dead buffer's
// memory where planning says so (never a caller's input memory).
func (r *runGen) allocBuffers() error {
	for _, b := range r.p.Buffers {
		if err := r.alloc(b, 0); err != nil {
			return err
		}
	}
	return nil
}

func (r *runGen) alloc(b *lowering.Buffer, depth int) error {
	if r.done[b] {
		return nil
	}
	if depth > len(r.p.Buffers) {
		return fmt.Errorf("buffer %s: reuse cycle", b.Name)
	}
	if _, err := info(b.DType); err != nil {
		return fmt.Errorf("buffer %s: %w", b.Name, err)
	}
	r.done[b] = true
	if src := b.ReuseOf; src != nil && src.Kind != lowering.BufInput {
		if err := r.alloc(src, depth+1); err != nil {
			return err
		}
		r.root[b] = r.rootOf(src)
		r.stmt(false, "%s = rt.Reuse(%s, %s) // reuses %s\n", frameBuf(b), frameBuf(src), int64Code(b.Bytes()), src.Name)
		return nil
	}
	r.root[b] = b
	r.stmt(false, "%s = rt.AllocBuffer(%s)\n", frameBuf(b), int64Code(b.Bytes()))
	return nil
}

func (r *runGen) rootOf(b *lowering.Buffer) *lowering.Buffer {
	if root := r.root[b]; root != nil {
		return root
	}
	return b
}

// callKernels calls each kernel's function in order: its own, or for a
// kernel that shares code (lowering.ShareCode) the earlier kernel's, on its
// own buffers; an error names the kernel.
func (r *runGen) callKernels() error {
	for _, k := range r.p.Kernels {
		code := k // a kernel that shares code calls that code; its error names it
		if k.SharesCode != nil {
			code = k.SharesCode
		}
		args := slices.Clone(r.p.Syms)
		for _, b := range k.CallBuffers(kernelBuffers(code)) {
			if !r.done[b] {
				return fmt.Errorf("%s: buffer %s is not in the program", k.Name, b.Name)
			}
			args = append(args, frameBuf(b))
		}
		r.stmt(false, "if err := %s(%s); err != nil {\nreturn rt.Wrap(%q, err)\n}\n", code.Name, strings.Join(args, ", "), k.Name)
	}
	return nil
}
