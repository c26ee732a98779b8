package sym

import (
	"math/rand"
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

// Linear reads an index off its terms (linearTerms) where it can; wherever
// it does, the answer must be the substitution's (linearBySubst), on random
// polynomials of degree up to 2 in loop variables and sizes, with the odd
// floordiv and a variable listed twice.
func TestLinearTermsMatchesSubstitution(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	names := []string{"x0", "x1", "r0", "s0", "s1"}
	atom := func() Expr {
		if r.Intn(8) == 0 {
			return FloorDiv(Symbol(names[r.Intn(len(names))]), Const(int64(2+r.Intn(3))))
		}
		return Symbol(names[r.Intn(len(names))])
	}
	read, affine := 0, 0
	for range 5000 {
		var parts []Expr
		for range 1 + r.Intn(5) {
			p := Const(int64(r.Intn(9) - 4))
			for range r.Intn(3) {
				p = Mul(p, atom())
			}
			parts = append(parts, p)
		}
		e := Sum(parts...)
		vars := []string{"x0", "x1", "r0"}[:1+r.Intn(3)]
		if r.Intn(20) == 0 {
			vars = append(vars, vars[0])
		}
		want, wantRest, wantOK := linearBySubst(e, vars)
		if wantOK {
			affine++
		}
		got, rest, ok := linearTerms(e, vars)
		if !ok {
			continue
		}
		read++
		require.True(t, wantOK, "%s in %v: read off as affine, substitution says not", e, vars)
		require.True(t, Equal(rest, wantRest), "%s in %v: rest %s, want %s", e, vars, rest, wantRest)
		for i := range vars {
			require.True(t, Equal(got[i], want[i]), "%s: coefficient of %s is %s, want %s", e, vars[i], got[i], want[i])
		}
	}
	require.Greater(t, read, affine*3/4, "the terms path decided too few of %d affine cases", affine)
}
