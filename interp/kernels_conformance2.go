package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// More kernels the conformance table asked for: addr, addmv, addbmm,
// linalg_cross, trace, count_nonzero, pixel_(un)shuffle
// (linalg_solve_triangular moved to kernels_lu.go).

func init() {
	register(kAddProduct, "addr", "addmv", "addbmm")
	register(kCross, "linalg_cross")
	register(kTrace, "trace")
	register(kCountNonzero, "count_nonzero", "count_nonzero.dim_IntList")
	register(kPixelShuffle, "pixel_shuffle", "pixel_unshuffle")
}

// kAddProduct is beta·self + alpha·(a @ b): the outer product (addr), a
// matrix-vector product (addmv) or a sum of batched products (addbmm).
func kAddProduct(c *call) ([]any, error) {
	var names [2]string
	switch c.op.Schema.Name {
	case "addr":
		names = [2]string{"vec1", "vec2"}
	case "addmv":
		names = [2]string{"mat", "vec"}
	default:
		names = [2]string{"batch1", "batch2"}
	}
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	a, b, err := c.tensor2(names[0], names[1])
	if err != nil {
		return nil, err
	}
	if !a.DType.IsFloat() && !a.DType.IsComplex() && c.op.Schema.Name == "baddbmm" {
		return nil, fmt.Errorf("%s: integer inputs are not modelled", c.op.Schema.Name)
	}
	av, bv := a.Floats(), b.Floats()
	var prod []float64
	var shape []int64
	switch c.op.Schema.Name {
	case "addr":
		n, m := a.Shape[0], b.Shape[0]
		shape, prod = []int64{n, m}, make([]float64, n*m)
		for i := int64(0); i < n; i++ {
			for j := int64(0); j < m; j++ {
				prod[i*m+j] = av[i] * bv[j]
			}
		}
	case "addmv":
		n, k := a.Shape[0], a.Shape[1]
		shape, prod = []int64{n}, make([]float64, n)
		for i := int64(0); i < n; i++ {
			for j := int64(0); j < k; j++ {
				prod[i] += av[i*k+j] * bv[j]
			}
		}
	default:
		p, s, err := bmmProduct(a, b)
		if err != nil {
			return nil, err
		}
		n, m := s[1], s[2]
		shape, prod = []int64{n, m}, make([]float64, n*m)
		for bi := int64(0); bi < s[0]; bi++ {
			for i := range prod {
				prod[i] += p[bi*n*m+int64(i)]
			}
		}
	}
	beta, alpha, err := betaAlpha(c)
	if err != nil {
		return nil, err
	}
	if !a.DType.IsFloat() && !a.DType.IsComplex() {
		if c.op.Schema.Name == "addr" {
			for _, p := range []string{"beta", "alpha"} {
				if x, _ := c.val(p); isPyFloat(x) {
					return nil, fmt.Errorf("For integral input tensors, argument %s must not be a floating point number.", p)
				}
			}
		}
		// addmv's integer GEMV takes beta and alpha as its own type:
		// Scalar::to<int64_t>() truncates 0.6 to 0
		beta, alpha = math.Trunc(beta), math.Trunc(alpha)
	}
	return oneT(addScaled(self, a, prod, shape, beta, alpha))
}

