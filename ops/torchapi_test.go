package ops

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// TestPythonOnlyKeywordsAtTheirDefault: a Python-only keyword is dropped
// only where it cannot change the result; return_indices=True (a tuple)
// and reduce=False (no reduction) are refused rather than typed as the
// plain call.
func TestPythonOnlyKeywordsAtTheirDefault(t *testing.T) {
	x := ir.ValueArg(&ir.Value{Name: "x", Type: ir.TensorOf(NewEnv(ir.NewGraph("g")).Contiguous(ir.F32,
		[]sym.Expr{sym.Const(1), sym.Const(2), sym.Const(4), sym.Const(4)}, ir.CPU))})
	r := Default()
	call, ok, err := r.ResolvePython("torch.nn.functional.max_pool2d", []ir.Arg{x, ir.IntArg(2)},
		[]ir.Kwarg{{Name: "return_indices", Arg: ir.BoolArg(false)}})
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, "aten::max_pool2d.default", call.Op.QualifiedName())
	_, ok, err = r.ResolvePython("torch.nn.functional.max_pool2d", []ir.Arg{x, ir.IntArg(2)},
		[]ir.Kwarg{{Name: "return_indices", Arg: ir.BoolArg(true)}})
	require.True(t, ok)
	require.ErrorContains(t, err, "return_indices=True is not modelled")
	_, _, err = r.ResolvePython("torch.nn.functional.mse_loss", []ir.Arg{x, x}, []ir.Kwarg{{Name: "reduce", Arg: ir.BoolArg(false)}})
	require.ErrorContains(t, err, "reduce=False is not modelled")
}
