package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
)

func TestParseSchema(t *testing.T) {
	s, err := ParseSchema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "aten")
	require.NoError(t, err)
	assert.Equal(t, "aten::add_.Tensor", s.QualifiedName())
	require.Len(t, s.Params, 3)
	assert.True(t, s.Params[0].Alias.Write)
	assert.Equal(t, "a", s.Params[0].Alias.Set)
	assert.True(t, s.Params[2].KwOnly)
	assert.Equal(t, "1", s.Params[2].Default)
	assert.Equal(t, []int{0}, s.Mutated())
	assert.Equal(t, "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", s.String())

	cases := []string{
		"split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
		"var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)",
		"index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
		"max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
		"_assert_scalar(Scalar self, str assert_msg) -> ()",
		"full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
		"max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
		"mylib::foo(Tensor x, float s=0.5, str mode=\"mean\") -> Tensor",
	}
	for _, c := range cases {
		s, err := ParseSchema(c, "aten")
		require.NoError(t, err, c)
		if s.Namespace == "aten" {
			assert.Equal(t, "aten::"+c, s.String())
		} else {
			assert.Equal(t, c, s.String())
		}
	}
	s, _ = ParseSchema(cases[0], "aten")
	assert.True(t, s.VarRet)
	assert.True(t, s.Params[0].Alias.ToWild)
	s, _ = ParseSchema(cases[2], "aten")
	assert.True(t, s.Params[1].Type.ElemOpt)
	assert.True(t, s.Params[1].Type.IsTensorList())
	s, _ = ParseSchema(cases[4], "aten")
	assert.Empty(t, s.Returns)

	for _, bad := range []string{"foo", "foo(Tensor) -> Tensor", "foo(Blob x) -> Tensor", "foo(Tensor x) -> Tensor junk junk2", "foo(Tensor(a x) -> Tensor"} {
		_, err := ParseSchema(bad, "aten")
		assert.Error(t, err, bad)
	}
	// PyTorch names single returns in its own table (`-> Tensor Y`;
	// torch._C.parse_schema accepts it): the name is kept, not an error.
	s, err = ParseSchema("_quantized::add(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor qc", "aten")
	require.NoError(t, err)
	assert.Equal(t, "qc", s.Returns[0].Name)
}

func TestBind(t *testing.T) {
	op, err := NewOp(Entry{Schema: "var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)"})
	require.NoError(t, err)
	c, err := op.Bind([]ir.Arg{ir.IntArg(0), ir.IntList(2)}, []ir.Kwarg{{Name: "correction", Arg: ir.IntArg(0)}, {Name: "keepdim", Arg: ir.BoolArg(true)}})
	require.NoError(t, err)
	keep, err := c.Bool("keepdim")
	require.NoError(t, err)
	assert.True(t, keep)
	dims, err := c.Ints("dim")
	require.NoError(t, err)
	assert.Equal(t, []int64{2}, dims)
	assert.False(t, c.Given[3] && false)

	c, err = op.Bind([]ir.Arg{ir.IntArg(0)}, nil)
	require.NoError(t, err)
	assert.True(t, c.IsNone("dim"))
	assert.True(t, c.IsNone("correction"))

	_, err = op.Bind([]ir.Arg{ir.IntArg(0), ir.IntArg(1), ir.IntArg(2)}, nil)
	assert.ErrorContains(t, err, "at most 2 positional")
	_, err = op.Bind(nil, nil)
	assert.ErrorContains(t, err, "missing required argument(s): 'self'")
	_, err = op.Bind([]ir.Arg{ir.IntArg(0)}, []ir.Kwarg{{Name: "bogus", Arg: ir.IntArg(0)}})
	assert.ErrorContains(t, err, "unexpected keyword argument 'bogus'")
	_, err = op.Bind([]ir.Arg{ir.IntArg(0)}, []ir.Kwarg{{Name: "self", Arg: ir.IntArg(0)}})
	assert.ErrorContains(t, err, "multiple values for argument 'self'")
}

func TestLookup(t *testing.T) {
	r := Default()
	add := r.Lookup("aten::add_.Tensor")
	require.NotNil(t, add)
	assert.True(t, add.Mutates())
	assert.True(t, add.IsInplace())
	assert.Equal(t, "aten::add.Tensor", add.Functional)
	assert.Nil(t, r.Lookup("aten::nope.default"))
	assert.Nil(t, r.Schema("aten::nope.default"))
	assert.Nil(t, LookupSchema("mylib::foo.default"))
}
