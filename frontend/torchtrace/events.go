package torchtrace

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Diagnostic codes of the reader.
const (
	CodeCompileFailed        = "compile-failed"
	CodeMissingFakeKernel    = "missing-fake-kernel"
	CodeMismatchedFakeKernel = "mismatched-fake-kernel"
)

func init() {
	diag.RegisterExplanation(CodeCompileFailed, `A TORCH_TRACE log recorded a failed compile: compilation_metrics (or
bwd_compilation_metrics) carries fail_type and fail_reason, or a dynamo_error artifact holds the
traceback. kiln reports PyTorch's own message at the metrics line; the graphs the log does hold
(for instance Dynamo's graph before AOTAutograd failed) are still read.`)
	diag.RegisterExplanation(CodeMissingFakeKernel, `A custom op ran without a fake (meta) kernel while PyTorch propagated
real tensors (torch.export.draft_export, or generate_fake_kernels_from_real_mismatches); PyTorch
inferred its output from the real run. Register one with @torch.library.register_fake (in kiln:
a -custom-ops file) or torch.compile will fail on it.`)
	diag.RegisterExplanation(CodeMismatchedFakeKernel, `A custom op's fake kernel disagreed with its real kernel (shape,
dtype, strides or aliasing) while PyTorch propagated real tensors; the reason is PyTorch's.
Fix the fake kernel: compiled code is planned from what the fake kernel says.`)
}

// ConfigKeys are the Dynamo settings the reader takes from a log: they
// decide what fakeprop accepts (kiln's -capture-* flags).
var ConfigKeys = []string{"capture_scalar_outputs", "capture_dynamic_output_shape_ops"}

// inputDesc is what describe_tensor and describe_source say about one graph input.
type inputDesc struct {
	source string // L['x']
	tensor tensorDesc
	line   int
}

type tensorDesc struct {
	ID            int    `json:"id"`
	Describer     int    `json:"describer_id"`
	DType         string `json:"dtype"`
	Device        string `json:"device"`
	Size          []any  `json:"size"`
	Stride        []any  `json:"stride"`
	StorageOffset any    `json:"storage_offset"`
}

func (r *reader) describeTensor(e *event) {
	var t tensorDesc
	if json.Unmarshal(e.meta, &t) != nil {
		return
	}
	r.descs[e.compileID()] = append(r.descs[e.compileID()], inputDesc{tensor: t, line: e.line})
}

