package cuda

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// hostGen writes main: bind symbols, read inputs, allocate buffers,
// launch, write outputs.
//
//	prog INDIR OUTDIR [sym=value ...]
//
// reads INDIR/<input>.npy per tensor input (and per SymInt input unless
// given as NAME=VALUE), writes OUTDIR/out<i>.npy per output and
// OUTDIR/<input>.npy per mutated input.
type hostGen struct {
	p    *lowering.Program
	e    *emitter
	sigs []*signature
	msgs *checkMsgs
	// The step function being written: its name's prefix, whether one is
	// open, statements in it, steps of the phase so far.
	phase         string
	open          bool
	inStep, steps int
	// roots memoizes rootOf: planning chains reuses (b3 reuses b2 reuses
	// b1), so walking the chain per buffer is quadratic in the graph.
	roots map[*lowering.Buffer]*lowering.Buffer
}

// hostSteps bounds the statements of one host step function. main's work
// (read each input, allocate each buffer, launch each kernel) grows with
// the graph, and a C++ compiler's cost of one function grows faster than
// its length: a 10k-node graph's main took g++ -O1 69 s of CPU, its
// kernels 0.6 s. Host state lives at file scope, so that main's work can
// be cut into steps of bounded size.
const hostSteps = 128

func (h *hostGen) main() error {
	e := h.e
	e.line("")
	e.line("// ---- host ----")
	e.line("#if defined(KILN_HOST_CODE)")
	h.declare()
	h.phase = "kiln_read"
	if err := h.readInputs(); err != nil {
		return err
	}
	reads := h.endPhase()
	h.phase = "kiln_step"
	h.checkShapes()
	h.allocate()
	h.allocCheckRecord()
	if err := h.launches(); err != nil {
		return err
	}
	if err := h.outputs(); err != nil {
		return err
	}
	steps := h.endPhase()
	e.line("int main(int argc, char** argv) {")
	e.in()
	e.line(`if (argc < 3) { fprintf(stderr, "usage: %%s INDIR OUTDIR [sym=value ...]\n", argv[0]); return 2; }`)
	e.line("indir = argv[1];")
	e.line("outdir = argv[2];")
	h.bindArgs()
	for i := range reads {
		e.line("kiln_read%d();", i)
	}
	for _, s := range h.p.Syms {
		e.line(`if (!have_%s) kiln_fail("symbol %s is not bound by an input shape: pass %s=N");`, s, s, s)
	}
	for i := range steps {
		e.line("kiln_step%d();", i)
	}
	e.line("return 0;")
	e.out()
	e.line("}")
	e.line("#endif")
	return nil
}

// declare writes the host's state at file scope: the directories, the
// symbols, each input's array, each buffer's size and device memory, and
// the index checks' message table.
func (h *hostGen) declare() {
	e := h.e
	e.line("static const char* indir;")
	e.line("static const char* outdir;")
	e.line("static char path[4096];")
	for _, s := range h.p.Syms {
		e.line("static long long %s;", s)
		e.line("static int have_%s;", s)
	}
	for i, in := range h.p.Inputs {
		if in.Buffer != nil {
			e.line("static kiln_npy in%d;", i)
		}
	}
	for _, b := range h.p.Buffers {
		if b.ReuseOf == nil {
			e.line("static long long bytes%d; // %s: %s[%s] %s", b.ID, b.Name, b.DType.Abbr(), b.Size, b.Kind)
		}
		e.line("static void* d%d;", b.ID)
	}
	h.emitCheckMsgs()
}

// stmt opens a step function of the current phase if none is open; done
// ends the statement, closing the step at hostSteps statements.
func (h *hostGen) stmt() {
	if h.open {
		return
	}
	h.e.line("static void %s%d(void) {", h.phase, h.steps)
	h.e.in()
	h.open = true
}

func (h *hostGen) done() {
	h.inStep++
	if h.inStep == hostSteps {
		h.closeStep()
	}
}

