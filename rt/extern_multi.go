package rt

import (
	"fmt"
	"strings"
)

// ExternN runs an extern op with several outputs (topk: values, indices;
// convolution_backward: grad_input, grad_weight, grad_bias). A nil output
// is one the program never reads: it is not computed.
func ExternN(op string, outs []*Tensor, args []*Tensor, params map[string][]int64) error {
	switch base, _, _ := strings.Cut(op, "."); base {
	case "aten::topk":
		return topk(outs, args, params)
	case "aten::convolution_backward":
		if len(args) == 0 || args[0] == nil {
			return fmt.Errorf("%s: want grad_output, input and weight", op)
		}
		if t := params["transposed"]; len(t) > 0 && t[0] != 0 {
			return fmt.Errorf("%s: transposed convolution is not supported by the Go backend", op)
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
