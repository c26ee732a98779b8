package fakeprop

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// RemarkCPUFromAnnotations: a node's tensors print no device, and only
// the CPU's kernels give the results PyTorch annotated.
const RemarkCPUFromAnnotations = "cpu-from-annotations"

var cpu = ir.Device{Type: "cpu", Index: -1}

// onCPUByEvidence retries op's rule on n as on the CPU when n's tensors
// print no device and the rule's types disagree with the annotations: a
// graph printed without devices (print_readable's default) still ran on
// one, and where the CPU's kernels differ from the others (batch_norm's
// inference statistics are [0], a bf16 layer_norm's are bf16), PyTorch's
// annotations say which ran. The CPU's types are kept, with the device
// left unprinted as the graph has it, only when they agree.
func (r *run) onCPUByEvidence(n *ir.Node, op *ops.Op, c *ops.Call, types []ir.Type) []ir.Type {
	// Cheapest first: assign compares every annotation again, and most
	// graphs name their devices.
	if !r.p.check || !hasDevicelessTensorArg(n) || agreesWithAnnotations(n, types) {
		return types
	}
	c.AssumeDevice(cpu)
	onCPU, err := op.Meta(r.env, c)
	c.AssumeDevice(ir.Device{})
	if err != nil {
		return types
	}
	for _, t := range onCPU {
		if t.Kind == ir.KindTensor && t.Tensor != nil && t.Tensor.Device == cpu {
			t.Tensor.Device = ir.Device{}
		}
	}
	if !agreesWithAnnotations(n, onCPU) {
		return types
	}
	r.ctx.Remark(n, RemarkCPUFromAnnotations, "%s's tensors name no device, and PyTorch's annotations are its CPU kernels' results: typed as on the CPU", n.Name)
	return onCPU
}

// agreesWithAnnotations: every annotated result of n has its type in types.
func agreesWithAnnotations(n *ir.Node, types []ir.Type) bool {
	if len(types) < len(n.Results) {
		return true // not a disagreement this can settle (assign reports it)
	}
	for i, v := range n.Results {
		if v.Annot.IsKnown() && !Agrees(v.Annot, types[i]) {
			return false
		}
	}
	return true
}

func hasDevicelessTensorArg(n *ir.Node) bool {
	found := false
	n.WalkInputs(func(v *ir.Value) {
		found = found || v.Type.Kind == ir.KindTensor && v.Type.Tensor != nil && !v.Type.Tensor.Device.Known()
	})
	return found
}