func (h *hostGen) closeStep() {
	if !h.open {
		return
	}
	h.e.out()
	h.e.line("}")
	h.open, h.inStep = false, 0
	h.steps++
}

// endPhase closes the phase's last step and returns its step count.
func (h *hostGen) endPhase() int {
	h.closeStep()
	n := h.steps
	h.steps = 0
	return n
}

// bindArgs binds symbols from NAME=VALUE arguments (by symbol name, or by
// the name of the SymInt input that carries it).
func (h *hostGen) bindArgs() {
	for _, s := range h.p.Syms {
		h.e.line("have_%s = kiln_arg(argc, argv, %s, &%s);", s, cString(s), s)
		if s == lowering.SeedSym { // seed=N, or 0 by default
			h.e.line("if (!have_%s) kiln_arg(argc, argv, \"seed\", &%s);", s, s)
			h.e.line("have_%s = 1;", s)
		}
	}
	for _, in := range h.p.Inputs {
		if in.Sym == "" || !h.hasSym(in.Sym) {
			continue
		}
		h.e.line("if (!have_%s) have_%s = kiln_arg(argc, argv, %s, &%s);", in.Sym, in.Sym, cString(in.Name), in.Sym)
		h.e.line("if (!have_%s) {", in.Sym)
		h.e.in()
		h.e.line(`snprintf(path, sizeof path, "%%s/%%s.npy", indir, %s);`, cString(in.Name))
		h.e.line("kiln_npy t;")
		h.e.line("if (kiln_read_npy(path, &t) == 0) {")
		h.e.line(`  if (t.ndim != 0 || strcmp(t.descr, "<i8") != 0) kiln_fail("%%s: expected a 0-d int64", path);`)
		h.e.line("  memcpy(&%s, t.data, 8); have_%s = 1; free(t.data);", in.Sym, in.Sym)
		h.e.line("}")
		h.e.out()
		h.e.line("}")
	}
}

func (h *hostGen) hasSym(s string) bool {
	for _, x := range h.p.Syms {
		if x == s {
			return true
		}
	}
	return false
}

// readInputs loads every tensor input and binds the symbols its shape
// names as a bare symbol.
func (h *hostGen) readInputs() error {
	e := h.e
	for i, in := range h.p.Inputs {
		if in.Buffer == nil {
			continue
		}
		descr := npyDescr(in.Layout.DType)
		h.stmt()
		e.line(`snprintf(path, sizeof path, "%%s/%%s.npy", indir, %s);`, cString(in.Name))
		e.line(`if (kiln_read_npy(path, &in%d)) kiln_fail("cannot read input %%s", path);`, i)
		e.line(`if (strcmp(in%d.descr, %s) != 0 || in%d.ndim != %d) kiln_fail("%%s: expected %s with %d dims, got %%s with %%d", path, in%d.descr, in%d.ndim);`,
			i, cString(descr), i, len(in.Layout.Shape), descr, len(in.Layout.Shape), i, i)
		for d, s := range in.Layout.Shape {
			if s.IsSymbol() && h.hasSym(s.Name()) {
				e.line("if (!have_%s) { %s = in%d.shape[%d]; have_%s = 1; }", s.Name(), s.Name(), i, d, s.Name())
			}
		}
		h.done()
	}
	return nil
}

// checkShapes compares every input's shape with its layout.
func (h *hostGen) checkShapes() {
	for i, in := range h.p.Inputs {
		if in.Buffer == nil {
			continue
		}
		h.stmt()
		for d, s := range in.Layout.Shape {
			h.e.line(`if (in%d.shape[%d] != (%s)) kiln_fail("input %s: size %%lld of dim %d, expected %%lld", in%d.shape[%d], (long long)(%s));`,
				i, d, s.Code(), in.Name, d, i, d, s.Code())
		}
		h.done()
	}
}

