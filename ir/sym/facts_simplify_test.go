package sym

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFactsSimplify(t *testing.T) {
	f := &Facts{}
	f.SetRange("x0", 0, 3)
	f.SetRange("x1", 0, 5)
	x0, x1 := Symbol("x0"), Symbol("x1")
	clamp := Max(Const(0), Min(Sub(x1, Const(2)), Const(1)))
	e := Add(Mul(Const(2), x0), clamp)
	assert.Equal(t, "x0", f.Simplify(FloorDiv(e, Const(2))).String())
	assert.True(t, Equal(clamp, f.Simplify(Mod(e, Const(2)))), "%s", f.Simplify(Mod(e, Const(2))))
	// x0 + 3*x1 with x0 < 3 is a row-major offset over [*, 3]: both parts come back.
	f.SetRange("x0", 0, 2)
	g := Add(x0, Mul(Const(3), x1))
	assert.Equal(t, "x1", f.Simplify(FloorDiv(g, Const(3))).String())
	assert.Equal(t, "x0", f.Simplify(Mod(g, Const(3))).String())
	// Not provable: unchanged.
	assert.True(t, Equal(Mod(x1, Const(4)), f.Simplify(Mod(x1, Const(4)))))
	// Max and min whose ranges do not overlap.
	assert.Equal(t, "x1 + 6", f.Simplify(Max(x0, Add(x1, Const(6)))).String())
	assert.Equal(t, "x0", f.Simplify(Min(x0, Add(x1, Const(6)))).String())
	var none *Facts
	assert.True(t, Equal(Mod(x1, Const(4)), none.Simplify(Mod(x1, Const(4)))))
}
