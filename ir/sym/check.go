package sym

// DividesByZero reports whether e divides by the constant 0 anywhere
// (`s0//0`, `Mod(s0, 0)`). Expressions may hold such terms (they print and
// parse back), but a size or stride that does is not a value: PyTorch's
// sympy raises ZeroDivisionError on it. Shape checks call this.
func (e Expr) DividesByZero() bool {
	return e.n != nil && e.n.dividesByZero(map[*node]bool{})
}

func (n *node) dividesByZero(seen map[*node]bool) bool {
	if seen[n] {
		return false
	}
	seen[n] = true
	if (n.op == opFloorDiv || n.op == opMod) && len(n.args) == 2 {
		if c, ok := n.args[1].Const(); ok && c == 0 {
			return true
		}
	}
	for _, a := range n.args {
		if a.n != nil && a.n.dividesByZero(seen) {
			return true
		}
	}
	for _, t := range n.terms {
		for _, f := range t.fs {
			if f.atom.dividesByZero(seen) {
				return true
			}
		}
	}
	return false
}
