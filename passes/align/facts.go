package align

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// origin says where a value's storage comes from.
type origin uint8

const (
	originUnknown origin = iota // not allocated by kiln, not traceable
	originInput                 // a graph input's storage
	originAlloc                 // a buffer kiln allocates
	originAlias                 // a view (or in-place result) of another value
)

// fact is what the pass knows about one tensor value.
type fact struct {
	origin origin
	root   *ir.Value // the value owning the storage (input, allocation, untraceable result)
	base   int64     // alignment of the root's storage base, bytes
	// shift corrects fakeprop's offsets (bytes): fakeprop measures offsets
	// from the root as its type says, the example input may sit elsewhere.
	shift  sym.Expr
	offset sym.Expr // storage offset in elements, as PyTorch reports it
	bytes  sym.Expr // offset * itemsize: bytes from the storage base
	proved int64    // the alignment proved, bytes
	used   int64    // the alignment decisions use: proved, or assumed
	why    string   // how proved was found, for the remark

	accessed bool // a kernel reads or writes the value
	vec      int64
	vecWhy   string
}

// assumed reports whether decisions rely on more than was proved.
func (f *fact) assumed() bool { return f.used > f.proved }

// analysis is one run of the pass over one graph.
type analysis struct {
	p     *Pass
	ctx   *passes.Context
	g     *ir.Graph
	facts *ir.ValueMap[*fact]
	namer *ir.Namer
	attrs map[[2]string]ir.Attrs // the attribute lists values share (shared)
	msg   []byte                 // record's message buffer
}

func (a *analysis) assume() bool { return a.p.assume == AssumeInputsAndViews }

// analyse computes a fact for every tensor value, in program order.
func (a *analysis) analyse() {
	a.facts = ir.NewValueMap[*fact](a.g)
	for _, v := range a.g.Inputs {
		if isTensor(v) {
			a.facts.Set(v, a.inputFact(v))
		}
	}
	for _, n := range a.g.Nodes {
		a.ctx.At(n)
		for _, r := range n.Results {
			if isTensor(r) {
				a.facts.Set(r, a.resultFact(n, r))
			}
		}
	}
	a.ctx.At(nil)
	a.markAccesses()
}

func isTensor(v *ir.Value) bool { return v.Type.Kind == ir.KindTensor && v.Type.Tensor != nil }

func itemSize(t *ir.TensorType) int64 { return max(int64(t.DType.ItemSize()), 1) }

func offsetOf(t *ir.TensorType) sym.Expr { return t.Offset } // the zero Expr is 0

// inputFact: the example's storage offset decides, over a storage base
// taken 16-byte aligned.
func (a *analysis) inputFact(v *ir.Value) *fact {
	t := v.Type.Tensor
	isz := sym.Const(itemSize(t))
	off, shift := offsetOf(t), sym.Const(0)
	why := "graph input at storage offset " + elems(off, t.DType)
	if given, ok := a.p.offsets[v.Name]; ok {
		shift = sym.Mul(sym.Sub(given, off), isz)
		off = given
		why = "graph input whose example is at storage offset " + elems(off, t.DType)
	} else if c, ok := off.Const(); ok && c == 0 {
		why = "graph input taken at storage offset 0 of its own storage, as no example offset was given (input-offsets)"
	}
	f := &fact{origin: originInput, root: v, base: InputBaseAlignBytes, shift: shift, offset: off, bytes: sym.Mul(off, isz)}
	f.proved = alignOf(f.base, f.bytes)
	f.why = why + withBytes(f) + fmt.Sprintf(", over a storage base taken %d-byte aligned", f.base)
	f.used = f.proved
	if a.assume() {
		f.used = max(f.proved, GPUAlignBytes)
	}
	return f
}

// withBytes prints " = N bytes" unless the offset is 0.
func withBytes(f *fact) string {
	if c, ok := f.bytes.Const(); ok && c == 0 {
		return ""
	}
	s := " = " + bytesOf(f.bytes)
	if !f.bytes.IsConst() {
		s += fmt.Sprintf(" (a multiple of %d)", f.bytes.Divisor())
	}
	return s
}

