package sym

import (
	"errors"
	"math/bits"
	"slices"
	"strconv"
)

// ErrDivisionByZero is returned (wrapped) by Eval for a // 0 or a % 0.
var ErrDivisionByZero = errors.New("sym: division by zero")

// UnboundError is Eval's error for a symbol missing from the environment.
type UnboundError struct{ Name string }

func (e *UnboundError) Error() string { return "sym: unbound symbol " + strconv.Quote(e.Name) }

// Eval computes e's value with symbols bound by env. Booleans evaluate to
// 1 or 0. It fails on an unbound symbol or a division by zero; int64
// overflow wraps.
func (e Expr) Eval(env map[string]int64) (int64, error) {
	if e.n == nil {
		return e.c, nil
	}
	n := e.n
	switch n.op {
	case opSym:
		v, ok := env[n.name]
		if !ok {
			return 0, &UnboundError{Name: n.name}
		}
		return v, nil
	case opPoly:
		return evalPoly(n, env)
	case opTrue:
		return 1, nil
	case opFalse:
		return 0, nil
	case opNot:
		v, err := n.args[0].Eval(env)
		return b2i(v == 0), err
	case opAnd, opOr:
		return evalLogic(n, env)
	}
	a, err := n.args[0].Eval(env)
	if err != nil {
		return 0, err
	}
	rest := n.args[1:]
	if n.op == opMax || n.op == opMin {
		return evalMinMax(n.op, a, rest, env)
	}
	b, err := rest[0].Eval(env)
	if err != nil {
		return 0, err
	}
	return evalBinary(n.op, a, b)
}

func evalBinary(o op, a, b int64) (int64, error) {
	switch o {
	case opFloorDiv, opMod:
		if b == 0 {
			return 0, ErrDivisionByZero
		}
		if o == opMod {
			return pyMod(a, b), nil
		}
		return floorDiv(a, b), nil
	}
	return b2i(holds(o, cmp64(a, b))), nil
}

func evalPoly(n *node, env map[string]int64) (int64, error) {
	sum := n.c
	for _, t := range n.terms {
		p := t.coef
		for _, f := range t.fs {
			v, err := Expr{n: f.atom}.Eval(env)
			if err != nil {
				return 0, err
			}
			p *= ipow(v, f.pow)
		}
		sum += p
	}
	return sum, nil
}

func evalMinMax(o op, acc int64, rest []Expr, env map[string]int64) (int64, error) {
	for _, x := range rest {
		v, err := x.Eval(env)
		if err != nil {
			return 0, err
		}
		if o == opMax {
			acc = max(acc, v)
		} else {
			acc = min(acc, v)
		}
	}
	return acc, nil
}

