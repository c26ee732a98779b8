// Package golang emits Go from kiln's loop IR: one function per kernel,
// parallel over GOMAXPROCS chunks of its outer range with a tight,
// bounds-check-free innermost loop; a Run entry that binds symbols from
// input shapes, plans buffers and calls the kernels; and (WriteModule) a
// buildable module with a main that reads and writes .npy files, so tests
// can run generated code against interp.
package golang

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// DefaultModule is the module path Generate assumes for the runtime
// (DefaultModule + "/rt").
const DefaultModule = "kilngen"

// Generate emits one gofmt-clean Go source file for package pkg holding
// p's kernels and its Run entry; it imports the runtime as
// DefaultModule/rt.
func Generate(p *lowering.Program, pkg string) ([]byte, error) {
	return GenerateWithRuntime(p, pkg, DefaultModule+"/rt")
}

// GenerateWithRuntime is Generate with the runtime's import path.
func GenerateWithRuntime(p *lowering.Program, pkg, rtImport string) ([]byte, error) {
	var out bytes.Buffer
	err := generate(&out, p, pkg, rtImport, nil, nil)
	return out.Bytes(), err
}

// GenerateTo writes what Generate returns to w as it is made, a window of
// kernels at a time, so that a large program's source is never held whole
// (on a 155k-node graph it is 49 MB, and formatting held four copies).
// kernelCode, when not nil, gets each kernel's formatted source (its
// comment and function, then a blank line) with its index in p.Kernels,
// in program order. Output may have been written when an error is
// returned.
func GenerateTo(w io.Writer, p *lowering.Program, pkg string, kernelCode func(i int, src string)) error {
	return generate(w, p, pkg, DefaultModule+"/rt", nil, kernelCode)
}

// File is one generated source file of a graph package.
type File struct {
	Name string // file name in the package folder
	Src  []byte
}

// GeneratePackage emits the files of graph package pkg: <pkg>.go (the
// kernels and Run, as GenerateWithRuntime) whose qualifying pointwise
// inner loops first call an 8-lane version, and then <pkg>_simd.go (built
// with GOEXPERIMENT=simd on amd64, package simd/archsimd) holding those
// versions and <pkg>_nosimd.go, its twin for every other build, in which
// the scalar loops run every element. Without such loops it is one file.
func GeneratePackage(p *lowering.Program, pkg, rtImport string) ([]File, error) {
	simd := &simdOut{}
	var src bytes.Buffer
	if err := generate(&src, p, pkg, rtImport, simd, nil); err != nil {
		return nil, err
	}
	files := []File{{Name: pkg + ".go", Src: src.Bytes()}}
	lanes, twin := simd.files(p.Name, pkg, rtImport)
	if lanes == nil {
		return files, nil
	}
	for _, f := range []File{{pkg + "_simd.go", lanes}, {pkg + "_nosimd.go", twin}} {
		formatted, err := format.Source(f.Src)
		if err != nil {
			return nil, fmt.Errorf("generate %s: %s does not parse: %w\n%s", p.Name, f.Name, err, f.Src)
		}
		files = append(files, File{Name: f.Name, Src: formatted})
	}
	return files, nil
}

// kernelWindow is how many kernels are emitted and formatted at a time:
// enough to keep every core busy, few enough that their texts (four
// copies while formatting) stay small.
const kernelWindow = 128