// resultFact: a view follows its base; a fresh result kiln computes is a
// 64-byte-aligned allocation; anything else is only element-aligned.
func (a *analysis) resultFact(n *ir.Node, r *ir.Value) *fact {
	if src := a.aliasSource(n, r); src != nil {
		return a.aliasFact(n, r, src)
	}
	t := r.Type.Tensor
	isz := sym.Const(itemSize(t))
	if why := notAllocated(n); why != "" {
		f := &fact{origin: originUnknown, root: r, base: itemSize(t), offset: offsetOf(t), bytes: sym.Const(0)}
		f.shift = sym.Neg(sym.Mul(offsetOf(t), isz))
		f.proved, f.used = f.base, f.base
		f.why = why + ": only its element size is claimed"
		return f
	}
	f := &fact{origin: originAlloc, root: r, base: AllocAlignBytes, shift: sym.Const(0), offset: offsetOf(t)}
	f.bytes = sym.Mul(f.offset, isz)
	f.proved = alignOf(f.base, f.bytes)
	f.used = f.proved
	f.why = "a buffer kiln allocates, " + strconv.FormatInt(f.base, 10) + "-byte aligned"
	if c, ok := f.bytes.Const(); !ok || c != 0 {
		f.why += " at storage offset " + elems(f.offset, t.DType) + withBytes(f)
	}
	return f
}

// aliasSource returns the fact of the argument whose storage r shares.
func (a *analysis) aliasSource(n *ir.Node, r *ir.Value) *fact {
	st := r.Type.Tensor.Storage
	if st == 0 {
		return nil
	}
	var src *fact
	n.WalkInputs(func(v *ir.Value) {
		if src == nil && isTensor(v) && v.Type.Tensor.Storage == st && a.facts.At(v) != nil {
			src = a.facts.At(v)
		}
	})
	return src
}

// notAllocated says why a fresh result of n is not a buffer kiln plans,
// or "" when it is.
func notAllocated(n *ir.Node) string {
	if n.Form != ir.FormOp {
		return fmt.Sprintf("%s (%s) is not an op kiln lowers", n.Name, n.Target)
	}
	op, _ := n.Op.(*ops.Op)
	switch {
	case op == nil:
		return fmt.Sprintf("%s is not in kiln's registry", n.Target)
	case op.Meta == nil:
		return fmt.Sprintf("%s has no meta rule, so kiln does not lower it", n.Target)
	case op.Kind == ops.KindCustom:
		return fmt.Sprintf("custom op %s allocates its own result", op.QualifiedName())
	case op.Kind == ops.KindView && op.IsView():
		return fmt.Sprintf("%s is a view that fakeprop could not link to its base", op.QualifiedName())
	}
	return ""
}

// aliasFact: the same storage as src, at the view's own offset. An
// as_strided with an explicit storage_offset is absolute in the storage.
func (a *analysis) aliasFact(n *ir.Node, r *ir.Value, src *fact) *fact {
	t := r.Type.Tensor
	isz := sym.Const(itemSize(t))
	root := a.facts.At(src.root)
	f := &fact{origin: originAlias, root: src.root, base: src.base, shift: src.shift}
	if absoluteOffset(n) {
		f.shift = sym.Const(0)
	}
	f.bytes = sym.Add(sym.Mul(offsetOf(t), isz), f.shift)
	f.offset = elemOffset(f.bytes, offsetOf(t), f.shift, itemSize(t))
	f.proved = alignOf(f.base, f.bytes)
	f.used = f.proved
	if a.assume() && root != nil && root.origin != originUnknown {
		f.used = max(f.proved, min(root.used, GPUAlignBytes))
	}
	f.why = opDesc(n) + " at storage offset " + elems(f.offset, t.DType) + withBytes(f) + " into " + src.root.Name +
		"'s storage, whose base is " + strconv.FormatInt(f.base, 10) + "-byte aligned"
	return f
}

