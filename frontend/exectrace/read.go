// Package exectrace reads PyTorch Execution Traces (ExecutionTraceObserver,
// the MLCommons Chakra schema, 1.0.x and 1.1.x) into one SSA graph: the
// top-level ATen calls become nodes, tensor ids link producers to consumers,
// recorded shapes, dtypes and strides become annotations that fakeprop
// checks, and everything else (labels, profiler steps, compiled regions,
// kernel launches) becomes remarks, or opaque nodes where tensors flow
// through it.
//
// Layouts. 1.1.x (PyTorch ≥ 2.4): a node has "ctrl_deps" (its parent),
// "inputs"/"outputs" objects with "values", "shapes", "types", "strides",
// and an "attrs" list ({"name": "op_schema", "value": ...}). 1.0.x: "parent",
// flat "inputs", "input_shapes", "input_types" (and outputs alike) and the
// attributes as top-level fields. A tensor value is
// [tensor_id, storage_id, storage_offset, numel, itemsize, device].
package exectrace

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
)

// node is one Execution Trace node, in either layout.
type node struct {
	ID       int
	Name     string
	Parent   int
	Schema   string // op_schema
	Kernel   string // kernel_backend (a kernel launch: "triton", ...)
	In, Out  side
	Line     int // line of the node's opening brace in the (inflated) file
	children []*node
	parent   *node
}

type side struct {
	Values  []json.RawMessage
	Shapes  []json.RawMessage
	Types   []string
	Strides []json.RawMessage
}

type trace struct {
	schema string
	nodes  []*node
	byID   map[int]*node
}

// decode reads the file, keeping each node's line.
func decode(file string, src []byte) (*trace, error) {
	lines := newlineIndex(src)
	dec := json.NewDecoder(bytes.NewReader(src))
	bad := func(msg string, off int64) error {
		line, col := lines.pos(off)
		return diag.Errorf(diag.Pos{File: file, Line: line, Col: col}, "parse",
			"an Execution Trace is one JSON object with \"schema\" and \"nodes\" (torch.profiler.ExecutionTraceObserver)", "%s", msg)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad("not a JSON object", dec.InputOffset())
	}
	t := &trace{byID: map[int]*node{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err.Error(), dec.InputOffset())
		}
		switch tok {
		case "schema":
			if err := dec.Decode(&t.schema); err != nil {
				return nil, bad("schema: "+err.Error(), dec.InputOffset())
			}
		case "nodes":
			if err := t.decodeNodes(dec, lines, bad); err != nil {
				return nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, bad(err.Error(), dec.InputOffset())
			}
		}
	}
	if t.schema == "" {
		return nil, bad("no \"schema\" field", 0)
	}
	t.link()
	return t, nil
}

func (t *trace) decodeNodes(dec *json.Decoder, lines newlines, bad func(string, int64) error) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return bad("\"nodes\" is not a list", dec.InputOffset())
	}
	for dec.More() {
		start := dec.InputOffset()
		var raw map[string]json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return bad("node: "+err.Error(), dec.InputOffset())
		}
		n, err := parseNode(raw)
		if err != nil {
			return bad(err.Error(), start)
		}
		n.Line, _ = lines.pos(lines.skipSpace(start))
		if _, dup := t.byID[n.ID]; dup {
			return bad("two nodes with id "+itoa(n.ID), start)
		}
		t.byID[n.ID] = n
		t.nodes = append(t.nodes, n)
	}
	_, err := dec.Token() // ]
	if err != nil {
		return bad(err.Error(), dec.InputOffset())
	}
	return nil
}

// link sorts nodes by id (the order calls started) and builds the tree.
func (t *trace) link() {
	sort.Slice(t.nodes, func(i, j int) bool { return t.nodes[i].ID < t.nodes[j].ID })
	for _, n := range t.nodes {
		if p := t.byID[n.Parent]; p != nil && p != n {
			n.parent = p
			p.children = append(p.children, n)
		}
	}
	// A hostile trace may make parents a cycle: cut it where the walk from a
	// node meets the node again (more steps than nodes is a cycle too).
	for _, n := range t.nodes {
		steps := 0
		for p := n.parent; p != nil; p = p.parent {
			if p == n || steps > len(t.nodes) {
				n.parent = nil
				break
			}
			steps++
		}
	}
}

// parseNode reads either layout.
func parseNode(raw map[string]json.RawMessage) (*node, error) {
	n := &node{}
	if err := json.Unmarshal(raw["id"], &n.ID); err != nil {
		return nil, errorf("node without an integer \"id\"")
	}
	_ = json.Unmarshal(raw["name"], &n.Name)
	parent := raw["ctrl_deps"]
	if parent == nil {
		parent = raw["parent"]
	}
	_ = json.Unmarshal(parent, &n.Parent)
	attrs := map[string]json.RawMessage{}
	var list []struct {
		Name  string
		Value json.RawMessage
	}
	if json.Unmarshal(raw["attrs"], &list) == nil {
		for _, a := range list {
			attrs[a.Name] = a.Value
		}
	}
	if s, ok := raw["op_schema"]; ok {
		attrs["op_schema"] = s
	}
	_ = json.Unmarshal(attrs["op_schema"], &n.Schema)
	if k, ok := raw["kernel_backend"]; ok {
		attrs["kernel_backend"] = k
	}
	_ = json.Unmarshal(attrs["kernel_backend"], &n.Kernel)
	var err error
	if n.In, err = readSide(raw, "inputs", "input"); err != nil {
		return nil, errorf("node %d inputs: %v", n.ID, err)
	}
	if n.Out, err = readSide(raw, "outputs", "output"); err != nil {
		return nil, errorf("node %d outputs: %v", n.ID, err)
	}
	return n, nil
}

// readSide reads inputs or outputs: nested (1.1.x) or flat (1.0.x).
func readSide(raw map[string]json.RawMessage, key, flat string) (side, error) {
	var s side
	v := bytes.TrimSpace(raw[key])
	if len(v) > 0 && v[0] == '{' {
		var nested struct {
			Values  []json.RawMessage `json:"values"`
			Shapes  []json.RawMessage `json:"shapes"`
			Types   []string          `json:"types"`
			Strides []json.RawMessage `json:"strides"`
		}
		err := json.Unmarshal(v, &nested)
		return side(nested), err
	}
	if len(v) > 0 {
		if err := json.Unmarshal(v, &s.Values); err != nil {
			return s, err
		}
	}
	_ = json.Unmarshal(raw[flat+"_shapes"], &s.Shapes)
	_ = json.Unmarshal(raw[flat+"_types"], &s.Types)
	_ = json.Unmarshal(raw[flat+"_strides"], &s.Strides)
	return s, nil
}

// newlines maps byte offsets to line:col.
type newlines struct {
	src []byte
	nl  []int
}

func newlineIndex(src []byte) newlines {
	var nl []int
	for i, c := range src {
		if c == '\n' {
			nl = append(nl, i)
		}
	}
	return newlines{src: src, nl: nl}
}

func (l newlines) skipSpace(off int64) int64 {
	for int(off) < len(l.src) && strings.ContainsRune(" \t\r\n,", rune(l.src[off])) {
		off++
	}
	return off
}

func (l newlines) pos(off int64) (line, col int) {
	i := sort.SearchInts(l.nl, int(off))
	start := 0
	if i > 0 {
		start = l.nl[i-1] + 1
	}
	return i + 1, int(off) - start + 1
}
