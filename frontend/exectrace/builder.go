package exectrace

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// tkey names a tensor: the observer reuses a tensor id once the tensor is
// freed, so the id is paired with its storage id.
type tkey struct{ tensor, storage int64 }

func (k tkey) less(o tkey) bool {
	return k.tensor < o.tensor || k.tensor == o.tensor && k.storage < o.storage
}

type builder struct {
	file       string
	opts       Options
	g          *ir.Graph
	res        *Result
	values     map[tkey]*ir.Value
	storages   map[int64]*ir.Value // storage id → first tensor seen in it
	namer      map[string]int
	warned     map[string]bool
	labels     map[string]*labelInfo
	labelOrder []string
	opaque     map[*node]bool
	fake       map[int64]bool     // storages of fake tensors
	aliased    map[*ir.Value]bool // results that are an input returned again (in-place ops)
}

// slot is one recorded input or output: value, shape, type, strides.
type slot struct {
	value, shape, stride json.RawMessage
	typ                  string
}

func (s side) slots() []slot {
	out := make([]slot, len(s.Values))
	for i := range s.Values {
		out[i] = slot{value: s.Values[i], typ: at(s.Types, i)}
		if i < len(s.Shapes) {
			out[i].shape = s.Shapes[i]
		}
		if i < len(s.Strides) {
			out[i].stride = s.Strides[i]
		}
	}
	return out
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return ""
}

// call adds a top-level ATen call.
func (b *builder) call(n *node) error {
	tgt, schema := target(n)
	var op ir.OpSchema
	if b.opts.Lookup != nil {
		op = b.opts.Lookup(tgt)
	}
	if op == nil && schema != nil {
		op = &ops.Op{Schema: schema} // the trace's schema: arity and aliasing, no meta rule
	}
	if b.opts.Lookup != nil && b.opts.Lookup(tgt) == nil && !b.warned[tgt] {
		b.warned[tgt] = true
		b.warn(n.Line, "unknown-op", fmt.Sprintf("op %s is not in kiln's registry; kept as an opaque node typed from the trace", tgt))
	}
	ins := n.In.slots()
	var args []ir.Arg
	var kwargs []ir.Kwarg
	inKeys := map[tkey]bool{}
	for i, s := range ins {
		var p *ops.Param
		if schema != nil && i < len(schema.Params) {
			p = &schema.Params[i]
		}
		a, err := b.arg(n, s, p, inKeys)
		if err != nil {
			return err
		}
		switch {
		case p != nil && p.KwOnly:
			if a.Kind == ir.ArgNone && p.Default == "None" {
				continue // FX prints no defaulted keyword
			}
			kwargs = append(kwargs, ir.Kwarg{Name: p.Name, Arg: a})
		default:
			args = append(args, a)
		}
	}
	if op != nil {
		names := make([]string, len(kwargs))
		for i, k := range kwargs {
			names[i] = k.Name
		}
		if err := op.CheckCall(len(args), names); err != nil {
			b.warn(n.Line, "et-schema", fmt.Sprintf("%s: the recorded arguments do not fit kiln's schema (%v); kept as an opaque node", tgt, err))
			op = nil
		}
	}
	outs := flatten(n.Out.slots())
	base := tgt[strings.Index(tgt, "::")+2:]
	base, _, _ = strings.Cut(base, ".")
	node := b.g.NewNode(b.fresh(base), tgt, ir.FormOp, args, kwargs, max(1, len(outs)))
	node.Op, node.Pos = op, b.pos(n.Line)
	b.bindOutputs(node, outs, inKeys)
	b.g.Append(node)
	return nil
}

