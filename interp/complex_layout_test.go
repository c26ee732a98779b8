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

// real and imag are views of a complex storage; the imaginary part of a
// conjugated tensor reads negated (x.conj().imag is -x.imag in PyTorch),
// its real part unchanged; a write through imag of the base lands in the
// storage.
func TestRealImagThroughConjugateBit(t *testing.T) {
	x := MustEmpty(ir.C64, 2)
	storeC(ir.C64, x.Storage.Data, 0, cplx{re: 1, im: 2})
	storeC(ir.C64, x.Storage.Data, 1, cplx{re: -3, im: 0.5})
	res := runGraph(t, `
def forward(self, x: "c64[2]"):
    _conj: "c64[2]" = torch.ops.aten._conj.default(x)
    imag: "f32[2]" = torch.ops.aten.imag.default(_conj)
    clone: "f32[2]" = torch.ops.aten.clone.default(imag)
    real: "f32[2]" = torch.ops.aten.real.default(_conj)
    clone_1: "f32[2]" = torch.ops.aten.clone.default(real)
    imag_1: "f32[2]" = torch.ops.aten.imag.default(x)
    add_: "f32[2]" = torch.ops.aten.add_.Tensor(imag_1, 10)
    return (clone, clone_1, imag)
`, x)
	assert.Equal(t, []float64{-2, -0.5}, res.Outputs[0].(*Tensor).Floats())
	assert.Equal(t, []float64{1, -3}, res.Outputs[1].(*Tensor).Floats())
	// imag of the conjugate view, read after the write: -(im + 10).
	assert.Equal(t, []float64{-12, -10.5}, res.Outputs[2].(*Tensor).Floats())
	assert.Equal(t, []complex128{1 + 12i, -3 + 10.5i}, complexes(x))
}
