package optrace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// arg converts one JSON argument.
func (b *builder) arg(num int, raw json.RawMessage) (ir.Arg, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ir.NoneArg(), nil
	}
	switch raw[0] {
	case 'n':
		return ir.NoneArg(), nil
	case 't', 'f':
		var v bool
		if err := json.Unmarshal(raw, &v); err != nil {
			return ir.Arg{}, b.badArg(num, raw, err)
		}
		return ir.BoolArg(v), nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return ir.Arg{}, b.badArg(num, raw, err)
		}
		return stringArg(s), nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return ir.Arg{}, b.badArg(num, raw, err)
		}
		elems := make([]ir.Arg, len(items))
		for i, it := range items {
			a, err := b.arg(num, it)
			if err != nil {
				return ir.Arg{}, err
			}
			elems[i] = a
		}
		return ir.ListArg(elems...), nil
	case '{':
		return b.objectArg(num, raw)
	}
	return numberArg(raw, func(err error) error { return b.badArg(num, raw, err) })
}

// stringArg keeps "inf"/"-inf"/"nan" (JSON has no spelling for them) as floats.
func stringArg(s string) ir.Arg {
	switch s {
	case "inf":
		return ir.FloatArg(math.Inf(1))
	case "-inf":
		return ir.FloatArg(math.Inf(-1))
	case "nan":
		return ir.FloatArg(math.NaN())
	}
	return ir.StringArg(s)
}

func numberArg(raw json.RawMessage, bad func(error) error) (ir.Arg, error) {
	text := string(raw)
	if !strings.ContainsAny(text, ".eE") {
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return ir.Arg{}, bad(err)
		}
		return ir.IntArg(i), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return ir.Arg{}, bad(err)
	}
	return ir.FloatArg(f), nil
}

func (b *builder) badArg(num int, raw json.RawMessage, err error) error {
	return b.errorf(num, 1, "malformed argument: "+jsonMessage(err), "", string(raw))
}