// evalLogic evaluates And/Or without short-circuiting, so that an
// unbound symbol is reported whatever the other terms are.
func evalLogic(n *node, env map[string]int64) (int64, error) {
	res := n.op == opAnd
	for _, x := range n.args {
		v, err := x.Eval(env)
		if err != nil {
			return 0, err
		}
		if n.op == opAnd {
			res = res && v != 0
		} else {
			res = res || v != 0
		}
	}
	return b2i(res), nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Subst replaces symbols by expressions and re-simplifies:
// (s0 + 1).Subst({s0: 2*s1}) is 2*s1 + 1. Symbols not in m stay. It
// panics with a *TypeError when a symbol used as an integer is replaced by
// a boolean.
func (e Expr) Subst(m map[string]Expr) Expr {
	if e.n == nil || len(m) == 0 {
		return e
	}
	n := e.n
	switch n.op {
	case opSym:
		if r, ok := m[n.name]; ok {
			return r
		}
		return e
	case opPoly:
		// The atoms first: a polynomial none of whose atoms changes is its
		// own result (index expressions mostly keep their variables, and
		// rebuilding one allocates a polynomial per term).
		subs := make([]Expr, 0, 8)
		same := true
		for _, t := range n.terms {
			for _, f := range t.fs {
				r := Expr{n: f.atom}.Subst(m)
				same = same && r.n == f.atom
				subs = append(subs, r)
			}
		}
		if same {
			return e
		}
		parts := make([]Expr, 0, len(n.terms)+1)
		parts = append(parts, Expr{c: n.c})
		k := 0
		for _, t := range n.terms {
			p := Expr{c: t.coef}
			for _, f := range t.fs {
				p = Mul(p, powExpr(subs[k], f.pow))
				k++
			}
			parts = append(parts, p)
		}
		return Sum(parts...)
	case opTrue, opFalse:
		return e
	}
	args := make([]Expr, len(n.args))
	same := true
	for i, a := range n.args {
		args[i] = a.Subst(m)
		same = same && args[i] == a
	}
	if same {
		return e
	}
	return rebuild(n.op, args)
}

// rebuild applies the builder of a function, relation or logic op.
func rebuild(o op, args []Expr) Expr {
	switch o {
	case opFloorDiv:
		return FloorDiv(args[0], args[1])
	case opMod:
		return Mod(args[0], args[1])
	case opMax, opMin:
		return minMax(o, args)
	case opAnd, opOr:
		return logic(o, args)
	case opNot:
		return Not(args[0])
	}
	return rel(o, args[0], args[1])
}

// Free returns the names of e's symbols, sorted naturally (s2 before s10).
func (e Expr) Free() []string {
	var names []string
	collectFree(e, &names)
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case natLess(a, b):
			return -1
		}
		return 1
	})
	return slices.Compact(names)
}

// AppendFree appends the names of e's symbols to names, in no order and
// repeated as they occur: Free without its sort and its own slice, for
// callers that gather the symbols of many expressions.
func (e Expr) AppendFree(names []string) []string {
	collectFree(e, &names)
	return names
}

func collectFree(e Expr, names *[]string) {
	if e.n == nil {
		return
	}
	n := e.n
	switch n.op {
	case opSym:
		*names = append(*names, n.name)
	case opPoly:
		for _, t := range n.terms {
			for _, f := range t.fs {
				collectFree(Expr{n: f.atom}, names)
			}
		}
	default:
		for _, a := range n.args {
			collectFree(a, names)
		}
	}
}

// Divisor returns the largest positive constant known to divide e for
// every value of its symbols, which is how alignment is proved:
// Divisor(8*s0 + 16) is 8, Divisor(2*s0) is 2, Divisor(s0) is 1,
// Divisor(12) is 12. Divisor(0) is 0: zero is divisible by anything.
// Max, Min and Mod pass on the divisor their arguments share; booleans
// are 0 or 1.
func (e Expr) Divisor() int64 {
	if e.n == nil {
		return gcdI(absU(e.c), 0)
	}
	return gcdI(divisorU(e.n), 0)
}

func divisorU(n *node) uint64 {
	switch n.op {
	case opPoly:
		g := absU(n.c)
		for _, t := range n.terms {
			g = gcdU(g, termDivisor(t))
			if g == 1 {
				break
			}
		}
		return g
	case opMax, opMin, opMod:
		// max, min and a - b*floor(a/b) are multiples of whatever divides
		// all the arguments.
		var g uint64
		for _, a := range n.args {
			g = gcdU(g, divisorExpr(a))
		}
		return g
	case opFalse:
		return 0
	}
	return 1
}

func divisorExpr(e Expr) uint64 {
	if e.n == nil {
		return absU(e.c)
	}
	return divisorU(e.n)
}

// termDivisor is |coef| times the known divisors of the factors; if that
// product overflows, |coef| alone is still a divisor.
func termDivisor(t term) uint64 {
	d := absU(t.coef)
	for _, f := range t.fs {
		fd := divisorU(f.atom)
		for i := int64(0); i < f.pow && fd > 1; i++ {
			hi, lo := bits.Mul64(d, fd)
			if hi != 0 {
				return absU(t.coef)
			}
			d = lo
		}
	}
	return d
}
