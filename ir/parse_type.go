package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// ParseType reads an FX annotation (without its quotes): `f32[4, 3][3, 1]cpu`,
// `bf16[8, s0]`, `i64[][]cuda:0`, `Sym(s0)`, `Sym(u0 >= 0)`.
func ParseType(s string) (Type, error) {
	s = strings.TrimSpace(s)
	if inner, ok := strings.CutPrefix(s, "Sym("); ok && strings.HasSuffix(inner, ")") {
		e, err := sym.Parse(strings.TrimSuffix(inner, ")"))
		if err != nil {
			return Type{}, fmt.Errorf("in %q: %w", shortText(s), err)
		}
		switch {
		case e.IsBool():
			return SymBoolOf(e), nil
		case isFloatSymbol(e):
			return Type{Kind: KindSymFloat, Sym: e}, nil
		}
		return SymIntOf(e), nil
	}
	open := strings.IndexByte(s, '[')
	if open < 0 {
		return Type{}, fmt.Errorf("annotation %q is not a tensor type (want dtype[sizes]) or Sym(...)", s)
	}
	dt, ok := DTypeFromAbbr(s[:open])
	if !ok {
		return Type{}, fmt.Errorf("unknown dtype %q in annotation %q", s[:open], s)
	}
	shape, rest, err := parseExprList(s[open:])
	if err != nil {
		return Type{}, fmt.Errorf("in %q: %w", shortText(s), err)
	}
	t := &TensorType{DType: dt, Shape: shape, Offset: sym.Const(0)}
	if strings.HasPrefix(rest, "[") {
		strides, after, err := parseExprList(rest)
		if err != nil {
			return Type{}, fmt.Errorf("in %q: %w", shortText(s), err)
		}
		if len(strides) != len(shape) {
			return Type{}, fmt.Errorf("annotation %q has %d sizes but %d strides", s, len(shape), len(strides))
		}
		t.Strides, rest = strides, after
	}
	if rest != "" {
		dev, err := ParseDevice(rest)
		if err != nil {
			return Type{}, fmt.Errorf("in %q: %w", shortText(s), err)
		}
		t.Device = dev
	}
	if err := CheckTensorType(t); err != nil {
		return Type{}, fmt.Errorf("in %q: %w", shortText(s), err)
	}
	return TensorOf(t), nil
}

func isFloatSymbol(e sym.Expr) bool {
	for _, name := range e.Free() {
		if strings.HasPrefix(name, "zuf") || strings.HasPrefix(name, "zf") {
			return true
		}
	}
	return false
}

// parseExprList reads "[e1, e2, ...]" at the start of s, splitting on commas
// outside parentheses (Max(1, s0) has one inside).
func parseExprList(s string) ([]sym.Expr, string, error) {
	depth, start := 0, 1
	out := []sym.Expr{}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')':
			depth--
		case ',', ']':
			if s[i] == ']' && depth > 0 {
				depth--
				continue
			}
			if depth > 0 {
				continue
			}
			item := strings.TrimSpace(s[start:i])
			if item != "" || s[i] == ',' {
				e, err := sym.Parse(item)
				if err != nil {
					return nil, "", fmt.Errorf("bad size %q: %w", item, err)
				}
				out = append(out, e)
			}
			start = i + 1
			if s[i] == ']' {
				// No spare capacity: values share parsed types (the parser
				// caches them), so an append must copy, never write past
				// another value's sizes.
				return slices.Clip(out), s[i+1:], nil
			}
		}
	}
	return nil, "", fmt.Errorf("unclosed '[' in %q", shortText(s))
}

// shortText keeps an error message short when the annotation is not
// (a rank-30000 shape would otherwise be quoted whole).
func shortText(s string) string {
	if len(s) > 80 {
		return s[:60] + "..." + s[len(s)-16:]
	}
	return s
}
