// Package vmap batches a graph the way torch.vmap does: the graph is the
// per-example function, the options name which inputs are batched, along
// which dimension, and the batch size (a batched input's type gains a dim
// of that size at its in_dim), and the pass rewrites every op that
// touches a batched value with its batching rule (functorch's
// BatchRules*.cpp): the batch dimension is moved to the front of every
// batched value, ranks are padded for broadcasting, dimension arguments
// are shifted past it, unbatched operands are expanded where an op needs
// all of them batched, and outputs are moved to out_dims.
//
// An in-place op whose self is unbatched while another argument is
// batched fails with code vmap-inplace and PyTorch's message, at the op's
// line; a batched self with unbatched others is fine. Running
// functionalize first removes such in-place ops.
//
// Remarks (code "vmap") say where each batch dimension came from and
// moved to.
package vmap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/build"
)

// Diagnostic codes.
const (
	CodeInplace     = "vmap-inplace"     // in-place op on an unbatched self with a batched argument
	CodeUnsupported = "vmap-unsupported" // no batching rule
	CodeItem        = "vmap-item"        // .item() / data-dependent op on a batched tensor
	CodeRandom      = "vmap-random"      // random op in randomness="error" mode
	CodeOptions     = "vmap-options"     // in_dims / out_dims do not fit the graph
	RemarkVmap      = "vmap"
)

func init() {
	passes.Register(passes.Info{
		Name:    "vmap",
		Summary: "batch the graph over some inputs, like torch.vmap: batching rules per op family, batch dims moved to the front",
		Options: []passes.OptionInfo{
			{Name: "in_dims", Doc: "per input, comma-separated: None (not batched) or the dim of the batched input that holds the batch (0 to rank, negative counts from the end of the batched input, as torch.vmap's in_dims); a single int applies to every tensor input; default 0. Example: vmap{in_dims=None,0;size=3}"},
			{Name: "size", Doc: "the batch size (required): batched inputs gain a dimension of this size at their in_dim"},
			{Name: "out_dims", Doc: "per output, comma-separated, where the batch dimension goes (default 0); a single value applies to every output; None only for an unbatched output. Unbatched outputs are expanded to the batch, as torch.vmap does"},
		},
		Requires: []passes.Requirement{{Pass: "fakeprop",
			Reason: "batching rules read each value's per-example rank and shape, and size-1 dims for squeeze"}},
		Stage: ir.StageTyped,
		New:   newPass,
	})
}

// Pass is the vmap pass.
type Pass struct {
	inDims  []DimSpec
	outDims []DimSpec
	size    int64
}

// DimSpec is one entry of in_dims/out_dims: a dimension, or None.
type DimSpec struct {
	None bool
	Dim  int64
}

func (d DimSpec) String() string {
	if d.None {
		return "None"
	}
	return strconv.FormatInt(d.Dim, 10)
}

func newPass(o passes.Options) (passes.Pass, error) {
	p := &Pass{}
	var err error
	if p.inDims, err = parseDims("in_dims", o.Get("in_dims", "0")); err != nil {
		return nil, err
	}
	if p.outDims, err = parseDims("out_dims", o.Get("out_dims", "0")); err != nil {
		return nil, err
	}
	s := o.Get("size", "")
	if s == "" {
		return nil, fmt.Errorf("vmap needs the batch size: vmap{in_dims=...;size=N}")
	}
	if p.size, err = strconv.ParseInt(s, 10, 64); err != nil || p.size < 1 {
		return nil, fmt.Errorf("vmap: size must be a positive integer, got %q", s)
	}
	return p, nil
}

func parseDims(name, text string) ([]DimSpec, error) {
	var out []DimSpec
	for _, part := range strings.Split(strings.Trim(text, "()[] "), ",") {
		part = strings.TrimSpace(part)
		if part == "None" {
			out = append(out, DimSpec{None: true})
			continue
		}
		d, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("vmap: %s: %q is neither an int nor None", name, part)
		}
		out = append(out, DimSpec{Dim: d})
	}
	return out, nil
}

