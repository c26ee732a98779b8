package interp

import "github.com/kiln-compiler/kiln/ir"

// Complex elements. A complex storage holds (re, im) pairs of its part type
// (complex32: two f16, complex64: two f32, complex128: two f64), as
// c10::complex does; view_as_real reads the same bytes as that part type.

type cplx struct{ re, im float64 }

// loadC reads complex element off of a dt storage.
func loadC(dt ir.DType, b []byte, off int64) cplx {
	part := dt.ComplexComponent()
	return cplx{re: loadF(part, b, 2*off), im: loadF(part, b, 2*off+1)}
}

// storeC writes complex element off, rounding each half to the part type.
func storeC(dt ir.DType, b []byte, off int64, v cplx) {
	part := dt.ComplexComponent()
	storeF(part, b, 2*off, v.re)
	storeF(part, b, 2*off+1, v.im)
}

// complexElementwise evaluates f over broadcast operands in complex128 and
// rounds each result once into result's parts (real operands enter with a
// zero imaginary part).
func complexElementwise(result ir.DType, f func([]complex128) complex128, in []operand) (*Tensor, error) {
	shape, views, dev, err := broadcastOperands(in)
	if err != nil {
		return nil, err
	}
	var strideSets [][]int64
	for _, v := range views {
		if v != nil {
			strideSets = append(strideSets, v.Strides)
		}
	}
	// The output's layout follows the operands', as on the real path.
	out, err := Empty(result, shape, iterStrides(shape, strideSets), dev)
	if err != nil {
		return nil, err
	}
	outOffs := out.offsets()
	offs := make([][]int64, len(in))
	for j, v := range views {
		if v != nil {
			offs[j] = v.offsets()
		}
	}
	xs := make([]complex128, len(in))
	for i := int64(0); i < out.Numel(); i++ {
		for j, o := range in {
			switch {
			case o.t == nil && o.dt.IsComplex():
				xs[j] = o.c
			case o.t == nil && o.dt.IsFloat():
				xs[j] = complex(o.f, 0)
			case o.t == nil:
				xs[j] = complex(float64(o.i), 0)
			case o.t.DType.IsComplex():
				c := loadC(o.t.DType, o.t.Storage.Data, offs[j][i])
				xs[j] = complex(c.re, c.im)
			default:
				xs[j] = complex(loadF(o.t.DType, o.t.Storage.Data, offs[j][i]), 0)
			}
		}
		v := f(xs)
		if result.IsComplex() {
			storeC(result, out.Storage.Data, outOffs[i], cplx{re: real(v), im: imag(v)})
		} else {
			storeF(result, out.Storage.Data, outOffs[i], real(v))
		}
	}
	return out, nil
}
