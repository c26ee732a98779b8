package aten

import "github.com/kiln-compiler/kiln/diag"

// The story behind aten-kept (`kiln explain aten-kept`).
func init() {
	diag.RegisterExplanation(CodeKept, `aten-kept: the aten pass left a Dynamo-level call (a torch function, a Tensor
method, a Python operator, x[i], x[i] = v) as it was, because it cannot say which ATen ops
AOTAutograd's trace would record for it. The warning names what is missing: a Python callable kiln
does not route (ops/torchapi.go), a Python function with no expansion (passes/aten/expand.go), a
mode or argument an expansion does not model (F.interpolate(mode='bilinear'), F.pad(mode='reflect')),
or a rewrite whose ATen ops would not reproduce the type fakeprop inferred. The graph stays typed;
lowering stops on the call with no-lowering. Pass the AOT graph PyTorch prints with
TORCH_LOGS=aot_graphs to compile the graph anyway.`)
}
