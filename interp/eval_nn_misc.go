package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// eye, dist, renorm, hash_tensor, _chunk_cat, _pdist_forward and
// _prelu_kernel (+backward).

func init() {
	register(kEye, "eye", "eye.m")
	register(kRenorm, "renorm")
	register(kHashTensor, "hash_tensor")
	register(kChunkCat, "_chunk_cat")
	register(lossGrad("_prelu_kernel", []string{"self", "weight"}, nil, func(_, x []float64) float64 {
		if x[0] > 0 {
			return x[0]
		}
		return x[1] * x[0]
	}), "_prelu_kernel")
	register(kPreluBackward, "_prelu_kernel_backward")
}

func kEye(c *call) ([]any, error) {
	n, err := c.int("n")
	if err != nil {
		return nil, err
	}
	m := n
	if c.has("m") {
		if m, err = c.int("m"); err != nil {
			return nil, err
		}
	}
	if n < 0 || m < 0 {
		return nil, fmt.Errorf("n must be greater or equal to 0, got %d", min(n, m))
	}
	dt, ok, err := c.dtype("dtype")
	if err != nil {
		return nil, err
	}
	if !ok {
		dt = ir.F32
	}
	dev, ok, err := c.device("device")
	if err != nil {
		return nil, err
	}
	if !ok {
		dev = ir.CPU
	}
	vals := make([]float64, n*m)
	for i := int64(0); i < min(n, m); i++ {
		vals[i*m+i] = 1
	}
	return one(FromFloatsOn(dt, []int64{n, m}, vals, dev))
}

// pNorm is the p-norm of xs (p = inf, -inf and 0 included).
func pNorm(xs []float64, p float64) float64 {
	switch {
	case math.IsInf(p, 1), math.IsInf(p, -1):
		acc := math.Inf(int(-p / math.Abs(p)))
		for _, x := range xs {
			a := math.Abs(x)
			if a != a || (p > 0 && a > acc) || (p < 0 && a < acc) {
				acc = a
			}
		}
		if len(xs) == 0 {
			return 0
		}
		return acc
	case p == 0:
		n := 0.0
		for _, x := range xs {
			if x != 0 {
				n++
			}
		}
		return n
	}
	s := 0.0
	for _, x := range xs {
		s += math.Pow(math.Abs(x), p)
	}
	return math.Pow(s, 1/p)
}

// kRenorm scales each slice along dim whose p-norm exceeds maxnorm to
// maxnorm / (norm + 1e-7).
func kRenorm(c *call) ([]any, error) {
	self, d, err := c.selfInt("dim")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	maxnorm, err := c.float("maxnorm")
	if err != nil {
		return nil, err
	}
	if !self.DType.IsFloat() {
		return nil, fmt.Errorf("renorm: expected a floating point tensor, got %s", scalarTypeName(self.DType))
	}
	w, err := wrapDim(d, self.Dim())
	if err != nil {
		return nil, err
	}
	xs := contiguous(self).Floats()
	inner := numel(self.Shape[w+1:])
	n := self.Shape[w]
	slices := make([][]int64, n)
	for i := range xs {
		k := (int64(i) / inner) % n
		slices[k] = append(slices[k], int64(i))
	}
	for _, idx := range slices {
		vals := make([]float64, len(idx))
		for j, i := range idx {
			vals[j] = xs[i]
		}
		if norm := pNorm(vals, p); norm > maxnorm {
			scale := maxnorm / (norm + 1e-7)
			for _, i := range idx {
				xs[i] *= scale
			}
		}
	}
	return one(FromFloatsOn(self.DType, self.Shape, xs, self.Device()))
}

