package interp

import "fmt"

// Eval kernel for the align pass's assertion op, kiln::assert_alignment
// (passes/align): PyTorch's assert_alignment (torch/csrc/dynamo/guards.cpp)
// checks storage_offset * itemsize % alignment and fails with the message
// below.
func init() {
	register(kAssertAlignment, "kiln::assert_alignment")
}

func kAssertAlignment(c *call) ([]any, error) {
	t, align, err := c.selfInt("alignment")
	if err != nil {
		return nil, err
	}
	op, err := c.str("op_name")
	if err != nil {
		return nil, err
	}
	if align <= 0 {
		return nil, fmt.Errorf("alignment cannot be %d", align)
	}
	isz := int64(t.DType.ItemSize())
	if t.Offset*isz%align == 0 {
		return nil, nil
	}
	msg := fmt.Sprintf("Expect the tensor to be %d bytes aligned. Fail due to storage_offset=%d itemsize=%d", align, t.Offset, isz)
	if op != "" {
		msg = "Error in op: " + op + "\n" + msg
	}
	return nil, fmt.Errorf("%s", msg)
}
