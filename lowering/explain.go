package lowering

import "github.com/kiln-compiler/kiln/diag"

// The story behind no-lowering (`kiln explain no-lowering`).
func init() {
	diag.RegisterExplanation(CodeNoLowering, `no-lowering: kiln cannot turn this node into loop kernels, so
the graph stops before code generation (the pass dumps are still written). The message says why:
- an op with no lowering rule: decompose it first (the default compile pipeline runs the decompose
  pass; see passes/decompose/table.go for what it rewrites) or add a rule in lowering/rules_*.go;
- a custom or higher-order op (mylib::foo, auto_functionalized): kiln has its shape rule at most,
  never its kernel;
- a data-dependent op (.item(), nonzero): Inductor breaks the graph there too;
- a collective, or a tensor constant (get_attr) whose data the printout does not carry: pass it as
  an input;
- an input with no type: annotate it ("x: f32[4, 3]") so its buffer can be sized.
The loop IR of the graphs that do lower is in graphN.ir_pre_fusion.txt / ir_post_fusion.txt.`)
}
