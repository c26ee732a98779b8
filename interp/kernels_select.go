package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/kiln-compiler/kiln/ir"
)

// Order statistics along a dim: kthvalue, median.dim, nanmedian.dim —
// (values, indices), the index being where the chosen element sits in the
// slice. median is the lower median; NaN is the largest value (median of
// a slice holding NaN is NaN), nanmedian skips NaNs.

func init() {
	register(kOrderStat, "kthvalue", "median.dim", "nanmedian.dim", "mode")
}

func kOrderStat(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if self.DType.IsComplex() {
		return nil, fmt.Errorf("%s: complex tensors are not supported", c.op.Schema.Name)
	}
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	keep, err := c.bool("keepdim")
	if err != nil {
		return nil, err
	}
	rank := self.Dim()
	d := 0
	if rank > 0 {
		if d, err = wrapDim(dim, rank); err != nil {
			return nil, err
		}
	}
	// Move dim last and read row by row.
	perm := make([]int64, 0, rank)
	for i := 0; i < rank; i++ {
		if i != d {
			perm = append(perm, int64(i))
		}
	}
	n := int64(1)
	if rank > 0 {
		perm = append(perm, int64(d))
		n = self.Shape[d]
	}
	t, err := permute(self, perm)
	if err != nil {
		return nil, err
	}
	vals := contiguous(t).Floats()
	if n == 0 {
		return nil, fmt.Errorf("%s: cannot compute on an empty dimension", c.op.Schema.Name)
	}
	rows := int64(len(vals)) / n
	outV, outI := make([]float64, rows), make([]float64, rows)
	for r := int64(0); r < rows; r++ {
		v, i, err := pick(c, vals[r*n:(r+1)*n])
		if err != nil {
			return nil, err
		}
		outV[r], outI[r] = v, float64(i)
	}
	var shape []int64
	for i, s := range self.Shape {
		switch {
		case i != d:
			shape = append(shape, s)
		case keep:
			shape = append(shape, 1)
		}
	}
	dev := self.Device()
	return []any{FromFloatsOn(self.DType, shape, outV, dev), FromFloatsOn(ir.I64, shape, outI, dev)}, nil
}

// pick chooses the element of one slice and its index.
func pick(c *call, row []float64) (float64, int64, error) {
	idx := make([]int, 0, len(row))
	nan := -1
	for i, v := range row {
		if v != v {
			if nan < 0 {
				nan = i
			}
			if c.op.Schema.Name == "nanmedian" {
				continue
			}
		}
		idx = append(idx, i)
	}
	less := func(a, b int) bool {
		x, y := row[idx[a]], row[idx[b]]
		if x != x || y != y {
			return y != y && x == x
		}
		return x < y
	}
	sort.SliceStable(idx, less)
	var k int
	switch c.op.Schema.Name {
	case "kthvalue":
		kk, err := c.int("k")
		if err != nil {
			return 0, 0, err
		}
		if kk < 1 || kk > int64(len(row)) {
			return 0, 0, fmt.Errorf("kthvalue(): selected number k out of range for dimension %d", len(row))
		}
		k = int(kk - 1)
	case "mode":
		k = modeAt(row, idx)
	case "median":
		if nan >= 0 {
			return math.NaN(), int64(nan), nil
		}
		k = (len(idx) - 1) / 2
	default: // nanmedian
		if len(idx) == 0 {
			return math.NaN(), 0, nil
		}
		k = (len(idx) - 1) / 2
	}
	return row[idx[k]], int64(idx[k]), nil
}

// modeAt is the position in idx (sorted, stable) of the most frequent
// value: the smallest such value on a tie, at its last occurrence, as
// ATen's CPU mode kernel reports it.
func modeAt(row []float64, idx []int) int {
	best, bestN := 0, 0
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && sameValue(row[idx[j+1]], row[idx[i]]) {
			j++
		}
		if j-i+1 > bestN {
			best, bestN = j, j-i+1
		}
		i = j + 1
	}
	return best
}

func sameValue(a, b float64) bool { return a == b || (a != a && b != b) }

func init() { register(kIndexReduce, "index_reduce") }

// kIndexReduce is index_reduce: slice i of source along dim is reduced
// (prod, mean, amax, amin) into slice index[i] of a copy of self; with
// include_self false, self's values at the indexed slices are left out.
func kIndexReduce(c *call) ([]any, error) {
	self, src, err := c.tensor2("self", "source")
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor("index")
	if err != nil {
		return nil, err
	}
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	mode, err := c.str("reduce")
	if err != nil {
		return nil, err
	}
	incl, err := c.bool("include_self")
	if err != nil {
		return nil, err
	}
	if self.DType.IsComplex() || self.DType == ir.Bool {
		return nil, fmt.Errorf("index_reduce(): %s is not supported", scalarTypeName(self.DType))
	}
	rank := max(self.Dim(), 1)
	d, err := wrapDim(dim, rank)
	if err != nil {
		return nil, err
	}
	shape := self.Shape
	if self.Dim() == 0 {
		shape = []int64{1}
	}
	outer, inner := int64(1), int64(1)
	for i := 0; i < d; i++ {
		outer *= shape[i]
	}
	for i := d + 1; i < len(shape); i++ {
		inner *= shape[i]
	}
	size := shape[d]
	out, sv, ix := self.Floats(), src.Floats(), idx.Ints()
	count := make([]float64, len(out))
	for i := range count {
		count[i] = 1
	}
	at := func(o, k, in int64) int64 { return (o*size+k)*inner + in }
	if !incl {
		ident := map[string]float64{"prod": 1, "mean": 0, "amax": math.Inf(-1), "amin": math.Inf(1)}[mode]
		for _, k := range ix {
			if k < 0 {
				k += size
			}
			for o := int64(0); o < outer; o++ {
				for in := int64(0); in < inner; in++ {
					out[at(o, k, in)], count[at(o, k, in)] = ident, 0
				}
			}
		}
	}
	for i, k := range ix {
		if k < -size || k >= size {
			return nil, fmt.Errorf("index_reduce(): index %d is out of bounds for dimension %d with size %d", k, d, size)
		}
		if k < 0 {
			k += size
		}
		for o := int64(0); o < outer; o++ {
			for in := int64(0); in < inner; in++ {
				p, s := at(o, k, in), sv[(o*int64(len(ix))+int64(i))*inner+in]
				switch mode {
				case "prod":
					out[p] *= s
				case "mean":
					out[p] += s
					count[p]++
				case "amax":
					if s != s || s > out[p] {
						out[p] = s
					}
				case "amin":
					if s != s || s < out[p] {
						out[p] = s
					}
				default:
					return nil, fmt.Errorf("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.", mode)
				}
			}
		}
	}
	if mode == "mean" {
		for p := range out {
			if count[p] > 0 {
				out[p] /= count[p]
				if !self.DType.IsFloat() {
					out[p] = math.Floor(out[p])
				}
			}
		}
	}
	return one(FromFloatsOn(self.DType, self.Shape, out, self.Device()))
}
