package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
)

// A complex elementwise result takes its operands' layout, as the real
// path (TensorIterator) gives it: exp of a transposed matrix is
// transposed, for complex64 as for float32.
func TestComplexElementwiseLayout(t *testing.T) {
	for _, dt := range []ir.DType{ir.F32, ir.C64} {
		x := MustEmpty(dt, 3, 2)
		xt := x.view([]int64{2, 3}, []int64{1, 2}, 0)
		out, err := unaryNamed("exp", xt)
		require.NoError(t, err, dt.Name())
		assert.Equal(t, []int64{1, 2}, out.Strides, dt.Name())
		for _, v := range complexesOrReals(out) {
			assert.Equal(t, complex(1, 0), v, dt.Name()) // exp(0)
		}
	}
}

func complexesOrReals(t *Tensor) []complex128 {
	if t.DType.IsComplex() {
		return complexes(t)
	}
	var out []complex128
	for _, x := range t.Floats() {
		out = append(out, complex(x, 0))
	}
	return out
}
