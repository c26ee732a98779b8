// Package graphgen writes large, realistic FX graphs for benchmarks:
// transformer-like blocks of matmuls, views, reductions and pointwise chains,
// optionally with a symbolic batch size, as FX readable text.
package graphgen

import (
	"fmt"
	"strings"
)

// Config shapes a generated graph.
type Config struct {
	Nodes    int  // approximate number of op nodes
	Hidden   int  // model width (default 64)
	Symbolic bool // batch size is the symbol s0 instead of 8
	// Mutating adds in-place ops through views (for functionalization).
	Mutating bool
	// SharedWeights makes Blocks' layers share one set of weights (an
	// unrolled weight-tied model): the forward signature stays short at
	// a million nodes, where 200k weights make one 7 MB line.
	SharedWeights bool
}

// Transformer returns FX text of roughly cfg.Nodes nodes: repeated
// layer-norm → matmul → softmax-ish → residual blocks, each ~20 nodes.
func Transformer(cfg Config) string {
	h := cfg.Hidden
	if h == 0 {
		h = 64
	}
	// batch is the size as annotations print it; batchArg as arguments
	// spell it (a SymInt input, when symbolic).
	batch, batchArg := "8", "8"
	if cfg.Symbolic {
		batch, batchArg = "s0", "arg3_1"
	}
	w := &writer{}
	w.line("class GraphModule(torch.nn.Module):")
	params := fmt.Sprintf(`arg0_1: "f32[%s, %d]", arg1_1: "f32[%d, %d]", arg2_1: "f32[%d]"`, batch, h, h, h, h)
	if cfg.Symbolic {
		params = `arg3_1: "Sym(s0)", ` + params
	}
	w.line("    def forward(self, " + params + "):")
	x := "arg0_1"
	for w.count < cfg.Nodes {
		x = block(w, x, batch, batchArg, h, cfg.Mutating)
	}
	w.line("        return (" + x + ",)")
	return w.String()
}

type writer struct {
	strings.Builder
	count int
	names map[string]int
}

func (w *writer) line(s string) { w.WriteString(s + "\n") }

// node appends one statement and returns its fresh name.
func (w *writer) node(base, ann, call string) string {
	if w.names == nil {
		w.names = map[string]int{}
	}
	name := base
	if k := w.names[base]; k > 0 {
		name = fmt.Sprintf("%s_%d", base, k)
	}
	w.names[base]++
	w.count++
	w.line(fmt.Sprintf("        %s: \"%s\" = %s", name, ann, call))
	return name
}

func block(w *writer, x, b, bArg string, h int, mutating bool) string {
	t2 := fmt.Sprintf("f32[%s, %d]", b, h)
	mean := w.node("mean", fmt.Sprintf("f32[%s, 1]", b), fmt.Sprintf("torch.ops.aten.mean.dim(%s, [1], True)", x))
	sub := w.node("sub", t2, fmt.Sprintf("torch.ops.aten.sub.Tensor(%s, %s)", x, mean))
	mul := w.node("mul", t2, fmt.Sprintf("torch.ops.aten.mul.Tensor(%s, %s)", sub, sub))
	v := w.node("mean", fmt.Sprintf("f32[%s, 1]", b), fmt.Sprintf("torch.ops.aten.mean.dim(%s, [1], True)", mul))
	add := w.node("add", fmt.Sprintf("f32[%s, 1]", b), fmt.Sprintf("torch.ops.aten.add.Tensor(%s, 1e-05)", v))
	rs := w.node("rsqrt", fmt.Sprintf("f32[%s, 1]", b), fmt.Sprintf("torch.ops.aten.rsqrt.default(%s)", add))
	norm := w.node("mul", t2, fmt.Sprintf("torch.ops.aten.mul.Tensor(%s, %s)", sub, rs))
	scaled := w.node("mul", t2, fmt.Sprintf("torch.ops.aten.mul.Tensor(%s, arg2_1)", norm))
	perm := w.node("permute", fmt.Sprintf("f32[%d, %d]", h, h), "torch.ops.aten.permute.default(arg1_1, [1, 0])")
	mm := w.node("mm", t2, fmt.Sprintf("torch.ops.aten.mm.default(%s, %s)", scaled, perm))
	view := w.node("view", fmt.Sprintf("f32[%s, %d, %d]", b, h/4, 4), fmt.Sprintf("torch.ops.aten.view.default(%s, [%s, %d, 4])", mm, bArg, h/4))
	amax := w.node("amax", fmt.Sprintf("f32[%s, %d, 1]", b, h/4), fmt.Sprintf("torch.ops.aten.amax.default(%s, [2], True)", view))
	sub2 := w.node("sub", fmt.Sprintf("f32[%s, %d, 4]", b, h/4), fmt.Sprintf("torch.ops.aten.sub.Tensor(%s, %s)", view, amax))
	exp := w.node("exp", fmt.Sprintf("f32[%s, %d, 4]", b, h/4), fmt.Sprintf("torch.ops.aten.exp.default(%s)", sub2))
	sum := w.node("sum", fmt.Sprintf("f32[%s, %d, 1]", b, h/4), fmt.Sprintf("torch.ops.aten.sum.dim_IntList(%s, [2], True)", exp))
	div := w.node("div", fmt.Sprintf("f32[%s, %d, 4]", b, h/4), fmt.Sprintf("torch.ops.aten.div.Tensor(%s, %s)", exp, sum))
	flat := w.node("view", t2, fmt.Sprintf("torch.ops.aten.view.default(%s, [%s, %d])", div, bArg, h))
	if mutating {
		sl := w.node("slice", fmt.Sprintf("f32[%s, %d]", b, h/2), fmt.Sprintf("torch.ops.aten.slice.Tensor(%s, 1, 0, %d)", flat, h/2))
		w.node("add_", fmt.Sprintf("f32[%s, %d]", b, h/2), fmt.Sprintf("torch.ops.aten.add_.Tensor(%s, 1)", sl))
	}
	gelu := w.node("gelu", t2, fmt.Sprintf("torch.ops.aten.gelu.default(%s)", flat))
	return w.node("add", t2, fmt.Sprintf("torch.ops.aten.add.Tensor(%s, %s)", x, gelu))
}
