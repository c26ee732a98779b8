package lowering

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Kernels that differ only in the buffers they touch share generated code,
// as Inductor's do: its wrapper keeps the source of every kernel it has
// defined (wrapper.src_to_kernel, in the C++ and Triton back ends alike)
// and calls the kernel already defined when a later one's source is the
// same. A transformer's layers repeat, so a 100k-node graph's 18k kernels
// are a few dozen shapes; emitting each once is what keeps code generation
// and the generated files in proportion to the model, not to its depth.

// Plan is what comes between fusion and code generation: buffer planning
// (PlanBuffers), then code sharing (ShareCode).
func Plan(p *Program) {
	PlanBuffers(p)
	ShareCode(p)
}

// ShareCode sets SharesCode on every kernel whose code shape (codeShape) an
// earlier kernel of p has, and returns how many kernels share. It reads
// nothing buffer planning changes, so it may run before or after it.
//
// Shapes are written on every core, a contiguous chunk of kernels each:
// a chunk keeps the text of the shapes new to it (a few dozen) and, per
// kernel, which of them it has; the chunks' shapes then meet in program
// order, so the first kernel of a shape owns it whatever the chunking.
func ShareCode(p *Program) int {
	type chunk struct {
		shapes []string // the shapes new to the chunk, in order
		of     []int    // per kernel of the chunk: its shape's place in shapes
	}
	parts := make([]chunk, chunks(len(p.Kernels)))
	starts := make([]int, len(parts))
	inChunks(len(p.Kernels), func(w, lo, hi int) {
		c := &parts[w]
		starts[w] = lo
		seen := map[string]int{}
		var shape []byte
		for _, k := range p.Kernels[lo:hi] {
			shape, k.codeBuffers = codeShape(shape[:0], k)
			at, ok := seen[string(shape)]
			if !ok {
				at = len(c.shapes)
				c.shapes = append(c.shapes, string(shape))
				seen[c.shapes[at]] = at
			}
			c.of = append(c.of, at)
		}
	})
	owner := map[string]*Kernel{}
	shared := 0
	for w, c := range parts {
		for j, at := range c.of {
			k := p.Kernels[starts[w]+j]
			k.SharesCode = nil
			if first, ok := owner[c.shapes[at]]; ok {
				k.SharesCode = first
				shared++
				continue
			}
			owner[c.shapes[at]] = k
		}
	}
	if shared > 0 {
		p.Remarks = append(p.Remarks, "code sharing: "+strconv.Itoa(shared)+" of "+strconv.Itoa(len(p.Kernels))+
			" kernels run an earlier kernel's code ("+strconv.Itoa(len(owner))+" kernels of code)")
	}
	return shared
}

// CallBuffers returns what a call of k passes for params, the buffers of the
// kernel whose code runs k (k.SharesCode, else k) in the order its code
// takes them: k's own buffers, each where its counterpart in the shared
// code stands.
func (k *Kernel) CallBuffers(params []*Buffer) []*Buffer {
	owner := k.SharesCode
	if owner == nil {
		return params
	}
	out := make([]*Buffer, len(params))
	for i, b := range params {
		out[i] = k.codeBuffers[slices.Index(owner.codeBuffers, b)]
	}
	return out
}

// codeShape appends to b everything about k that code generated for it
// depends on, with each buffer named by the order of its first use, and
// returns k's buffers in that order. Two kernels with the same shape are
// one computation over different buffers. Names and origins are left out:
// they only label the code. TestCodeShapeCoversEveryField keeps this in
// step with the loop IR's types.
func codeShape(b []byte, k *Kernel) ([]byte, []*Buffer) {
	w := shapeWriter{b: b, index: map[*Buffer]int{}}
	w.int(int64(k.Vec))
	w.bool(k.Serial)
	w.int(int64(len(k.Split)))
	for _, d := range k.Split {
		w.int(int64(d))
	}
	w.exprs(k.Outer)
	if e := k.Extern; e != nil {
		w.str(e.Op)
		w.int(int64(len(e.Outs)))
		for _, o := range e.Outs {
			w.operand(o)
		}
		w.int(int64(len(e.Args)))
		for _, a := range e.Args {
			w.operand(a)
		}
		for _, key := range sortedKeys(e.Params) {
			w.str(key)
			w.int(int64(len(e.Params[key])))
			for _, v := range e.Params[key] {
				w.int(v)
			}
		}
	}
	for _, s := range k.Stages {
		w.b = append(w.b, 'S')
		w.exprs(s.Reduce)
		for _, in := range s.Body {
			w.instr(in)
		}
	}
	for _, buf := range w.order { // what the code reads of each buffer
		w.int(int64(buf.DType))
		w.int(int64(buf.Kind))
		w.int(int64(buf.Align))
		w.str(buf.Size.String())
	}
	return w.b, w.order
}

