// Package conformance replays the cases PyTorch recorded for its OpInfo
// samples (tools/conformance/gen.py, testdata/conformance/) through kiln:
// fakeprop must give every node the type PyTorch's fake tensors gave it,
// and interp must compute the values eager PyTorch computed.
package conformance

import (
	"bufio"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/fakeprop"
)

// Header is the first line of the data: who produced it.
type Header struct {
	Format     int    `json:"format"`
	Torch      string `json:"torch"`
	Generator  string `json:"generator"`
	Regenerate string `json:"regenerate"`
}

// Case is one traced sample.
type Case struct {
	Name    string            `json:"case"` // "add/f32/0", "add/f32/0/grad", "add/error/0"
	Op      string            `json:"op"`   // the OpInfo: "add", "nn.functional.conv2d"
	FX      string            `json:"fx"`   // make_fx's print_readable, strides and devices included
	Offsets map[string]int64  `json:"offsets"`
	Inputs  []Stored          `json:"inputs"` // real inputs, when small enough to record values
	Consts  map[string]Stored `json:"consts"` // tensors make_fx lifted into module attributes
	Values  map[string]Stored `json:"values"` // eager value of each node ("name" or "name[i]")
	Forced  []string          `json:"forced"` // random or uninitialized nodes: their values are given, not compared
	Skip    string            `json:"skip"`   // why PyTorch could not trace the sample
	Error   *struct {
		Type string `json:"type"`
		Msg  string `json:"msg"`
	} `json:"error"` // what PyTorch raised for an error input
}

// Stored is a tensor's bytes: for inputs the whole storage with the view's
// sizes, strides and offset; for values the contiguous elements.
type Stored struct {
	DType   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Strides []int64 `json:"strides"`
	Offset  int64   `json:"offset"`
	Data    string  `json:"data"`
}

// Read reads the gzipped JSON-lines data.
func Read(r io.Reader) (Header, []Case, error) {
	var h Header
	zr, err := gzip.NewReader(r)
	if err != nil {
		return h, nil, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var cases []Case
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				return h, nil, fmt.Errorf("header: %w", err)
			}
			continue
		}
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return h, nil, fmt.Errorf("line %d: %w", line+1, err)
		}
		cases = append(cases, c)
	}
	return h, cases, sc.Err()
}

// Tensor rebuilds a stored tensor.
func (s Stored) Tensor() (*interp.Tensor, error) {
	dt, ok := ir.DTypeFromAbbr(s.DType)
	if !ok {
		return nil, fmt.Errorf("dtype %q", s.DType)
	}
	data, err := base64.StdEncoding.DecodeString(s.Data)
	if err != nil {
		return nil, err
	}
	strides := s.Strides
	if strides == nil {
		strides = interp.ContiguousStrides(s.Shape)
	}
	t := &interp.Tensor{DType: dt, Shape: s.Shape, Strides: strides, Offset: s.Offset,
		Storage: &interp.Storage{Data: data, Device: ir.CPU}}
	return t, nil
}

// NodeResult is what kiln made of one node of a case.
type NodeResult struct {
	Node, Target string
	Typed        bool   // every annotated result typed exactly
	TypeWhy      string // why not
	HasValue     bool   // PyTorch recorded a value for it
	ValueOK      bool
	ValueWhy     string
}

