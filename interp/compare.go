package interp

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// Tolerance accepts got for want when |got - want| <= ATol + RTol·|want|.
type Tolerance struct{ RTol, ATol float64 }

// DefaultTolerance is torch.testing.assert_close's default for dt
// (torch/testing/_comparison.py _DTYPE_PRECISIONS); integers and bool
// compare exactly. The float8 formats, which assert_close leaves exact, get
// one unit in the last place of their mantissa as relative tolerance.
func DefaultTolerance(dt ir.DType) Tolerance {
	switch dt {
	case ir.F16, ir.C32:
		return Tolerance{1e-3, 1e-5}
	case ir.BF16:
		return Tolerance{1.6e-2, 1e-5}
	case ir.F32, ir.C64:
		return Tolerance{1.3e-6, 1e-5}
	case ir.F64, ir.C128:
		return Tolerance{1e-7, 1e-7}
	case ir.F8E4M3FN, ir.F8E4M3FNUZ:
		return Tolerance{0.125, 1e-5}
	case ir.F8E5M2, ir.F8E5M2FNUZ:
		return Tolerance{0.25, 1e-5}
	case ir.F8E8M0FNU:
		return Tolerance{1, 0}
	}
	return Tolerance{}
}

// Mismatch says how got differs from want.
type Mismatch struct {
	Kind    string // "kind", "shape", "dtype", "values", "length"
	Path    string // where inside a list: "[1]"
	Message string
	// For "values": the worst element (largest error relative to what the
	// tolerance allows), the number of bad elements, and the total.
	Index      []int64
	Want, Got  float64
	AbsDiff    float64
	RelDiff    float64
	Bad, Total int64
	Tol        Tolerance
}

func (m *Mismatch) Error() string { return m.String() }

func (m *Mismatch) String() string {
	where := ""
	if m.Path != "" {
		where = " at " + m.Path
	}
	if m.Kind != "values" {
		return m.Kind + " mismatch" + where + ": " + m.Message
	}
	pct := 100 * float64(m.Bad) / float64(max(m.Total, 1))
	return fmt.Sprintf("values differ%s: %d of %d elements (%.1f%%); worst at %s: want %s, got %s (abs diff %s, rel diff %s; allowed atol %g, rtol %g)",
		where, m.Bad, m.Total, pct, indexString(m.Index), fmtNum(m.Want), fmtNum(m.Got), fmtNum(m.AbsDiff), fmtNum(m.RelDiff), m.Tol.ATol, m.Tol.RTol)
}

func indexString(idx []int64) string {
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func fmtNum(v float64) string { return ir.PyFloat(v) }

// TolFunc picks a tolerance per dtype; nil means DefaultTolerance.
type TolFunc func(ir.DType) Tolerance

// Compare checks a runtime value against the expected one: tensors by
// dtype, shape and values (exact for ints and bools, within tol for floats,
// NaN equal to NaN), scalars by value, lists element by element. It returns
// nil when they agree.
func Compare(want, got any, tol TolFunc) *Mismatch {
	if tol == nil {
		tol = DefaultTolerance
	}
	return compareAt("", want, got, tol)
}

func compareAt(path string, want, got any, tol TolFunc) *Mismatch {
	switch w := want.(type) {
	case *Tensor:
		g, ok := got.(*Tensor)
		if !ok {
			return kindMismatch(path, want, got)
		}
		m := CompareTensors(w, g, tol(w.DType))
		if m != nil {
			m.Path = path
		}
		return m
	case []any:
		g, ok := got.([]any)
		if !ok {
			return kindMismatch(path, want, got)
		}
		if len(w) != len(g) {
			return &Mismatch{Kind: "length", Path: path, Message: fmt.Sprintf("want %d elements, got %d", len(w), len(g))}
		}
		for i := range w {
			if m := compareAt(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], tol); m != nil {
				return m
			}
		}
		return nil
	case float64:
		g, ok := got.(float64)
		if !ok {
			return kindMismatch(path, want, got)
		}
		t := tol(ir.F64)
		if bad, _ := floatBad(w, g, t); bad {
			return &Mismatch{Kind: "values", Path: path, Want: w, Got: g, AbsDiff: math.Abs(w - g), RelDiff: relDiff(w, g), Bad: 1, Total: 1, Tol: t}
		}
		return nil
	}
	if want != got {
		return &Mismatch{Kind: "values", Path: path, Message: fmt.Sprintf("want %s, got %s", describe(want), describe(got)),
			Bad: 1, Total: 1}
	}
	return nil
}

func kindMismatch(path string, want, got any) *Mismatch {
	return &Mismatch{Kind: "kind", Path: path, Message: fmt.Sprintf("want %s, got %s", describe(want), describe(got))}
}

// CompareTensors compares two tensors; see Compare.
func CompareTensors(want, got *Tensor, tol Tolerance) *Mismatch {
	if want.DType != got.DType {
		return &Mismatch{Kind: "dtype", Message: fmt.Sprintf("want %s, got %s", want.DType, got.DType)}
	}
	if !equal64(want.Shape, got.Shape) {
		return &Mismatch{Kind: "shape", Message: fmt.Sprintf("want %s, got %s", ints(want.Shape), ints(got.Shape))}
	}
	if want.Device().IsMeta() || got.Device().IsMeta() {
		return nil // meta tensors have no data
	}
	want, got = readable(want), readable(got)
	if !want.DType.IsFloat() && !want.DType.IsComplex() {
		return compareExact(want, got)
	}
	if want.DType.IsComplex() {
		return compareComplex(want, got, tol)
	}
	w, g := want.Floats(), got.Floats()
	m := &Mismatch{Kind: "values", Total: int64(len(w)), Tol: tol}
	worst := -1.0
	for i := range w {
		bad, score := floatBad(w[i], g[i], tol)
		if !bad {
			continue
		}
		m.Bad++
		if score > worst {
			worst = score
			m.Index = unravel(int64(i), want.Shape)
			m.Want, m.Got, m.AbsDiff, m.RelDiff = w[i], g[i], math.Abs(w[i]-g[i]), relDiff(w[i], g[i])
		}
	}
	if m.Bad == 0 {
		return nil
	}
	return m
}

