package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// embedding_bag and its dense backward are extern calls, as Inductor's
// fallbacks (torch 2.15 lowering.py: make_fallback for _embedding_bag,
// _embedding_bag_forward_only and _embedding_bag_backward's dense kernel):
// a bag is a variable-length range of the indices, which no loop kernel of
// kiln's iterates over.

var (
	bagForward = externSpec{tensors: []string{"weight", "indices", "offsets", "per_sample_weights"},
		params: []string{"mode", "padding_idx", "include_last_offset"}}
	bagBackward = externSpec{tensors: []string{"grad", "indices", "offsets", "offset2bag", "bag_size", "maximum_indices", "per_sample_weights"},
		params: []string{"num_weights", "mode", "padding_idx"}}
)

// lowerEmbeddingBag is _embedding_bag and _embedding_bag_forward_only:
// output, offset2bag, bag_size, max_indices (those something reads).
func lowerEmbeddingBag(l *lowerer, c *ops.Call) error {
	if err := bagChecks(c, "weight"); err != nil {
		return err
	}
	e, err := bagForward.extern(l, c)
	if err != nil {
		return err
	}
	outs, live, err := l.externOuts(c)
	if err != nil || !live {
		return err
	}
	e.Outs = outs
	l.newExtern(e)
	return nil
}

// lowerEmbeddingBagBackward is _embedding_bag_backward's dense gradient.
func lowerEmbeddingBagBackward(l *lowerer, c *ops.Call) error {
	if err := bagChecks(c, "grad"); err != nil {
		return err
	}
	for _, flag := range []string{"scale_grad_by_freq", "sparse"} {
		if a := c.Arg(flag); a.Kind != ir.ArgBool || a.Bool {
			return noLowering(c.Node, "kiln's extern computes the dense gradient without frequency scaling, as the default arguments ask",
				"%s with %s=%s", c.Op, flag, a.String())
		}
	}
	return bagBackward.lower(l, c)
}

// bagChecks refuses what the Go and CUDA kernels do not compute: float
// types other than f32 and f64, and a mode other than sum, mean or max.
func bagChecks(c *ops.Call, floatArg string) error {
	t, err := c.Tensor(floatArg)
	if err != nil {
		return noLowering(c.Node, "", "%s: %v", c.Op, err)
	}
	if t.DType != ir.F32 && t.DType != ir.F64 {
		return noLowering(c.Node, "embedding_bag's extern kernels take float32 and float64 (PyTorch's CPU kernel accumulates reduced types in float32 through fbgemm, which kiln does not copy yet)",
			"%s on a %s %s", c.Op, t.DType.Name(), floatArg)
	}
	mode, err := c.Int("mode")
	if err != nil || mode < 0 || mode > 2 {
		return noLowering(c.Node, "embedding_bag's modes are 0 (sum), 1 (mean) and 2 (max)", "%s: mode %s", c.Op, c.Arg("mode").String())
	}
	return nil
}
