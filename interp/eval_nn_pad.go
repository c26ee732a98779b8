package interp

import (
	"fmt"
	"strings"
)

// reflection_pad{1,2,3}d and replication_pad{1,2,3}d with their backward:
// padding lists (left, right) pairs from the last dim inwards; reflection
// mirrors about the edge element, replication repeats it.

func init() {
	register(kReflectReplicatePad, "reflection_pad1d", "reflection_pad2d", "reflection_pad3d",
		"replication_pad1d", "replication_pad2d", "replication_pad3d")
	register(kPadBackward, "reflection_pad1d_backward", "reflection_pad2d_backward", "reflection_pad3d_backward",
		"replication_pad1d_backward", "replication_pad2d_backward", "replication_pad3d_backward")
}

// padSource maps output position o of a dim of size n padded by left to
// the input position it reads.
func padSource(reflect bool, o, n, left int64) int64 {
	i := o - left
	if reflect {
		if i < 0 {
			i = -i
		}
		if i >= n {
			i = 2*(n-1) - i
		}
		return i
	}
	return max(0, min(i, n-1))
}

// padMap reads padding and returns the padded shape of self and the
// output-to-input index map.
func padMap(c *call, self *Tensor) ([]int64, func(out, in []int64) bool, error) {
	pad, err := c.intList("padding")
	if err != nil {
		return nil, nil, err
	}
	k := len(pad) / 2
	if self.Dim() < k+1 {
		return nil, nil, fmt.Errorf("%s: expected a %dD or %dD input, got %dD", c.op.Schema.Name, k+1, k+2, self.Dim())
	}
	reflect := strings.HasPrefix(c.op.Schema.Name, "reflection")
	first := self.Dim() - k
	shape := clone64(self.Shape)
	for j := 0; j < k; j++ {
		d := self.Dim() - 1 - j
		l, r := pad[2*j], pad[2*j+1]
		if reflect && (l >= self.Shape[d] || r >= self.Shape[d]) {
			return nil, nil, fmt.Errorf("Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%d, %d) at dimension %d of input %v", l, r, d, self.Shape)
		}
		shape[d] += l + r
		if shape[d] < 1 && self.Shape[d] > 0 {
			return nil, nil, fmt.Errorf("%s: input (%v) is too small for the padding (%v)", c.op.Schema.Name, self.Shape, pad)
		}
	}
	from := func(out, in []int64) bool {
		copy(in, out)
		for d := first; d < len(out); d++ {
			j := len(out) - 1 - d
			in[d] = padSource(reflect, out[d], self.Shape[d], pad[2*j])
		}
		return true
	}
	return shape, from, nil
}

func kReflectReplicatePad(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	shape, from, err := padMap(c, self)
	if err != nil {
		return nil, err
	}
	return oneT(gatherBy(self, shape, from))
}

// kPadBackward sums grad_output over the forward's map into self's shape.
func kPadBackward(c *call) ([]any, error) {
	g, self, err := c.tensor2("grad_output", "self")
	if err != nil {
		return nil, err
	}
	shape, from, err := padMap(c, self)
	if err != nil {
		return nil, err
	}
	if !equal64(shape, g.Shape) {
		return nil, fmt.Errorf("%s: grad_output of shape %v, expected %v", c.op.Schema.Name, g.Shape, shape)
	}
	return oneT(scatterAddBy(g, g.DType, self.Shape, from))
}