// flatten expands list outputs (split returns Tensor[]) into one slot each.
func flatten(ss []slot) []slot {
	var out []slot
	for _, s := range ss {
		if !strings.HasPrefix(s.typ, "GenericList[") {
			out = append(out, s)
			continue
		}
		var vals, shapes, strides []json.RawMessage
		_ = json.Unmarshal(s.value, &vals)
		_ = json.Unmarshal(s.shape, &shapes)
		_ = json.Unmarshal(s.stride, &strides)
		types := splitTypes(s.typ)
		for i := range vals {
			e := slot{value: vals[i], typ: at(types, i)}
			if i < len(shapes) {
				e.shape = shapes[i]
			}
			if i < len(strides) {
				e.stride = strides[i]
			}
			out = append(out, e)
		}
	}
	return out
}

func (b *builder) bindOutputs(node *ir.Node, outs []slot, inKeys map[tkey]bool) {
	if len(node.Results) > 1 {
		for i, r := range node.Results {
			r.Name = fmt.Sprintf("%s_out%d", node.Name, i)
		}
	}
	for i, s := range outs {
		if !strings.HasPrefix(s.typ, "Tensor") {
			continue // a scalar result: typed by fakeprop
		}
		k, t, err := b.tensor(s)
		if err != nil {
			b.warn(node.Pos.Line, "et-value", fmt.Sprintf("%s: output %d: %v", node.Name, i, err))
			continue
		}
		r := node.Results[i]
		r.Type, r.Annot = t, t
		b.res.Stats.Annotated++
		if inKeys[k] {
			if b.aliased == nil {
				b.aliased = map[*ir.Value]bool{}
			}
			b.aliased[r] = true // in-place: later readers of the tensor read the input, as in eager code
			continue
		}
		b.values[k] = r
		b.noteStorage(k, r)
	}
}

// noteStorage remembers the first value seen in each storage.
func (b *builder) noteStorage(k tkey, v *ir.Value) {
	if b.storages == nil {
		b.storages = map[int64]*ir.Value{}
	}
	if b.storages[k.storage] == nil {
		b.storages[k.storage] = v
	}
}

// arg converts one recorded input, guided by the schema parameter when known.
func (b *builder) arg(n *node, s slot, p *ops.Param, inKeys map[tkey]bool) (ir.Arg, error) {
	typ := s.typ
	switch {
	case typ == "None" || string(s.value) == `"<None>"`:
		return ir.NoneArg(), nil
	case strings.HasPrefix(typ, "Tensor"):
		k, t, err := b.tensor(s)
		if err != nil {
			return ir.Arg{}, b.errAt(n, err)
		}
		inKeys[k] = true
		return ir.ValueArg(b.lookup(n, k, t)), nil
	case strings.HasPrefix(typ, "GenericList["):
		var vals, shapes, strides []json.RawMessage
		if err := json.Unmarshal(s.value, &vals); err != nil {
			return ir.Arg{}, b.errAt(n, err)
		}
		_ = json.Unmarshal(s.shape, &shapes)
		_ = json.Unmarshal(s.stride, &strides)
		types := splitTypes(typ)
		elems := make([]ir.Arg, len(vals))
		for i := range vals {
			e := slot{value: vals[i], typ: at(types, i)}
			if i < len(shapes) {
				e.shape = shapes[i]
			}
			if i < len(strides) {
				e.stride = strides[i]
			}
			a, err := b.arg(n, e, elemParam(p), inKeys)
			if err != nil {
				return ir.Arg{}, err
			}
			elems[i] = a
		}
		return ir.ListArg(elems...), nil
	case typ == "Int":
		var i int64
		if err := json.Unmarshal(s.value, &i); err != nil {
			return ir.Arg{}, b.errAt(n, err)
		}
		return intArg(i, p), nil
	case typ == "Double":
		var f float64
		if err := json.Unmarshal(s.value, &f); err != nil {
			return ir.Arg{}, b.errAt(n, err)
		}
		return ir.FloatArg(f), nil
	case typ == "Bool":
		var v bool
		if err := json.Unmarshal(s.value, &v); err != nil {
			return ir.Arg{}, b.errAt(n, err)
		}
		return ir.BoolArg(v), nil
	case typ == "Device":
		var d string
		_ = json.Unmarshal(s.value, &d)
		if dev, err := ir.ParseDevice(d); err == nil {
			return ir.DeviceArg(dev), nil
		}
	}
	var str string
	if json.Unmarshal(s.value, &str) == nil {
		return ir.StringArg(str), nil
	}
	if !b.warned["type:"+typ] {
		b.warned["type:"+typ] = true
		b.warn(n.Line, "et-value", fmt.Sprintf("%s: argument of type %q kept as None", n.Name, typ))
	}
	return ir.NoneArg(), nil
}

