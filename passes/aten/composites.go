package aten

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// composite expands a CompositeImplicitAutograd op that a Python call
// routes to. AOTAutograd's trace never records such an op, only the ops
// its C++ body calls (checked with aot_function on PyTorch 2.15); kiln's
// decompose and lowering start from those.
type composite func(r *rewriter, n *ir.Node, c *ops.Call) error

var composites = map[string]composite{
	"aten::dropout.default":                      expandDropout,
	"aten::pad.default":                          expandPad,
	"aten::group_norm.default":                   expandGroupNorm,
	"aten::cross_entropy_loss.default":           expandCrossEntropy,
	"aten::repeat_interleave.self_int":           expandRepeatInterleave,
	"aten::scaled_dot_product_attention.default": expandSDPA,
	"aten::one_hot.default":                      expandOneHot,
	"aten::numpy_T.default":                      expandNumpyT,
	"aten::einsum.default":                       expandEinsum,
	"aten::min.other":                            renamed("aten::minimum.default"),
	"aten::max.other":                            renamed("aten::maximum.default"),
}

// renamed is a composite whose body calls one other op with the same
// arguments (min.other is at::minimum).
func renamed(target string) composite {
	return func(r *rewriter, n *ir.Node, c *ops.Call) error {
		args, _, err := canonical(c.Op, c.Args, nil)
		if err != nil {
			return err
		}
		v, err := r.call(target, args)
		if err != nil {
			return err
		}
		return r.finish(n, v)
	}
}

// expandNumpyT is Tensor.T: permute with the dims reversed.
func expandNumpyT(r *rewriter, n *ir.Node, c *ops.Call) error {
	t, err := c.Tensor("self")
	if err != nil {
		return err
	}
	dims := make([]ir.Arg, t.Rank())
	for i := range dims {
		dims[i] = ir.IntArg(int64(t.Rank() - 1 - i))
	}
	v, err := r.call("aten::permute.default", []ir.Arg{c.Arg("self"), ir.ListArg(dims...)})
	if err != nil {
		return err
	}
	return r.finish(n, v)
}

// expandOneHot is at::one_hot with num_classes given: unsqueeze(-1) ==
// arange(num_classes), as int64. PyTorch's trace also asserts every class
// is in [0, num_classes) (_assert_async, which kiln does not lower): out of
// range, eager PyTorch raises and kiln's row is all zeros.
func expandOneHot(r *rewriter, n *ir.Node, c *ops.Call) error {
	k, err := c.Int("num_classes")
	if err != nil || k < 0 {
		return fmt.Errorf("one_hot without num_classes is data-dependent (its size is the largest class + 1)")
	}
	t, err := c.Tensor("self")
	if err != nil {
		return err
	}
	u, err := r.call("aten::unsqueeze.default", []ir.Arg{c.Arg("self"), ir.IntArg(-1)})
	if err != nil {
		return err
	}
	kws := []ir.Kwarg{{Name: "dtype", Arg: ir.DTypeArg(ir.I64)}}
	if t.Device.Known() { // an unknown device would print as device(type='')
		kws = append(kws, ir.Kwarg{Name: "device", Arg: ir.DeviceArg(t.Device)})
	}
	ar, err := r.call("aten::arange.default", []ir.Arg{ir.IntArg(k)}, kws...)
	if err != nil {
		return err
	}
	eq, err := r.call("aten::eq.Tensor", []ir.Arg{ir.ValueArg(u), ir.ValueArg(ar)})
	if err != nil {
		return err
	}
	v, err := r.call("aten::_to_copy.default", []ir.Arg{ir.ValueArg(eq)}, ir.Kwarg{Name: "dtype", Arg: ir.DTypeArg(ir.I64)})
	if err != nil {
		return err
	}
	return r.finish(n, v)
}

// traceFree are Python calls with no tensor effect that a trace drops
// (usage logging): the node goes when nothing reads its value.
var traceFree = map[string]bool{"torch._C._log_api_usage_once": true}

