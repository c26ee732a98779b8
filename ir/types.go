package ir

import (
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
)

// StorageID names the storage a tensor lives in. A base and all its views
// share one StorageID; 0 means "not known yet".
type StorageID int

// TensorType is a fake tensor: everything about a tensor except its data.
type TensorType struct {
	DType   DType
	Shape   []sym.Expr
	Strides []sym.Expr // nil when the annotation carried none
	Offset  sym.Expr   // storage offset in elements
	Device  Device     // zero value when the annotation carried none
	Storage StorageID
}

// NewTensor returns a contiguous tensor type with storage offset 0.
func NewTensor(dt DType, shape []sym.Expr, dev Device) *TensorType {
	return &TensorType{DType: dt, Shape: shape, Strides: ContiguousStrides(shape), Offset: sym.Const(0), Device: dev}
}

// Rank is the number of dimensions.
func (t *TensorType) Rank() int { return len(t.Shape) }

// HasStrides reports whether strides are known.
func (t *TensorType) HasStrides() bool { return t.Strides != nil }

// Numel is the product of the sizes.
func (t *TensorType) Numel() sym.Expr {
	n := sym.Const(1)
	for _, s := range t.Shape {
		n = sym.Mul(n, s)
	}
	return n
}

// Clone returns a deep copy (slices are copied; expressions are immutable).
func (t *TensorType) Clone() *TensorType {
	c := *t
	c.Shape = append(make([]sym.Expr, 0, len(t.Shape)), t.Shape...)
	if t.Strides != nil { // a 0-dim tensor's empty stride list is known, not missing
		c.Strides = append(make([]sym.Expr, 0, len(t.Strides)), t.Strides...)
	}
	return &c
}

// ContiguousStrides returns row-major strides for shape, as PyTorch computes
// them: a constant size 0 counts as 1. Symbolic sizes are used as they are,
// since PyTorch specializes backed sizes 0 and 1 away and prints unbacked
// strides unguarded ("[1, u0]").
func ContiguousStrides(shape []sym.Expr) []sym.Expr {
	strides := make([]sym.Expr, len(shape))
	acc := sym.Const(1)
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = acc
		size := shape[i]
		if c, ok := size.Const(); ok && c == 0 {
			size = sym.Const(1)
		}
		acc = sym.Mul(acc, size)
	}
	return strides
}

// Kind says what sort of thing a value is.
type Kind uint8

const (
	KindUnknown Kind = iota // not inferred yet, or an opaque op's result
	KindTensor
	KindSymInt
	KindSymFloat
	KindSymBool
	KindNone
	KindList // a Python list or tuple whose elements have types (e.g. torch.Size)
)

// Type is the type of a Value.
type Type struct {
	Kind   Kind
	Tensor *TensorType // KindTensor
	Sym    sym.Expr    // KindSymInt/SymBool: the value; KindSymFloat: its symbol
	Elems  []Type      // KindList
}

// TensorOf wraps a tensor type.
func TensorOf(t *TensorType) Type { return Type{Kind: KindTensor, Tensor: t} }

// SymIntOf wraps a symbolic integer.
func SymIntOf(e sym.Expr) Type { return Type{Kind: KindSymInt, Sym: e} }

// SymBoolOf wraps a symbolic boolean.
func SymBoolOf(e sym.Expr) Type { return Type{Kind: KindSymBool, Sym: e} }

// IsKnown reports whether the type was inferred or annotated.
func (t Type) IsKnown() bool { return t.Kind != KindUnknown }

// String is the FX annotation text without quotes: `f32[4, 3][3, 1]cpu`, `Sym(s0)`.
func (t Type) String() string {
	switch t.Kind {
	case KindTensor:
		return t.Tensor.String()
	case KindSymInt, KindSymFloat, KindSymBool:
		return "Sym(" + t.Sym.String() + ")"
	case KindNone:
		return "None"
	case KindList:
		parts := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			parts[i] = e.String()
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return ""
}

// String prints the tensor annotation: dtype, shape, then strides and device
// when known ("f32[4, 3][3, 1]cuda:0").
func (t *TensorType) String() string {
	var b textBuf
	t.write(&b)
	return b.String()
}

func (t *TensorType) write(b *textBuf) {
	b.WriteString(t.DType.Abbr())
	writeExprList(b, t.Shape)
	if t.Strides != nil {
		writeExprList(b, t.Strides)
	}
	if t.Device.Known() {
		b.WriteString(t.Device.Type)
		if t.Device.Index >= 0 {
			b.WriteByte(':')
			writeInt(b, int64(t.Device.Index))
		}
	}
}

func writeExprList(b *textBuf, es []sym.Expr) {
	b.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		if c, ok := e.Const(); ok {
			writeInt(b, c) // as String prints it, without making a string
		} else {
			b.WriteString(e.String())
		}
	}
	b.WriteByte(']')
}

// writeInt writes v in decimal.
func writeInt(b *textBuf, v int64) { b.b = strconv.AppendInt(b.b, v, 10) }

// SameTensorType reports whether a and b agree on every field the annotation
// shows: dtype, shape, strides (when both have them) and device (when both
// have one). Storage offset and identity are not printed by FX.
func SameTensorType(a, b *TensorType) bool {
	if a.DType != b.DType || !sym.EqualLists(a.Shape, b.Shape) {
		return false
	}
	if a.Strides != nil && b.Strides != nil && !sym.EqualLists(a.Strides, b.Strides) {
		return false
	}
	if a.Device.Known() && b.Device.Known() && a.Device != b.Device {
		return false
	}
	return true
}
