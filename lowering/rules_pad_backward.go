package lowering

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// reflection_padNd_backward as torch/_decomp _reflection_pad_backward
// computes it (Inductor 2.15 decomposes it into masked gathers): one
// pointwise kernel over grad_input whose element adds the grad_output
// elements that reflect onto it. Along a padded dim of size n (last index
// m = n-1) with padding left l and right r, input index i is read by
// output index i+l (the center, while inside the output), l-i (the left
// reflection, for 1 <= i <= l) and 2m+l-i (the right one, for m-r <= i <=
// m-1). The center comes first, then every other of the 3^dim areas in
// itertools.product([-1, 0, 1]) order, each masked by its ranges, as the
// decomposition adds them.

func padBackwardRules() map[string]rule {
	return map[string]rule{
		"reflection_pad1d_backward": lowerReflectionPadBackward,
		"reflection_pad2d_backward": lowerReflectionPadBackward,
		"reflection_pad3d_backward": lowerReflectionPadBackward,
	}
}

// padArea is where one area of one padded dim reads grad_output, and the
// input indices [lo, hi] (of the variable cond tests) it covers.
type padArea struct {
	at, cond, lo, hi sym.Expr
}

func lowerReflectionPadBackward(l *lowerer, c *ops.Call) error {
	out, in, err := l.operands(c, "grad_output")
	if err != nil {
		return err
	}
	pad, err := c.SymInts("padding")
	if err != nil {
		return noLowering(c.Node, "specialize the padding (mark it static)", "%s: padding is not constant: %v", c.Op, err)
	}
	grad, shape := in[0], out.layout.Shape
	dims := len(pad) / 2
	if len(pad)%2 != 0 || dims > len(shape) || len(grad.layout.Shape) != len(shape) {
		return fmt.Errorf("%s: padding %v for rank %d", c.Op, pad, len(shape))
	}
	x := outerVars(len(shape))
	// areas[j] are the left, center and right areas of padded dim j
	// (dims in order, the last dim's padding first in pad)
	areas := make([][3]padArea, dims)
	for j := range dims {
		d := len(shape) - dims + j
		left, right := pad[2*(dims-1-j)], pad[2*(dims-1-j)+1]
		m := sym.Sub(shape[d], sym.Const(1))
		center := sym.Add(x[d], left)
		areas[j] = [3]padArea{
			{at: sym.Sub(left, x[d]), cond: x[d], lo: sym.Const(1), hi: left},
			{at: center, cond: center, lo: sym.Const(0), hi: sym.Sub(grad.layout.Shape[d], sym.Const(1))},
			{at: sym.Sub(sym.Add(sym.Mul(sym.Const(2), m), left), x[d]), cond: x[d], lo: sym.Sub(m, right), hi: sym.Sub(m, sym.Const(1))},
		}
	}
	acc := accType(out.layout.DType)
	b := l.newKernel(shape)
	term := func(choice []int) *Instr {
		at := append([]sym.Expr{}, x...)
		var ok *Instr
		for j, k := range choice {
			a, d := areas[j][k], len(shape)-dims+j
			// clamped into grad_output, so that a masked-out read stays in bounds
			at[d] = sym.Max(sym.Const(0), sym.Min(a.at, sym.Sub(grad.layout.Shape[d], sym.Const(1))))
			v := b.index(a.cond, ir.I64)
			in := b.and(b.call("ge", ir.Bool, v, b.index(a.lo, ir.I64)), b.call("le", ir.Bool, v, b.index(a.hi, ir.I64)))
			if ok == nil {
				ok = in
			} else {
				ok = b.and(ok, in)
			}
		}
		return b.call("where", acc, ok, b.cast(b.load(grad, at), acc), b.constant(0, acc))
	}
	centerChoice := make([]int, dims)
	for j := range centerChoice {
		centerChoice[j] = 1
	}
	sum := term(centerChoice)
	for _, choice := range productOf3(dims) {
		if !slices.Equal(choice, centerChoice) {
			sum = b.call("add", acc, sum, term(choice))
		}
	}
	b.store(out, x, b.cast(sum, out.layout.DType))
	return nil
}

// productOf3 is itertools.product([-1, 0, 1], repeat=n) as indices 0, 1, 2.
func productOf3(n int) [][]int {
	out := [][]int{{}}
	for range n {
		var next [][]int
		for _, p := range out {
			for k := range 3 {
				next = append(next, append(append([]int{}, p...), k))
			}
		}
		out = next
	}
	return out
}