// allocate gives every buffer device memory (a reused buffer shares its
// predecessor's) and uploads the inputs into their layouts.
func (h *hostGen) allocate() {
	e := h.e
	for _, b := range h.p.Buffers {
		if b.ReuseOf == nil {
			h.stmt()
			e.line("bytes%d = %s;", b.ID, b.Bytes().Code())
			e.line("d%d = kiln_alloc(bytes%d);", b.ID, b.ID)
			h.done()
		}
	}
	for _, b := range h.p.Buffers {
		if root := h.rootOf(b); root != b {
			h.stmt()
			e.line("d%d = d%d; // %s reuses %s", b.ID, root.ID, b.Name, root.Name)
			h.done()
		}
	}
	for i, in := range h.p.Inputs {
		if in.Buffer == nil {
			continue
		}
		b := in.Buffer
		h.stmt()
		e.line("{")
		e.in()
		h.layoutArrays(in.Layout)
		e.line("unsigned char* host = (unsigned char*)calloc((size_t)bytes%d + 1, 1);", h.rootOf(b).ID)
		e.line("kiln_strided_copy(host, in%d.data, %d, %d, shape, strides, %s, 1);", i, in.Layout.DType.ItemSize(), len(in.Layout.Shape), in.Layout.Offset.Code())
		e.line("kiln_upload(d%d, host, bytes%d);", b.ID, h.rootOf(b).ID)
		e.line("free(host);")
		e.line("free(in%d.data);", i)
		e.out()
		e.line("}")
		h.done()
	}
}

// rootOf is the buffer whose allocation b's memory is.
func (h *hostGen) rootOf(b *lowering.Buffer) *lowering.Buffer {
	if b.ReuseOf == nil {
		return b
	}
	if r, ok := h.roots[b]; ok {
		return r
	}
	if h.roots == nil {
		h.roots = map[*lowering.Buffer]*lowering.Buffer{}
	}
	var chain []*lowering.Buffer
	for ; b.ReuseOf != nil; b = b.ReuseOf {
		if r, ok := h.roots[b]; ok {
			b = r
			break
		}
		chain = append(chain, b)
	}
	for _, c := range chain {
		h.roots[c] = b
	}
	return b
}

// layoutArrays declares shape[] and strides[] of a layout (one element
// at least, so that rank 0 stays valid C).
func (h *hostGen) layoutArrays(l lowering.Layout) {
	shape, strides := []string{"0"}, []string{"0"}
	if len(l.Shape) > 0 {
		shape, strides = nil, nil
		for i := range l.Shape {
			shape = append(shape, "(long long)("+l.Shape[i].Code()+")")
			strides = append(strides, "(long long)("+l.Strides[i].Code()+")")
		}
	}
	h.e.line("const long long shape[] = {%s};", strings.Join(shape, ", "))
	h.e.line("const long long strides[] = {%s};", strings.Join(strides, ", "))
}

// launches runs the kernels in order.
func (h *hostGen) launches() error {
	for _, sig := range h.sigs {
		args := make([]string, 0, len(sig.buffers)+len(h.p.Syms))
		for _, b := range sig.buffers {
			c := "const "
			if sig.written[b] {
				c = ""
			}
			args = append(args, fmt.Sprintf("(%s%s*)d%d", c, storageOf(b.DType), b.ID))
		}
		args = append(args, h.p.Syms...)
		if sig.checks {
			args = append(args, errParam)
		}
		h.stmt()
		h.e.line("{")
		h.e.in()
		if sig.fn != sig.name {
			h.e.line("// %s runs %s's code.", sig.name, sig.fn)
		}
		h.e.line("const long long nwork = %s;", sig.work.Code())
		if sig.serial {
			h.e.line("// serial: one thread walks every index in order (repeated scatter indices).")
			h.e.line("if (nwork > 0) KILN_LAUNCH(%s, 1, 1, %s);", sig.fn, strings.Join(args, ", "))
		} else {
			h.e.line("if (nwork > 0) KILN_LAUNCH(%s, kiln_grid(nwork, %d), %d, %s);", sig.fn, BlockSize, BlockSize, strings.Join(args, ", "))
		}
		if sig.checks {
			h.e.line("kiln_index_report(%s, %s, kiln_check_msgs); // stop at the first bad index", errParam, cString(sig.name))
		}
		h.e.out()
		h.e.line("}")
		h.done()
	}
	h.stmt()
	h.e.line("kiln_sync();")
	h.done()
	return nil
}

