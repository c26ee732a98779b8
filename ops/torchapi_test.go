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

// TestEinsumMessages: einsum's shape errors, as PyTorch 2.15 words them
// (torch.einsum on a 3x4 tensor: 'ij,jk->ik' with one operand, 'ij->ji' with
// two, 'ijk->i', 'ijk...->i').
func TestEinsumMessages(t *testing.T) {
	env := NewEnv(ir.NewGraph("g"))
	a := env.Contiguous(ir.F32, []sym.Expr{sym.Const(3), sym.Const(4)}, ir.CPU)
	op := Default().Lookup("aten::einsum.default")
	for _, c := range []struct {
		eq   string
		n    int
		want string
	}{
		{"ij,jk->ik", 1, "einsum(): fewer operands were provided than specified in the equation"},
		{"ij->ji", 2, "einsum(): more operands were provided than specified in the equation"},
		{"ijk->i", 1, "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2) for operand 0 and no ellipsis was given"},
		{"ijk...->i", 1, "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) for operand 0"},
	} {
		ts := make([]ir.Arg, c.n)
		for i := range ts {
			ts[i] = ir.ValueArg(&ir.Value{Name: "a", Type: ir.TensorOf(a)})
		}
		call, err := op.Bind([]ir.Arg{ir.StringArg(c.eq), ir.ListArg(ts...)}, nil)
		require.NoError(t, err)
		_, err = op.Meta(env, call)
		require.EqualError(t, err, c.want, c.eq)
	}
}