// floatBad reports whether g is outside tol of w, and by how much (the
// error over the allowance; +inf for NaN or infinity mismatches).
func floatBad(w, g float64, tol Tolerance) (bool, float64) {
	switch {
	case math.IsNaN(w) || math.IsNaN(g):
		if math.IsNaN(w) && math.IsNaN(g) {
			return false, 0
		}
		return true, math.Inf(1)
	case math.IsInf(w, 0) || math.IsInf(g, 0):
		if w == g {
			return false, 0
		}
		return true, math.Inf(1)
	}
	return overAllowance(math.Abs(w-g), tol.ATol+tol.RTol*math.Abs(w))
}

// overAllowance reports whether diff exceeds allowed, and by what factor
// (torch.isclose's |w - g| <= atol + rtol*|w|).
func overAllowance(diff, allowed float64) (bool, float64) {
	if diff <= allowed {
		return false, 0
	}
	if allowed == 0 {
		return true, diff * 1e300
	}
	return true, diff / allowed
}

func relDiff(w, g float64) float64 {
	if w == 0 {
		if g == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(w-g) / math.Abs(w)
}

func compareExact(want, got *Tensor) *Mismatch {
	w, g := want.Ints(), got.Ints()
	m := &Mismatch{Kind: "values", Total: int64(len(w))}
	worst := int64(-1)
	for i := range w {
		if w[i] == g[i] {
			continue
		}
		m.Bad++
		d := w[i] - g[i]
		if d < 0 {
			d = -d
		}
		if d > worst {
			worst = d
			m.Index = unravel(int64(i), want.Shape)
			m.Want, m.Got = float64(w[i]), float64(g[i])
			m.AbsDiff, m.RelDiff = math.Abs(m.Want-m.Got), relDiff(m.Want, m.Got)
		}
	}
	if m.Bad == 0 {
		return nil
	}
	return m
}

// unravel turns a row-major linear index into a multi-index.
func unravel(i int64, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return idx
}

// describe names a runtime value for messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case *Tensor:
		return "tensor " + x.String()
	case int64:
		return fmt.Sprintf("int %d", x)
	case float64:
		return "float " + ir.PyFloat(x)
	case bool:
		if x {
			return "bool True"
		}
		return "bool False"
	case []any:
		return fmt.Sprintf("list of %d", len(x))
	case string:
		return ir.PyString(x)
	case ir.DType:
		return x.String()
	case ir.Device:
		return x.PyRepr()
	}
	return fmt.Sprintf("%T", v)
}

// compareComplex is torch.isclose on complex elements: |got - want| within
// atol + rtol·|want| (complex magnitudes), NaN matching NaN as the real
// comparison does, infinities only themselves. The mismatch reports the
// worst element's real parts, or its imaginary parts where the real ones
// agree.
func compareComplex(want, got *Tensor, tol Tolerance) *Mismatch {
	w, g := complexes(want), complexes(got)
	m := &Mismatch{Kind: "values", Total: int64(len(w)), Tol: tol}
	worst := -1.0
	for i := range w {
		bad, score := complexBad(w[i], g[i], tol)
		if !bad {
			continue
		}
		m.Bad++
		if score > worst {
			worst = score
			m.Index = unravel(int64(i), want.Shape)
			wv, gv := real(w[i]), real(g[i])
			if wv == gv {
				wv, gv = imag(w[i]), imag(g[i])
			}
			m.Want, m.Got, m.AbsDiff = wv, gv, cmplx.Abs(w[i]-g[i])
			m.RelDiff = math.Inf(1)
			if a := cmplx.Abs(w[i]); a != 0 {
				m.RelDiff = m.AbsDiff / a
			} else if m.AbsDiff == 0 {
				m.RelDiff = 0
			}
		}
	}
	if m.Bad == 0 {
		return nil
	}
	return m
}

func complexBad(w, g complex128, tol Tolerance) (bool, float64) {
	switch {
	case cmplx.IsNaN(w) || cmplx.IsNaN(g):
		if cmplx.IsNaN(w) && cmplx.IsNaN(g) {
			return false, 0
		}
		return true, math.Inf(1)
	case cmplx.IsInf(w) || cmplx.IsInf(g):
		if w == g {
			return false, 0
		}
		return true, math.Inf(1)
	}
	return overAllowance(cmplx.Abs(w-g), tol.ATol+tol.RTol*cmplx.Abs(w))
}

// complexes reads a complex tensor's values in row-major order, through
// its conjugate bit.
func complexes(t *Tensor) []complex128 {
	out := make([]complex128, 0, t.Numel())
	for _, off := range t.offsets() {
		v := loadC(t.DType, t.Storage.Data, off)
		if t.Conj {
			v.im = -v.im
		}
		if t.Neg {
			v.re, v.im = -v.re, -v.im
		}
		out = append(out, complex(v.re, v.im))
	}
	return out
}
