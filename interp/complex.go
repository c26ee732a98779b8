package interp

import (
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Complex elements. A complex storage holds (re, im) pairs of its part type
// (complex32: two f16, complex64: two f32, complex128: two f64), as
// c10::complex does; view_as_real reads the same bytes as that part type.

type cplx struct{ re, im float64 }

// complexPart is the real dtype of a complex dtype's halves.
func complexPart(dt ir.DType) ir.DType {
	switch dt {
	case ir.C32:
		return ir.F16
	case ir.C64:
		return ir.F32
	case ir.C128:
		return ir.F64
	}
	return ir.Invalid
}

// complexOf is the complex dtype whose halves are dt (view_as_complex).
func complexOf(dt ir.DType) ir.DType {
	switch dt {
	case ir.F16:
		return ir.C32
	case ir.F32:
		return ir.C64
	case ir.F64:
		return ir.C128
	}
	return ir.Invalid
}

// loadC reads complex element off of a dt storage.
func loadC(dt ir.DType, b []byte, off int64) cplx {
	part := complexPart(dt)
	return cplx{re: loadF(part, b, 2*off), im: loadF(part, b, 2*off+1)}
}

// storeC writes complex element off, rounding each half to the part type.
func storeC(dt ir.DType, b []byte, off int64, v cplx) {
	part := complexPart(dt)
	storeF(part, b, 2*off, v.re)
	storeF(part, b, 2*off+1, v.im)
}

// isNaNC reports a NaN in either half.
func isNaNC(v cplx) bool { return math.IsNaN(v.re) || math.IsNaN(v.im) }
