package fakeprop

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// RemarkCaptureFromInput is the remark code for a data-dependent op that
// the input already types with an unbacked symbol.
const RemarkCaptureFromInput = "capture-from-input"

// captureFromEvidence turns scalar or dynamic-output-shape capture on for
// one data-dependent node whose results the input already types with an
// unbacked symbol (`_local_scalar_dense: "Sym(u0)"`, `nonzero:
// "i64[u0, 1]"`): PyTorch only prints such a type when capture was on, so
// the graph is followed as captured, with a remark. It returns the function
// that restores the switches.
func (r *run) captureFromEvidence(n *ir.Node, op *ops.Op) func() {
	env := r.env
	scalar, shape := env.CaptureScalarOutputs, env.CaptureDynamicOutputShapeOps
	restore := func() { env.CaptureScalarOutputs, env.CaptureDynamicOutputShapeOps = scalar, shape }
	if !op.DataDep || scalar && shape {
		return restore
	}
	for _, v := range n.Results {
		a := v.Annot
		switch {
		case !scalar && isSymKind(a.Kind) && a.Sym.HasUnbacked():
			env.CaptureScalarOutputs = true
			r.ctx.Remark(n, RemarkCaptureFromInput, "the input types %s as %s, an unbacked symbol: PyTorch captured scalar outputs (capture_scalar_outputs=True) when it printed this graph, so kiln does too for this op", v.Name, a)
		case !shape && a.Kind == ir.KindTensor && hasUnbackedSize(a.Tensor):
			env.CaptureDynamicOutputShapeOps = true
			r.ctx.Remark(n, RemarkCaptureFromInput, "the input types %s as %s, with an unbacked size: PyTorch captured dynamic output shapes (capture_dynamic_output_shape_ops=True) when it printed this graph, so kiln does too for this op", v.Name, a)
		}
	}
	return restore
}

func isSymKind(k ir.Kind) bool {
	return k == ir.KindSymInt || k == ir.KindSymFloat || k == ir.KindSymBool
}

func hasUnbackedSize(t *ir.TensorType) bool {
	for _, s := range t.Shape {
		if s.HasUnbacked() {
			return true
		}
	}
	return false
}