// Replay runs one case through fakeprop and, when it has inputs, interp.
func Replay(c *Case) ([]NodeResult, error) {
	res, err := fx.Parse(c.Name+".fx", []byte(c.FX), fx.Options{Lookup: ops.LookupSchema})
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if len(res.Module.Graphs) != 1 {
		return nil, fmt.Errorf("parse: %d graphs", len(res.Module.Graphs))
	}
	g := res.Module.Graphs[0]
	for _, v := range g.Inputs {
		if off := c.Offsets[v.Name]; off != 0 && v.Type.Kind == ir.KindTensor {
			t := v.Type.Tensor.Clone()
			t.Offset = sym.Const(off)
			v.Type = ir.TensorOf(t)
		}
	}
	for _, n := range g.Nodes {
		for _, v := range n.Results {
			v.Type = ir.Type{}
		}
	}
	// make_fx(tracing_mode="fake") gives nonzero & co. unbacked sizes, and
	// raises on .item(): capture_dynamic_output_shape_ops on, scalars off.
	ctx := passes.NewContext(passes.Config{CaptureDynamicOutputShapeOps: true})
	p, err := passes.Parse("fakeprop{keep-going;no-check}")
	if err != nil {
		return nil, err
	}
	_, runErr := p.Steps[0].Pass.Run(ctx, g)
	why := map[string]string{}
	for _, d := range ctx.Diags.Items {
		if d.Node == "" {
			continue
		}
		switch {
		case d.Code == fakeprop.RemarkFromAnnotation:
			why[d.Node] = "no inference: " + d.Message
		case d.Severity >= 2 && why[d.Node] == "":
			why[d.Node] = "fakeprop error " + d.Code + ": " + d.Message
		}
	}
	out := make([]NodeResult, 0, len(g.Nodes))
	index := map[*ir.Value]int{}
	for _, n := range g.Nodes {
		if n.Form == ir.FormGetAttr {
			continue // a constant make_fx lifted: given, like an input
		}
		r := NodeResult{Node: n.Name, Target: n.Target, Typed: true}
		for i, v := range n.Results {
			index[v] = len(out)
			if !v.Annot.IsKnown() {
				continue
			}
			key := v.Name
			if key == "" {
				key = fmt.Sprintf("%s[%d]", n.Name, i)
			}
			if w := why[n.Name]; w != "" {
				r.Typed, r.TypeWhy = false, w
				break
			}
			if !fakeprop.Agrees(v.Annot, v.Type) {
				r.Typed, r.TypeWhy = false, fmt.Sprintf("PyTorch %s, kiln %s", v.Annot, v.Type)
				break
			}
			if v.Type.Kind == ir.KindTensor && !sym.Equal(v.Type.Tensor.Offset, sym.Const(c.Offsets[key])) {
				r.Typed, r.TypeWhy = false, fmt.Sprintf("storage offset: PyTorch %d, kiln %s", c.Offsets[key], v.Type.Tensor.Offset)
				break
			}
		}
		if runErr != nil && r.Typed && why[n.Name] == "" && len(n.Results) > 0 && n.Results[0].Type.Kind == ir.KindUnknown {
			r.Typed, r.TypeWhy = false, "fakeprop stopped: "+runErr.Error()
		}
		out = append(out, r)
	}
	if c.Inputs != nil {
		replayValues(c, g, out, index)
	}
	return out, nil
}

// replayValues runs the graph in interp on PyTorch's inputs and compares
// every recorded value.
func replayValues(c *Case, g *ir.Graph, out []NodeResult, index map[*ir.Value]int) {
	byNode := map[string]*ir.Node{}
	for _, n := range g.Nodes {
		byNode[n.Name] = n
	}
	forced := map[string]bool{}
	for _, name := range c.Forced {
		forced[name] = true
	}
	want := map[*ir.Value]Stored{}
	for key, s := range c.Values {
		name, i := key, 0
		if b := strings.IndexByte(key, '['); b >= 0 {
			name = key[:b]
			fmt.Sscanf(key[b:], "[%d]", &i)
		}
		var v *ir.Value
		if n := byNode[name]; n != nil && i < len(n.Results) {
			v = n.Results[i]
		} else {
			v = findValue(g, name)
		}
		if v != nil {
			want[v] = s
			// Random numbers (kiln's generator is not PyTorch's) and
			// uninitialized memory are not compared; kiln goes on with
			// PyTorch's values so what is computed from them is.
			out[index[v]].HasValue = !forced[name]
		}
	}
	inputs := make([]any, len(c.Inputs))
	for i, s := range c.Inputs {
		t, err := s.Tensor()
		if err != nil {
			markValues(out, "bad input: "+err.Error())
			return
		}
		inputs[i] = t
	}
	attrs := map[string]any{}
	for name, s := range c.Consts {
		t, err := s.Tensor()
		if err != nil {
			markValues(out, "bad constant: "+err.Error())
			return
		}
		attrs[name] = t
	}
	// Each kernel is checked on PyTorch's inputs: a node that fails or
	// disagrees is given PyTorch's value, so one miss does not hide the
	// nodes after it.
	expect := func(v *ir.Value) *interp.Tensor {
		s, ok := want[v]
		if !ok {
			return nil
		}
		t, err := s.Tensor()
		if err != nil {
			return nil
		}
		return t
	}
	opts := interp.Options{Attrs: attrs}
	opts.Substitute = func(n *ir.Node, err error) []any {
		msg := err.Error()
		if j := strings.IndexByte(msg, '\n'); j >= 0 {
			msg = msg[:j]
		}
		sub := make([]any, len(n.Results))
		for i, v := range n.Results {
			out[index[v]].ValueWhy = "interp: " + msg
			if w := expect(v); w != nil {
				sub[i] = w
			} else {
				sub = nil // nothing to go on with: the run stops here
				break
			}
		}
		return sub
	}
	opts.Observe = func(n *ir.Node, outs []any) []any {
		// A node agrees when every result PyTorch recorded agrees: the
		// first that does not is the node's reason.
		alignGauge(n, outs, expect)
		failed := false
		for i, v := range n.Results {
			w := expect(v)
			if w == nil || i >= len(outs) {
				continue
			}
			r := &out[index[v]]
			if !r.HasValue {
				outs[i] = w
				continue
			}
			got, ok := outs[i].(*interp.Tensor)
			why := ""
			switch {
			case !ok:
				why = fmt.Sprintf("interp gave %T", outs[i])
			default:
				if m := interp.CompareTensors(w, got, interp.DefaultTolerance(w.DType)); m != nil {
					why = "value: " + m.String()
				}
			}
			if why == "" {
				r.ValueOK = !failed
				continue
			}
			if !failed {
				r.ValueWhy = why
				if len(n.Results) > 1 {
					r.ValueWhy = fmt.Sprintf("result %d: %s", i, why)
				}
			}
			failed, r.ValueOK = true, false
			outs[i] = w
		}
		return outs
	}
	if _, err := interp.Run(g, inputs, opts); err != nil {
		msg := err.Error()
		if j := strings.IndexByte(msg, '\n'); j >= 0 {
			msg = msg[:j]
		}
		for i := range out {
			if out[i].HasValue && !out[i].ValueOK && out[i].ValueWhy == "" {
				out[i].ValueWhy = "not run: " + msg
			}
		}
	}
}

