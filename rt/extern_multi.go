package rt

import (
	"fmt"
	"strings"
)

// ExternN runs an extern op with several outputs (topk, sort: values, indices;
// convolution_backward: grad_input, grad_weight, grad_bias; the CPU flash
// attention op: out, logsumexp, and its backward: grad_query, grad_key,
// grad_value; embedding_bag: output, offset2bag, bag_size, max_indices).
// A nil output
// is one the program never reads: it is not computed.
func ExternN(op string, outs []*Tensor, args []*Tensor, params map[string][]int64) error {
	switch base, _, _ := strings.Cut(op, "."); base {
	case "aten::topk":
		return topk(outs, args, params)
	case "aten::sort":
		return sortRows(outs, args, params)
	case "aten::_scaled_dot_product_flash_attention_for_cpu":
		return sdpaForward(op, outs, args, params)
	case "aten::_scaled_dot_product_flash_attention_for_cpu_backward":
		return sdpaBackward(op, outs, args, params)
	case "aten::_embedding_bag", "aten::_embedding_bag_forward_only":
		if len(args) == 0 || args[0] == nil {
			return fmt.Errorf("%s: want weight, indices, offsets and per_sample_weights", op)
		}
		switch args[0].DType {
		case "f64":
			return embeddingBag[float64](op, outs, args, params)
		case "f32":
			return embeddingBag[float32](op, outs, args, params)
		}
		return fmt.Errorf("%s: dtype %s is not supported by the Go backend (f32, f64)", op, args[0].DType)
	case "aten::convolution_backward":
		if len(args) == 0 || args[0] == nil {
			return fmt.Errorf("%s: want grad_output, input and weight", op)
		}
		for i, o := range outs {
			if o != nil && o.DType != args[0].DType {
				return fmt.Errorf("%s: output %d is %s, grad_output is %s", op, i, o.DType, args[0].DType)
			}
		}
		if !isFloat(args[0].DType) {
			return fmt.Errorf("%s: dtype %s is not supported by the Go backend", op, args[0].DType)
		}
		if args[0].DType == "f64" {
			return convolutionBackward[float64](outs, args, params)
		}
		return convolutionBackward[float32](outs, args, params)
	}
	return fmt.Errorf("extern op %s is not supported by the Go backend", op)
}

// sortRows is aten::sort(self, dim, descending) and sort.stable: every
// row along dim, ordered as PyTorch's CPU sort_kernel orders it
// (std::sort, or std::stable_sort for stable=True; NaN largest).
func sortRows(outs, args []*Tensor, params map[string][]int64) error {
	const op = "aten::sort"
	get := func(name string, def int64) (int64, error) { return intParam(op, params, name, def) }
	dim, err := get("dim", -1)
	if err != nil {
		return err
	}
	desc, err := get("descending", 0)
	if err != nil {
		return err
	}
	stable, err := get("stable", 0)
	if err != nil {
		return err
	}
	if len(args) != 1 || args[0] == nil {
		return fmt.Errorf("%s: want self", op)
	}
	n := int64(1)
	if len(args[0].Shape) > 0 && dim >= 0 && dim < int64(len(args[0].Shape)) {
		n = args[0].Shape[dim]
	}
	order := orderSort
	if stable != 0 {
		order = orderStable
	}
	return selectRows(op, outs, args, n, dim, desc != 0, order)
}

// intParam is the one value of an int parameter, def when absent.
func intParam(op string, params map[string][]int64, name string, def int64) (int64, error) {
	switch v := params[name]; len(v) {
	case 0:
		return def, nil
	case 1:
		return v[0], nil
	default:
		return 0, fmt.Errorf("%s: %s has %d values, want one", op, name, len(v))
	}
}