func elemParam(p *ops.Param) *ops.Param {
	if p == nil {
		return nil
	}
	e := *p
	e.Type.List = false
	return &e
}

// c10::ScalarType, c10::Layout and c10::MemoryFormat by their enum values:
// the observer records these arguments as Int.
var scalarTypes = []string{"uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex32",
	"complex64", "complex128", "bool", "qint8", "quint8", "qint32", "bfloat16", "quint4x2", "quint2x4", "bits1x8",
	"bits2x4", "bits4x2", "bits8", "bits16", "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
	"uint16", "uint32", "uint64"}
var layouts = []string{"strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged"}
var memoryFormats = []string{"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"}

func intArg(i int64, p *ops.Param) ir.Arg {
	if p == nil || i < 0 {
		return ir.IntArg(i)
	}
	switch p.Type.Base {
	case ops.TScalarType:
		if int(i) < len(scalarTypes) {
			if dt, ok := ir.DTypeFromName(scalarTypes[i]); ok {
				return ir.DTypeArg(dt)
			}
		}
	case ops.TLayout:
		if int(i) < len(layouts) {
			return ir.EnumArg(layouts[i])
		}
	case ops.TMemoryFormat:
		if int(i) < len(memoryFormats) {
			return ir.EnumArg(memoryFormats[i])
		}
	}
	return ir.IntArg(i)
}

// splitTypes reads the element types of "GenericList[Tensor(float),Int]".
func splitTypes(t string) []string {
	inner := strings.TrimSuffix(strings.TrimPrefix(t, "GenericList["), "]")
	var out []string
	depth, start := 0, 0
	for i, c := range inner {
		switch c {
		case '[', '(', '<':
			depth++
		case ']', ')', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, inner[start:i])
				start = i + 1
			}
		}
	}
	if inner != "" {
		out = append(out, inner[start:])
	}
	return out
}

// lookup returns the value holding tensor k, or a new graph input of type t.
func (b *builder) lookup(n *node, k tkey, t ir.Type) *ir.Value {
	if v, ok := b.values[k]; ok {
		return v
	}
	v := b.g.AddInput(b.fresh(fmt.Sprintf("t%d", k.tensor)), t, b.pos(n.Line))
	v.Annot = t
	b.res.Stats.Inputs++
	if other := b.storages[k.storage]; other != nil {
		b.res.Diags = append(b.res.Diags, diag.Diagnostic{Severity: diag.Remark, Code: "et-view", Pos: b.pos(n.Line),
			Message: fmt.Sprintf("input %s shares storage %d with %s: a view made where the trace does not show it (offset %s)",
				v.Name, k.storage, other.Name, offsetOf(t))})
	}
	b.values[k] = v
	b.noteStorage(k, v)
	return v
}

func offsetOf(t ir.Type) string {
	if t.Kind == ir.KindTensor {
		return t.Tensor.Offset.String()
	}
	return "?"
}

