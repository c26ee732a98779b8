package ops

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Symbolic-int ops: sym_size/sym_stride/sym_numel, runtime asserts, and the
// Python operators Dynamo graphs apply to SymInts (`s0 + 9`, `a // 9`,
// `u0 >= 0`).

func metaSymSize(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	switch c.Op.Schema.Name {
	case "sym_numel":
		return []ir.Type{ir.SymIntOf(self.Numel())}, nil
	case "sym_storage_offset":
		return []ir.Type{ir.SymIntOf(offsetOf(self))}, nil
	}
	dim, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	if self.Rank() == 0 {
		return []ir.Type{ir.SymIntOf(c1)}, nil
	}
	if c.Op.Schema.Name == "sym_stride" {
		return []ir.Type{ir.SymIntOf(stridesOf(self)[dim])}, nil
	}
	return []ir.Type{ir.SymIntOf(self.Shape[dim])}, nil
}

// metaAssertScalar is _assert_scalar(cond, msg): a condition that is
// known false fails; an open one over unbacked symbols is recorded as a
// fact where it bounds a single symbol.
func metaAssertScalar(env *Env, c *Call) ([]ir.Type, error) {
	a := c.Arg("self")
	var cond sym.Expr
	switch a.Kind {
	case ir.ArgBool:
		cond = sym.Const(0)
		if a.Bool {
			cond = c1
		}
	case ir.ArgInt:
		cond = sym.Const(a.Int)
	case ir.ArgValue:
		if !a.Value.Type.IsKnown() {
			return nil, &UntypedError{Value: a.Value}
		}
		cond = a.Value.Type.Sym
	default:
		return nil, fmt.Errorf("_assert_scalar: expected a SymBool, got %s", a.String())
	}
	if v, ok := env.decide(cond); ok && !v {
		msg := "assertion failed"
		if m := c.Arg("assert_msg"); m.Kind == ir.ArgString {
			msg = m.Str
		}
		return nil, Errorf(CodeGuard, "the runtime assertion can never hold for these shapes", "%s", msg)
	}
	env.Assume(cond)
	return nil, nil
}

// Assume records cond (`u0 >= 0`, `u0 <= 8`, `Eq(u0, 4)`) as a range fact
// when it bounds one symbol by a constant.
func (env *Env) Assume(cond sym.Expr) {
	free := cond.Free()
	if len(free) != 1 || !cond.IsBool() {
		return
	}
	name := free[0]
	s := sym.Symbol(name)
	lo, hi := env.Facts.Range(s)
	if k, op, ok := boundOf(cond, s); ok {
		switch op {
		case ">=":
			lo = max(lo, k)
		case ">":
			lo = max(lo, k+1)
		case "<=":
			hi = min(hi, k)
		case "<":
			hi = min(hi, k-1)
		case "==":
			lo, hi = k, k
		}
		env.Facts.SetRange(name, lo, hi)
		env.oblivious = nil
	}
}

// boundOf recognizes cond as `s OP k` from its canonical printed form.
func boundOf(cond, s sym.Expr) (int64, string, bool) {
	str := cond.String()
	for _, op := range []string{">=", "<=", ">", "<"} {
		var k int64
		if n, err := fmt.Sscanf(str, s.String()+" "+op+" %d", &k); err == nil && n == 1 && str == fmt.Sprintf("%s %s %d", s, op, k) {
			return k, op, true
		}
	}
	var k int64
	if n, err := fmt.Sscanf(str, "Eq("+s.String()+", %d)", &k); err == nil && n == 1 {
		return k, "==", true
	}
	return 0, "", false
}

// metaSideEffect is for ops that return nothing (asserts, constraints).
func metaSideEffect(env *Env, c *Call) ([]ir.Type, error) { return nil, nil }

// metaConstrainRange is sym_constrain_range(_for_size)(size, min, max).
func metaConstrainRange(env *Env, c *Call) ([]ir.Type, error) {
	e, err := c.SymInt("size")
	if err != nil {
		return nil, err
	}
	if !e.IsSymbol() {
		return nil, nil
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if c.Op.Schema.Name == "sym_constrain_range_for_size" {
		lo = 0
	}
	if v, ok, _ := c.OptInt("min"); ok {
		lo = v
	}
	if v, ok, _ := c.OptInt("max"); ok {
		hi = v
	}
	env.Facts.SetRange(e.Name(), lo, hi)
	if c.Op.Schema.Name == "sym_constrain_range_for_size" {
		env.MarkSizeLike(e.Name())
	}
	env.oblivious = nil
	return nil, nil
}