// alignGauge turns kiln's singular vectors (_linalg_svd's U, Vh) and
// eigenvectors (_linalg_eigh's, linalg_eig's) into the gauge of PyTorch's
// before they are compared. PyTorch documents these as not unique
// (torch.linalg.svd: "determined up to sign/phase"; torch.linalg.eigh and
// torch.linalg.eig: eigenvectors "are not unique", up to a phase): kiln's
// kernels and LAPACK's gesdd/syevd/geev pick different signs. For
// linalg.eig PyTorch also documents that "the returned eigenvalues are
// not guaranteed to be in any specific order": kiln's are permuted into
// PyTorch's order (each to the nearest PyTorch value), never changed. The alignment (interp.AlignSVD, interp.AlignEigh) only
// multiplies each group of columns by the unitary that maps kiln's basis
// onto PyTorch's, which reproduces PyTorch's vectors exactly only when
// kiln's span the same subspaces (and, for the SVD, U and V turn
// together); singular values, eigenvalues and every other op, including
// pinv, polar and matrix_sqrth built on these decompositions, are
// compared as computed.
func alignGauge(n *ir.Node, outs []any, expect func(*ir.Value) *interp.Tensor) {
	want := func(i int) *interp.Tensor {
		if i >= len(n.Results) {
			return nil
		}
		return expect(n.Results[i])
	}
	got := func(i int) *interp.Tensor {
		if i >= len(outs) {
			return nil
		}
		t, _ := outs[i].(*interp.Tensor)
		return t
	}
	switch n.Target {
	case "aten::_linalg_svd.default":
		if u, vh := got(0), got(2); u != nil && vh != nil {
			outs[0], outs[2] = interp.AlignSVD(want(0), want(1), want(2), u, vh)
		}
	case "aten::_linalg_eigh.default":
		if v := got(1); v != nil {
			outs[1] = interp.AlignEigh(want(0), want(1), v)
		}
	case "aten::linalg_eig.default":
		if w, v := got(0), got(1); w != nil && v != nil {
			outs[0], outs[1] = interp.AlignEig(want(0), want(1), w, v)
		}
	}
}

func markValues(out []NodeResult, why string) {
	for i := range out {
		if out[i].HasValue {
			out[i].ValueWhy = why
		}
	}
}

func findValue(g *ir.Graph, name string) *ir.Value {
	for _, n := range g.Nodes {
		for _, v := range n.Results {
			if v.Name == name {
				return v
			}
		}
	}
	return nil
}