type shapeWriter struct {
	b     []byte
	index map[*Buffer]int
	order []*Buffer
}

func (w *shapeWriter) int(v int64) { w.b = strconv.AppendInt(append(w.b, ' '), v, 10) }

func (w *shapeWriter) bool(v bool) { w.b = strconv.AppendBool(append(w.b, ' '), v) }

// str writes s with its length, so that no two lists of strings run together.
func (w *shapeWriter) str(s string) {
	w.int(int64(len(s)))
	w.b = append(append(w.b, ':'), s...)
}

func (w *shapeWriter) exprs(es []sym.Expr) {
	w.int(int64(len(es)))
	for _, e := range es {
		w.str(e.String())
	}
}

func (w *shapeWriter) buffer(buf *Buffer) {
	if buf == nil {
		w.int(-1)
		return
	}
	i, ok := w.index[buf]
	if !ok {
		i = len(w.order)
		w.index[buf] = i
		w.order = append(w.order, buf)
	}
	w.int(int64(i))
}

func (w *shapeWriter) operand(o Operand) {
	w.buffer(o.Buffer)
	w.int(int64(o.Layout.DType))
	w.exprs(o.Layout.Shape)
	w.exprs(o.Layout.Strides)
	w.str(o.Layout.Offset.String())
}

func (w *shapeWriter) instr(in *Instr) {
	w.b = append(w.b, 'I')
	w.int(int64(in.ID))
	w.int(int64(in.Op))
	w.int(int64(in.DType))
	w.int(int64(in.Reduce))
	w.int(int64(len(in.Args)))
	for _, a := range in.Args {
		w.int(int64(a.ID))
	}
	if a := in.Access; a != nil {
		w.b = append(w.b, 'A')
		w.buffer(a.Buffer)
		w.int(int64(a.DType))
		w.str(a.Index.String())
		w.int(int64(len(a.Indirect)))
		for _, x := range a.Indirect {
			w.int(int64(x.ID))
		}
	}
	w.int(in.Imm.Int)
	w.int(int64(math.Float64bits(in.Imm.Float)))
	w.bool(in.Imm.Bool)
	w.str(in.Expr.String())
	w.str(in.Fn)
	if c := in.Check; c != nil {
		w.b = append(w.b, 'C')
		w.bool(c.Neg)
		w.str(c.Msg)
	}
}

// sharedCodeCheck checks what ShareCode promised, kernel by kernel: a
// kernel shares the code of an earlier kernel that has code of its own,
// and the two have one shape. Owners' shapes are written once per check.
type sharedCodeCheck struct {
	pos    map[*Kernel]int
	owners map[*Kernel]string
	shape  []byte
}

func (c *sharedCodeCheck) kernel(i int, k *Kernel) error {
	owner := k.SharesCode
	if owner == nil {
		return nil
	}
	if j, ok := c.pos[owner]; !ok || j >= i {
		return fmt.Errorf("%s shares the code of %s, which is not an earlier kernel of the program", k.Name, owner.Name)
	}
	if owner.SharesCode != nil {
		return fmt.Errorf("%s shares the code of %s, which has none of its own", k.Name, owner.Name)
	}
	theirs, ok := c.owners[owner]
	if !ok {
		var bufs []*Buffer
		c.shape, bufs = codeShape(c.shape[:0], owner)
		if !slices.Equal(bufs, owner.codeBuffers) {
			return fmt.Errorf("%s shares the code of %s, whose buffers changed after ShareCode", k.Name, owner.Name)
		}
		theirs = string(c.shape)
		c.owners[owner] = theirs
	}
	var bufs []*Buffer
	c.shape, bufs = codeShape(c.shape[:0], k)
	switch {
	case string(c.shape) != theirs:
		return fmt.Errorf("%s shares the code of %s, but the two kernels differ in more than their buffers", k.Name, owner.Name)
	case !slices.Equal(bufs, k.codeBuffers):
		return fmt.Errorf("%s shares the code of %s, but its buffers changed after ShareCode", k.Name, owner.Name)
	}
	return nil
}