// kCross is the cross product of 3-vectors along dim, broadcast.
func kCross(c *call) ([]any, error) {
	a, b, err := c.tensor2("self", "other")
	if err != nil {
		return nil, err
	}
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	shape, err := broadcastShapes(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	d, err := wrapDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	if shape[d] != 3 {
		return nil, fmt.Errorf("linalg.cross: inputs dimension %d must have length 3. Got %d and %d", dim, a.Shape[d], b.Shape[d])
	}
	ea, err := expand(a, shape)
	if err != nil {
		return nil, err
	}
	eb, err := expand(b, shape)
	if err != nil {
		return nil, err
	}
	if b.DType != a.DType {
		return nil, fmt.Errorf("linalg.cross: inputs of different dtypes are not modelled")
	}
	inner := int64(1)
	for _, s := range shape[d+1:] {
		inner *= s
	}
	if a.DType.IsComplex() {
		av, bv := readComplex(ea), readComplex(eb)
		return oneT(writeComplex(a.DType, shape, crossOf(av, bv, inner), false, a.Device()))
	}
	return one(FromFloatsOn(a.DType, shape, crossOf(ea.Floats(), eb.Floats(), inner), a.Device()))
}

// crossOf is the cross product of the 3-vectors of a and b whose
// components lie inner elements apart.
func crossOf[T float64 | complex128](av, bv []T, inner int64) []T {
	out := make([]T, len(av))
	for base := int64(0); base < int64(len(av)); base++ {
		if (base/inner)%3 != 0 {
			continue
		}
		i0, i1, i2 := base, base+inner, base+2*inner
		out[i0] = av[i1]*bv[i2] - av[i2]*bv[i1]
		out[i1] = av[i2]*bv[i0] - av[i0]*bv[i2]
		out[i2] = av[i0]*bv[i1] - av[i1]*bv[i0]
	}
	return out
}

func kTrace(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if self.Dim() != 2 {
		return nil, fmt.Errorf("trace: expected a matrix, but got tensor with dim %d", self.Dim())
	}
	dt := self.DType
	n, cols := min(self.Shape[0], self.Shape[1]), self.Shape[1]
	switch {
	case dt.IsComplex():
		v, sum := readComplex(self), complex128(0)
		for i := int64(0); i < n; i++ {
			sum += v[i*cols+i]
		}
		return oneT(writeComplex(dt, nil, []complex128{sum}, false, self.Device()))
	case !dt.IsFloat(): // integers accumulate in int64, as sum does
		if dt == ir.Bool {
			return nil, fmt.Errorf("\"trace\" not implemented for 'Bool'")
		}
		v, sum := self.Ints(), int64(0)
		for i := int64(0); i < n; i++ {
			sum += v[i*cols+i]
		}
		out := FromInts(ir.I64, []int64{}, []int64{sum})
		out.Storage.Device = self.Device()
		return one(out)
	}
	v := self.Floats()
	sum := 0.0
	for i := int64(0); i < n; i++ {
		sum += v[i*cols+i]
	}
	return one(FromFloatsOn(dt, nil, []float64{sum}, self.Device()))
}

// kCountNonzero counts the nonzero elements over dims (all when none).
func kCountNonzero(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	var dims []int64
	if c.has("dim") && !c.isNone("dim") {
		if l, err := c.intList("dim"); err == nil {
			dims = l
		} else if d, err2 := c.int("dim"); err2 == nil {
			dims = []int64{d}
		} else {
			return nil, err
		}
	}
	reduce := make([]bool, self.Dim())
	for _, d := range dims {
		w, err := wrapDim(d, self.Dim())
		if err != nil {
			return nil, err
		}
		if self.Dim() > 0 { // a 0-dim tensor takes dim 0 or -1 and reduces nothing
			reduce[w] = true
		}
	}
	if len(dims) == 0 {
		for i := range reduce {
			reduce[i] = true
		}
	}
	var outShape []int64
	for i, s := range self.Shape {
		if !reduce[i] {
			outShape = append(outShape, s)
		}
	}
	out := make([]float64, numel(outShape))
	vals := self.Floats()
	idx := make([]int64, self.Dim())
	for _, x := range vals {
		if x != 0 {
			o := int64(0)
			for i, s := range self.Shape {
				if !reduce[i] {
					o = o*s + idx[i]
				}
			}
			out[o]++
		}
		for i := self.Dim() - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < self.Shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return one(FromFloatsOn(ir.I64, outShape, out, self.Device()))
}

// kPixelShuffle rearranges (C·r², H, W) into (C, H·r, W·r) or back, as
// PyTorch's reshape/permute definition does.
func kPixelShuffle(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	up := c.op.Schema.Name == "pixel_shuffle"
	name := "downscale_factor"
	if up {
		name = "upscale_factor"
	}
	r, err := c.int(name)
	if err != nil {
		return nil, err
	}
	n := self.Dim()
	if n < 3 {
		return nil, fmt.Errorf("%s expects input to have at least 3 dimensions", c.op.Schema.Name)
	}
	batch := self.Shape[:n-3]
	ch, h, w := self.Shape[n-3], self.Shape[n-2], self.Shape[n-1]
	var mid []int64
	var perm []int64
	var out []int64
	b := int64(len(batch))
	if up {
		mid = append(append([]int64{}, batch...), ch/(r*r), r, r, h, w)
		perm = []int64{b, b + 3, b + 1, b + 4, b + 2}
		out = append(append([]int64{}, batch...), ch/(r*r), h*r, w*r)
	} else {
		mid = append(append([]int64{}, batch...), ch, h/r, r, w/r, r)
		perm = []int64{b, b + 2, b + 4, b + 1, b + 3}
		out = append(append([]int64{}, batch...), ch*r*r, h/r, w/r)
	}
	full := make([]int64, 0, len(mid))
	for i := int64(0); i < b; i++ {
		full = append(full, i)
	}
	full = append(full, perm...)
	t, err := reshape(self, mid)
	if err != nil {
		return nil, err
	}
	if t, err = permute(t, full); err != nil {
		return nil, err
	}
	return oneT(reshape(contiguous(t), out))
}

// kSolveTriangular solves A·X = B (left) or X·A = B with A triangular,
// batched and broadcast; the result is column-major, as LAPACK's.

func init() {
	// unsafe_split is split whose pieces autograd does not track as views;
	// their layout is split's.
	register(selfList(kSplit), "unsafe_split.Tensor")
	register(kNonzeroStatic, "nonzero_static")
	register(kPut, "put")
}

// kNonzeroStatic is nonzero cut or padded with fill_value to size rows.
func kNonzeroStatic(c *call) ([]any, error) {
	t, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.int("size")
	if err != nil {
		return nil, err
	}
	fill, err := c.int("fill_value")
	if err != nil {
		return nil, err
	}
	rank := int64(t.Dim())
	out, err := Empty(ir.I64, []int64{size, rank}, nil, t.Device())
	if err != nil {
		return nil, err
	}
	row := int64(0)
	for i, v := range t.Floats() {
		if v == 0 || row >= size {
			continue
		}
		for d, x := range unravel(int64(i), t.Shape) {
			storeI(ir.I64, out.Storage.Data, row*rank+int64(d), x)
		}
		row++
	}
	for ; row < size; row++ {
		for d := int64(0); d < rank; d++ {
			storeI(ir.I64, out.Storage.Data, row*rank+d, fill)
		}
	}
	return one(out)
}

// kPut writes (or adds) source into a copy of self, self read as flat.
func kPut(c *call) ([]any, error) {
	self, idx, err := c.tensor2("self", "index")
	if err != nil {
		return nil, err
	}
	src, err := c.tensor("source")
	if err != nil {
		return nil, err
	}
	acc, err := c.bool("accumulate")
	if err != nil {
		return nil, err
	}
	if self.DType.IsComplex() {
		return nil, fmt.Errorf("put: complex tensors are not modelled")
	}
	n := self.Numel()
	flat := func(k int64) (int64, error) {
		if k < -n || k >= n {
			return 0, fmt.Errorf("out of range: tried to access index %d on a tensor of %d elements.", k, n)
		}
		if k < 0 {
			k += n
		}
		return k, nil
	}
	if !self.DType.IsFloat() {
		vals, s := self.Ints(), src.Ints()
		for i, k := range idx.Ints() {
			if k, err = flat(k); err != nil {
				return nil, err
			}
			if acc {
				vals[k] += s[i]
			} else {
				vals[k] = s[i]
			}
		}
		out, err := Empty(self.DType, self.Shape, nil, self.Device())
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			storeI(out.DType, out.Storage.Data, int64(i), v)
		}
		return one(out)
	}
	vals, s := self.Floats(), src.Floats()
	for i, k := range idx.Ints() {
		if k, err = flat(k); err != nil {
			return nil, err
		}
		if acc {
			vals[k] += s[i]
		} else {
			vals[k] = s[i]
		}
	}
	return one(FromFloatsOn(self.DType, self.Shape, vals, self.Device()))
}

func isPyFloat(x any) bool { _, ok := x.(float64); return ok }
