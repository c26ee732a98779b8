package sym

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCode(t *testing.T) {
	s0, x0, x1 := Symbol("s0"), Symbol("x0"), Symbol("x1")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{Const(-3), "-3"},
		{x0, "x0"},
		{Add(Mul(Const(4), x0), x1), "(4*x0 + x1)"},
		{Sub(Const(1), s0), "(-s0 + 1)"},
		{Mul(s0, s0), "s0*s0"},
		{FloorDiv(Add(s0, Const(8)), Const(9)), "floordiv((s0 + 8), 9)"},
		{Mod(x0, s0), "pymod(x0, s0)"},
		{Max(Const(1), s0), "max(1, s0)"},
	} {
		assert.Equal(t, tc.want, tc.e.Code(), tc.e.String())
	}
}

func TestLinear(t *testing.T) {
	s0, x0, x1 := Symbol("s0"), Symbol("x0"), Symbol("x1")
	e := Sum(Mul(s0, x0), Mul(Const(3), x1), Const(5), s0)
	coeffs, rest, ok := Linear(e, []string{"x0", "x1"})
	require.True(t, ok)
	assert.Equal(t, "s0", coeffs[0].String())
	assert.Equal(t, "3", coeffs[1].String())
	assert.Equal(t, "s0 + 5", rest.String())
	for _, bad := range []Expr{Mul(x0, x1), FloorDiv(x0, Const(2)), Mod(x1, Const(3))} {
		_, _, ok := Linear(bad, []string{"x0", "x1"})
		assert.False(t, ok, bad.String())
	}
}
