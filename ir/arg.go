package ir

import (
	"math"
	"strconv"
	"strings"
)

// ArgKind says what an argument is.
type ArgKind uint8

const (
	ArgNone     ArgKind = iota // None
	ArgValue                   // an SSA value
	ArgInt                     // Python int
	ArgFloat                   // Python float (inf, -inf, nan included)
	ArgBool                    // True / False
	ArgString                  // 'text'
	ArgDType                   // torch.float32
	ArgDevice                  // device(type='cuda', index=0)
	ArgEnum                    // torch.strided, torch.contiguous_format, ... (Str holds the attribute name)
	ArgList                    // [a, b]
	ArgTuple                   // (a, b)
	ArgDict                    // {'k': v}
	ArgOpRef                   // torch.ops.mylib.foo.default passed as a value (Str holds the FX spelling)
	ArgRaw                     // any other Python expression kiln keeps verbatim (Str)
	ArgSlice                   // slice(start, stop, step) in an index: Elems holds the three parts (None when absent)
	ArgEllipsis                // Ellipsis in an index
	ArgComplex                 // Python complex: 2j, (1+2j), complex(0.0, 1.0) (Float real, Imag imaginary; Str the source spelling)
)

// Arg is a node argument: an SSA value or a constant.
type Arg struct {
	// The one-byte fields come first, together: a graph holds millions
	// of arguments, and padding after each would cost 16 bytes apiece.
	Kind   ArgKind
	Bool   bool
	DType  DType
	Value  *Value
	Int    int64
	Float  float64
	Imag   float64 // ArgComplex's imaginary part
	Str    string
	Device Device
	Elems  []Arg // list, tuple, dict values
	Keys   []Arg // dict keys, parallel to Elems
}

// Constructors for the common argument kinds.
func ValueArg(v *Value) Arg     { return Arg{Kind: ArgValue, Value: v} }
func IntArg(i int64) Arg        { return Arg{Kind: ArgInt, Int: i} }
func FloatArg(f float64) Arg    { return Arg{Kind: ArgFloat, Float: f} }
func BoolArg(b bool) Arg        { return Arg{Kind: ArgBool, Bool: b} }
func StringArg(s string) Arg    { return Arg{Kind: ArgString, Str: s} }
func DTypeArg(d DType) Arg      { return Arg{Kind: ArgDType, DType: d} }
func DeviceArg(d Device) Arg    { return Arg{Kind: ArgDevice, Device: d} }
func EnumArg(name string) Arg   { return Arg{Kind: ArgEnum, Str: name} }
func ListArg(elems ...Arg) Arg  { return Arg{Kind: ArgList, Elems: elems} }
func TupleArg(elems ...Arg) Arg { return Arg{Kind: ArgTuple, Elems: elems} }
func NoneArg() Arg              { return Arg{Kind: ArgNone} }

// ComplexArg is a Python complex constant; src is how the input spelled it
// (FX prints 1j as `1j`, `(1+2j)` or `complex(0.0, 1.0)`), "" for repr's.
func ComplexArg(re, im float64, src string) Arg {
	return Arg{Kind: ArgComplex, Float: re, Imag: im, Str: src}
}

// SliceArg builds slice(start, stop, step).
func SliceArg(start, stop, step Arg) Arg { return Arg{Kind: ArgSlice, Elems: []Arg{start, stop, step}} }

// IsContainer reports whether a holds other arguments in Elems (and Keys):
// a list, tuple, dict or slice. Passes that map values through arguments
// recurse into exactly these.
func (a Arg) IsContainer() bool {
	switch a.Kind {
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		return true
	}
	return false
}

// IntList builds a list of int arguments.
func IntList(xs ...int64) Arg {
	elems := make([]Arg, len(xs))
	for i, x := range xs {
		elems[i] = IntArg(x)
	}
	return ListArg(elems...)
}

// IsSequence reports whether a is a list or tuple.
func (a Arg) IsSequence() bool { return a.Kind == ArgList || a.Kind == ArgTuple }

// Walk calls f for every value in a, depth first.
func (a *Arg) Walk(f func(*Value)) {
	switch a.Kind {
	case ArgValue:
		f(a.Value)
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		for i := range a.Elems {
			a.Elems[i].Walk(f)
		}
	}
}

func (a Arg) replace(old, new *Value) Arg {
	switch a.Kind {
	case ArgValue:
		if a.Value == old {
			a.Value = new
		}
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		elems := make([]Arg, len(a.Elems))
		for i, e := range a.Elems {
			elems[i] = e.replace(old, new)
		}
		a.Elems = elems
	}
	return a
}