// etDTypes maps the observer's element type names (c10's) to torch names.
var etDTypes = map[string]string{
	"float": "float32", "double": "float64", "c10::Half": "float16", "c10::BFloat16": "bfloat16",
	"long int": "int64", "long": "int64", "int": "int32", "short int": "int16", "short": "int16",
	"signed char": "int8", "unsigned char": "uint8", "bool": "bool", "c10::complex<float>": "complex64",
	"c10::complex<double>": "complex128", "c10::complex<c10::Half>": "complex32",
	"c10::Float8_e4m3fn": "float8_e4m3fn", "c10::Float8_e5m2": "float8_e5m2",
	"c10::Float8_e4m3fnuz": "float8_e4m3fnuz", "c10::Float8_e5m2fnuz": "float8_e5m2fnuz",
	"unsigned short": "uint16", "unsigned int": "uint32", "unsigned long": "uint64",
	"float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16", "int64": "int64", "int32": "int32",
}

var tensorTypeRe = regexp.MustCompile(`^Tensor\((.*)\)$`)

// tensor reads a tensor slot: its key and its recorded type.
func (b *builder) tensor(s slot) (tkey, ir.Type, error) {
	var tup []json.RawMessage
	if err := json.Unmarshal(s.value, &tup); err != nil || len(tup) < 5 {
		return tkey{}, ir.Type{}, fmt.Errorf("tensor value %s is not [id, storage, offset, numel, itemsize, device]", clip(string(s.value)))
	}
	var k tkey
	var off int64
	if json.Unmarshal(tup[0], &k.tensor) != nil || json.Unmarshal(tup[1], &k.storage) != nil || json.Unmarshal(tup[2], &off) != nil {
		return tkey{}, ir.Type{}, fmt.Errorf("tensor value %s has non-integer ids", clip(string(s.value)))
	}
	m := tensorTypeRe.FindStringSubmatch(s.typ)
	name := ""
	if m != nil {
		name = etDTypes[m[1]]
	}
	dt, ok := ir.DTypeFromName(name)
	if !ok {
		return k, ir.Type{}, fmt.Errorf("element type %q", s.typ)
	}
	var shape, stride []int64
	if err := json.Unmarshal(s.shape, &shape); err != nil {
		return k, ir.Type{}, fmt.Errorf("shape %s", clip(string(s.shape)))
	}
	tt := &ir.TensorType{DType: dt, Offset: sym.Const(off)}
	for _, d := range shape {
		tt.Shape = append(tt.Shape, sym.Const(d))
	}
	if len(s.stride) > 0 && json.Unmarshal(s.stride, &stride) == nil && len(stride) == len(shape) {
		tt.Strides = []sym.Expr{}
		for _, d := range stride {
			tt.Strides = append(tt.Strides, sym.Const(d))
		}
	}
	if len(tup) >= 6 {
		var dev string
		if json.Unmarshal(tup[5], &dev) == nil {
			if d, err := ir.ParseDevice(dev); err == nil {
				tt.Device = d
			}
		}
	}
	return k, ir.TensorOf(tt), nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

func (b *builder) errAt(n *node, err error) error {
	return diag.Errorf(b.pos(n.Line), "parse", "", "node %d (%s): %v", n.ID, n.Name, err)
}

func (b *builder) pos(line int) diag.Pos { return diag.Pos{File: b.file, Line: line, Col: 1} }

func (b *builder) fresh(base string) string {
	k := b.namer[base]
	b.namer[base]++
	if k == 0 {
		return base
	}
	return fmt.Sprintf("%s_%d", base, k)
}

// setOutputs returns what no recorded call consumed, in order.
func (b *builder) setOutputs() {
	var outs []ir.Arg
	for _, n := range b.g.Nodes {
		for _, r := range n.Results {
			if len(r.Users()) == 0 && !b.aliased[r] && r.Type.Kind == ir.KindTensor {
				outs = append(outs, ir.ValueArg(r))
			}
		}
	}
	if len(outs) == 0 {
		last := b.g.Nodes[len(b.g.Nodes)-1]
		for _, r := range last.Results {
			outs = append(outs, ir.ValueArg(r))
		}
	}
	b.g.SetOutputs(outs)
}
