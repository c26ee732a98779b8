package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// RegisterKind follows the dtype's category: bool, every integer in int64,
// f64 in float64, f32 and the reduced floats in float32; complex, packed
// and bit-container dtypes have no register.
func TestRegisterKind(t *testing.T) {
	for _, dt := range ir.AllDTypes() {
		r, ok := lowering.RegisterKind(dt)
		switch {
		case dt == ir.Bool:
			assert.Equal(t, lowering.RegBool, r, dt.Abbr())
		case dt.IsInt():
			assert.Equal(t, lowering.RegI64, r, dt.Abbr())
		case dt == ir.F64:
			assert.Equal(t, lowering.RegF64, r, dt.Abbr())
		case dt.IsFloat() && dt != ir.F4E2M1FNX2:
			assert.Equal(t, lowering.RegF32, r, dt.Abbr())
		default:
			assert.False(t, ok, "%s has no scalar arithmetic", dt.Abbr())
			continue
		}
		assert.True(t, ok, dt.Abbr())
	}
}
