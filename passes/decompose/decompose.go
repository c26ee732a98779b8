// Package decompose rewrites composite ATen ops into the core ops that
// lowering handles, the way AOTAutograd's decomposition table
// (torch/_decomp/decompositions.py, torch/_refs, torch/_inductor/
// decomposition.py) does before Inductor sees a graph: softmax becomes
// amax/sub/exp/sum/div, layer norm becomes var_mean/rsqrt/sub/mul, gelu
// becomes erf or tanh arithmetic, linear becomes permute + addmm, and so on.
//
// Every decomposition is one row of the table in table.go, next to the ops
// deliberately left whole and why. A decomposition is built with the
// registry's meta rules, so every node it makes is typed; the values that
// replace the original's results must have the original's type (dtype,
// shape, strides, device), or the node stays whole with a warning. Reduced
// floats compute in float32 where PyTorch's decomposition does
// (elementwise_dtypes / pw_cast_for_opmath) and are cast back.
//
// Remarks: "decompose" names each node decomposed and what it became;
// "decompose-kept" names a node with a decomposition that stayed whole
// (a training batch norm, a non-float softmax) and why.
package decompose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// Diagnostic codes.
const (
	RemarkDecomposed = "decompose"
	RemarkKept       = "decompose-kept"
	// CodeFailed warns that a decomposition did not type-check or did not
	// reproduce the op's type; the node stays whole. It is a kiln bug or a
	// disagreement between a meta rule and PyTorch's decomposition.
	CodeFailed = "decompose-failed"
)

func init() {
	passes.Register(passes.Info{
		Name:    "decompose",
		Summary: "rewrite composite ops (softmax, layer/batch norm, gelu, matmul, linear, clamp, ...) into core ops, after torch/_decomp",
		Requires: []passes.Requirement{
			{Pass: "fakeprop", Reason: "decompositions branch on dtypes, ranks, devices and strides, and type every node they build"},
			{Pass: "functionalize", Reason: "decompositions are functional rewrites, as in AOTAutograd: a mutation between the pieces would change what they read"},
		},
		Options: []passes.OptionInfo{
			{Name: "sdpa", Doc: "fallback (default): keep _scaled_dot_product_flash_attention_for_cpu whole, as Inductor's CPU backend does " +
				"(torch/_inductor/decomposition.py decomps_to_exclude; lowering.py make_fallback), for the extern kernel; " +
				"math: its core ATen decomposition into the math path (torch/_decomp/decompositions.py, what torch.export's run_decompositions applies)"},
		},
		Stage: ir.StageFunctional,
		New:   newPass,
	})
}

// Pass is the decompose pass.
type Pass struct {
	// sdpaMath takes the flash attention op's math decomposition
	// (option sdpa=math) instead of keeping it whole.
	sdpaMath bool
}

func newPass(o passes.Options) (passes.Pass, error) {
	switch v := o.Get("sdpa", "fallback"); v {
	case "fallback":
		return Pass{}, nil
	case "math":
		return Pass{sdpaMath: true}, nil
	default:
		return nil, fmt.Errorf("option sdpa=%q: want fallback or math", v)
	}
}

// Name is "decompose".
func (Pass) Name() string { return "decompose" }

// decomposer is one run over one graph.
type decomposer struct {
	ctx   *passes.Context
	g     *ir.Graph
	env   *ops.Env
	names *ir.Namer
	// oldStorage is the largest storage id the graph held before the pass;
	// larger ones are fresh allocations of the decompositions.
	oldStorage ir.StorageID
	sdpaMath   bool
}

// Run decomposes every node the table has a decomposition for, in one
// forward sweep: later nodes already read the replacements of earlier ones.
// A node a decomposition emits is decomposed too when it has a rule
// (masked_scatter emits _unsafe_masked_index, as PyTorch's decompositions
// emit ops with decompositions of their own), in a further sweep over the
// emitted nodes alone; an op that reappears below its own expansion is a
// loop in the table, an error.
func (p Pass) Run(ctx *passes.Context, g *ir.Graph) (bool, error) {
	d := &decomposer{ctx: ctx, g: g, env: ops.NewEnv(g), names: ir.NewNamer(g), oldStorage: maxStorage(g), sdpaMath: p.sdpaMath}
	d.env.ReserveStorage(d.oldStorage)
	changed := false
	// chains maps each node the last sweep emitted (and that has a rule) to
	// the ops whose expansion made it, outermost first; nil: the first sweep.
	var chains map[*ir.Node][]string
	for {
		out := make([]*ir.Node, 0, len(g.Nodes))
		next := map[*ir.Node][]string{}
		swept := false
		for _, n := range g.Nodes {
			chain, fresh := chains[n]
			r := ruleFor(n)
			if chains != nil && !fresh || r == nil || r.build == nil {
				out = append(out, n)
				continue
			}
			if slices.Contains(chain, n.Target) {
				return changed, fmt.Errorf("decompose %s: the decomposition of %s emits %s again (%s): the table loops",
					n.Name, chain[0], n.Target, strings.Join(append(chain, n.Target), " -> "))
			}
			ctx.At(n)
			nodes, ok := d.node(n, r)
			if !ok {
				out = append(out, n)
				continue
			}
			out = append(out, nodes...)
			swept = true
			sub := append(slices.Clip(chain), n.Target)
			for _, m := range nodes {
				if r := ruleFor(m); r != nil && r.build != nil {
					next[m] = sub
				}
			}
		}
		if swept {
			g.Nodes = out
			g.RebuildUses()
			changed = true
		}
		if len(next) == 0 {
			return changed, nil
		}
		chains = next
	}
}

