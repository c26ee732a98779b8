package cuda

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
)

// Extern kernels (mm, bmm, convolution) are library calls in Inductor
// (cuBLAS, cuDNN); kiln emits naive kernels with one thread per output
// element, so that the generated program runs without those libraries.

// externOp is an extern call's op without its overload ("aten::mm").
func externOp(e *lowering.Extern) string {
	op, _, _ := strings.Cut(e.Op, ".")
	return op
}

func genExtern(em *emitter, p *lowering.Program, k *lowering.Kernel, msgs *checkMsgs) (*signature, error) {
	e := k.Extern
	sig := &signature{name: k.Name, fn: k.Name, written: map[*lowering.Buffer]bool{}, lanes: 1, work: sym.Const(1)}
	seen := map[*lowering.Buffer]bool{}
	for _, o := range append(slices.Clone(e.Args), e.Outs...) {
		if o.Buffer != nil && !seen[o.Buffer] {
			seen[o.Buffer] = true
			sig.buffers = append(sig.buffers, o.Buffer)
		}
	}
	for _, w := range e.Written() {
		sig.written[w] = true
	}
	slices.SortFunc(sig.buffers, func(a, b *lowering.Buffer) int { return a.ID - b.ID })
	// an extern that reads indices checks them (ops.IndexBoundsOf) and
	// takes the error record
	_, sig.checks = ops.IndexBoundsOf(e.Op)
	x := &xgen{e: em, p: p, k: k, sig: sig, msgs: msgs}
	var body func() error
	multi := false // a multi-output op sets its own work and header
	switch externOp(e) {
	case "aten::mm":
		body = func() error { return x.matmul(false) }
	case "aten::bmm":
		body = func() error { return x.matmul(true) }
	case "aten::addmm":
		body = x.addmm
	case "aten::convolution":
		body = x.convolution
	case "aten::_adaptive_avg_pool2d_backward":
		body = x.adaptiveAvgPool2dBackward
	case "aten::upsample_bilinear2d_backward":
		body = x.upsampleBilinear2dBackward
	case "aten::topk", "aten::sort":
		body, multi = x.topk, true
	case "aten::convolution_backward":
		body, multi = x.convolutionBackward, true
	case "aten::_embedding_bag", "aten::_embedding_bag_forward_only":
		body, multi = x.embeddingBag, true
	case "aten::_embedding_bag_backward":
		body = x.embeddingBagBackward
	case "aten::_scaled_dot_product_flash_attention_for_cpu":
		body, multi = x.sdpaForward, true
	case "aten::_scaled_dot_product_flash_attention_for_cpu_backward":
		body, multi = x.sdpaBackward, true
	default:
		return nil, fmt.Errorf("kernel %s: extern op %s has no CUDA kernel (kiln has mm, addmm, bmm, convolution, topk, sort, convolution_backward, "+
			"_adaptive_avg_pool2d_backward, upsample_bilinear2d_backward, _embedding_bag and its backward, "+
			"_scaled_dot_product_flash_attention_for_cpu and its backward)", k.Name, e.Op)
	}
	for _, o := range e.Outs {
		if o.Buffer == nil {
			continue
		}
		if _, err := info(o.Layout.DType); err != nil {
			return nil, fmt.Errorf("kernel %s: %w", k.Name, err)
		}
	}
	if !multi {
		if len(e.Outs) != 1 || e.Outs[0].Buffer == nil {
			return nil, fmt.Errorf("kernel %s: %s expects one output, got %d", k.Name, e.Op, len(e.Outs))
		}
		for _, s := range x.out().Layout.Shape {
			sig.work = sym.Mul(sig.work, s)
		}
		x.header(x.out().Layout.Shape)
	}
	if err := body(); err != nil {
		return nil, fmt.Errorf("kernel %s: %s: %w", k.Name, e.Op, err)
	}
	em.out()
	em.line("}")
	em.out()
	em.line("}")
	return sig, nil
}

type xgen struct {
	e    *emitter
	p    *lowering.Program
	k    *lowering.Kernel
	sig  *signature
	msgs *checkMsgs // the program's index check messages
}

// out is a single-output extern's output.
func (x *xgen) out() lowering.Operand { return x.k.Extern.Outs[0] }

// header opens the kernel and its grid-stride loop over sig.work, and
// unpacks w into o0, o1, ... over shape (none for an empty shape).
func (x *xgen) header(shape []sym.Expr) {
	x.headerAs("one thread per output element", shape)
}

