package ops

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// IndexStep is one view op Python's x[index] applies to x: Target with
// Args after self.
type IndexStep struct {
	Target string
	Args   []ir.Arg
}

// PlanIndex is x[index] on a tensor of rank rank as PyTorch's Python
// indexing does it (torch/csrc/autograd/python_variable_indexing.cpp):
// the view ops the basic parts make, in order (None unsqueezes, a slice
// slices, an int or SymInt selects and removes the dim, Ellipsis stands for
// the dims no other part names), then, when tensors index, the index list
// for aten::index.Tensor (one entry per dim of the view, None where no
// tensor stands, a mask taking as many dims as it has, trailing Nones
// dropped). fakeprop types x[index] with it and the aten pass emits it,
// so PyTorch's rules are written once.
func PlanIndex(rank int, index ir.Arg) (steps []IndexStep, advanced *ir.Arg, err error) {
	parts := []ir.Arg{index}
	if index.Kind == ir.ArgTuple || index.Kind == ir.ArgList && !allTensors(index.Elems) {
		parts = index.Elems
	}
	named := 0
	for _, p := range parts {
		if p.Kind != ir.ArgNone && p.Kind != ir.ArgEllipsis {
			named++
			if isTensorArg(p) && p.Value.Type.Tensor.DType == ir.Bool {
				named += p.Value.Type.Tensor.Rank() - 1 // a mask names as many dims as it has
			}
		}
	}
	dim := 0
	var adv []ir.Arg
	for _, p := range parts {
		switch {
		case p.Kind == ir.ArgEllipsis:
			for k := 0; k < rank-named; k++ {
				adv = append(adv, ir.NoneArg())
			}
			dim += max(rank-named, 0)
		case p.Kind == ir.ArgNone:
			steps = append(steps, IndexStep{"aten::unsqueeze.default", []ir.Arg{ir.IntArg(int64(dim))}})
			adv = append(adv, ir.NoneArg())
			dim++
		case p.Kind == ir.ArgSlice:
			start, stop, step := unpackSlice(p)
			steps = append(steps, IndexStep{"aten::slice.Tensor", []ir.Arg{ir.IntArg(int64(dim)), start, stop, step}})
			adv = append(adv, ir.NoneArg())
			dim++
		case isTensorArg(p):
			adv = append(adv, p)
			k := 1
			if p.Value.Type.Tensor.DType == ir.Bool {
				k = max(p.Value.Type.Tensor.Rank(), 1)
				for j := 1; j < k; j++ {
					adv = append(adv, ir.NoneArg())
				}
			}
			dim += k
		case p.Kind == ir.ArgInt || p.Kind == ir.ArgValue && p.Value.Type.Kind == ir.KindSymInt:
			steps = append(steps, IndexStep{"aten::select.int", []ir.Arg{ir.IntArg(int64(dim)), p}})
		default:
			return nil, nil, fmt.Errorf("indexing a tensor with %s is not modelled", p)
		}
	}
	for len(adv) > 0 && !isTensorArg(adv[len(adv)-1]) {
		adv = adv[:len(adv)-1]
	}
	if len(adv) == 0 {
		return steps, nil, nil
	}
	list := ir.ListArg(adv...)
	return steps, &list, nil
}

// unpackSlice is THPUtils_unpackSlice: a missing start is 0, a missing
// stop PY_SSIZE_T_MAX, a missing step 1, so the slice prints as an AOT
// graph's does (slice.Tensor(x, 0, 0, 9223372036854775807)).
func unpackSlice(p ir.Arg) (start, stop, step ir.Arg) {
	start, stop, step = p.Elems[0], p.Elems[1], p.Elems[2]
	if start.Kind == ir.ArgNone {
		start = ir.IntArg(0)
	}
	if stop.Kind == ir.ArgNone {
		stop = ir.IntArg(math.MaxInt64)
	}
	if step.Kind == ir.ArgNone {
		step = ir.IntArg(1)
	}
	return start, stop, step
}

func allTensors(args []ir.Arg) bool {
	for _, e := range args {
		if !isTensorArg(e) {
			return false
		}
	}
	return len(args) > 0
}