// objectArg reads the tagged forms: tensor, dtype, device, sym, enum.
func (b *builder) objectArg(num int, raw json.RawMessage) (ir.Arg, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return ir.Arg{}, b.badArg(num, raw, err)
	}
	str := func(key string) (string, error) {
		var s string
		err := json.Unmarshal(obj[key], &s)
		return s, err
	}
	switch {
	case obj["tensor"] != nil:
		return b.tensorArg(num, raw)
	case obj["dtype"] != nil:
		s, err := str("dtype")
		if dt, ok := ir.DTypeFromName(strings.TrimPrefix(s, "torch.")); err == nil && ok {
			return ir.DTypeArg(dt), nil
		}
	case obj["device"] != nil:
		s, err := str("device")
		if d, derr := ir.ParseDevice(s); err == nil && derr == nil {
			return ir.DeviceArg(d), nil
		}
	case obj["sym"] != nil:
		if s, err := str("sym"); err == nil {
			return b.symArg(num, s)
		}
	case obj["enum"] != nil:
		if s, err := str("enum"); err == nil {
			return ir.EnumArg(strings.TrimPrefix(s, "torch.")), nil
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return ir.Arg{}, b.errorf(num, 1, fmt.Sprintf("unrecognized argument object with keys %v", keys),
		`objects are {"tensor": id, ...}, {"dtype": "torch.float32"}, {"device": "cuda:0"}, {"enum": "contiguous_format"}`, string(raw))
}

// symArg resolves a symbolic-int argument: a known value name, or a new
// SymInt graph input for a symbol seen for the first time.
func (b *builder) symArg(num int, text string) (ir.Arg, error) {
	if v, ok := b.values["sym:"+text]; ok {
		return ir.ValueArg(v), nil
	}
	e, err := sym.Parse(text)
	if err != nil {
		return ir.Arg{}, b.errorf(num, 1, fmt.Sprintf("bad symbolic value %q: %v", text, err), "write a symbol such as \"s0\"", "")
	}
	if c, ok := e.Const(); ok {
		return ir.IntArg(c), nil
	}
	name := text
	if !isIdent(name) {
		name = "sym"
	}
	v := b.g.AddInput(b.fresh(name), ir.SymIntOf(e), diag.Pos{File: b.file, Line: num, Col: 1})
	v.Annot = v.Type
	b.values["sym:"+text] = v
	return ir.ValueArg(v), nil
}

// tensorArg resolves a tensor id; a new id is a graph input.
func (b *builder) tensorArg(num int, raw json.RawMessage) (ir.Arg, error) {
	var ref tensorRef
	if err := json.Unmarshal(raw, &ref); err != nil {
		return ir.Arg{}, b.badArg(num, raw, err)
	}
	if v, ok := b.values[ref.Tensor]; ok {
		return ir.ValueArg(v), nil
	}
	t, err := b.tensorType(num, ref)
	if err != nil {
		return ir.Arg{}, err
	}
	name := ref.Tensor
	if !isIdent(name) {
		name = "arg"
	}
	v := b.g.AddInput(b.fresh(name), t, diag.Pos{File: b.file, Line: num, Col: 1})
	v.Annot = t
	b.values[ref.Tensor] = v
	return ir.ValueArg(v), nil
}

// tensorType builds a type from metadata; with no dtype it stays unknown.
func (b *builder) tensorType(num int, ref tensorRef) (ir.Type, error) {
	if ref.DType == "" {
		return ir.Type{}, nil
	}
	dt, ok := ir.DTypeFromAbbr(ref.DType)
	if !ok {
		dt, ok = ir.DTypeFromName(strings.TrimPrefix(ref.DType, "torch."))
	}
	if !ok {
		return ir.Type{}, b.errorf(num, 1, fmt.Sprintf("unknown dtype %q", ref.DType), "dtypes are written f32 or torch.float32", "")
	}
	shape, err := b.exprs(num, ref.Shape)
	if err != nil {
		return ir.Type{}, err
	}
	t := &ir.TensorType{DType: dt, Shape: shape, Offset: sym.Const(0)}
	if ref.Stride != nil {
		if t.Strides, err = b.exprs(num, ref.Stride); err != nil {
			return ir.Type{}, err
		}
		if len(t.Strides) != len(shape) {
			return ir.Type{}, b.errorf(num, 1, fmt.Sprintf("tensor %s has %d sizes but %d strides", ref.Tensor, len(shape), len(t.Strides)), "", "")
		}
	}
	if ref.StorageOffset != nil {
		offs, err := b.exprs(num, []any{ref.StorageOffset})
		if err != nil {
			return ir.Type{}, err
		}
		t.Offset = offs[0]
	}
	if ref.Device != "" {
		if t.Device, err = ir.ParseDevice(ref.Device); err != nil {
			return ir.Type{}, b.errorf(num, 1, err.Error(), "devices are cpu, cuda:0, meta", "")
		}
	}
	if err := ir.CheckTensorType(t); err != nil {
		return ir.Type{}, b.errorf(num, 1, fmt.Sprintf("tensor %s: %v", ref.Tensor, err), "sizes and strides describe a tensor PyTorch can make", "")
	}
	return ir.TensorOf(t), nil
}

// exprs reads sizes given as numbers or symbolic strings ("s0", "2*s0").
func (b *builder) exprs(num int, items []any) ([]sym.Expr, error) {
	out := make([]sym.Expr, len(items))
	for i, it := range items {
		switch v := it.(type) {
		case float64:
			if v != math.Trunc(v) {
				return nil, b.errorf(num, 1, fmt.Sprintf("size %v is not an integer", v), "", "")
			}
			out[i] = sym.Const(int64(v))
		case string:
			e, err := sym.Parse(v)
			if err != nil {
				return nil, b.errorf(num, 1, fmt.Sprintf("bad symbolic size %q: %v", v, err), "sizes are integers or expressions like \"s0\"", "")
			}
			out[i] = e
		default:
			return nil, b.errorf(num, 1, fmt.Sprintf("bad size %v", it), "sizes are integers or expressions like \"s0\"", "")
		}
	}
	return out, nil
}

func (b *builder) kwargs(num int, raw json.RawMessage) ([]ir.Kwarg, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	// Keep source order: decode the object token by token.
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, b.errorf(num, 1, "\"kwargs\" must be an object", "", string(raw))
	}
	var out []ir.Kwarg
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, b.badArg(num, raw, err)
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, b.badArg(num, raw, err)
		}
		a, err := b.arg(num, val)
		if err != nil {
			return nil, err
		}
		out = append(out, ir.Kwarg{Name: key, Arg: a})
	}
	return out, nil
}

func isIdent(s string) bool {
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return s != ""
}
