package align

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/passes"
)

// Alignment constants, after torch/_inductor/utils.py and Inductor's memory
// planning.
const (
	// GPUAlignBytes is GPU_ALIGN_BYTES: the alignment assertions check and
	// vector accesses need.
	GPUAlignBytes = 16
	// AllocAlignBytes is the alignment of every buffer kiln allocates.
	AllocAlignBytes = 64
	// InputBaseAlignBytes is what kiln takes a graph input's storage base
	// to be aligned to: assert_alignment checks only the offset.
	InputBaseAlignBytes = GPUAlignBytes
	// MaxVectorBytes is the widest vector access (ld.global.v4.f32, 8×bf16).
	MaxVectorBytes = 16
)

// Attribute keys recorded on values (see the package doc).
const (
	AttrAlign = "align"
	AttrVec   = "vec"
)

// Codes of the diagnostics the pass reports.
const (
	CodeRemark     = "align"
	CodeMisaligned = "misaligned"
	CodeOption     = "align-option"
)

// Assume modes.
const (
	AssumeProved         = "proved"
	AssumeInputsAndViews = "inputs-and-views"
)

// Policies for misaligned graph inputs.
const (
	PolicyScalar = "scalar"
	PolicyCopy   = "copy"
)

func init() {
	passes.Register(passes.Info{
		Name:    "align",
		Summary: "alignment analysis: prove each buffer's alignment, pick vector widths, assert what is assumed",
		Options: []passes.OptionInfo{
			{Name: "assume", Doc: "proved (default): assume only what is proved; inputs-and-views: reproduce the old assumption that inputs and views are 16-byte aligned and report each assertion that would fail"},
			{Name: "misaligned-inputs", Doc: "scalar (default): unaligned (scalar) access to misaligned graph inputs; copy: a realigning copy before use (Inductor's copy_misaligned_inputs)"},
			{Name: "input-offsets", Doc: "the example inputs' storage offsets in elements, NAME:OFFSET[,NAME:OFFSET...] (default: the offset the input's type carries, 0 for a plain input)"},
		},
		Requires: []passes.Requirement{{Pass: "fakeprop", Reason: "storage offsets, strides and storages come from fake-tensor propagation"}},
		Stage:    ir.StageTyped,
		New:      newPass,
	})
}

// Pass is the alignment pass.
type Pass struct {
	assume  string
	policy  string
	offsets map[string]sym.Expr
	order   []string // input-offsets names in the order given
}

func newPass(o passes.Options) (passes.Pass, error) {
	p := &Pass{assume: o.Get("assume", AssumeProved), policy: o.Get("misaligned-inputs", PolicyScalar)}
	if p.assume != AssumeProved && p.assume != AssumeInputsAndViews {
		return nil, fmt.Errorf("assume=%q: want %s or %s", p.assume, AssumeProved, AssumeInputsAndViews)
	}
	if p.policy != PolicyScalar && p.policy != PolicyCopy {
		return nil, fmt.Errorf("misaligned-inputs=%q: want %s or %s", p.policy, PolicyScalar, PolicyCopy)
	}
	offsets, order, err := parseOffsets(o.Get("input-offsets", ""))
	if err != nil {
		return nil, err
	}
	p.offsets, p.order = offsets, order
	return p, nil
}

// New returns a pass with explicit settings, for callers outside a
// pipeline; offsets may be nil.
func New(assume, policy string, offsets map[string]sym.Expr) (*Pass, error) {
	p, err := newPass(passes.Options{"assume": assume, "misaligned-inputs": policy})
	if err != nil {
		return nil, err
	}
	pp := p.(*Pass)
	for name, e := range offsets {
		pp.offsets[name] = e
		pp.order = append(pp.order, name)
	}
	return pp, nil
}

// parseOffsets reads `arg0_1:1,arg1_1:2*s0`.
func parseOffsets(text string) (map[string]sym.Expr, []string, error) {
	out := map[string]sym.Expr{}
	var order []string
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, ":")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" || val == "" {
			return nil, nil, fmt.Errorf("input-offsets: %q is not NAME:OFFSET", item)
		}
		e, err := sym.Parse(val)
		if err != nil {
			return nil, nil, fmt.Errorf("input-offsets: %s: %w", name, err)
		}
		if e.IsBool() {
			return nil, nil, fmt.Errorf("input-offsets: %s: %q is not an integer", name, val)
		}
		if c, ok := e.Const(); ok && c < 0 {
			return nil, nil, fmt.Errorf("input-offsets: %s: a storage offset cannot be negative (%d)", name, c)
		}
		if _, dup := out[name]; dup {
			return nil, nil, fmt.Errorf("input-offsets: %s given twice", name)
		}
		out[name] = e
		order = append(order, name)
	}
	return out, order, nil
}

// Name is "align".
func (p *Pass) Name() string { return "align" }

// Run analyses g, rewrites it (realigning copies, assertions) and records
// the decisions on its values. It reports a change whenever g holds a
// tensor value, since it always records attributes then.
func (p *Pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	if err := p.checkOffsets(ctx, g); err != nil {
		return false, err
	}
	a := &analysis{p: p, ctx: ctx, g: g} // analyse makes the facts
	changed := a.realignInputs()
	a.analyse()
	changed = a.insertAssertions() || changed
	a.namer = nil // every name is taken by now: let the graph's name set go
	changed = a.record() || changed
	return changed, nil
}

// checkOffsets reports input-offsets that name no tensor input.
func (p *Pass) checkOffsets(ctx *passes.Context, g *ir.Graph) error {
	for _, name := range p.order {
		found := false
		for _, v := range g.Inputs {
			found = found || v.Name == name && v.Type.Kind == ir.KindTensor
		}
		if !found {
			return ctx.Errorf(nil, CodeOption, "name a tensor input of the graph (def forward(self, ...))",
				"input-offsets: the graph has no tensor input %s", name)
		}
	}
	return nil
}
