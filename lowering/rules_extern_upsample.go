package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// lowerUpsampleBilinearBackward is upsample_bilinear2d_backward as an
// extern call, as Inductor 2.15's (lowering.py has no lowering for it and
// torch/_decomp no decomposition: a fallback). rt and the CUDA kernel take
// the sizes and align_corners; given scales are dropped where ATen's
// ratio from them equals the one from the sizes (1/scale, in float, is
// in/out: scale_factor=2 from 3 to 6), and refused otherwise.
func lowerUpsampleBilinearBackward(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	g, err := l.ref(c.Arg("grad_output"))
	if err != nil {
		return err
	}
	if g.layout.DType.Category() != ir.CatFloat {
		return noLowering(c.Node, "the extern kernel takes float tensors", "%s: grad_output is %s", c.Op, g.layout.DType.Name())
	}
	params := map[string][]int64{}
	for _, name := range []string{"output_size", "input_size", "align_corners"} {
		vals, err := intParam(c, name)
		if err != nil {
			return noLowering(c.Node, "extern kernels take constant parameters", "%s: %v", c.Op, err)
		}
		params[name] = vals
	}
	osz, isz := params["output_size"], params["input_size"]
	if len(osz) != 2 || len(isz) != 4 {
		return noLowering(c.Node, "", "%s: output_size %v, input_size %v", c.Op, osz, isz)
	}
	if params["align_corners"][0] == 0 {
		for d, name := range []string{"scales_h", "scales_w"} {
			s := c.Arg(name)
			if s.Kind != ir.ArgFloat || s.Float <= 0 {
				continue
			}
			in, o := isz[2+d], osz[d]
			if float32(1/s.Float) != float32(in)/float32(o) || 1/s.Float != float64(in)/float64(o) {
				return noLowering(c.Node, "kiln's extern takes the ratio from the sizes; interp runs the scaled case",
					"%s: %s=%v gives another ratio than input size %d / output size %d", c.Op, name, s.Float, in, o)
			}
		}
	}
	l.newExtern(&Extern{Op: c.Op.QualifiedName(), Args: []Operand{{g.buf, g.layout}}, Params: params,
		Outs: []Operand{{out.buf, out.layout}}})
	return nil
}
