package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Extern calls with several outputs: topk and sort (values, indices) and
// convolution_backward (grad_input, grad_weight, grad_bias), which
// Inductor runs as fallback library calls. An output the graph never reads
// (an output_mask entry that is false, indices nobody uses) gets no buffer:
// the call neither allocates nor computes it.

// externOuts is one Operand per result of c: a fresh buffer for a tensor
// result something reads, an absent Operand otherwise; ok is false when no
// result is read (the call is dead and needs no kernel).
func (l *lowerer) externOuts(c *ops.Call) (outs []Operand, ok bool, err error) {
	for i, v := range c.Node.Results {
		if v.Type.Kind != ir.KindTensor || v.NumUses() == 0 {
			outs = append(outs, Operand{})
			continue
		}
		r, err := l.resultRef(c, i)
		if err != nil {
			return nil, false, err
		}
		outs = append(outs, Operand{r.buf, r.layout})
		ok = true
	}
	return outs, ok, nil
}

// lowerTopk is topk(self, k, dim, largest, sorted) as one extern call with
// constant k and a non-negative dim.
func lowerTopk(l *lowerer, c *ops.Call) error {
	k, err := c.Ints("k")
	if err != nil || len(k) != 1 {
		return noLowering(c.Node, "topk's extern kernel takes a constant k; specialize the size (mark it static) to lower it",
			"%s: k is not a constant: %s", c.Op, c.Arg("k").String())
	}
	if k[0] < 0 {
		return noLowering(c.Node, "", "%s: k = %d is negative", c.Op, k[0])
	}
	return lowerSelect(l, c, map[string][]int64{"k": k}, "largest", "sorted")
}

// lowerSort is sort(self, dim, descending) and sort.stable(self, stable,
// dim, descending) as one extern call (stable None is False).
func lowerSort(l *lowerer, c *ops.Call) error {
	params := map[string][]int64{"stable": {0}}
	if c.Has("stable") && c.Arg("stable").Kind == ir.ArgBool && c.Arg("stable").Bool {
		params["stable"] = []int64{1}
	}
	return lowerSelect(l, c, params, "descending")
}

// lowerSelect lowers topk and sort: self's float or integer rows (sort:
// bool too) along a constant dim (made non-negative), with the constant
// bools flags.
func lowerSelect(l *lowerer, c *ops.Call, params map[string][]int64, flags ...string) error {
	self, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	dt := self.layout.DType
	// sort takes bools (false before true, rt/topk.go); eager's topk does
	// not ("topk does not support bool dtypes on CPU").
	if dt == ir.Bool && c.Op.Schema.Name == "topk" {
		return noLowering(c.Node, "eager PyTorch refuses it too: topk does not support bool dtypes on CPU", "%s on a bool tensor", c.Op)
	}
	if dt != ir.Bool && dt.Category() != ir.CatFloat && dt.Category() != ir.CatInt {
		return noLowering(c.Node, c.Op.Schema.Name+"'s extern kernel takes float and integer tensors", "%s on a %s tensor", c.Op, dt.Name())
	}
	rank := len(self.layout.Shape)
	dim, err := c.Ints("dim")
	if err != nil || len(dim) != 1 {
		return noLowering(c.Node, "", "%s: dim is not a constant int", c.Op)
	}
	d := dim[0]
	if d < 0 {
		d += int64(max(rank, 1))
	}
	if d < 0 || d >= int64(max(rank, 1)) {
		return noLowering(c.Node, "", "%s: dim %d is out of range for a %d-d tensor", c.Op, dim[0], rank)
	}
	params["dim"] = []int64{d}
	for _, name := range flags {
		v, err := intParam(c, name)
		if err != nil || len(v) != 1 {
			return noLowering(c.Node, "", "%s: %s is not a constant bool", c.Op, name)
		}
		params[name] = v
	}
	outs, live, err := l.externOuts(c)
	if err != nil || !live {
		return err
	}
	l.newExtern(&Extern{Op: c.Op.QualifiedName(), Args: []Operand{{self.buf, self.layout}}, Params: params, Outs: outs})
	return nil
}

// lowerConvBackward is convolution_backward as one extern call computing
// the outputs output_mask asks for and the graph reads. bias_sizes only
// decides whether grad_bias exists (fakeprop typed it). A transposed
// convolution's backward is an extern call too, as Inductor's on CPU
// (torch 2.15: decomposition.py splits grad_bias off only on a GPU, and
// kernel/conv.py's convolution_backward lowering has no template for a
// transposed one, so ATen's kernel runs): rt computes it through the
// direct convolution it is the adjoint of.
func lowerConvBackward(l *lowerer, c *ops.Call) error {
	args := make([]Operand, 3)
	for i, name := range []string{"grad_output", "input", "weight"} {
		r, err := l.ref(c.Arg(name))
		if err != nil {
			return err
		}
		if r.layout.DType.Category() != ir.CatFloat {
			return noLowering(c.Node, "convolution_backward's extern kernel takes float tensors", "%s: %s is %s", c.Op, name, r.layout.DType.Name())
		}
		args[i] = Operand{r.buf, r.layout}
	}
	rank := len(args[1].Layout.Shape)
	if rank < 3 || rank > 5 || len(args[0].Layout.Shape) != rank || len(args[2].Layout.Shape) != rank {
		return noLowering(c.Node, "convolution_backward's extern kernel takes 1-d to 3-d convolutions (batched input)",
			"%s: grad_output, input and weight have ranks %d, %d, %d", c.Op, len(args[0].Layout.Shape), rank, len(args[2].Layout.Shape))
	}
	params := map[string][]int64{}
	for _, name := range []string{"stride", "padding", "dilation", "transposed", "output_padding", "groups"} {
		vals, err := intParam(c, name)
		if err != nil {
			return noLowering(c.Node, "extern kernels take constant parameters", "%s: %v", c.Op, err)
		}
		params[name] = vals
	}
	outs, live, err := l.externOuts(c)
	if err != nil || !live {
		return err
	}
	l.newExtern(&Extern{Op: c.Op.QualifiedName(), Args: args, Params: params, Outs: outs})
	return nil
}
