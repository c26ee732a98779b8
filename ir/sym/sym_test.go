package sym

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	s0 = Symbol("s0")
	s1 = Symbol("s1")
	s3 = Symbol("s3")
	u0 = Symbol("u0")
	u1 = Symbol("u1")
	c  = Const
)

// mustParse parses or fails the test.
func mustParse(t testing.TB, s string) Expr {
	t.Helper()
	e, err := Parse(s)
	require.NoError(t, err, "parse %q", s)
	return e
}

func TestSimplify(t *testing.T) {
	tests := []struct {
		name      string
		got, want Expr
	}{
		{"s0*2 == 2*s0", Mul(s0, c(2)), Mul(c(2), s0)},
		{"(s0+1)*2", Mul(Add(s0, c(1)), c(2)), Add(Mul(c(2), s0), c(2))},
		{"s0+s0", Add(s0, s0), Mul(c(2), s0)},
		{"s0-s0", Sub(s0, s0), c(0)},
		{"FloorDiv(2*s0+2, 2)", FloorDiv(Add(Mul(c(2), s0), c(2)), c(2)), Add(s0, c(1))},
		{"FloorDiv(s0, 1)", FloorDiv(s0, c(1)), s0},
		{"FloorDiv(8*s0, 4)", FloorDiv(Mul(c(8), s0), c(4)), Mul(c(2), s0)},
		{"FloorDiv(s0*8+16, 8)", FloorDiv(Add(Mul(s0, c(8)), c(16)), c(8)), Add(s0, c(2))},
		{"FloorDiv(s0, -1)", FloorDiv(s0, c(-1)), Neg(s0)},
		{"FloorDiv(FloorDiv(s0, 2), 3)", FloorDiv(FloorDiv(s0, c(2)), c(3)), FloorDiv(s0, c(6))},
		{"FloorDiv(2*s0+1, 4) gcd 1 stays", FloorDiv(mustParse(t, "2*s0 + 1"), c(4)), mustParse(t, "((2*s0 + 1)//4)")},
		{"FloorDiv(2*s0+2, 4) cancels 2", FloorDiv(mustParse(t, "2*s0 + 2"), c(4)), mustParse(t, "((s0 + 1)//2)")},
		{"FloorDiv(s0*s1, s0)", FloorDiv(Mul(s0, s1), s0), s1},
		{"FloorDiv(2*s0+2, s0+1)", FloorDiv(mustParse(t, "2*s0 + 2"), Add(s0, c(1))), c(2)},
		{"FloorDiv(-7, 2)", FloorDiv(c(-7), c(2)), c(-4)},
		{"FloorDiv(7, -2)", FloorDiv(c(7), c(-2)), c(-4)},
		{"CeilDiv(7, 2)", CeilDiv(c(7), c(2)), c(4)},
		{"CeilDiv(-7, 2)", CeilDiv(c(-7), c(2)), c(-3)},
		{"CeilDiv(s0, 2)", CeilDiv(s0, c(2)), mustParse(t, "((s0 + 1)//2)")},
		{"CeilDiv(s0, s1)", CeilDiv(s0, s1), Neg(FloorDiv(Neg(s0), s1))},
		{"Mod(2*s0, 2)", Mod(Mul(c(2), s0), c(2)), c(0)},
		{"Mod(4*s0, 2)", Mod(Mul(c(4), s0), c(2)), c(0)},
		{"Mod(3*s0, 2)", Mod(Mul(c(3), s0), c(2)), Mod(s0, c(2))},
		{"Mod(2*s0, 4)", Mod(Mul(c(2), s0), c(4)), Mul(c(2), Mod(s0, c(2)))},
		{"Mod(2*s0+5, 2)", Mod(mustParse(t, "2*s0 + 5"), c(2)), c(1)},
		{"Mod(Mod(s0, 8), 4)", Mod(Mod(s0, c(8)), c(4)), Mod(s0, c(4))},
		{"Mod(Mod(s0, 2), 4)", Mod(Mod(s0, c(2)), c(4)), Mod(s0, c(2))},
		{"Mod(Mod(s0, 3), 2) stays", Mod(Mod(s0, c(3)), c(2)), mustParse(t, "Mod(Mod(s0, 3), 2)")},
		{"Mod(Mod(s0, 3), 2) prints", c(0), Sub(Mod(Mod(s0, c(3)), c(2)), Mod(Mod(s0, c(3)), c(2)))},
		{"Mod(s0*s1, s0)", Mod(Mul(s0, s1), s0), c(0)},
		{"Mod(s0, s0)", Mod(s0, s0), c(0)},
		{"Mod(-7, 2)", Mod(c(-7), c(2)), c(1)},
		{"Mod(7, -2)", Mod(c(7), c(-2)), c(-1)},
		{"Mod(s0, -3) stays", Mod(s0, c(-3)), mustParse(t, "Mod(s0, -3)")},
		{"Mod(-s0 + 7, -3)", Mod(mustParse(t, "7 - s0"), c(-3)), mustParse(t, "Mod(2*s0 + 1, -3)")},
		{"Mod(s0, 1)", Mod(s0, c(1)), c(0)},
		{"Max(s0, s0)", Max(s0, s0), s0},
		{"Max(2, 3)", Max(c(2), c(3)), c(3)},
		{"Min(2, 3)", Min(c(2), c(3)), c(2)},
		{"Max(s0, s0+1)", Max(s0, Add(s0, c(1))), Add(s0, c(1))},
		{"Min(s0, s0+1)", Min(s0, Add(s0, c(1))), s0},
		{"Max(s0, 1) == Max(1, s0)", Max(s0, c(1)), Max(c(1), s0)},
		{"Max flattens", Max(Max(s0, c(1)), Max(s1, c(3))), mustParse(t, "Max(3, s0, s1)")},
		{"Max absorbs Min", Max(s0, Min(s0, s1)), s0},
		{"Sub(s0+8, 8)", Sub(Add(s0, c(8)), c(8)), s0},
		{"Neg(Neg(s0))", Neg(Neg(s0)), s0},
		{"(s0+s1)**2", mustParse(t, "(s0 + s1)**2"), mustParse(t, "s0**2 + 2*s0*s1 + s1**2")},
		{"(s0-1)*(s0+1)", Mul(Sub(s0, c(1)), Add(s0, c(1))), mustParse(t, "s0**2 - 1")},
		{"Sum", Sum(s0, s1, Neg(s0), c(3)), Add(s1, c(3))},
		{"Eq(2*s0, s0*2)", Eq(Mul(c(2), s0), Mul(s0, c(2))), True()},
		{"Ne(s0+1, s0)", Ne(Add(s0, c(1)), s0), True()},
		{"Lt(s0, s0+1)", Lt(s0, Add(s0, c(1))), True()},
		{"Ge(s0, s0+1)", Ge(s0, Add(s0, c(1))), False()},
		{"Not(Eq)", Not(Eq(u0, c(1))), Ne(u0, c(1))},
		{"Not(Lt)", Not(Lt(u0, c(1))), Ge(u0, c(1))},
		{"Not(Not)", Not(Not(And(Ge(u0, c(0)), Ge(u1, c(0))))), And(Ge(u1, c(0)), Ge(u0, c(0)))},
		{"And(True, x)", And(True(), Ge(u0, c(0))), Ge(u0, c(0))},
		{"And(False, x)", And(False(), Ge(u0, c(0))), False()},
		{"Or(True, x)", Or(Ge(u0, c(0)), True()), True()},
		{"And(x, x)", And(Ge(u0, c(0)), Ge(u0, c(0))), Ge(u0, c(0))},
		{"And(x, not x)", And(Eq(u0, c(1)), Ne(u0, c(1))), False()},
		{"Or(x, not x)", Or(Lt(u0, c(1)), Ge(u0, c(1))), True()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.True(t, Equal(tt.got, tt.want), "got %s, want %s", tt.got, tt.want)
			assert.Equal(t, tt.want.String(), tt.got.String())
			assert.Equal(t, tt.want.Key(), tt.got.Key())
		})
	}
}

