package interp

import (
	"fmt"
	"math/cmplx"
)

// Products of the composite linalg API: linalg_matrix_power (A^n by
// repeated products; n < 0 powers the inverse, whose column-major layout
// n = −1 keeps), linalg_vecdot (Σ conj(x)·y along dim) and kron.

func init() {
	register(kMatrixPower, "linalg_matrix_power")
	register(kVecdot, "linalg_vecdot")
	register(kKron, "kron")
}

func kMatrixPower(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	n, err := c.int("n")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.matrix_power")
	if err != nil {
		return nil, err
	}
	if mb.m != mb.n {
		return nil, fmt.Errorf("linalg.matrix_power: A must be batches of square matrices, but they are %d by %d matrices", mb.m, mb.n)
	}
	out := make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		base, k := m, n
		if n < 0 {
			lu := m.clone()
			piv, _ := getrf(lu)
			base, k = luSolve(lu, piv, eye(mb.n), false), -n
		}
		p := eye(mb.n)
		for j := int64(0); j < k; j++ {
			p = p.mul(base)
		}
		out[i] = p
	}
	return oneT(writeMats(a.DType, mb.batch, out, mb.n, mb.n, n == -1, a.Device()))
}

func kVecdot(c *call) ([]any, error) {
	x, y, err := c.tensor2("x", "y")
	if err != nil {
		return nil, err
	}
	dim, err := c.int("dim")
	if err != nil {
		return nil, err
	}
	if x.DType != y.DType {
		return nil, fmt.Errorf("linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of type %s instead", scalarTypeName(x.DType), scalarTypeName(y.DType))
	}
	shape, err := broadcastShapes(x.Shape, y.Shape)
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 { // a 0-dim dot is the product
		shape = []int64{1}
		if x, err = reshape(x, shape); err != nil {
			return nil, err
		}
		if y, err = reshape(y, shape); err != nil {
			return nil, err
		}
		dim = 0
	}
	d, err := wrapDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	ex, err := expand(x, shape)
	if err != nil {
		return nil, err
	}
	ey, err := expand(y, shape)
	if err != nil {
		return nil, err
	}
	xv, yv := readComplex(ex), readComplex(ey)
	inner := numel(shape[d+1:])
	size := shape[d]
	outShape := append(clone64(shape[:d]), shape[d+1:]...)
	out := make([]complex128, numel(outShape))
	for o := range out {
		outer, in := int64(o)/inner, int64(o)%inner
		for k := int64(0); k < size; k++ {
			idx := (outer*size+k)*inner + in
			out[o] += cmplx.Conj(xv[idx]) * yv[idx]
		}
	}
	if !x.DType.IsFloat() && !x.DType.IsComplex() {
		ints := make([]int64, len(out))
		for i, v := range out {
			ints[i] = int64(real(v))
		}
		r := FromInts(x.DType, outShape, ints)
		r.Storage.Device = x.Device()
		return one(r)
	}
	return oneT(writeComplex(x.DType, outShape, out, false, x.Device()))
}

// kKron is the Kronecker product: both operands padded to one rank,
// result size a_i·b_i per dim, element (i·b + j) = a[i]·b[j].
func kKron(c *call) ([]any, error) {
	a, b, err := c.tensor2("self", "other")
	if err != nil {
		return nil, err
	}
	r := max(a.Dim(), b.Dim())
	pad := func(t *Tensor) ([]int64, error) {
		s := make([]int64, r-t.Dim(), r)
		for i := range s {
			s[i] = 1
		}
		return append(s, t.Shape...), nil
	}
	as, _ := pad(a)
	bs, _ := pad(b)
	ra, err := reshape(a, as)
	if err != nil {
		return nil, err
	}
	rb, err := reshape(b, bs)
	if err != nil {
		return nil, err
	}
	av, bv := readComplex(ra), readComplex(rb)
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = as[i] * bs[i]
	}
	out := make([]complex128, numel(shape))
	idx := make([]int64, r)
	for o := range out {
		rem := int64(o)
		ai, bi := int64(0), int64(0)
		for d := r - 1; d >= 0; d-- {
			idx[d] = rem % max(shape[d], 1)
			rem /= max(shape[d], 1)
		}
		for d := 0; d < r; d++ {
			ai = ai*as[d] + idx[d]/bs[d]
			bi = bi*bs[d] + idx[d]%bs[d]
		}
		out[o] = av[ai] * bv[bi]
	}
	dt := a.DType
	if b.DType != dt {
		return nil, fmt.Errorf("kron: operands of different dtypes are not modelled")
	}
	if !dt.IsFloat() && !dt.IsComplex() {
		ints := make([]int64, len(out))
		for i, v := range out {
			ints[i] = int64(real(v))
		}
		res := FromInts(dt, shape, ints)
		res.Storage.Device = a.Device()
		return one(res)
	}
	return oneT(writeComplex(dt, shape, out, false, a.Device()))
}
