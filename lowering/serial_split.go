package lowering

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// Splitting a serial kernel. A Serial kernel accumulates through indices
// that may repeat, so it runs in loop order; but two iterations can only
// update one element when the index expression lets them. index_add
// along dim 0 of a [6, 7] tensor stores at 7*ind + x1: iterations with
// different x1 never meet (the element's column is x1). scatter_add along
// dim 1 stores at ind + 7*x0 with 0 <= ind < 7: different x0 never meet
// (the row is x0). Such outer dims are the kernel's Split dims: a code
// generator may give iterations that differ in them to different threads,
// as long as each thread runs its own iterations in loop order. Every
// pair that may update one element then still runs in loop order on one
// thread, so the result is the serial one, bit for bit.

// SplitPrefix is how many leading outer dims of k are all in Split: a code
// generator may cut the flattened outer range into blocks of the other
// dims' size, run the blocks on different threads, each in order.
func (k *Kernel) SplitPrefix() int {
	n := 0
	for n < len(k.Split) && k.Split[n] == n {
		n++
	}
	return n
}

// setSplits computes Split for every serial kernel of p.
func setSplits(p *Program) {
	for _, k := range p.Kernels {
		if k.Serial && k.Extern == nil {
			k.Split = serialSplit(k)
		}
	}
}

// serialSplit lists the outer dims along which k's iterations never
// touch one element of a buffer it writes through an indirect index (nil
// when there are none). Every access to such a buffer must use one index
// expression (the read-modify-write of an accumulation), affine in the
// outer variables and the loaded indices, in an outer-level stage.
func serialSplit(k *Kernel) []int {
	exprs := map[*Buffer]*Access{}
	var indirect []*Buffer
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == OpStore && len(in.Access.Indirect) > 0 && !slices.Contains(indirect, in.Access.Buffer) {
				indirect = append(indirect, in.Access.Buffer)
			}
		}
	}
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Access == nil || !slices.Contains(indirect, in.Access.Buffer) {
				continue
			}
			if len(st.Reduce) > 0 {
				return nil
			}
			if a, ok := exprs[in.Access.Buffer]; !ok {
				exprs[in.Access.Buffer] = in.Access
			} else if !sym.Equal(a.Index, in.Access.Index) || !slices.Equal(a.Indirect, in.Access.Indirect) {
				return nil
			}
		}
	}
	var split []int
	for i := range k.Outer {
		ok := len(indirect) > 0
		for _, b := range indirect {
			ok = ok && apart(k, exprs[b], i)
		}
		if ok {
			split = append(split, i)
		}
	}
	return split
}

// apart reports whether iterations of k that differ in outer variable i
// always access different elements through a: a's index is c·xi + R, R
// affine in the other variables and the loaded indices, and either every
// coefficient of R is a multiple of m with c·Δ never a multiple of m for
// 0 < |Δ| < size of xi (xi picks the element modulo m: a column), or R
// ranges over fewer than |c| values (xi is the index divided by c: a row).
func apart(k *Kernel, a *Access, i int) bool {
	vars := make([]string, 0, len(k.Outer)+len(a.Indirect))
	for j := range k.Outer {
		vars = append(vars, OuterVar(j))
	}
	for _, t := range a.Indirect {
		vars = append(vars, "tmp"+itoa(t.ID))
	}
	coeffs, _, ok := sym.Linear(a.Index, vars)
	if !ok {
		return false
	}
	cs := make([]int64, len(coeffs))
	for j, e := range coeffs {
		if cs[j], ok = e.Const(); !ok {
			return false
		}
	}
	c := abs64(cs[i])
	if c == 0 {
		return false
	}
	var m int64 // the gcd of R's coefficients
	for j, v := range cs {
		if j != i {
			m = gcd64(m, abs64(v))
		}
	}
	if m == 0 {
		return true // the index is c·xi plus what all iterations share
	}
	if n, isConst := k.Outer[i].Const(); isConst && n <= m/gcd64(m, c) {
		return true
	}
	width, ok := int64(0), true // max R - min R
	for j, v := range cs {
		if j == i || v == 0 {
			continue
		}
		var lo, hi int64
		if j < len(k.Outer) {
			n, isConst := k.Outer[j].Const()
			lo, hi, ok = 0, n-1, isConst && n > 0
		} else {
			lo, hi, ok = indexRange(k, a.Indirect[j-len(k.Outer)])
		}
		if !ok || hi-lo > (1<<40) || abs64(v) > (1<<20) {
			return false
		}
		width += abs64(v) * (hi - lo)
	}
	return width < c
}

// indexRange is the range [lo, hi] a loaded index lies in where it is
// used: the bounds its check enforces (a failed check stops the kernel
// first), or, for a negative index wrapped by loadIndex
// (where(t < 0, t + size, t) with t checked in [-size, size)), [0, size).
func indexRange(k *Kernel, t *Instr) (lo, hi int64, ok bool) {
	if n, neg, found := checkedBound(k, t); found {
		if neg {
			return -n, n - 1, true
		}
		return 0, n - 1, true
	}
	if t.Op != OpCall || t.Fn != "where" || len(t.Args) != 3 {
		return 0, 0, false
	}
	x, lt, add := t.Args[2], t.Args[0], t.Args[1]
	if lt.Op != OpCall || lt.Fn != "lt" || len(lt.Args) != 2 || lt.Args[0] != x || !isZeroInstr(lt.Args[1]) ||
		add.Op != OpCall || add.Fn != "add" || len(add.Args) != 2 || add.Args[0] != x || add.Args[1].Op != OpIndex {
		return 0, 0, false
	}
	n, neg, found := checkedBound(k, x)
	size, isConst := add.Args[1].Expr.Const()
	if !found || !neg || !isConst || size != n {
		return 0, 0, false
	}
	return 0, n - 1, true
}

// checkedBound finds the check of t in k: its constant size and whether
// it accepts negative indices.
func checkedBound(k *Kernel, t *Instr) (n int64, neg, ok bool) {
	for _, st := range k.Stages {
		for _, in := range st.Body {
			if in.Op == OpCheck && in.Args[0] == t {
				n, ok = in.Expr.Const()
				return n, in.Check.Neg, ok && n > 0
			}
		}
	}
	return 0, false, false
}

func isZeroInstr(in *Instr) bool {
	switch in.Op {
	case OpConst:
		return in.DType.IsInt() && in.Imm.Int == 0
	case OpIndex:
		v, ok := in.Expr.Const()
		return ok && v == 0
	}
	return false
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