func TestConstAndAccessors(t *testing.T) {
	v, ok := c(42).Const()
	assert.True(t, ok)
	assert.Equal(t, int64(42), v)
	_, ok = s0.Const()
	assert.False(t, ok)

	var zero Expr
	assert.True(t, Equal(zero, c(0)), "the zero Expr is the constant 0")
	assert.Equal(t, "0", zero.String())

	assert.True(t, s0.IsSymbol())
	assert.Equal(t, "s0", s0.Name())
	assert.Equal(t, "", Add(s0, c(1)).Name())
	assert.False(t, s0.IsBool())
	assert.True(t, Ge(u0, c(0)).IsBool())
	assert.True(t, True().IsBool())
	b, ok := True().BoolConst()
	assert.True(t, b && ok)
	_, ok = Ge(u0, c(0)).BoolConst()
	assert.False(t, ok)
}

func TestUnbacked(t *testing.T) {
	assert.True(t, u0.IsUnbacked())
	assert.True(t, Symbol("zuf0").IsUnbacked())
	assert.False(t, s0.IsUnbacked())
	assert.False(t, Add(u0, c(1)).IsUnbacked(), "only a lone symbol is unbacked")
	assert.True(t, Add(u0, c(1)).HasUnbacked())
	assert.False(t, Mul(s0, s1).HasUnbacked())
}

func TestSymbolRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", "0s", "a b", "True", "oo", "s-1"} {
		assert.Panics(t, func() { Symbol(name) }, name)
	}
}

func TestTypeErrorsPanic(t *testing.T) {
	rel := Ge(u0, c(0))
	assert.PanicsWithError(t, "sym: boolean u0 >= 0 used as an integer", func() { Add(rel, c(1)) })
	assert.Panics(t, func() { Mul(s0, rel) })
	assert.Panics(t, func() { FloorDiv(rel, c(2)) })
	assert.Panics(t, func() { Max(rel, s0) })
	assert.Panics(t, func() { And(s0, rel) })
	assert.Panics(t, func() { Not(s0) })
}

func TestCanonicalOrderIndependentOfConstruction(t *testing.T) {
	s2, s10 := Symbol("s2"), Symbol("s10")
	a := Sum(s2, Mul(c(3), s10), FloorDiv(s2, c(3)), c(1))
	b := Sum(c(1), FloorDiv(s2, c(3)), Mul(s10, c(3)), s2)
	assert.True(t, Equal(a, b))
	// sympy orders symbols by name as strings, so s10 prints before s2.
	assert.Equal(t, "3*s10 + s2 + ((s2//3)) + 1", a.String())
	assert.Equal(t, a.String(), b.String())
	assert.Equal(t, "Max(s10, s2)", Max(s2, s10).String())
}

func TestFree(t *testing.T) {
	e := mustParse(t, "s10 + s2*u1 + Max(s1, ((s2 + 8)//9)) + Max(0, 1)")
	assert.Equal(t, []string{"s1", "s2", "s10", "u1"}, e.Free())
	assert.Empty(t, c(3).Free())
	assert.Equal(t, []string{"u0"}, Ge(u0, c(0)).Free())

	// AppendFree: the same names, unsorted and repeated, after what is there.
	got := e.AppendFree([]string{"keep"})
	assert.Equal(t, "keep", got[0])
	assert.ElementsMatch(t, []string{"s10", "s2", "u1", "s1", "s2"}, got[1:])
	assert.Empty(t, c(3).AppendFree(nil))
}

func TestSubst(t *testing.T) {
	e := mustParse(t, "s3 - 8*(((s3 + 8)//9))")
	assert.Equal(t, "4", e.Subst(map[string]Expr{"s3": c(100)}).String())
	assert.Equal(t, "2*s1 + 1", Add(s0, c(1)).Subst(map[string]Expr{"s0": Mul(c(2), s1)}).String())
	assert.True(t, Equal(e, e.Subst(nil)))
	assert.Equal(t, "True", Ge(u0, c(0)).Subst(map[string]Expr{"u0": c(3)}).String())
	assert.Equal(t, "Max(2, s1)", Max(s0, s1).Subst(map[string]Expr{"s0": c(2)}).String())
}