func generate(w io.Writer, p *lowering.Program, pkg, rtImport string, simd *simdOut, kernelCode func(int, string)) error {
	if !token.IsIdentifier(pkg) {
		return fmt.Errorf("generate %s: package name %q is not an identifier", p.Name, pkg)
	}
	for _, s := range p.Syms {
		if !token.IsIdentifier(s) || token.IsKeyword(s) {
			return fmt.Errorf("generate %s: symbol %q is not a Go identifier", p.Name, s)
		}
	}
	// Each top-level chunk (Run, then one per kernel) is emitted unformatted
	// and gofmt'd on its own, in parallel: one go/format call over the
	// whole file was a third of compile's CPU on large graphs.
	run := &code{}
	if err := emitRun(run, p); err != nil {
		return fmt.Errorf("generate %s: %w", p.Name, err)
	}
	f := newFormatter()
	out := &fileWriter{w: w, header: func(w io.Writer, math bool) error { return writeHeader(w, p.Name, pkg, rtImport, math) }}
	run0 := []string{run.String()}
	if err := f.chunks(run0); err != nil {
		return fmt.Errorf("generate %s: generated code does not parse: %w", p.Name, err)
	}
	out.add(run0[0])
	own := ownCode(p) // a kernel that shares another's code has none of its own
	for lo := 0; lo < len(own); lo += kernelWindow {
		window := own[lo:min(lo+kernelWindow, len(own))]
		ks := make([]*lowering.Kernel, len(window))
		for i, at := range window {
			ks[i] = p.Kernels[at]
		}
		chunks, err := emitKernels(p, ks, simd)
		if err != nil {
			return fmt.Errorf("generate %s: %w", p.Name, err)
		}
		if err := f.chunks(chunks); err != nil {
			return fmt.Errorf("generate %s: generated code does not parse: %w", p.Name, err)
		}
		for i, c := range chunks {
			if kernelCode != nil {
				kernelCode(window[i], c)
			}
			out.add(c)
		}
	}
	var helpers strings.Builder
	if out.floordiv {
		helpers.WriteString("func floordiv(a, b int64) int64 { return rt.FloorDiv(a, b) }\n")
	}
	if out.pymod {
		helpers.WriteString("func pymod(a, b int64) int64 { return rt.PyMod(a, b) }\n")
	}
	if helpers.Len() > 0 {
		h := []string{helpers.String()}
		if err := f.chunks(h); err != nil {
			return fmt.Errorf("generate %s: generated code does not parse: %w", p.Name, err)
		}
		out.add(h[0])
	}
	return out.finish()
}

// ownCode lists the indices of p's kernels that have code of their own.
func ownCode(p *lowering.Program) []int {
	own := make([]int, 0, len(p.Kernels))
	for i, k := range p.Kernels {
		if k.SharesCode == nil {
			own = append(own, i)
		}
	}
	return own
}