// outputs writes out<i>.npy per output and <name>.npy per mutated input.
func (h *hostGen) outputs() error {
	for i, r := range h.p.Outputs {
		file := fmt.Sprintf("out%d.npy", i)
		h.stmt()
		if r.Buffer != nil {
			h.writeTensor(file, r.Buffer, r.Layout)
		} else if err := h.writeScalar(file, r.Value); err != nil {
			return fmt.Errorf("output %s: %w", r.Name, err)
		}
		h.done()
	}
	for _, in := range h.p.Inputs {
		if in.Buffer != nil && in.Mutated {
			h.stmt()
			h.writeTensor(in.Name+".npy", in.Buffer, in.Layout)
			h.done()
		}
	}
	return nil
}

func (h *hostGen) writeTensor(file string, b *lowering.Buffer, l lowering.Layout) {
	e := h.e
	descr := npyDescr(l.DType)
	isz := l.DType.ItemSize()
	e.line("{ // %s <- %s:%s", file, b.Name, l)
	e.in()
	h.layoutArrays(l)
	e.line("long long n = 1;")
	e.line("for (int i = 0; i < %d; i++) n *= shape[i];", len(l.Shape))
	e.line("unsigned char* buf = (unsigned char*)malloc((size_t)bytes%d + 1);", h.rootOf(b).ID)
	e.line("unsigned char* dense = (unsigned char*)malloc((size_t)(n * %d) + 1);", isz)
	e.line("kiln_download(buf, d%d, bytes%d);", b.ID, h.rootOf(b).ID)
	e.line("kiln_strided_copy(buf, dense, %d, %d, shape, strides, %s, 0);", isz, len(l.Shape), l.Offset.Code())
	e.line(`snprintf(path, sizeof path, "%%s/%%s", outdir, %s);`, cString(file))
	e.line("kiln_write_npy(path, %s, %d, shape, dense, n * %d);", cString(descr), len(l.Shape), isz)
	e.line("free(buf);")
	e.line("free(dense);")
	e.out()
	e.line("}")
}

// writeScalar writes a non-tensor output as a 0-d array.
func (h *hostGen) writeScalar(file string, v any) error {
	var descr, decl string
	switch x := v.(type) {
	case nil: // the graph returns None there (a backward graph's unused grads): no file, as the Go main writes none
		h.e.line("// %s: None", file)
		return nil
	case int64:
		descr, decl = "<i8", "long long v = "+intLit(x)+";"
	case int:
		descr, decl = "<i8", "long long v = "+intLit(int64(x))+";"
	case bool:
		descr, decl = "|b1", fmt.Sprintf("unsigned char v = %d;", map[bool]int{false: 0, true: 1}[x])
	case float64:
		c, _ := constExpr(lowering.Scalar{Float: x}, ir.F64)
		descr, decl = "<f8", "double v = "+c+";"
	case sym.Expr:
		if x.IsBool() {
			descr, decl = "|b1", "unsigned char v = ("+x.Code()+") ? 1 : 0;"
		} else {
			descr, decl = "<i8", "long long v = "+x.Code()+";"
		}
	default:
		return fmt.Errorf("value %v of type %T cannot be written", v, v)
	}
	h.e.line("{ // %s", file)
	h.e.in()
	h.e.line("%s", decl)
	h.e.line(`snprintf(path, sizeof path, "%%s/%%s", outdir, %s);`, cString(file))
	h.e.line("kiln_write_npy(path, %s, 0, 0, &v, sizeof v);", cString(descr))
	h.e.out()
	h.e.line("}")
	return nil
}
