package interp

import (
	"fmt"
	"math"
)

// segment_reduce and _segment_reduce_backward: data is cut along axis into
// consecutive segments given by lengths (or offsets, one more than the
// segments); lengths' leading dims index data's dims before axis. An
// initial value starts every accumulator (the mean divides by the
// segment's length only); an empty segment without one is the
// reduction's identity (mean: NaN).

func init() {
	register(kSegmentReduce, "segment_reduce")
	register(kSegmentReduceBackward, "_segment_reduce_backward")
}

// segmentGeom is the segment bounds as offsets [outer][segs+1] and the
// geometry of data around axis.
type segmentGeom struct {
	offs            [][]int64
	outer, n, inner int64
	segs            int64
	outShape        []int64
	initial         float64
	hasInitial      bool
	reduce          string
}

func readSegments(c *call, data *Tensor) (*segmentGeom, error) {
	axis, err := c.int("axis")
	if err != nil {
		return nil, err
	}
	ax, err := wrapDim(axis, data.Dim())
	if err != nil {
		return nil, err
	}
	g := &segmentGeom{outer: numel(data.Shape[:ax]), n: data.Shape[ax], inner: numel(data.Shape[ax+1:])}
	if g.reduce, err = c.str("reduce"); err != nil {
		return nil, err
	}
	if !c.isNone("initial") {
		if g.initial, err = c.float("initial"); err != nil {
			return nil, err
		}
		g.hasInitial = true
	}
	var bounds *Tensor
	isOffsets := c.isNone("lengths")
	if isOffsets {
		if bounds, err = c.tensor("offsets"); err != nil {
			return nil, err
		}
	} else if bounds, err = c.tensor("lengths"); err != nil {
		return nil, err
	}
	if bounds.Dim() != ax+1 {
		return nil, fmt.Errorf("segment_reduce: lengths/offsets must have %d dims for axis %d, got %d", ax+1, ax, bounds.Dim())
	}
	last := bounds.Shape[ax]
	g.segs = last
	if isOffsets {
		g.segs = last - 1
	}
	vs := bounds.Ints()
	for o := int64(0); o < g.outer; o++ {
		row := vs[o*last : (o+1)*last]
		off := make([]int64, g.segs+1)
		if isOffsets {
			copy(off, row)
		} else {
			for s, l := range row {
				off[s+1] = off[s] + l
			}
		}
		if off[g.segs] > g.n {
			return nil, fmt.Errorf("segment_reduce: segments cover %d elements, but data has %d along axis %d", off[g.segs], g.n, ax)
		}
		g.offs = append(g.offs, off)
	}
	g.outShape = append(append(clone64(data.Shape[:ax]), g.segs), data.Shape[ax+1:]...)
	return g, nil
}

// segmentValue reduces one segment.
func (g *segmentGeom) segmentValue(xs []float64) float64 {
	acc := map[string]float64{"max": math.Inf(-1), "min": math.Inf(1), "sum": 0, "mean": 0, "prod": 1}[g.reduce]
	if g.hasInitial {
		acc = g.initial
	}
	for _, x := range xs {
		switch g.reduce {
		case "max":
			if x != x || x > acc {
				acc = x
			}
		case "min":
			if x != x || x < acc {
				acc = x
			}
		case "sum", "mean":
			acc += x
		case "prod":
			acc *= x
		}
		if x != x {
			acc = x
		}
	}
	if g.reduce == "mean" {
		switch {
		case len(xs) > 0:
			acc /= float64(len(xs))
		case !g.hasInitial:
			acc = math.NaN()
		}
	}
	return acc
}

// each calls f with every segment's element positions in data's
// contiguous order and its position in the output.
func (g *segmentGeom) each(f func(pos []int64, out int64)) {
	for o := int64(0); o < g.outer; o++ {
		for s := int64(0); s < g.segs; s++ {
			for in := int64(0); in < g.inner; in++ {
				var pos []int64
				for k := g.offs[o][s]; k < g.offs[o][s+1]; k++ {
					pos = append(pos, (o*g.n+k)*g.inner+in)
				}
				f(pos, (o*g.segs+s)*g.inner+in)
			}
		}
	}
}

func kSegmentReduce(c *call) ([]any, error) {
	data, err := c.tensor("data")
	if err != nil {
		return nil, err
	}
	g, err := readSegments(c, data)
	if err != nil {
		return nil, err
	}
	xs := contiguous(data).Floats()
	out := make([]float64, numel(g.outShape))
	g.each(func(pos []int64, o int64) {
		seg := make([]float64, len(pos))
		for i, p := range pos {
			seg[i] = xs[p]
		}
		out[o] = g.segmentValue(seg)
	})
	return one(FromFloatsOn(data.DType, g.outShape, out, data.Device()))
}

// kSegmentReduceBackward: max/min share the gradient among the elements
// equal to the result, mean divides it by the length, prod multiplies it
// by the product of the other elements and initial.
func kSegmentReduceBackward(c *call) ([]any, error) {
	grad, err := c.tensor("grad")
	if err != nil {
		return nil, err
	}
	output, data, err := c.tensor2("output", "data")
	if err != nil {
		return nil, err
	}
	g, err := readSegments(c, data)
	if err != nil {
		return nil, err
	}
	xs, gs, ys := contiguous(data).Floats(), contiguous(grad).Floats(), contiguous(output).Floats()
	res := make([]float64, len(xs))
	g.each(func(pos []int64, o int64) {
		switch g.reduce {
		case "max", "min":
			var hit []int64
			for _, p := range pos {
				if sameValue(xs[p], ys[o]) {
					hit = append(hit, p)
				}
			}
			for _, p := range hit {
				res[p] = gs[o] / float64(len(hit))
			}
		case "sum":
			for _, p := range pos {
				res[p] = gs[o]
			}
		case "mean":
			for _, p := range pos {
				res[p] = gs[o] / float64(len(pos))
			}
		case "prod":
			for _, p := range pos {
				prod := 1.0
				if g.hasInitial {
					prod = g.initial
				}
				for _, q := range pos {
					if q != p {
						prod *= xs[q]
					}
				}
				res[p] = gs[o] * prod
			}
		}
	})
	return one(FromFloatsOn(grad.DType, data.Shape, res, data.Device()))
}
