package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ops"
)

// ldexp.Tensor is self * 2^other with int-to-float promotion (torch 2.15:
// ldexp(f16, i64) is f16, ldexp(i64, i64) is f32); computed in float64
// and rounded once to the result dtype.
func ldexp(a, b float64) float64 { return a * math.Pow(2, b) }

// kConjPhysical is _conj_physical: for real dtypes a copy of the input
// (decompositions.py conj_physical returns the input as is).
func kConjPhysical(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if self.DType.IsComplex() {
		return nil, fmt.Errorf("_conj_physical of a complex tensor: the interpreter does not model the conjugate")
	}
	return oneT(cloneAs(self, "preserve_format"))
}

func init() {
	register(binKernel("ldexp", ops.PromoteIntToFloat, ewKernel{f: fl2(ldexp)}), "ldexp.Tensor")
	register(kConjPhysical, "_conj_physical")
}
