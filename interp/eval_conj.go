package interp

import (
	"github.com/kiln-compiler/kiln/ops"
)

// The conjugate bit. PyTorch's _conj (and conj of a complex tensor) is a
// view that sets the bit: nothing is computed, and writes through the view
// land conjugated in the base's storage. View ops keep the bit; every other
// op gets its inputs resolved (a conjugated copy), as PyTorch's conjugate
// fallback materializes them; an op writing to a conjugated tensor writes
// the conjugate (copyTensor honours the bit on both sides).

// kConjView is _conj / conj: an alias with the bit flipped for complex
// dtypes, the tensor itself (an alias) for real ones.
func kConjView(c *call, t *Tensor) (*Tensor, error) {
	v := t.Alias()
	if t.DType.IsComplex() {
		v.Conj = !t.Conj
	}
	return v, nil
}

// resolveConj is resolve_conj: t itself without the bit, else a copy
// holding the conjugated values (layout preserved), without the bit.
func resolveConj(t *Tensor) (*Tensor, error) {
	if !t.Conj {
		return t, nil
	}
	return cloneAs(t, "preserve_format")
}

// resolveValue resolves every tensor in x (lists included).
func resolveValue(x any) (any, error) {
	switch v := x.(type) {
	case *Tensor:
		if v.Conj {
			return resolveConj(v)
		}
	case []any:
		var out []any
		for i, e := range v {
			r, err := resolveValue(e)
			if err != nil {
				return nil, err
			}
			if r != e && out == nil {
				out = append([]any(nil), v...)
			}
			if out != nil {
				out[i] = r
			}
		}
		if out != nil {
			return out, nil
		}
	}
	return x, nil
}

// resolvesConj reports whether op's kernel sees parameter i resolved: not
// for view ops (they keep the bit) nor for the tensors an op writes to.
func resolvesConj(op *ops.Op, i int) bool {
	if op.Kind == ops.KindView {
		return false
	}
	p := op.Schema.Params[i]
	return p.Alias == nil || !p.Alias.Write
}

// kConjPhysical is _conj_physical: a copy holding the conjugated values
// (for real dtypes, a copy).
func kConjPhysical(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	if !self.DType.IsComplex() {
		return oneT(cloneAs(self, "preserve_format"))
	}
	v := self.Alias()
	v.Conj = true
	return oneT(cloneAs(v, "preserve_format"))
}

func init() {
	register(selfK(kConjView), "_conj", "conj")
	register(kConjPhysical, "_conj_physical")
}
