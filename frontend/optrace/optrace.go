// Package optrace reads dispatcher op traces — one JSON object per line, as
// a TorchDispatchMode logger writes them — into kiln's SSA IR.
//
// Each line is one op call:
//
//	{"op": "aten::add.Tensor", "args": [{"tensor": "t0"}, 1.0], "kwargs": {"alpha": 1},
//	 "outputs": [{"tensor": "t1", "dtype": "f32", "shape": [4, 3], "stride": [3, 1], "device": "cpu"}],
//	 "file": "model.py", "line": 12}
//
// or the graph's end: {"return": [{"tensor": "t1"}]} (without it, the last
// call's outputs are returned). Tensors are named by id; an id never produced
// by an earlier call is a graph input, typed from the metadata given where it
// first appears (dtype, shape, stride, storage_offset, device). Other
// argument forms: numbers, booleans, null, strings, lists, {"dtype":
// "torch.float32"}, {"device": "cuda:0"}, {"sym": "s0"}, {"enum":
// "contiguous_format"}. Method spellings that users log (Tensor.to,
// Tensor.cpu, Tensor.cuda, Tensor.item, Tensor.copy_) map to the ATen ops
// they dispatch to.
package optrace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
)

// Options configure parsing.
type Options struct {
	// Lookup resolves canonical op names to registry entries (nil: opaque).
	Lookup func(target string) ir.OpSchema
}

// record is one trace line.
type record struct {
	Op      string            `json:"op"`
	Args    []json.RawMessage `json:"args"`
	Kwargs  json.RawMessage   `json:"kwargs"`
	Outputs []json.RawMessage `json:"outputs"`
	Return  []json.RawMessage `json:"return"`
	File    string            `json:"file"`
	Line    int               `json:"line"`
}

// tensorRef is a tensor argument or output.
type tensorRef struct {
	Tensor        string `json:"tensor"`
	DType         string `json:"dtype"`
	Shape         []any  `json:"shape"`
	Stride        []any  `json:"stride"`
	StorageOffset any    `json:"storage_offset"`
	Device        string `json:"device"`
}

type builder struct {
	file     string
	opts     Options
	g        *ir.Graph
	values   map[string]*ir.Value
	namer    map[string]int
	last     *ir.Node
	returned bool
	warnings []diag.Diagnostic
	warned   map[string]bool
	cur      []byte // the line being read, for error columns
	curLine  int
}

// Parse reads a trace. Malformed lines give a positioned *diag.Diagnostic
// with code "parse".
func Parse(file string, src []byte, opts Options) (*ir.Module, []diag.Diagnostic, error) {
	b := &builder{file: file, opts: opts, g: ir.NewGraph("GraphModule"), values: map[string]*ir.Value{},
		namer: map[string]int{}, warned: map[string]bool{}}
	b.g.Pos = diag.Pos{File: file, Line: 1, Col: 1}
	for i, line := range bytes.Split(src, []byte("\n")) {
		text := bytes.TrimSpace(line)
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		if b.returned {
			return nil, nil, b.errorf(i+1, 1, "a call after the return line", "the return line ends the trace", string(text))
		}
		if err := b.line(i+1, text); err != nil {
			return nil, nil, err
		}
	}
	if !b.returned {
		if b.last == nil {
			return nil, nil, b.errorf(1, 1, "the trace holds no op call", "each line is a JSON object with an \"op\" field", "")
		}
		var outs []ir.Arg
		for _, r := range b.last.Results {
			outs = append(outs, ir.ValueArg(r))
		}
		b.g.SetOutputs(outs)
	}
	b.g.Renumber()
	return &ir.Module{File: file, Graphs: []*ir.Graph{b.g}}, b.warnings, nil
}

func (b *builder) errorf(line, col int, msg, hint, quote string) error {
	if col == 1 && quote != "" && line == b.curLine {
		// Point at the offending JSON value, not at the line's start.
		if i := bytes.Index(b.cur, []byte(quote)); i > 0 {
			col = i + 1
		}
	}
	if len(quote) > 60 {
		quote = quote[:60] + "..."
	}
	if quote != "" {
		msg += ": `" + quote + "`"
	}
	return diag.Errorf(diag.Pos{File: b.file, Line: line, Col: col}, "parse", hint, "%s", msg)
}

func (b *builder) line(num int, text []byte) error {
	b.cur, b.curLine = text, num
	var rec record
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		col := 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			col = int(se.Offset)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			col = int(te.Offset)
		}
		return b.errorf(num, max(col, 1), "malformed trace line: "+jsonMessage(err), "each line is one JSON object: {\"op\": ..., \"args\": [...], \"outputs\": [...]}", string(text))
	}
	if rec.Return != nil {
		return b.returnLine(num, rec)
	}
	if rec.Op == "" {
		return b.errorf(num, 1, "trace line has no \"op\"", "name the op: \"op\": \"aten::add.Tensor\"", string(text))
	}
	return b.call(num, rec, string(text))
}

func (b *builder) returnLine(num int, rec record) error {
	for _, raw := range rec.Return {
		var ref tensorRef
		if json.Unmarshal(raw, &ref) == nil && ref.Tensor != "" {
			if _, ok := b.values[ref.Tensor]; !ok {
				return b.errorf(num, 1, fmt.Sprintf("the return line names tensor %q, which no earlier line produced or used", ref.Tensor),
					"return the id of a tensor an op call produced (its \"outputs\")", "")
			}
		}
	}
	outs := make([]ir.Arg, len(rec.Return))
	for i, raw := range rec.Return {
		a, err := b.arg(num, raw)
		if err != nil {
			return err
		}
		outs[i] = a
	}
	b.g.SetOutputs(outs)
	b.returned = true
	return nil
}

