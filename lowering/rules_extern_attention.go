package lowering

import (
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// The CPU flash attention op and its backward as multi-output extern
// calls, as Inductor's CPU backend runs them (torch 2.15):
// torch/_inductor/lowering.py:4019-4028 registers
// make_fallback(aten._scaled_dot_product_flash_attention_for_cpu.default,
// sdpa_constraint) and the same for ..._for_cpu_backward, and
// torch/_inductor/decomposition.py:125 lists the forward in
// decomps_to_exclude, so core ATen's math decomposition
// (torch/_decomp/decompositions.py:5865) never runs under Inductor. Its
// output code calls torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default
// and takes out and logsumexp in the fake types' layouts (out like
// query, logsumexp [B, H, L] with the strides of [B, L, H]); the
// backward's gradients come back in [B, L, H, E] order. sdpa_constraint
// (lowering.py:3609, 3623, 3666) requires each CPU operand in its fake
// type's stride order, or contiguous when the last dim is not the
// innermost: for the backward's logsumexp that is a copy kernel in
// Inductor's code (a transpose to contiguous). kiln's extern kernels
// read any layout, so operands are passed as they are. rt/attention.go
// computes both; an output nobody reads (logsumexp in inference) gets no
// buffer.

// sdpaParams reads the scalar arguments the extern takes: is_causal and
// scale (its float64 bits, absent for None). dropout_p must be 0: the
// kernel itself refuses more ("Currently do not support dropout > 0").
func sdpaParams(c *ops.Call) (map[string][]int64, error) {
	if p := c.Arg("dropout_p"); !(p.Kind == ir.ArgFloat && p.Float == 0 || p.Kind == ir.ArgInt && p.Int == 0) {
		return nil, noLowering(c.Node, "dropout is random: PyTorch's CPU flash kernel refuses dropout_p > 0 (\"Currently do not support dropout > 0\"); run the graph with dropout off (eval mode)",
			"%s: dropout_p is %s, not 0", c.Op, p.String())
	}
	causal, err := c.Bool("is_causal")
	if err != nil || c.Arg("is_causal").Kind == ir.ArgValue {
		return nil, noLowering(c.Node, "extern kernels take constant parameters", "%s: is_causal is not a constant bool: %s", c.Op, c.Arg("is_causal").String())
	}
	params := map[string][]int64{"is_causal": {int64(b2f(causal))}}
	switch s := c.Arg("scale"); s.Kind {
	case ir.ArgNone:
	case ir.ArgFloat, ir.ArgInt:
		f, _ := c.Float("scale")
		params["scale"+F64BitsSuffix] = []int64{int64(math.Float64bits(f))}
	default:
		return nil, noLowering(c.Node, "extern kernels take constant parameters", "%s: scale is not a constant float: %s", c.Op, s.String())
	}
	return params, nil
}

// sdpaOperands are the named tensor operands (attn_mask may be None: an
// absent Operand), checked as the CPU kernel checks them where sizes are
// constants (the runtime checks again with the real sizes).
func (l *lowerer) sdpaOperands(c *ops.Call, names ...string) ([]Operand, error) {
	args := make([]Operand, 0, len(names)+1)
	for _, name := range append(names, "attn_mask") {
		a := c.Arg(name)
		if name == "attn_mask" && a.Kind == ir.ArgNone {
			args = append(args, Operand{})
			continue
		}
		r, err := l.ref(a)
		if err != nil {
			return nil, err
		}
		args = append(args, Operand{r.buf, r.layout})
	}
	return args, nil
}

// sdpaCheck refuses, with a reason, what the kernel cannot run: q, k, v
// not 4-d or of another float dtype, query heads not a multiple of the
// key/value heads (PyTorch reads past the tensors), key and value heads
// or lengths that differ, an empty query or key sequence (PyTorch's
// kernel dies of SIGFPE), a mask of another dtype or a shape that does
// not broadcast to [B, H, L, S].
func sdpaCheck(c *ops.Call, q, k, v, mask Operand) error {
	fail := func(format string, args ...any) error {
		return noLowering(c.Node, "PyTorch's CPU flash attention kernel refuses this input or reads out of bounds on it", "%s: "+format, append([]any{c.Op}, args...)...)
	}
	qs, ks, vs := q.Layout.Shape, k.Layout.Shape, v.Layout.Shape
	dt := q.Layout.DType
	switch {
	case len(qs) != 4 || len(ks) != 4 || len(vs) != 4:
		return fail("query, key and value must be 4-d, got %d-d, %d-d, %d-d", len(qs), len(ks), len(vs))
	case dt.Category() != ir.CatFloat || k.Layout.DType != dt || v.Layout.DType != dt:
		return fail("query, key and value are %s, %s, %s; want one float dtype", dt.Name(), k.Layout.DType.Name(), v.Layout.DType.Name())
	case !sym.Equal(ks[1], vs[1]) || !sym.Equal(ks[2], vs[2]):
		return fail("key [%s, %s] and value [%s, %s] differ in heads or sequence length", ks[1], ks[2], vs[1], vs[2])
	case !sym.Equal(ks[0], qs[0]) || !sym.Equal(vs[0], qs[0]):
		return fail("batch sizes differ: %s, %s, %s", qs[0], ks[0], vs[0])
	}
	if h, ok := qs[1].Const(); ok {
		if hkv, ok := ks[1].Const(); ok && (hkv == 0 && h > 0 || hkv > 0 && h%hkv != 0) {
			return fail("%d query heads are not a multiple of %d key/value heads", h, hkv)
		}
	}
	for _, n := range []sym.Expr{qs[2], ks[2]} {
		if isConst(n, 0) {
			return fail("an empty query or key sequence (PyTorch's kernel divides by zero)")
		}
	}
	if mask.Buffer == nil {
		return nil
	}
	ms := mask.Layout.Shape
	if mask.Layout.DType != dt {
		return fail("attn_mask is %s, query is %s (PyTorch: \"Attention mask is the same data type as query\")", mask.Layout.DType.Name(), dt.Name())
	}
	if len(ms) != 2 && len(ms) != 4 {
		return fail("attention mask dim in {2, 4}, got %d", len(ms))
	}
	full := []sym.Expr{qs[0], qs[1], qs[2], ks[2]}[4-len(ms):]
	for d, s := range ms {
		if !sym.Equal(s, full[d]) && !isOne(s) {
			return fail("attention mask shape %v does not broadcast to [B, H, L, S] = %v", ms, full)
		}
	}
	return nil
}

func isConst(e sym.Expr, n int64) bool {
	v, ok := e.Const()
	return ok && v == n
}

// lowerSDPAFlashCPU is the forward flash op: out and logsumexp.
func lowerSDPAFlashCPU(l *lowerer, c *ops.Call) error {
	return l.sdpaExtern(c, []string{"query", "key", "value"}, 0)
}

// lowerSDPAFlashCPUBackward is its backward: grad_query, grad_key and
// grad_value from grad_out, query, key, value, out and logsumexp.
func lowerSDPAFlashCPUBackward(l *lowerer, c *ops.Call) error {
	return l.sdpaExtern(c, []string{"grad_out", "query", "key", "value", "out", "logsumexp"}, 1)
}

// sdpaExtern lowers either op to one extern kernel: its operands are the
// tensors named (then the mask, sdpaOperands' last), query at args[q].
func (l *lowerer) sdpaExtern(c *ops.Call, tensors []string, q int) error {
	params, err := sdpaParams(c)
	if err != nil {
		return err
	}
	args, err := l.sdpaOperands(c, tensors...)
	if err != nil {
		return err
	}
	if err := sdpaCheck(c, args[q], args[q+1], args[q+2], args[len(args)-1]); err != nil {
		return err
	}
	outs, live, err := l.externOuts(c)
	if err != nil || !live {
		return err
	}
	l.newExtern(&Extern{Op: c.Op.QualifiedName(), Args: args, Params: params, Outs: outs})
	return nil
}
