package fx_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/ir"
)

// TestComplexLiterals: the spellings of a Python complex that FX prints
// (make_fx graphs of PyTorch 2.15's OpInfos: `2j`, `(1+2j)`, `-1.5j`,
// `(-0-1j)`, `complex(0.0, 1.0)`) parse as complex constants and print back
// as written.
func TestComplexLiterals(t *testing.T) {
	g := parseOne(t, `def forward(self, x, y, z):
    a = torch.ops.aten.addmm.default(x, y, z, beta = (1+2j), alpha = -1.5j)
    b = torch.ops.aten.mul.Scalar(x, complex(0.0, 1.0))
    c = torch.ops.aten.mul.Scalar(x, 2J)
    d = torch.ops.aten.mul.Scalar(x, (-0-1j))
    e = torch.ops.aten.mul.Scalar(x, (1e-05+3.5j))
    return (a, b, c, d, e)
`)
	a := nodeNamed(t, g, "a")
	want := map[string]complex128{"beta": 1 + 2i, "alpha": -1.5i}
	for _, kw := range a.Kwargs {
		assert.Equal(t, ir.ArgComplex, kw.Arg.Kind, kw.Name)
		assert.Equal(t, want[kw.Name], complex(kw.Arg.Float, kw.Arg.Imag), kw.Name)
	}
	assert.Equal(t, "(1+2j)", a.Kwargs[0].Arg.String())
	assert.Equal(t, "-1.5j", a.Kwargs[1].Arg.String())
	for name, w := range map[string]struct {
		v   complex128
		src string
	}{"b": {1i, "complex(0.0, 1.0)"}, "c": {2i, "2J"}, "d": {-1i, "(-0-1j)"}, "e": {1e-05 + 3.5i, "(1e-05+3.5j)"}} {
		arg := nodeNamed(t, g, name).Args[1]
		assert.Equal(t, ir.ArgComplex, arg.Kind, name)
		assert.Equal(t, w.v, complex(arg.Float, arg.Imag), name)
		assert.Equal(t, w.src, arg.String(), name)
	}
}

// TestPyComplex: repr's spellings, for complex constants kiln makes.
func TestPyComplex(t *testing.T) {
	assert.Equal(t, "2j", ir.PyComplex(0, 2))
	assert.Equal(t, "(1+2j)", ir.PyComplex(1, 2))
	assert.Equal(t, "(-0-1.5j)", ir.PyComplex(math.Copysign(0, -1), -1.5))
	assert.Equal(t, "(0.5-2j)", ir.PyComplex(0.5, -2))
	assert.Equal(t, "infj", ir.PyComplex(0, math.Inf(1)))
}
