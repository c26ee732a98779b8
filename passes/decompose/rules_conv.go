package decompose

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// convNd is conv1d / conv2d / conv3d as ATen's composite (Convolution.cpp
// conv2d_symint): convolution(input, weight, bias, stride, padding,
// dilation, transposed=False, output_padding=[0]*N, groups), with
// one-value parameters expanded to N values (expand_param_if_needed).
// An unbatched input stays whole: ATen unsqueezes it around the call.
func convNd(e *emitter, c *ops.Call) []*ir.Value {
	x, w := e.tensorArg(c, "input"), e.tensorArg(c, "weight")
	bias := c.Arg("bias")
	if bias.Kind != ir.ArgNone {
		e.tensorArg(c, "bias")
	}
	if e.err != nil {
		return nil
	}
	n := tensor(w).Rank() - 2
	if tensor(x).Rank() != n+2 {
		e.whole("input of rank %d for a weight of rank %d (unbatched)", tensor(x).Rank(), n+2)
		return nil
	}
	zeros := make([]int, n)
	args := []ir.Arg{val(x), val(w), bias,
		e.spatial(c, "stride", n), e.spatial(c, "padding", n), e.spatial(c, "dilation", n),
		ir.BoolArg(false), ints(zeros...), c.Arg("groups")}
	return []*ir.Value{e.call("aten::convolution.default", args)}
}

// spatial reads an int[N] parameter as a list of n values: a bare int or
// a one-element list repeats (SymInt elements pass through).
func (e *emitter) spatial(c *ops.Call, name string, n int) ir.Arg {
	a := c.Arg(name)
	elems := a.Elems
	if !a.IsSequence() {
		elems = []ir.Arg{a}
	}
	switch {
	case len(elems) == n:
		return ir.ListArg(elems...)
	case len(elems) == 1:
		out := make([]ir.Arg, n)
		for i := range out {
			out[i] = elems[0]
		}
		return ir.ListArg(out...)
	}
	e.whole("%s has %d values for %d spatial dims", name, len(elems), n)
	return ir.NoneArg()
}
