package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
)

// ATen's CPU kernels of most special functions dispatch float and double
// only; PyTorch 2.15 says, for torch.special.erfcx(x.half()) and
// torch.special.chebyshev_polynomial_t(x.bfloat16(), n.bfloat16()):
//
//	"erfcx_cpu" not implemented for 'Half'
//	"chebyshev_polynomial_t_cpu" not implemented for 'BFloat16'
//
// while i1 takes the reduced floats.
func TestSpecialFloatDoubleDispatch(t *testing.T) {
	err := runErr(t, `
def forward(self, x: "f16[3]"):
    special_erfcx: "f16[3]" = torch.ops.aten.special_erfcx.default(x)
    return (special_erfcx,)
`, MustEmpty(ir.F16, 3))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"erfcx_cpu" not implemented for 'Half'`)
	err = runErr(t, `
def forward(self, x: "bf16[3]", n: "bf16[3]"):
    p: "bf16[3]" = torch.ops.aten.special_chebyshev_polynomial_t.default(x, n)
    return (p,)
`, MustEmpty(ir.BF16, 3), MustEmpty(ir.BF16, 3))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"chebyshev_polynomial_t_cpu" not implemented for 'BFloat16'`)
	runGraph(t, `
def forward(self, x: "f16[3]"):
    special_i1: "f16[3]" = torch.ops.aten.special_i1.default(x)
    return (special_i1,)
`, MustEmpty(ir.F16, 3))
}
