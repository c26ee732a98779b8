package interp

import (
	"fmt"
	"math"
)

// log_sigmoid_forward's CPU buffer (QR moved to kernels_linalg_qr.go).

func init() {
	register(kLogSigmoidForward, "log_sigmoid_forward")
}

// kLogSigmoidForward is (log σ(x), exp(-|x|)): the CPU kernel keeps the
// exponential for the backward; on CUDA and XPU the buffer is empty, as
// the decomposition fake tensors run makes it (torch/_decomp).
func kLogSigmoidForward(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if !self.DType.IsFloat() {
		return nil, fmt.Errorf("log_sigmoid_forward: %s is not supported", scalarTypeName(self.DType))
	}
	x := self.Floats()
	out, buf := make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		e := math.Exp(-math.Abs(v))
		buf[i] = e
		out[i] = math.Min(v, 0) - math.Log1p(e)
	}
	dev := self.Device()
	if dev.Type == "cuda" || dev.Type == "xpu" {
		return []any{FromFloatsOn(self.DType, self.Shape, out, dev), FromFloatsOn(self.DType, []int64{0}, nil, dev)}, nil
	}
	return []any{FromFloatsOn(self.DType, self.Shape, out, dev), FromFloatsOn(self.DType, self.Shape, buf, dev)}, nil
}