func TestEval(t *testing.T) {
	env := map[string]int64{"s0": 7, "s1": -3, "u0": 0}
	tests := []struct {
		expr string
		want int64
	}{
		{"s0 + 1", 8},
		{"2*s0**2 - s1", 101},
		{"s0//2", 3},
		{"s1//2", -2},
		{"s1 % 2", 1},
		{"s0 % -2", -1},
		{"Max(s0, s1, 10)", 10},
		{"Min(s0, s1)", -3},
		{"Eq(u0, 0)", 1},
		{"(u0 >= 1) | (s0 > 5)", 1},
		{"~((u0 >= 1) | (s0 > 5))", 0},
		{"CeilDiv(s0, 2)", 4},
		{"CeilDiv(s1, s0)", 0},
	}
	for _, tt := range tests {
		got, err := mustParse(t, tt.expr).Eval(env)
		require.NoError(t, err, tt.expr)
		assert.Equal(t, tt.want, got, tt.expr)
	}

	_, err := Add(s0, Symbol("s9")).Eval(env)
	var ub *UnboundError
	require.ErrorAs(t, err, &ub)
	assert.Equal(t, "s9", ub.Name)

	_, err = FloorDiv(s0, u0).Eval(env)
	assert.ErrorIs(t, err, ErrDivisionByZero)
	_, err = Mod(s0, c(0)).Eval(env)
	assert.ErrorIs(t, err, ErrDivisionByZero)
	assert.Equal(t, "(s0//0)", FloorDiv(s0, c(0)).String(), "a constant zero divisor stays for Eval to report")
}

func TestDivisor(t *testing.T) {
	tests := []struct {
		expr string
		want int64
	}{
		{"8*s0 + 16", 8},
		{"s0*2", 2},
		{"s0", 1},
		{"12", 12},
		{"-12", 12},
		{"0", 0},
		{"6*s0 + 4*s1", 2},
		{"4*s0*s1 + 8", 4},
		{"s0 + 1", 1},
		{"4*((s0//3))", 4},
		{"2*(Mod(s0, 4))", 2},
		{"Max(4*s0, 8*s1)", 4},
		{"Max(0, 16*s0)", 16},
		{"Mod(8*s0, 12*s1)", 4},
		{"u0 >= 0", 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, mustParse(t, tt.expr).Divisor(), tt.expr)
	}
}

func TestCompare(t *testing.T) {
	xs := []Expr{Max(s0, s1), Add(s0, c(1)), c(3), s1, FloorDiv(s0, c(2)), c(-1), s0, Mul(c(2), s0)}
	sortExprs(xs)
	var got []string
	for _, x := range xs {
		got = append(got, x.String())
	}
	assert.Equal(t, []string{"-1", "3", "s0", "2*s0", "s1", "s0 + 1", "(s0//2)", "Max(s0, s1)"}, got)
	assert.Equal(t, 0, Compare(Mul(s0, c(2)), Mul(c(2), s0)))
}

func TestWrapAround(t *testing.T) {
	// Constants wrap like Go's int64 and still print and parse back.
	e := Add(Mul(c(math.MinInt64), s0), c(math.MinInt64))
	assert.Equal(t, "-9223372036854775808*s0 - 9223372036854775808", e.String())
	assert.True(t, Equal(e, mustParse(t, e.String())))
	assert.Equal(t, int64(math.MinInt64), Add(c(math.MaxInt64), c(1)).c)
}

func TestSmallConstantsDoNotAllocate(t *testing.T) {
	a, b := c(12), c(-5)
	var sink Expr
	var str string
	allocs := testing.AllocsPerRun(100, func() {
		sink = Add(a, b)
		sink = Sub(sink, b)
		sink = Mul(sink, a)
		sink = Neg(sink)
		sink = FloorDiv(sink, b)
		sink = Mod(sink, a)
		sink = CeilDiv(sink, c(3))
		sink = Max(sink, a)
		sink = Min(sink, b)
		sink = Lt(sink, a)
		_ = Equal(a, b)
		_, _ = a.Const()
		str = c(1024).String()
		str = c(-64).Key()
	})
	assert.Zero(t, allocs)
	_, _ = sink, str
}

func TestNestedModValues(t *testing.T) {
	// Mod(Mod(x, q), d) may drop the outer Mod only when q <= d, or the
	// inner one when d divides q; check the values over a window.
	for q := int64(1); q <= 6; q++ {
		for d := int64(1); d <= 6; d++ {
			e := Mod(Mod(s0, c(q)), c(d))
			for x := int64(-12); x <= 12; x++ {
				got, err := e.Eval(map[string]int64{"s0": x})
				require.NoError(t, err)
				assert.Equal(t, pyMod(pyMod(x, q), d), got, "%s at s0=%d", e, x)
			}
		}
	}
}