// kHashTensor (mode 0) xors the 64-bit patterns of the elements, floats
// as float64 and integers as int64, over the reduced dims.
func kHashTensor(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	mode, err := c.int("mode")
	if err != nil {
		return nil, err
	}
	if mode != 0 {
		return nil, fmt.Errorf("hash_tensor: mode %d is not supported by the interpreter", mode)
	}
	dims, err := c.intList("dim")
	if err != nil {
		return nil, err
	}
	keep, err := c.bool("keepdim")
	if err != nil {
		return nil, err
	}
	reduced := make([]bool, self.Dim())
	for i := range reduced {
		reduced[i] = len(dims) == 0
	}
	for _, d := range dims {
		w, err := wrapDim(d, self.Dim())
		if err != nil {
			return nil, err
		}
		if self.Dim() > 0 { // a 0-dim tensor reduces over dim 0 or -1 as a scalar
			reduced[w] = true
		}
	}
	var shape, kept []int64
	for i, s := range self.Shape {
		switch {
		case !reduced[i]:
			shape, kept = append(shape, s), append(kept, s)
		case keep:
			shape = append(shape, 1)
		}
	}
	keptStr := ContiguousStrides(kept)
	out := make([]int64, numel(kept))
	var fs []float64
	var is []int64
	if self.DType.IsFloat() {
		fs = contiguous(self).Floats()
	} else {
		is = contiguous(self).Ints()
	}
	var lin int64
	err = eachIndex(self.Shape, func(idx []int64) error {
		var o, j int64
		for d, x := range idx {
			if !reduced[d] {
				o += x * keptStr[j]
				j++
			}
		}
		bits := uint64(0)
		if fs != nil {
			bits = math.Float64bits(fs[lin])
		} else {
			bits = uint64(is[lin])
		}
		out[o] ^= int64(bits)
		lin++
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := FromInts(ir.U64, shape, out)
	res.Storage.Device = self.Device()
	return one(res)
}

// kChunkCat lays each tensor out as [..., num_chunks, chunk·rest] (dim
// zero-padded to a multiple of num_chunks) side by side; elements are
// copied as bytes, so every dtype (complex included) is exact.
func kChunkCat(c *call) ([]any, error) {
	ts, err := c.tensors("tensors")
	if err != nil {
		return nil, err
	}
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	nc, err := c.int("num_chunks")
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 || nc < 1 {
		return nil, fmt.Errorf("_chunk_cat expects a non-empty input tensor list and positive num_chunks")
	}
	d := int(dim)
	if dim < 0 {
		if d, err = wrapDim(dim, ts[0].Dim()); err != nil {
			return nil, err
		}
	}
	type part struct {
		t                  *Tensor
		chunk, rest        int64
		start, width, full int64
	}
	parts := make([]part, len(ts))
	var width int64
	outer := numel(ts[0].Shape[:d])
	for i, t := range ts {
		if d >= t.Dim() || t.DType != ts[0].DType {
			return nil, fmt.Errorf("_chunk_cat expects dim < ndim and one dtype for all input tensors")
		}
		p := part{t: contiguous(t), rest: numel(t.Shape[d+1:])}
		p.chunk = (t.Shape[d] + nc - 1) / nc
		p.start, p.width = width, p.chunk*p.rest
		p.full = t.Shape[d] * p.rest
		width += p.width
		parts[i] = p
	}
	shape := append(clone64(ts[0].Shape[:d]), nc, width)
	out, err := Empty(ts[0].DType, shape, nil, ts[0].Device())
	if err != nil {
		return nil, err
	}
	sz := int64(ts[0].DType.ItemSize())
	for o := int64(0); o < outer; o++ {
		for k := int64(0); k < nc; k++ {
			for _, p := range parts {
				for j := int64(0); j < p.width; j++ {
					pos := (k*p.chunk+j/p.rest)*p.rest + j%p.rest
					if pos < p.full {
						dst, src := (o*nc+k)*width+p.start+j, p.t.Offset+o*p.full+pos
						copy(out.Storage.Data[dst*sz:(dst+1)*sz], p.t.Storage.Data[src*sz:(src+1)*sz])
					}
				}
			}
		}
	}
	return one(out)
}

// kPreluBackward is (x > 0 ? g : w·g, x > 0 ? 0 : x·g) over the broadcast.
func kPreluBackward(c *call) ([]any, error) {
	names := []string{"grad_output", "self", "weight"}
	gi, err := lanes(c, "_prelu_kernel_backward", names, nil, nil, func(_, x []float64) float64 {
		if x[1] > 0 {
			return x[0]
		}
		return x[2] * x[0]
	})
	if err != nil {
		return nil, err
	}
	gw, err := lanes(c, "_prelu_kernel_backward", names, nil, nil, func(_, x []float64) float64 {
		if x[1] > 0 {
			return 0
		}
		return x[1] * x[0]
	})
	if err != nil {
		return nil, err
	}
	return []any{gi, gw}, nil
}

func init() {
	register(kUnfoldBackward, "unfold_backward")
}

// kUnfoldBackward adds window w's element k (grad_in's last dim) back at
// w·step + k along dim.
func kUnfoldBackward(c *call) ([]any, error) {
	g, err := c.tensor("grad_in")
	if err != nil {
		return nil, err
	}
	sizes, err := c.intList("input_sizes")
	if err != nil {
		return nil, err
	}
	vals, err := c.ints("dim", "size", "step")
	if err != nil {
		return nil, err
	}
	d := 0
	if len(sizes) > 0 {
		if d, err = wrapDim(vals[0], len(sizes)); err != nil {
			return nil, err
		}
	}
	step := vals[2]
	if g.Dim() != len(sizes)+1 && !(len(sizes) == 0 && g.Dim() == 1) {
		return nil, fmt.Errorf("unfold_backward: grad_in of %dD for input sizes %v", g.Dim(), sizes)
	}
	return oneT(scatterAddBy(g, g.DType, sizes, func(gi, out []int64) bool {
		if len(sizes) == 0 {
			return true
		}
		copy(out, gi[:len(sizes)])
		out[d] = gi[d]*step + gi[len(gi)-1]
		return true
	}))
}
