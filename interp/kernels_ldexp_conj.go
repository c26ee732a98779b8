package interp

import (
	"math"

	"github.com/kiln-compiler/kiln/ops"
)

// ldexp.Tensor is self * 2^other with int-to-float promotion (torch 2.15:
// ldexp(f16, i64) is f16, ldexp(i64, i64) is f32); computed in float64
// and rounded once to the result dtype.
func ldexp(a, b float64) float64 { return a * math.Pow(2, b) }

func init() {
	register(binKernel("ldexp", ops.PromoteIntToFloat, ewKernel{f: fl2(ldexp)}), "ldexp.Tensor")
}