// methodOps maps logged Tensor methods to the ATen ops they dispatch to.
var methodOps = map[string]string{
	"Tensor.to": "aten::_to_copy.default", "Tensor.cpu": "aten::_to_copy.default",
	"Tensor.cuda": "aten::_to_copy.default", "Tensor.item": "aten::_local_scalar_dense.default",
	"Tensor.copy_": "aten::copy_.default",
}

var opNameRe = regexp.MustCompile(`^\w+::\w+(\.\w+)?$`)

func (b *builder) call(num int, rec record, text string) error {
	target, ok := methodOps[rec.Op]
	if !ok {
		target = strings.TrimPrefix(rec.Op, "torch.ops.")
		if !strings.Contains(target, "::") && strings.Count(target, ".") >= 1 {
			ns, rest, _ := strings.Cut(target, ".")
			target = ns + "::" + rest
		}
	}
	if !opNameRe.MatchString(target) {
		return b.errorf(num, 1, fmt.Sprintf("malformed op name %q", rec.Op), "ops are named ns::op.overload (aten::add.Tensor)", text)
	}
	args := make([]ir.Arg, len(rec.Args))
	for i, raw := range rec.Args {
		a, err := b.arg(num, raw)
		if err != nil {
			return err
		}
		args[i] = a
	}
	kwargs, err := b.kwargs(num, rec.Kwargs)
	if err != nil {
		return err
	}
	args, kwargs = methodArgs(rec.Op, args, kwargs)
	return b.addNode(num, rec, target, args, kwargs)
}

// methodArgs rewrites method spellings into their ATen argument lists.
func methodArgs(method string, args []ir.Arg, kwargs []ir.Kwarg) ([]ir.Arg, []ir.Kwarg) {
	switch method {
	case "Tensor.cpu":
		return args[:min(1, len(args))], append(kwargs, ir.Kwarg{Name: "device", Arg: ir.DeviceArg(ir.CPU)})
	case "Tensor.cuda":
		return args[:min(1, len(args))], append(kwargs, ir.Kwarg{Name: "device", Arg: ir.DeviceArg(ir.CUDA(0))})
	case "Tensor.to":
		// to(device) / to(dtype) positional forms become keywords of _to_copy.
		out := args[:min(1, len(args))]
		for _, a := range args[min(1, len(args)):] {
			switch a.Kind {
			case ir.ArgDevice:
				kwargs = append(kwargs, ir.Kwarg{Name: "device", Arg: a})
			case ir.ArgDType:
				kwargs = append(kwargs, ir.Kwarg{Name: "dtype", Arg: a})
			}
		}
		return out, kwargs
	}
	return args, kwargs
}

func (b *builder) addNode(num int, rec record, target string, args []ir.Arg, kwargs []ir.Kwarg) error {
	var schema ir.OpSchema
	if b.opts.Lookup != nil {
		schema = b.opts.Lookup(target)
	}
	pos := diag.Pos{File: b.file, Line: num, Col: 1}
	if schema == nil && !b.warned[target] {
		b.warned[target] = true
		b.warnings = append(b.warnings, diag.Diagnostic{Severity: diag.Warning, Code: "unknown-op", Pos: pos,
			Message: fmt.Sprintf("op %s is not in kiln's registry; kept as an opaque node", target)})
	}
	if schema != nil {
		names := make([]string, len(kwargs))
		for i, k := range kwargs {
			names[i] = k.Name
		}
		if err := schema.CheckCall(len(args), names); err != nil {
			return b.errorf(num, 1, err.Error(), "a call's args and kwargs must fit the op's schema", "")
		}
	}
	if err := limits.Check("output count", int64(len(rec.Outputs)), limits.Results, ""); err != nil {
		return b.errorf(num, 1, err.Error(), err.(*limits.Error).Hint(), "")
	}
	base := target[strings.Index(target, "::")+2:]
	base, _, _ = strings.Cut(base, ".")
	n := b.g.NewNode(b.fresh(base), target, ir.FormOp, args, kwargs, max(1, len(rec.Outputs)))
	n.Op, n.Pos = schema, pos
	if rec.File != "" {
		n.Stack = fmt.Sprintf("# File: %s:%d", rec.File, rec.Line)
	}
	if len(n.Results) > 1 {
		for i, r := range n.Results {
			r.Name = fmt.Sprintf("%s_out%d", n.Name, i)
		}
	}
	for i, raw := range rec.Outputs {
		if err := b.bindOutput(num, n.Results[i], raw); err != nil {
			return err
		}
	}
	b.g.Append(n)
	b.last = n
	return nil
}

// bindOutput types a result from its metadata and names its tensor id. An
// id that already exists (an in-place op returning self) keeps referring to
// the original value, as in eager code.
func (b *builder) bindOutput(num int, v *ir.Value, raw json.RawMessage) error {
	var ref tensorRef
	err := json.Unmarshal(raw, &ref)
	if len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{' && err != nil {
		// An object is a tensor's metadata: a wrong field type is an error,
		// not a scalar output.
		return b.errorf(num, 1, "malformed output: "+jsonMessage(err), "outputs are {\"tensor\": id, \"dtype\": ..., \"shape\": [...]}", string(raw))
	}
	if err != nil || ref.Tensor == "" {
		return nil // a scalar output: untyped until fakeprop
	}
	t, err := b.tensorType(num, ref)
	if err != nil {
		return err
	}
	v.Type, v.Annot = t, t
	if _, exists := b.values[ref.Tensor]; !exists {
		b.values[ref.Tensor] = v
	}
	return nil
}

func (b *builder) fresh(base string) string {
	k := b.namer[base]
	b.namer[base]++
	if k == 0 {
		return base
	}
	return fmt.Sprintf("%s_%d", base, k)
}