// emitKernels emits ks unformatted, one chunk each.
func emitKernels(p *lowering.Program, ks []*lowering.Kernel, simd *simdOut) ([]string, error) {
	chunks := make([]string, len(ks))
	errs := make([]error, len(ks))
	emit := func(i int) {
		body := &code{}
		stashed, scratch := stashRecomputed(ks[i])
		g := &kernelGen{c: body, prog: p, k: stashed, orig: ks[i], scratch: scratch, uses: countUses(stashed), simd: simd}
		g.simplify()
		errs[i] = g.emit()
		chunks[i] = body.String()
	}
	if simd == nil {
		// Kernels are emitted on every core: each reads only its kernel
		// (stashRecomputed rewrites a copy) and the program. SIMD loops
		// are numbered in program order, so those kernels go one by one.
		parallel(len(ks), emit)
	} else {
		for i := range ks {
			emit(i)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return chunks, nil
}

// runGen emits the Run entry of one program.
type runGen struct {
	c    *code
	p    *lowering.Program
	owns map[*lowering.Buffer]string // input buffers: the "copied" flag variable
	root map[*lowering.Buffer]*lowering.Buffer
	done map[*lowering.Buffer]bool
}

func emitRun(c *code, p *lowering.Program) error {
	r := &runGen{c: c, p: p, owns: map[*lowering.Buffer]string{}, root: map[*lowering.Buffer]*lowering.Buffer{},
		done: map[*lowering.Buffer]bool{}}
	if err := r.emitInfo(); err != nil {
		return err
	}
	c.line("// Run runs graph %s: inputs has one entry per graph input (nil for", strconv.Quote(p.Name))
	c.line("// a non-tensor); outputs are *rt.Tensor or int64/float64/bool values.")
	c.line("func Run(syms map[string]int64, inputs []*rt.Tensor) ([]any, error) {")
	c.line("if len(inputs) != %d {", len(p.Inputs))
	c.line("return nil, fmt.Errorf(\"graph %%s takes %%d inputs, got %%d\", %q, %d, len(inputs))", p.Name, len(p.Inputs))
	c.line("}")
	c.line("var err error")
	c.line("env := rt.NewEnv(syms)")
	c.line("_ = env // a graph without inputs (a factory) never reads it")
	steps := []func() error{r.bindInputs, r.allocInputs, r.allocBuffers, r.callKernels, r.emitOutputs}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	c.line("}")
	c.line("")
	return nil
}

func (r *runGen) emitInfo() error {
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
	r.c.line("// Info describes the graph to the generated main.")
	r.c.line("var Info = &rt.Program{Name: %q, Run: Run,", r.p.Name)
	r.c.line("Inputs: []rt.Param{%s},", strings.Join(params, ",\n"))
	r.c.line("Outputs: []string{%s},", strings.Join(outs, ", "))
	r.c.line("}")
	r.c.line("")
	return nil
}

// bindInputs binds symbols from bare-symbol dims, then checks every shape.
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
		r.c.line("if err := env.Bind(%q, inputs[%d], %q, []string{%s}); err != nil {", in.Name, i, in.Layout.DType.Abbr(), strings.Join(dims, ", "))
		r.c.line("return nil, err")
		r.c.line("}")
	}
	for _, s := range r.p.Syms {
		r.c.line("%s, err := env.Get(%q)", s, s)
		r.c.line("if err != nil {")
		r.c.line("return nil, err")
		r.c.line("}")
		r.c.line("_ = %s", s)
	}
	for i, in := range r.p.Inputs {
		if in.Buffer != nil {
			r.c.line("if err := rt.CheckShape(%q, inputs[%d], %s); err != nil {", in.Name, i, exprList(in.Layout.Shape))
			r.c.line("return nil, err")
			r.c.line("}")
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
		name, own := bufName(b), "own"+strconv.Itoa(b.ID)
		r.owns[b], r.done[b], r.root[b] = own, true, nil
		if len(ps) == 1 {
			in := r.p.Inputs[ps[0]]
			if !in.Mutated {
				own = "_"
			}
			r.c.line("%s, %s, err := rt.InputBuffer(inputs[%d], %s, %s, %s, %t)", name, own, ps[0], int64Code(b.Bytes()),
				exprList(in.Layout.Strides), int64Code(in.Layout.Offset), covers(in.Layout, b))
			r.c.line("if err != nil {")
			r.c.line("return nil, fmt.Errorf(\"input %%s: %%w\", %q, err)", in.Name)
			r.c.line("}")
			r.c.line("_ = %s", name)
			continue
		}
		r.owns[b] = "true"
		r.c.line("%s := rt.Alloc(%s)", name, int64Code(b.Bytes()))
		for _, i := range ps {
			in := r.p.Inputs[i]
			r.c.line("if err := rt.Scatter(%s, inputs[%d], %s, %s); err != nil {", name, i, exprList(in.Layout.Strides), int64Code(in.Layout.Offset))
			r.c.line("return nil, fmt.Errorf(\"input %%s: %%w\", %q, err)", in.Name)
			r.c.line("}")
		}
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
		r.c.line("%s := rt.Reuse(%s, %s) // reuses %s", bufName(b), bufName(src), int64Code(b.Bytes()), src.Name)
		return nil
	}
	r.root[b] = b
	r.c.line("%s := rt.AllocBuffer(%s)", bufName(b), int64Code(b.Bytes()))
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
// own buffers; an error names the kernel. No comment marks a shared call:
// comments would stop the formatter cutting Run into pieces (splitFunc).
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
			args = append(args, bufName(b))
		}
		r.c.line("if err := %s(%s); err != nil {", code.Name, strings.Join(args, ", "))
		r.c.line("return nil, fmt.Errorf(\"%s: %%w\", err)", k.Name)
		r.c.line("}")
	}
	return nil
}