// elemOffset is bytes/itemsize when that is exact, else fakeprop's offset.
func elemOffset(bytes, off, shift sym.Expr, isz int64) sym.Expr {
	if c, ok := shift.Const(); ok && c == 0 {
		return off
	}
	if d := bytes.Divisor(); d == 0 || d%isz == 0 {
		return sym.FloorDiv(bytes, sym.Const(isz))
	}
	return off
}

// absoluteOffset reports an as_strided-style op given an explicit
// storage_offset, which PyTorch takes from the storage's start.
func absoluteOffset(n *ir.Node) bool {
	op, _ := n.Op.(*ops.Op)
	if op == nil || !slices.ContainsFunc(op.Schema.Params, func(p ops.Param) bool { return p.Name == "storage_offset" }) {
		return false // nothing to bind: most views have no storage_offset
	}
	c, err := ops.Bind(n)
	return err == nil && c.Has("storage_offset") && !c.IsNone("storage_offset")
}

// alignOf is the largest power of two dividing both base (a power of two)
// and every value bytes can take.
func alignOf(base int64, bytes sym.Expr) int64 {
	d := bytes.Divisor()
	if d == 0 {
		return base
	}
	return min(base, d&-d)
}

// opDesc names a view op the way a reader says it: "slice", "view.dtype".
func opDesc(n *ir.Node) string {
	op, _ := n.Op.(*ops.Op)
	if op == nil {
		return n.Target
	}
	s := op.Schema
	switch s.Overload {
	case "", "default", "Tensor", "int":
		return s.Name
	}
	return s.Name + "." + s.Overload
}

// elems prints "1 element of f32", "2 elements of bf16", "8*s0 elements of bf16".
func elems(e sym.Expr, dt ir.DType) string {
	unit := "elements"
	if c, ok := e.Const(); ok && c == 1 {
		unit = "element"
	}
	return e.String() + " " + unit + " of " + dt.Abbr()
}

// bytesOf prints "1 byte", "4 bytes", "16*s0 bytes".
func bytesOf(e sym.Expr) string {
	if c, ok := e.Const(); ok && c == 1 {
		return "1 byte"
	}
	return e.String() + " bytes"
}

// markAccesses marks the values kernels read (arguments of nodes that
// compute) and write (results of nodes that are not views).
func (a *analysis) markAccesses() {
	for _, n := range a.g.Nodes {
		if isAssertNode(n) || !readsData(n) {
			continue
		}
		n.WalkInputs(func(v *ir.Value) {
			if f := a.facts.At(v); f != nil {
				f.accessed = true
			}
		})
		for _, r := range n.Results {
			if f := a.facts.At(r); f != nil {
				f.accessed = true
			}
		}
	}
}

// readsData reports whether n runs a kernel over its tensor arguments:
// views, symbolic-size queries and assertions only read metadata.
func readsData(n *ir.Node) bool {
	if n.Form == ir.FormOp {
		op, _ := n.Op.(*ops.Op)
		if op != nil && (op.Kind == ops.KindSym || op.Kind == ops.KindView && op.IsView()) {
			return false
		}
		return !ir.IsViewNode(n)
	}
	// A Python-level call whose results alias an argument (tensor getitem,
	// x.view(...)) is a view.
	for _, r := range n.Results {
		if !isTensor(r) || r.Type.Tensor.Storage == 0 {
			continue
		}
		alias := false
		n.WalkInputs(func(v *ir.Value) {
			alias = alias || isTensor(v) && v.Type.Tensor.Storage == r.Type.Tensor.Storage
		})
		if alias {
			return false
		}
	}
	return true
}

// report adds a diagnostic of the pass at pos.
func (a *analysis) report(sev diag.Severity, pos diag.Pos, node, hint, msg string) {
	a.ctx.Diags.Add(diag.Diagnostic{Severity: sev, Code: CodeMisaligned, Pos: pos, Node: node, Pass: "align", Message: msg, Hint: hint})
}