func (x *xgen) headerAs(what string, shape []sym.Expr) {
	k, e := x.k, x.k.Extern
	x.e.line("")
	x.e.line("// %s: extern %s, origins [%s]: naive, %s", k.Name, e.Op, strings.Join(k.Origins, ", "), what)
	params := []string{}
	for _, b := range x.sig.buffers {
		c := "const "
		if x.sig.written[b] {
			c = ""
		}
		params = append(params, fmt.Sprintf("%s%s* __restrict__ %s", c, storageOf(b.DType), bufParam(b)))
	}
	for _, s := range x.p.Syms {
		params = append(params, "long long "+s)
	}
	if x.sig.checks {
		params = append(params, "long long* __restrict__ "+errParam)
	}
	x.e.line("extern \"C\" __global__ void %s(%s) {", k.Name, strings.Join(params, ", "))
	x.e.in()
	x.e.line("const long long nwork = %s;", x.sig.work.Code())
	x.e.line("for (long long w = (long long)KILN_BID * KILN_BDIM + KILN_TID; w < nwork; w += (long long)KILN_GDIM * KILN_BDIM) {")
	x.e.in()
	x.unpack(shape, "o", "w")
}

// unpack declares <v>0, <v>1, ... as from's row-major position in shape.
func (x *xgen) unpack(shape []sym.Expr, v, from string) {
	if len(shape) == 0 {
		return
	}
	x.e.line("long long rest = %s;", from)
	for i := len(shape) - 1; i >= 0; i-- {
		if i == 0 {
			x.e.line("const long long %s0 = rest;", v)
			continue
		}
		x.e.line("const long long %s%d = rest %% (%s);", v, i, shape[i].Code())
		x.e.line("rest /= (%s);", shape[i].Code())
	}
}

// operand reads element idx of an operand as a register value.
func (x *xgen) operand(o lowering.Operand, idx ...string) (string, error) {
	d, err := info(o.Layout.DType)
	if err != nil {
		return "", err
	}
	ptr := bufParam(o.Buffer)
	if storageOf(o.Layout.DType) != storageOf(o.Buffer.DType) {
		ptr = fmt.Sprintf("((const %s*)(const void*)%s)", d.storage, ptr)
	}
	return fmt.Sprintf("k_ld_%s(%s[%s])", d.suffix, ptr, layoutIndex(o.Layout, idx)), nil
}

// accumulate declares acc, runs loops (written by the caller's body) and
// stores acc into the output at (o0, o1, ...).
func (x *xgen) store() {
	out := x.out()
	d := dtInfos[out.Layout.DType]
	idx := make([]string, len(out.Layout.Shape))
	for i := range idx {
		idx[i] = fmt.Sprintf("o%d", i)
	}
	x.e.line("%s[%s] = k_st_%s(acc);", bufParam(out.Buffer), layoutIndex(out.Layout, idx), d.suffix)
}

func (x *xgen) accType() string { return cType(dtInfos[x.out().Layout.DType].reg) }

// matmul: out[b, i, j] = Σ_k a[b, i, k] · m[b, k, j].
func (x *xgen) matmul(batched bool) error {
	e := x.k.Extern
	if len(e.Args) != 2 || e.Args[0].Buffer == nil || e.Args[1].Buffer == nil {
		return fmt.Errorf("expects two tensor operands")
	}
	return x.product(e.Args[0], e.Args[1], batched, nil)
}

// addmm is self + mat1·mat2 with self expanded to the output's shape (as
// lowering emits it for f32): the bias is added to the accumulator once.
func (x *xgen) addmm() error {
	e := x.k.Extern
	if len(e.Args) != 3 || e.Args[0].Buffer == nil || e.Args[1].Buffer == nil || e.Args[2].Buffer == nil {
		return fmt.Errorf("expects three tensor operands")
	}
	return x.product(e.Args[1], e.Args[2], false, &e.Args[0])
}

// product accumulates a·m (batched: per o0) and adds bias, when given,
// at the output's index.
func (x *xgen) product(a, m lowering.Operand, batched bool, bias *lowering.Operand) error {
	rank := 2
	if batched {
		rank = 3
	}
	if len(a.Layout.Shape) != rank || len(m.Layout.Shape) != rank || len(x.out().Layout.Shape) != rank {
		return fmt.Errorf("expects rank-%d operands", rank)
	}
	ai, mi := []string{"o0", "r"}, []string{"r", "o1"}
	if batched {
		ai, mi = []string{"o0", "o1", "r"}, []string{"o0", "r", "o2"}
	}
	av, err := x.operand(a, ai...)
	if err != nil {
		return err
	}
	mv, err := x.operand(m, mi...)
	if err != nil {
		return err
	}
	x.e.line("%s acc = 0;", x.accType())
	x.e.line("for (long long r = 0; r < (%s); ++r) acc = k_add(acc, k_mul((%s)%s, (%s)%s));",
		a.Layout.Shape[rank-1].Code(), x.accType(), av, x.accType(), mv)
	if bias != nil {
		bv, err := x.operand(*bias, "o0", "o1")
		if err != nil {
			return err
		}
		x.e.line("acc = k_add((%s)%s, acc);", x.accType(), bv)
	}
	x.store()
	return nil
}

// layoutIndex is offset + Σ stride·idx, in elements of the layout's dtype.
func layoutIndex(l lowering.Layout, idx []string) string {
	parts := []string{"(" + l.Offset.Code() + ")"}
	for i, v := range idx {
		parts = append(parts, fmt.Sprintf("(%s) * (%s)", l.Strides[i].Code(), v))
	}
	return strings.Join(parts, " + ")
}
