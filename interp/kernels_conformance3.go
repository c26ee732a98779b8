package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// linspace, logspace, max_unpool2d/3d, block_diag and masked_scatter.

func init() {
	register(kSpace, "linspace", "logspace")
	register(kMaxUnpool, "max_unpool2d", "max_unpool3d")
	register(kBlockDiag, "block_diag")
	register(kMaskedScatter, "masked_scatter")
}

// kSpace fills the first half of the points from start and the second from
// end, as ATen's CPU kernel does, so both endpoints are exact.
func kSpace(c *call) ([]any, error) {
	start, err := c.float("start")
	if err != nil {
		return nil, err
	}
	end, err := c.float("end")
	if err != nil {
		return nil, err
	}
	steps, err := c.int("steps")
	if err != nil {
		return nil, err
	}
	dt, ok, err := c.dtype("dtype")
	if err != nil {
		return nil, err
	}
	if !ok {
		dt = ir.F32
	}
	base, logspace := 10.0, c.op.Schema.Name == "logspace"
	if logspace {
		if base, err = c.float("base"); err != nil {
			return nil, err
		}
	}
	vals := make([]float64, steps)
	step := 0.0
	if steps > 1 {
		step = (end - start) / float64(steps-1)
	}
	if dt.IsFloat() && opmath(dt) != ir.F64 {
		step = float64(float32(step))
	}
	half := steps / 2
	for i := int64(0); i < steps; i++ {
		v := start + step*float64(i)
		if i >= half {
			v = end - step*float64(steps-1-i)
		}
		if logspace {
			v = math.Pow(base, v)
		}
		vals[i] = v
	}
	if steps == 1 {
		vals[0] = start
		if logspace {
			vals[0] = math.Pow(base, start)
		}
	}
	if !dt.IsFloat() {
		for i, v := range vals {
			vals[i] = math.Trunc(v)
		}
	}
	return one(FromFloatsOn(dt, []int64{steps}, vals, ir.CPU))
}

// kMaxUnpool writes each input value at its index in the flattened
// spatial plane of a zero output.
func kMaxUnpool(c *call) ([]any, error) {
	self, idx, err := c.tensor2("self", "indices")
	if err != nil {
		return nil, err
	}
	size, err := c.intList("output_size")
	if err != nil {
		return nil, err
	}
	sp := len(size)
	if self.Dim() < sp+1 {
		return nil, fmt.Errorf("%s: input must have at least %d dimensions", c.op.Schema.Name, sp+1)
	}
	lead := self.Shape[:self.Dim()-sp]
	shape := append(append([]int64{}, lead...), size...)
	plane, inPlane := numel(size), numel(self.Shape[self.Dim()-sp:])
	out := make([]float64, numel(shape))
	vals, ix := self.Floats(), idx.Ints()
	for i, v := range vals {
		p := int64(i) / inPlane
		k := ix[i]
		if k < 0 || k >= plane {
			return nil, fmt.Errorf("Found an invalid max index: %d (output volumes are of size %s", k, ints(size))
		}
		out[p*plane+k] = v
	}
	return one(FromFloatsOn(self.DType, shape, out, self.Device()))
}

func kBlockDiag(c *call) ([]any, error) {
	ts, err := c.tensors("tensors")
	if err != nil {
		return nil, err
	}
	rows, cols := int64(0), int64(0)
	dims := make([][2]int64, len(ts))
	dt := ir.F32
	for i, t := range ts {
		switch t.Dim() {
		case 0:
			dims[i] = [2]int64{1, 1}
		case 1:
			dims[i] = [2]int64{1, t.Shape[0]}
		default:
			dims[i] = [2]int64{t.Shape[0], t.Shape[1]}
		}
		rows, cols = rows+dims[i][0], cols+dims[i][1]
		if i == 0 {
			dt = t.DType
		} else if dt, err = ops.PromoteTypes(dt, t.DType); err != nil {
			return nil, err
		}
	}
	out := make([]float64, rows*cols)
	r0, c0 := int64(0), int64(0)
	for i, t := range ts {
		v := t.Floats()
		for r := int64(0); r < dims[i][0]; r++ {
			for k := int64(0); k < dims[i][1]; k++ {
				out[(r0+r)*cols+c0+k] = v[r*dims[i][1]+k]
			}
		}
		r0, c0 = r0+dims[i][0], c0+dims[i][1]
	}
	dev := ir.CPU
	if len(ts) > 0 {
		dev = ts[0].Device()
	}
	return one(FromFloatsOn(dt, []int64{rows, cols}, out, dev))
}

// kMaskedScatter copies source's elements, in order, where mask is set.
func kMaskedScatter(c *call) ([]any, error) {
	self, mask, err := c.tensor2("self", "mask")
	if err != nil {
		return nil, err
	}
	src, err := c.tensor("source")
	if err != nil {
		return nil, err
	}
	shape, err := broadcastShapes(self.Shape, mask.Shape)
	if err != nil {
		return nil, err
	}
	es, err := expand(self, shape)
	if err != nil {
		return nil, err
	}
	em, err := expand(mask, shape)
	if err != nil {
		return nil, err
	}
	out, m, s := es.Floats(), em.Ints(), src.Floats()
	next := 0
	for i := range out {
		if m[i] == 0 {
			continue
		}
		if next >= len(s) {
			return nil, fmt.Errorf("masked_scatter: expected source to have at least as many elements as ones in mask")
		}
		out[i] = s[next]
		next++
	}
	return one(FromFloatsOn(self.DType, shape, out, self.Device()))
}