// expandDropout is at::dropout: with train off (or p = 0) the input itself
// (_dropout_impl returns it), else native_dropout's output.
func expandDropout(r *rewriter, n *ir.Node, c *ops.Call) error {
	train, err := c.Bool("train")
	if err != nil {
		return err
	}
	p, err := c.Float("p")
	if err != nil {
		return err
	}
	in := c.Arg("input")
	if !isTensor(in) {
		return fmt.Errorf("dropout of %s", in)
	}
	if !train || p == 0 {
		r.subst[n.Results[0]] = in.Value
		r.ctx.Remark(n, RemarkRewritten, "%s: dropout in eval mode is its input %s", n.Name, in.Value.Name)
		return nil
	}
	return r.firstOf(n, "aten::native_dropout.default", 2, []ir.Arg{in, ir.FloatArg(p), ir.BoolArg(train)})
}

// expandPad is at::pad for mode='constant': constant_pad_nd with the value
// (0 when None).
func expandPad(r *rewriter, n *ir.Node, c *ops.Call) error {
	if mode := c.Arg("mode"); mode.Kind == ir.ArgString && mode.Str != "constant" {
		return fmt.Errorf("F.pad(mode=%q) is not expanded (constant is)", mode.Str)
	}
	value := c.Arg("value")
	if value.Kind == ir.ArgNone {
		value = ir.FloatArg(0)
	}
	return r.firstOf(n, "aten::constant_pad_nd.default", 1, []ir.Arg{c.Arg("self"), c.Arg("pad"), value})
}

// expandGroupNorm is at::group_norm: native_group_norm(input, weight, bias,
// N, C, HxW, group, eps)'s first output.
func expandGroupNorm(r *rewriter, n *ir.Node, c *ops.Call) error {
	t, err := c.Tensor("input")
	if err != nil {
		return err
	}
	if t.Rank() < 2 {
		return fmt.Errorf("group_norm of a %dD input", t.Rank())
	}
	sizes, err := sizeArgs(t.Shape)
	if err != nil {
		return err
	}
	hw := int64(1)
	for _, s := range sizes[2:] {
		hw *= s.Int
	}
	args := []ir.Arg{c.Arg("input"), c.Arg("weight"), c.Arg("bias"), sizes[0], sizes[1], ir.IntArg(hw), c.Arg("num_groups"), c.Arg("eps")}
	return r.firstOf(n, "aten::native_group_norm.default", 3, args)
}

// expandCrossEntropy is at::cross_entropy_loss for class indices without
// label smoothing: _log_softmax over the class dim, then nll_loss_nd, which
// for an input of rank ≤ 2 is nll_loss_forward's output.
func expandCrossEntropy(r *rewriter, n *ir.Node, c *ops.Call) error {
	t, err := c.Tensor("self")
	if err != nil {
		return err
	}
	if ls, err := c.Float("label_smoothing"); err != nil || ls != 0 {
		return fmt.Errorf("cross_entropy with label_smoothing is not expanded")
	}
	target, err := c.Tensor("target")
	if err != nil {
		return err
	}
	if target.DType.IsFloat() || t.Rank() > 2 || t.Rank() < 1 {
		return fmt.Errorf("cross_entropy with class probabilities or a %dD input is not expanded (class indices over a 1D or 2D input are)", t.Rank())
	}
	dim := int64(min(1, t.Rank()-1))
	logp, err := r.call("aten::_log_softmax.default", []ir.Arg{c.Arg("self"), ir.IntArg(dim), ir.BoolArg(false)})
	if err != nil {
		return err
	}
	args := []ir.Arg{ir.ValueArg(logp), c.Arg("target"), c.Arg("weight"), c.Arg("reduction"), c.Arg("ignore_index")}
	return r.firstOf(n, "aten::nll_loss_forward.default", 2, args)
}

