package aten

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// expansion rewrites a call of a Python function that has no ATen op of
// its own into the ATen calls its Python body makes; a is the call's
// arguments by parameter name (ops.BindPython).
type expansion func(r *rewriter, n *ir.Node, a map[string]ir.Arg) error

// expansions are keyed by the callable's name; each follows the Python
// function it names (torch 2.15).
var expansions = map[string]expansion{
	"torch.tensor":                    expandTensor,
	"torch.nn.functional.normalize":   expandNormalize,
	"torch.nn.functional.interpolate": expandInterpolate,
}

func given(a map[string]ir.Arg, name string) bool {
	x, ok := a[name]
	return ok && x.Kind != ir.ArgNone
}

// expandTensor is torch.tensor(data) of a literal: each number a 0-d
// scalar_tensor of the result's dtype, nested lists stacked (the AOT graph
// holds the data as a constant; kiln has no constant data, so it builds
// it); an empty list is full([0]).
func expandTensor(r *rewriter, n *ir.Node, a map[string]ir.Arg) error {
	t := n.Results[0].Type.Tensor
	kw := []ir.Kwarg{{Name: "dtype", Arg: ir.DTypeArg(t.DType)}, {Name: "device", Arg: ir.DeviceArg(t.Device)}}
	var build func(x ir.Arg) (*ir.Value, error)
	build = func(x ir.Arg) (*ir.Value, error) {
		switch {
		case x.IsSequence() && len(x.Elems) == 0:
			return r.call("aten::full.default", []ir.Arg{ir.IntList(0), ir.IntArg(0)}, kw...)
		case x.IsSequence():
			elems := make([]ir.Arg, len(x.Elems))
			for i, e := range x.Elems {
				v, err := build(e)
				if err != nil {
					return nil, err
				}
				elems[i] = ir.ValueArg(v)
			}
			return r.call("aten::stack.default", []ir.Arg{ir.ListArg(elems...)})
		case x.Kind == ir.ArgInt || x.Kind == ir.ArgFloat || x.Kind == ir.ArgBool:
			return r.call("aten::scalar_tensor.default", []ir.Arg{x}, kw...)
		}
		return nil, fmt.Errorf("torch.tensor of %s is not modelled", x)
	}
	v, err := build(a["data"])
	if err != nil {
		return err
	}
	if err := r.adopt(n, v); err != nil {
		return err
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: torch.tensor(%s) → scalar_tensor/stack", n.Name, a["data"])
	return nil
}

// expandNormalize is F.normalize (torch/nn/functional.py):
// input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input),
// where Tensor.norm with a number p and a dim is linalg.vector_norm.
func expandNormalize(r *rewriter, n *ir.Node, a map[string]ir.Arg) error {
	if given(a, "out") {
		return fmt.Errorf("F.normalize(out=...) is not modelled")
	}
	in := a["input"]
	if !isTensor(in) {
		return fmt.Errorf("F.normalize of %s", in)
	}
	p, dim, eps := ir.FloatArg(2), ir.IntArg(1), ir.FloatArg(1e-12)
	if given(a, "p") {
		p = a["p"]
	}
	if given(a, "dim") {
		dim = a["dim"]
	}
	if given(a, "eps") {
		eps = a["eps"]
	}
	if !dim.IsSequence() {
		dim = ir.ListArg(dim)
	}
	norm, err := r.call("aten::linalg_vector_norm.default", []ir.Arg{in, p, dim, ir.BoolArg(true)})
	if err != nil {
		return err
	}
	clamped, err := r.call("aten::clamp_min.default", []ir.Arg{ir.ValueArg(norm), eps})
	if err != nil {
		return err
	}
	shape, err := sizeArgs(in.Value.Type.Tensor.Shape)
	if err != nil {
		return err
	}
	denom, err := r.call("aten::expand.default", []ir.Arg{ir.ValueArg(clamped), ir.ListArg(shape...)})
	if err != nil {
		return err
	}
	out, err := r.call("aten::div.Tensor", []ir.Arg{in, ir.ValueArg(denom)})
	if err != nil {
		return err
	}
	if err := r.adopt(n, out); err != nil {
		return err
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: F.normalize → linalg_vector_norm, clamp_min, expand, div", n.Name)
	return nil
}

// upsampleNearest are the ops F.interpolate calls for mode='nearest' and
// 'nearest-exact', by the number of spatial dims.
var upsampleNearest = map[string][]string{
	"nearest":       {"aten::upsample_nearest1d.default", "aten::upsample_nearest2d.default", "aten::upsample_nearest3d.default"},
	"nearest-exact": {"aten::_upsample_nearest_exact1d.default", "aten::_upsample_nearest_exact2d.default", "aten::_upsample_nearest_exact3d.default"},
}

// expandInterpolate is F.interpolate for the nearest modes: Python calls
// upsample_nearest{1,2,3}d.vec(input, output_size, scale_factors), whose
// composite body computes the output size and calls the .default overload
// with one scale per spatial dim (the scale given, unless
// recompute_scale_factor asks to derive it from the sizes).
func expandInterpolate(r *rewriter, n *ir.Node, a map[string]ir.Arg) error {
	mode := "nearest"
	if given(a, "mode") {
		mode = a["mode"].Str
	}
	targets, ok := upsampleNearest[mode]
	if !ok {
		return fmt.Errorf("F.interpolate(mode=%q) is not expanded (the nearest modes are)", mode)
	}
	if given(a, "antialias") && a["antialias"].Kind == ir.ArgBool && a["antialias"].Bool {
		return fmt.Errorf("F.interpolate(antialias=True) is not modelled")
	}
	out := n.Results[0].Type.Tensor
	spatial := out.Rank() - 2
	if spatial < 1 || spatial > 3 {
		return fmt.Errorf("F.interpolate of a %dD input", out.Rank())
	}
	size, err := sizeArgs(out.Shape[2:])
	if err != nil {
		return err
	}
	args := []ir.Arg{a["input"], ir.ListArg(size...)}
	recompute := given(a, "recompute_scale_factor") && a["recompute_scale_factor"].Kind == ir.ArgBool && a["recompute_scale_factor"].Bool
	if given(a, "scale_factor") && !recompute {
		sf := a["scale_factor"]
		for i := range spatial {
			e := sf
			if sf.IsSequence() {
				e = sf.Elems[i]
			}
			if e.Kind == ir.ArgInt {
				e = ir.FloatArg(float64(e.Int))
			}
			args = append(args, e)
		}
	}
	v, err := r.call(targets[spatial-1], args)
	if err != nil {
		return err
	}
	if err := r.adopt(n, v); err != nil {
		return err
	}
	r.ctx.Remark(n, RemarkRewritten, "%s: F.interpolate(mode=%q) → %s", n.Name, mode, targets[spatial-1])
	return nil
}

// sizeArgs spells sizes as int arguments; a symbolic size is refused (the
// expansions that need one read it from a type, where no node names it).
func sizeArgs(shape []sym.Expr) ([]ir.Arg, error) {
	out := make([]ir.Arg, len(shape))
	for i, e := range shape {
		c, ok := e.Const()
		if !ok {
			return nil, fmt.Errorf("the size %s is symbolic; the expansion needs a constant", e)
		}
		out[i] = ir.IntArg(c)
	}
	return out, nil
}

// rtruediv is `2 / x`: Tensor.__rtruediv__ (torch/_tensor.py __rdiv__) is
// x.reciprocal() * 2, rounded twice as eager rounds it, not div(2, x).
func (r *rewriter) rtruediv(n *ir.Node) error {
	rec, err := r.call("aten::reciprocal.default", []ir.Arg{n.Args[1]})
	if err != nil {
		return err
	}
	v, err := r.call("aten::mul.Tensor", []ir.Arg{ir.ValueArg(rec), n.Args[0]})
	if err != nil {
		return err
	}
	return r.finish(n, v)
}