func ruleFor(n *ir.Node) *Rule {
	if n.Form != ir.FormOp || n.Op == nil {
		return nil
	}
	return byOp[n.Target]
}

func maxStorage(g *ir.Graph) ir.StorageID {
	var m ir.StorageID
	for _, v := range g.Values() {
		if t := tensor(v); t != nil && t.Storage > m {
			m = t.Storage
		}
	}
	return m
}

// node builds n's decomposition and, when it holds, rewires n's users to
// it; it returns the nodes that replace n.
func (d *decomposer) node(n *ir.Node, r *Rule) ([]*ir.Node, bool) {
	if v := untypedInput(n); v != nil {
		d.ctx.Remark(n, RemarkKept, "%s (%s) kept whole: input %s has no type", n.Name, n.Target, v.Name)
		return nil, false
	}
	c, err := ops.Bind(n)
	if err != nil {
		d.ctx.Remark(n, RemarkKept, "%s (%s) kept whole: %v", n.Name, n.Target, err)
		return nil, false
	}
	e := &emitter{d: d, orig: n}
	results := r.build(e, c)
	if e.err == nil {
		results = d.finish(e, results)
	}
	if e.err != nil {
		releaseNames(d.names, e.taken)
		if why, ok := isKeepWhole(e.err); ok {
			d.ctx.Remark(n, RemarkKept, "%s (%s) kept whole: %s", n.Name, n.Target, why)
		} else {
			d.ctx.Warn(n, CodeFailed, "report this: the decomposition in passes/decompose disagrees with the op's meta rule",
				"%s (%s) kept whole: its decomposition failed: %v", n.Name, n.Target, e.err)
		}
		return nil, false
	}
	for i, res := range n.Results {
		if results[i] != nil {
			d.g.ReplaceAllUses(res, results[i])
		}
	}
	d.ctx.Remark(n, RemarkDecomposed, "%s (%s) became %s", n.Name, n.Target, opList(e.nodes))
	return e.nodes, true
}

func untypedInput(n *ir.Node) *ir.Value {
	var bad *ir.Value
	n.WalkInputs(func(v *ir.Value) {
		if bad == nil && !v.Type.IsKnown() {
			bad = v
		}
	})
	return bad
}

// opList names the ops of nodes in order: "amax, sub, exp, sum, div".
func opList(nodes []*ir.Node) string {
	if len(nodes) == 0 {
		return "its input (no new nodes)"
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Op.(*ops.Op).Schema.Name
	}
	return strings.Join(names, ", ")
}

// finish checks that every used result of the original has a replacement
// of the original's type. A replacement that differs only in strides from
// a contiguous original is made contiguous (as PyTorch's decompositions
// call .contiguous()); fresh storage takes the original's storage id, so
// views of the original keep sharing storage with their base.
func (d *decomposer) finish(e *emitter, results []*ir.Value) []*ir.Value {
	orig := e.orig.Results
	if len(results) < len(orig) {
		results = append(results, make([]*ir.Value, len(orig)-len(results))...)
	}
	for i, o := range orig {
		if o.NumUses() == 0 {
			results[i] = nil
			continue
		}
		if results[i] == nil {
			e.err = fmt.Errorf("result %d (%s) is used, but the decomposition does not produce it", i, o.Name)
			return nil
		}
		results[i] = e.match(o, results[i])
		if e.err != nil {
			return nil
		}
		d.adoptStorage(e, o, results[i])
	}
	return results
}

// match returns v, or v made contiguous, when it has o's type.
func (e *emitter) match(o, v *ir.Value) *ir.Value {
	ot, vt := tensor(o), tensor(v)
	if ot == nil || vt == nil {
		e.err = fmt.Errorf("result %s is not a tensor", o.Name)
		return nil
	}
	if !ir.SameTensorType(ot, vt) && ops.IsContiguous(ot) && sameShapeDType(ot, vt) {
		v = e.call("aten::clone.default", []ir.Arg{val(v)}, kw("memory_format", ir.EnumArg("contiguous_format")))
		vt = tensor(v)
	}
	if e.err == nil && !ir.SameTensorType(ot, vt) {
		e.err = fmt.Errorf("it gives %s for %s, which PyTorch's op types %s", vt, o.Name, ot)
	}
	return v
}

func sameShapeDType(a, b *ir.TensorType) bool {
	return ir.SameTensorType(&ir.TensorType{DType: a.DType, Shape: a.Shape}, &ir.TensorType{DType: b.DType, Shape: b.Shape})
}

// adoptStorage gives the storage v's decomposition allocated the original
// result's id, on every new value living in it.
func (d *decomposer) adoptStorage(e *emitter, o, v *ir.Value) {
	want, got := tensor(o).Storage, tensor(v).Storage
	if want == 0 || got == want || got <= d.oldStorage {
		return
	}
	for _, n := range e.nodes {
		for _, r := range n.Results {
			if t := tensor(r); t != nil && t.Storage == got {
				t = t.Clone()
				t.Storage = want
				r.Type = ir.TensorOf(t)
			}
		}
	}
}