// expandRepeatInterleave is repeat_interleave_symint with an int repeats:
// unsqueeze(dim+1), expand, a contiguous clone, and a view merging the two
// dims.
func expandRepeatInterleave(r *rewriter, n *ir.Node, c *ops.Call) error {
	t, err := c.Tensor("self")
	if err != nil {
		return err
	}
	if c.IsNone("dim") {
		return fmt.Errorf("repeat_interleave without dim is not expanded")
	}
	dim, err := c.Dim("dim", t.Rank())
	if err != nil {
		return err
	}
	reps, err := c.Int("repeats")
	if err != nil {
		return err
	}
	shape, err := sizeArgs(t.Shape)
	if err != nil {
		return err
	}
	u, err := r.call("aten::unsqueeze.default", []ir.Arg{c.Arg("self"), ir.IntArg(int64(dim + 1))})
	if err != nil {
		return err
	}
	expanded := append(append(append([]ir.Arg(nil), shape[:dim+1]...), ir.IntArg(reps)), shape[dim+1:]...)
	e, err := r.call("aten::expand.default", []ir.Arg{ir.ValueArg(u), ir.ListArg(expanded...)})
	if err != nil {
		return err
	}
	cl, err := r.call("aten::clone.default", []ir.Arg{ir.ValueArg(e)}, ir.Kwarg{Name: "memory_format", Arg: ir.EnumArg("contiguous_format")})
	if err != nil {
		return err
	}
	merged := append([]ir.Arg(nil), shape...)
	merged[dim] = ir.IntArg(shape[dim].Int * reps)
	v, err := r.call("aten::view.default", []ir.Arg{ir.ValueArg(cl), ir.ListArg(merged...)})
	if err != nil {
		return err
	}
	return r.finish(n, v)
}

// expandSDPA is scaled_dot_product_attention where the CPU dispatcher picks
// the flash kernel (sdp_utils_cpp.cpp: 4-D inputs of one float dtype, no
// dropout): its first output. The flash kernel reads grouped-query key and
// value as they are (enable_gqa); a bool mask is first made additive,
// where(mask, 0, -inf), as convert_boolean_attn_mask does.
func expandSDPA(r *rewriter, n *ir.Node, c *ops.Call) error {
	var dt ir.DType
	for i, name := range []string{"query", "key", "value"} {
		t, err := c.Tensor(name)
		if err != nil {
			return err
		}
		if t.Rank() != 4 || !t.DType.IsFloat() || i > 0 && t.DType != dt {
			return fmt.Errorf("scaled_dot_product_attention takes the math path for these inputs; kiln expands the flash path only")
		}
		dt = t.DType
	}
	if p, err := c.Float("dropout_p"); err != nil || p != 0 {
		return fmt.Errorf("scaled_dot_product_attention with dropout is random; kiln expands dropout_p=0 only")
	}
	mask := c.Arg("attn_mask")
	if isTensor(mask) && mask.Value.Type.Tensor.DType == ir.Bool {
		kw := []ir.Kwarg{{Name: "dtype", Arg: ir.DTypeArg(dt)}, {Name: "device", Arg: ir.DeviceArg(mask.Value.Type.Tensor.Device)}}
		ninf, err := r.call("aten::scalar_tensor.default", []ir.Arg{ir.FloatArg(math.Inf(-1))}, kw...)
		if err != nil {
			return err
		}
		zero, err := r.call("aten::scalar_tensor.default", []ir.Arg{ir.FloatArg(0)}, kw...)
		if err != nil {
			return err
		}
		m, err := r.call("aten::where.self", []ir.Arg{mask, ir.ValueArg(zero), ir.ValueArg(ninf)})
		if err != nil {
			return err
		}
		mask = ir.ValueArg(m)
	}
	args := []ir.Arg{c.Arg("query"), c.Arg("key"), c.Arg("value"), c.Arg("dropout_p"), c.Arg("is_causal")}
	kw := []ir.Kwarg{{Name: "attn_mask", Arg: mask}, {Name: "scale", Arg: c.Arg("scale")}}
	return r.firstOfKw(n, "aten::_scaled_dot_product_flash_attention_for_cpu.default", 2, args, kw)
}

// firstOf calls target with nres results and makes its first stand for
// n's value.
func (r *rewriter) firstOf(n *ir.Node, target string, nres int, args []ir.Arg) error {
	return r.firstOfKw(n, target, nres, args, nil)
}

func (r *rewriter) firstOfKw(n *ir.Node, target string, nres int, args []ir.Arg, kw []ir.Kwarg) error {
	m, err := r.b.Call(target, args, kw, nres, ir.Type{})
	if err != nil {
		return err
	}
	return r.finish(n, m.Results[0])
}

// finish adopts v for n's value and remarks what n became.
func (r *rewriter) finish(n *ir.Node, v *ir.Value) error {
	if err := r.adopt(n, v); err != nil {
		return err
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: %s → %s", n.Name, n.Target, r.emitted())
	return nil
}