// InDims, OutDims and Size are the pass's options, as parsed (a single
// entry applies to every input or output).
func (p *Pass) InDims() []DimSpec  { return p.inDims }
func (p *Pass) OutDims() []DimSpec { return p.outDims }
func (p *Pass) Size() int64        { return p.size }

// Name is "vmap".
func (*Pass) Name() string { return "vmap" }

// Run batches g.
func (p *Pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	v := newVM(ctx, g, p.size)
	outs, err := v.run(p)
	if err != nil {
		v.b.Undo.Restore()
		return false, err
	}
	v.b.Finish(outs)
	return true, nil
}

func (v *vm) run(p *Pass) ([]ir.Arg, error) {
	if err := v.inputs(p.inDims); err != nil {
		return nil, err
	}
	for _, n := range v.g.Nodes {
		v.ctx.At(n)
		v.cur = n
		v.b.At(n)
		if err := v.node(n); err != nil {
			return nil, v.diagnose(err)
		}
	}
	v.cur = nil
	return v.outputs(p.outDims)
}

// vm is one batching of one graph.
type vm struct {
	ctx *passes.Context
	g   *ir.Graph
	b   *build.Builder
	B   int64
	// By original value id: the value that replaces it (nil: itself),
	// whether it is batched (batch dim at the front), and its type in the
	// per-example graph.
	val     []*ir.Value
	batched []bool
	ptype   []ir.Type
	cur     *ir.Node
	notes   []string // what the current node's rule did, for its remark
}

func newVM(ctx *passes.Context, g *ir.Graph, size int64) *vm {
	nv := g.NumValueIDs()
	v := &vm{ctx: ctx, g: g, b: build.NewBuilder(g), B: size,
		val: make([]*ir.Value, nv), batched: make([]bool, nv), ptype: make([]ir.Type, nv)}
	for _, x := range g.Values() {
		v.ptype[x.ID] = x.Type
	}
	v.preInplaceViewTypes()
	return v
}

// preInplaceViewTypes recovers the per-example type a value has before an
// in-place view op (transpose_, unsqueeze_) re-shapes it: fakeprop leaves
// such a value with its final metadata, so its defining node's meta rule
// is run again. node() then follows each in-place op's result type.
func (v *vm) preInplaceViewTypes() {
	env := ops.NewEnv(v.g)
	for _, n := range v.g.Nodes {
		op, _ := n.Op.(*ops.Op)
		if op == nil || op.Kind != ops.KindView || !op.IsInplace() || len(n.Args) == 0 || n.Args[0].Kind != ir.ArgValue {
			continue
		}
		x := n.Args[0].Value
		if x.IsInput() {
			if x.Annot.Kind == ir.KindTensor {
				v.ptype[x.ID] = x.Annot
			}
			continue
		}
		dop, _ := x.Def.Op.(*ops.Op)
		if dop == nil || dop.Meta == nil {
			continue
		}
		if c, err := ops.Bind(x.Def); err == nil {
			if types, err := dop.Meta(env, c); err == nil && x.Index < len(types) {
				v.ptype[x.ID] = types[x.Index]
			}
		}
	}
}

// diagnose turns a batched call that does not type-check into a
// CodeUnsupported error at the node being batched.
func (v *vm) diagnose(err error) error {
	var te *build.TypeError
	if errors.As(err, &te) {
		return v.unsupported("%s: the batched call %v", v.cur.Name, te)
	}
	return err
}

// graphRemark is a remark about the graph's inputs or outputs, at its
// def line.
func (v *vm) graphRemark(format string, args ...any) {
	v.ctx.Diags.Add(diag.Diagnostic{Severity: diag.Remark, Code: RemarkVmap, Pass: "vmap", Pos: v.g.Pos, Message: fmt.Sprintf(format, args...)})
}

// optionsError is a CodeOptions error at the graph's def line.
func (v *vm) optionsError(format string, args ...any) error {
	return diag.Errorf(v.g.Pos, CodeOptions, "in_dims and out_dims take one entry per input and output (or a single int for all)", format, args...)
}