func (r *reader) describeSource(e *event) {
	var s struct {
		ID        int    `json:"id"`
		Describer int    `json:"describer_id"`
		Source    string `json:"source"`
	}
	if json.Unmarshal(e.meta, &s) != nil {
		return
	}
	ds := r.descs[e.compileID()]
	for i := range ds {
		if ds[i].tensor.ID == s.ID && ds[i].tensor.Describer == s.Describer {
			ds[i].source = s.Source
		}
	}
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// placeholderName is Dynamo's name for a source: L['x'] → L_x_.
func placeholderName(source string) string { return nonAlnum.ReplaceAllString(source, "_") }

// applyDescs gives g's inputs what describe_tensor recorded and the graph
// text does not say: the storage offset (FX annotations print none), or the
// whole type of an unannotated input.
func (r *reader) applyDescs(id string, g *ir.Graph) {
	byName := map[string]*inputDesc{}
	for i, d := range r.descs[id] {
		if d.source != "" {
			byName[placeholderName(d.source)] = &r.descs[id][i]
		}
	}
	if len(byName) == 0 {
		return
	}
	for _, v := range g.Inputs {
		d := byName[v.Name]
		if d == nil {
			d = byName[strings.ToUpper(v.Name[:1])+v.Name[1:]] // Dynamo's body names l_x_ for input L_x_
		}
		if d == nil {
			continue
		}
		if r.describe(v, d.tensor) {
			r.res.Stats.Described++
		}
	}
}

func (r *reader) describe(v *ir.Value, t tensorDesc) bool {
	off, ok := exprOf(t.StorageOffset)
	if !v.Type.IsKnown() {
		typ, err := descType(t)
		if err != nil {
			return false
		}
		v.Type, v.Annot = typ, typ
		return true
	}
	if v.Type.Kind != ir.KindTensor || !ok {
		return false
	}
	if c, isConst := off.Const(); isConst && c == 0 {
		return false
	}
	tt := v.Type.Tensor.Clone()
	tt.Offset = off
	v.Type = ir.TensorOf(tt)
	if v.Annot.Kind == ir.KindTensor {
		at := v.Annot.Tensor.Clone()
		at.Offset = off
		v.Annot = ir.TensorOf(at)
	}
	return true
}

func descType(t tensorDesc) (ir.Type, error) {
	dt, ok := ir.DTypeFromName(strings.TrimPrefix(t.DType, "torch."))
	if !ok {
		return ir.Type{}, fmt.Errorf("dtype %q", t.DType)
	}
	tt := &ir.TensorType{DType: dt, Offset: sym.Const(0)}
	for _, s := range t.Size {
		e, ok := exprOf(s)
		if !ok {
			return ir.Type{}, fmt.Errorf("size %v", s)
		}
		tt.Shape = append(tt.Shape, e)
	}
	for _, s := range t.Stride {
		e, ok := exprOf(s)
		if !ok {
			return ir.Type{}, fmt.Errorf("stride %v", s)
		}
		tt.Strides = append(tt.Strides, e)
	}
	if off, ok := exprOf(t.StorageOffset); ok {
		tt.Offset = off
	}
	if dev, err := ir.ParseDevice(deviceName(t.Device)); err == nil {
		tt.Device = dev
	}
	return ir.TensorOf(tt), nil
}

// deviceName turns "device(type='cuda', index=0)" into "cuda:0".
func deviceName(s string) string {
	m := regexp.MustCompile(`type='(\w+)'(?:, index=(\d+))?`).FindStringSubmatch(s)
	if m == nil {
		return s
	}
	if m[2] != "" {
		return m[1] + ":" + m[2]
	}
	return m[1]
}

// exprOf reads a size: a JSON number or a symbolic string ("s0").
func exprOf(v any) (sym.Expr, bool) {
	switch x := v.(type) {
	case nil:
		return sym.Const(0), true
	case float64:
		return sym.Const(int64(x)), x == float64(int64(x))
	case string:
		e, err := sym.Parse(x)
		return e, err == nil
	}
	return sym.Expr{}, false
}

// metrics reports a compile that failed.
func (r *reader) metrics(e *event) {
	var m struct {
		DynamoConfig *string `json:"dynamo_config"`
		CompileID    *string `json:"compile_id"`
		FailType     *string `json:"fail_type"`
		FailReason   *string `json:"fail_reason"`
		File         *string `json:"fail_user_frame_filename"`
		Line         *int    `json:"fail_user_frame_lineno"`
	}
	if json.Unmarshal(e.meta, &m) != nil {
		return
	}
	if m.DynamoConfig != nil {
		var cfg map[string]any
		if json.Unmarshal([]byte(*m.DynamoConfig), &cfg) == nil {
			for _, k := range ConfigKeys {
				if on, _ := cfg[k].(bool); on {
					r.res.Config[k] = true
				}
			}
		}
	}
	if m.FailType == nil {
		return
	}
	r.failed[e.compileID()] = true
	reason := ""
	if m.FailReason != nil {
		reason = *m.FailReason
	}
	first, rest, _ := strings.Cut(reason, "\n")
	what := "torch.compile"
	if e.kind == "bwd_compilation_metrics" {
		what = "the backward compile"
	}
	msg := fmt.Sprintf("%s of %s failed: %s: %s", what, e.compileID(), *m.FailType, first)
	var hint []string
	for _, l := range strings.Split(rest, "\n") {
		l = strings.TrimSpace(l)
		if after, ok := strings.CutPrefix(l, "Explanation:"); ok {
			msg += " (" + strings.TrimSpace(after) + ")"
		}
		if after, ok := strings.CutPrefix(l, "Hint:"); ok && len(hint) < 2 {
			hint = append(hint, strings.TrimSpace(after))
		}
	}
	if m.File != nil && m.Line != nil {
		hint = append(hint, fmt.Sprintf("the user frame is %s:%d", *m.File, *m.Line))
	}
	r.res.Diags = append(r.res.Diags, diag.Diagnostic{Severity: diag.Error, Code: CodeCompileFailed, Pos: r.pos(e.line, 1),
		Message: msg, Hint: strings.Join(hint, "; ")})
}

func (r *reader) fakeKernel(e *event) {
	var m struct{ Op, Reason string }
	_ = json.Unmarshal(e.meta, &m)
	d := diag.Diagnostic{Severity: diag.Warning, Pos: r.pos(e.line, 1)}
	if e.kind == "missing_fake_kernel" {
		d.Code = CodeMissingFakeKernel
		d.Message = fmt.Sprintf("custom op %s has no fake kernel; PyTorch inferred its output from the real run", m.Op)
		d.Hint = "register one with @torch.library.register_fake, or torch.compile fails on this op"
	} else {
		d.Code = CodeMismatchedFakeKernel
		d.Message = fmt.Sprintf("the fake kernel of %s disagrees with its real kernel: %s", m.Op, strings.TrimSpace(m.Reason))
		d.Hint = "fix the fake kernel: compiled code is planned from what it returns"
	}
	r.res.Diags = append(r.res.Diags, d)
}