// Equal reports structural equality; values compare by identity.
func (a Arg) Equal(b Arg) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case ArgNone:
		return true
	case ArgValue:
		return a.Value == b.Value
	case ArgInt:
		return a.Int == b.Int
	case ArgFloat:
		return a.Float == b.Float || math.IsNaN(a.Float) && math.IsNaN(b.Float)
	case ArgComplex:
		return (a.Float == b.Float || math.IsNaN(a.Float) && math.IsNaN(b.Float)) &&
			(a.Imag == b.Imag || math.IsNaN(a.Imag) && math.IsNaN(b.Imag))
	case ArgBool:
		return a.Bool == b.Bool
	case ArgDType:
		return a.DType == b.DType
	case ArgDevice:
		return a.Device == b.Device
	case ArgEllipsis:
		return true
	case ArgList, ArgTuple, ArgDict, ArgSlice:
		if len(a.Elems) != len(b.Elems) || len(a.Keys) != len(b.Keys) {
			return false
		}
		for i := range a.Elems {
			if !a.Elems[i].Equal(b.Elems[i]) {
				return false
			}
		}
		for i := range a.Keys {
			if !a.Keys[i].Equal(b.Keys[i]) {
				return false
			}
		}
		return true
	}
	return a.Str == b.Str
}

// String prints a as Python source, the way FX does.
func (a Arg) String() string {
	var b textBuf
	a.write(&b)
	return b.String()
}

func (a Arg) write(b *textBuf) {
	switch a.Kind {
	case ArgNone:
		b.WriteString("None")
	case ArgValue:
		b.WriteString(a.Value.Name)
	case ArgInt:
		writeInt(b, a.Int)
	case ArgFloat:
		b.WriteString(PyFloat(a.Float))
	case ArgComplex:
		if a.Str != "" {
			b.WriteString(a.Str)
		} else {
			b.WriteString(PyComplex(a.Float, a.Imag))
		}
	case ArgBool:
		if a.Bool {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case ArgString:
		b.WriteString(PyString(a.Str))
	case ArgDType:
		b.WriteString(a.DType.String())
	case ArgDevice:
		b.WriteString(a.Device.PyRepr())
	case ArgEnum:
		b.WriteString("torch.")
		b.WriteString(a.Str)
	case ArgList:
		writeSeq(b, "[", "]", a.Elems, false)
	case ArgTuple:
		writeSeq(b, "(", ")", a.Elems, len(a.Elems) == 1)
	case ArgDict:
		b.WriteByte('{')
		for i := range a.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			a.Keys[i].write(b)
			b.WriteString(": ")
			a.Elems[i].write(b)
		}
		b.WriteByte('}')
	case ArgSlice:
		writeSeq(b, "slice(", ")", a.Elems, false)
	case ArgEllipsis:
		b.WriteString("Ellipsis")
	default:
		b.WriteString(a.Str)
	}
}

func writeSeq(b *textBuf, open, close string, elems []Arg, trailingComma bool) {
	b.WriteString(open)
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		e.write(b)
	}
	if trailingComma {
		b.WriteByte(',')
	}
	b.WriteString(close)
}

// PyFloat formats f as Python's repr does: shortest round-trip digits,
// scientific notation below 1e-4 and from 1e16 up, and always a '.0' or
// exponent so it reads back as a float. inf/nan print as FX prints them.
func PyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	exp := math.Floor(math.Log10(math.Abs(f)))
	// Log10 can be off by one near powers of ten; the 'e' form tells the truth.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	if i := strings.IndexByte(e, 'e'); i >= 0 {
		n, _ := strconv.Atoi(e[i+1:])
		exp = float64(n)
	}
	if exp < -4 || exp >= 16 {
		mant, ex, _ := strings.Cut(e, "e")
		sign := ex[0]
		digits := strings.TrimLeft(ex[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + string(sign) + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// PyComplex formats re+im·j as Python's repr does: `2j` for a zero real
// part, `(1+2j)` otherwise (integral parts without '.0').
func PyComplex(re, im float64) string {
	part := func(f float64) string {
		s := PyFloat(f)
		if t, ok := strings.CutSuffix(s, ".0"); ok {
			return t
		}
		return s
	}
	if re == 0 && !math.Signbit(re) {
		return part(im) + "j"
	}
	sign := "+"
	if math.Signbit(im) {
		sign = ""
	}
	return "(" + part(re) + sign + part(im) + "j)"
}

// PyString quotes s as Python's repr does: single quotes unless s holds a
// single quote and no double quote.
func PyString(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(c)|0x100, 16)[1:])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
