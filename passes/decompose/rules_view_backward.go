package decompose

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// sliceBackward is decompositions.py slice_backward: zeros of the input's
// sizes (grad_output.new_zeros(input_sizes)) with grad_output scattered
// into the slice (slice_scatter), which lowering runs as one pointwise
// kernel choosing the source or zero by an index predicate.
func sliceBackward(e *emitter, c *ops.Call) []*ir.Value {
	g := e.tensorArg(c, "grad_output")
	if e.err != nil || g == nil {
		return nil
	}
	zeros := e.call("aten::new_zeros.default", []ir.Arg{val(g), c.Arg("input_sizes")})
	out := e.call("aten::slice_scatter.default", []ir.Arg{val(zeros), val(g), c.Arg("dim"), c.Arg("start"), c.Arg("end"), c.Arg("step")})
	return []*ir.Value{out}
}

// unsafeSplit is decompositions.py unsafe_split: split.Tensor with the
// same arguments (ATen's unsafe_split returns the same views; only
// autograd's view tracking differs).
func unsafeSplit(e *emitter, c *ops.Call) []*ir.Value {
	names := make([]string, len(e.orig.Results))
	for i := range names {
		names[i] = fmt.Sprintf("split_%d", i)
	}
	n := e.callN("aten::split.Tensor", []ir.Arg{val(e.tensorArg(c, "self")), c.Arg("split_size"), c.Arg("dim")}, nil, names...)
	if n == nil {
		return nil
	}
	return slices.Clone(n.Results) // finish clears unused entries: not the node's own slice
}
