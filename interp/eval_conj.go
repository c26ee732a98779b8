package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// The conjugate and negative bits. PyTorch's _conj (and conj of a complex tensor) is a
// view that sets the bit: nothing is computed, and writes through the view
// land conjugated in the base's storage. View ops keep the bit; every other
// op gets its inputs resolved (a conjugated copy), as PyTorch's conjugate
// fallback materializes them; an op writing to a conjugated tensor writes
// the conjugate (copyTensor honours the bit on both sides). _neg_view's
// negative bit works the same way with negation.

// kConjView is _conj / conj: an alias with the bit flipped for complex
// dtypes, the tensor itself (an alias) for real ones.
func kConjView(c *call, t *Tensor) (*Tensor, error) {
	v := t.Alias()
	if t.DType.IsComplex() {
		v.Conj = !t.Conj
	}
	return v, nil
}

// resolveConj is resolve_conj and resolve_neg together: t itself without
// the bits, else a copy holding the values it reads as (layout
// preserved), without them.
func resolveConj(t *Tensor) (*Tensor, error) {
	if !t.Conj && !t.Neg {
		return t, nil
	}
	return cloneAs(t, "preserve_format")
}

// readable is t resolved, for reading its storage directly (comparisons).
func readable(t *Tensor) *Tensor {
	if r, err := resolveConj(t); err == nil {
		return r
	}
	return t
}

// kNegView is _neg_view: an alias with the negative bit flipped.
func kNegView(c *call, t *Tensor) (*Tensor, error) {
	v := t.Alias()
	v.Neg = !t.Neg
	return v, nil
}

// copyWithBits copies elements so[i] to do[i] through the bits: conj
// conjugates, neg negates.
func copyWithBits(dst, src *Tensor, do, so []int64, conj, neg bool) {
	sb, db := src.Storage.Data, dst.Storage.Data
	for i := range do {
		switch {
		case src.DType.IsComplex():
			v := loadC(src.DType, sb, so[i])
			if conj {
				v.im = -v.im
			}
			if neg {
				v.re, v.im = -v.re, -v.im
			}
			if dst.DType.IsComplex() {
				storeC(dst.DType, db, do[i], v)
			} else {
				storeF(dst.DType, db, do[i], v.re)
			}
		case src.DType.IsFloat():
			x := loadF(src.DType, sb, so[i])
			if neg {
				x = -x
			}
			storeF(dst.DType, db, do[i], x)
		default:
			x := loadI(src.DType, sb, so[i])
			if neg {
				x = -x
			}
			storeI(dst.DType, db, do[i], x)
		}
	}
}

// resolveValue resolves every tensor in x (lists included).
func resolveValue(x any) (any, error) {
	switch v := x.(type) {
	case *Tensor:
		if v.Conj || v.Neg {
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

// resolvesBits reports whether op's kernel sees parameter i resolved: not
// for view ops (they keep the bits) nor for the tensors an op writes to.
func resolvesBits(op *ops.Op, i int) bool {
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

// kResolve is resolve_conj (conj) or resolve_neg: t itself without the
// bit, else a copy holding the values the bit reads as.
func kResolve(conj bool) func(c *call, t *Tensor) (*Tensor, error) {
	return func(c *call, t *Tensor) (*Tensor, error) {
		if conj && !t.Conj || !conj && !t.Neg {
			return t.Alias(), nil
		}
		v := t.Alias()
		if conj {
			v.Neg = false // the copy resolves the other bit only if set too
		} else {
			v.Conj = false
		}
		out, err := cloneAs(v, "preserve_format")
		if err != nil {
			return nil, err
		}
		out.Conj, out.Neg = t.Conj && !conj, t.Neg && conj
		return out, nil
	}
}

// kRealImag is real/imag: a view of the part dtype over the complex
// storage. The imaginary part of a conjugated tensor reads negated.
func kRealImag(imag bool) func(c *call, t *Tensor) (*Tensor, error) {
	return func(c *call, t *Tensor) (*Tensor, error) {
		part := t.DType.ComplexComponent()
		if part == ir.Invalid {
			if imag {
				return nil, fmt.Errorf("imag is not implemented for tensors with non-complex dtypes.")
			}
			return t.Alias(), nil
		}
		strides := make([]int64, len(t.Strides))
		for i, s := range t.Strides {
			strides[i] = 2 * s
		}
		off := 2 * t.Offset
		neg := t.Neg
		if imag {
			off++
			neg = neg != t.Conj
		}
		return &Tensor{DType: part, Shape: clone64(t.Shape), Strides: strides, Offset: off, Storage: t.Storage, Neg: neg}, nil
	}
}

func init() {
	register(selfK(kResolve(true)), "resolve_conj")
	register(selfK(kResolve(false)), "resolve_neg")
	register(selfK(kRealImag(false)), "real")
	register(selfK(kRealImag(true)), "imag")
	register(kConjPhysical, "conj_physical")
	register(selfK(kConjView), "_conj", "conj")
	register(selfK(kNegView), "_neg_view")
	register(kConjPhysical, "_conj_physical")
}
