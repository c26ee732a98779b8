package decompose

import "github.com/kiln-compiler/kiln/diag"

// The story behind decompose-failed (`kiln explain decompose-failed`).
func init() {
	diag.RegisterExplanation(CodeFailed, `decompose-failed: a decomposition did not reproduce the op it
replaces: its result type (dtype, shape, strides or device) differs from what PyTorch's meta rule
gives the original, or one of its steps failed to type. The node is kept whole and nothing the
attempt built stays in the graph, so the pipeline goes on; lowering may then refuse the whole op
(no-lowering). This is a kiln bug in passes/decompose's table: please report the graph.`)
}
