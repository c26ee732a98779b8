package ir_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Python's repr(float) for each value (checked against CPython 3.11).
func TestPyFloatMatchesPythonRepr(t *testing.T) {
	cases := map[float64]string{
		1e-05: "1e-05", 0.0001: "0.0001", 0.09999999999999998: "0.09999999999999998",
		1.0: "1.0", -2.5: "-2.5", 1e16: "1e+16", 1e15: "1000000000000000.0",
		123456789.0: "123456789.0", 1.5e-07: "1.5e-07", 0.0: "0.0",
		1.1111111111111112: "1.1111111111111112", 2.220446049250313e-16: "2.220446049250313e-16",
		math.Inf(1): "inf", math.Inf(-1): "-inf", 1e300: "1e+300",
	}
	for f, want := range cases {
		assert.Equal(t, want, ir.PyFloat(f), "%g", f)
	}
	assert.Equal(t, "nan", ir.PyFloat(math.NaN()))
	assert.Equal(t, "-0.0", ir.PyFloat(math.Copysign(0, -1)))
}

func TestPyStringMatchesPythonRepr(t *testing.T) {
	assert.Equal(t, `'abc'`, ir.PyString("abc"))
	assert.Equal(t, `"on node 'ge'"`, ir.PyString("on node 'ge'"))
	assert.Equal(t, `'a"b\'c'`, ir.PyString(`a"b'c`))
	assert.Equal(t, `'line\nnext'`, ir.PyString("line\nnext"))
}

func TestDTypeTable(t *testing.T) {
	for _, abbr := range []string{"b8", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
		"c32", "c64", "c128", "f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz", "f8e8m0fnu", "f4e2m1fnx2", "b16", "b1x8"} {
		d, ok := ir.DTypeFromAbbr(abbr)
		require.True(t, ok, abbr)
		assert.Equal(t, abbr, d.Abbr())
		back, ok := ir.DTypeFromName(d.Name())
		require.True(t, ok)
		assert.Equal(t, d, back)
	}
	assert.Equal(t, 2, ir.BF16.ItemSize())
	assert.Equal(t, 16, ir.C128.ItemSize())
	assert.Equal(t, ir.CatBool, ir.Bool.Category())
	assert.True(t, ir.BF16.IsReducedFloat())
	assert.False(t, ir.F32.IsReducedFloat())
	d, ok := ir.DTypeFromName("half")
	require.True(t, ok)
	assert.Equal(t, ir.F16, d)
}

func TestParseTypeForms(t *testing.T) {
	for _, s := range []string{"f32[4, 3][3, 1]cpu", "bf16[8, 65667072][65667072, 1]cuda:0", "f32[]", "i64[][]cuda:0",
		"f32[8, 256][0, 0]cpu", "f32[4]", "f16[2]npu:0", "Sym(s0)"} {
		typ, err := ir.ParseType(s)
		require.NoError(t, err, s)
		assert.Equal(t, s, typ.String())
	}
	typ, err := ir.ParseType("i64[][]cuda:0")
	require.NoError(t, err)
	assert.Equal(t, 0, typ.Tensor.Rank())
	assert.True(t, typ.Tensor.HasStrides())
	typ, err = ir.ParseType("f32[]")
	require.NoError(t, err)
	assert.False(t, typ.Tensor.HasStrides())
	for _, bad := range []string{"f32[4, 3", "q32[4]", "f32[4][1, 1]", "f32[4]cuda:x", "Tensor"} {
		_, err := ir.ParseType(bad)
		assert.Error(t, err, bad)
	}
}

func TestDevice(t *testing.T) {
	d, err := ir.ParseDevice("cuda:1")
	require.NoError(t, err)
	assert.Equal(t, ir.CUDA(1), d)
	assert.Equal(t, "device(type='cuda', index=1)", d.PyRepr())
	assert.Equal(t, "device(type='cpu')", ir.CPU.PyRepr())
	assert.True(t, ir.Meta.IsMeta())
	_, err = ir.ParseDevice("cuda:-1")
	assert.Error(t, err)
}

func TestContiguousStrides(t *testing.T) {
	s := ir.ContiguousStrides([]sym.Expr{sym.Const(2), sym.Const(0), sym.Const(3)})
	assert.Equal(t, []string{"3", "3", "1"}, exprStrings(s), "size 0 counts as 1, as in PyTorch")
}

func exprStrings(es []sym.Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// buildChain makes x -> neg -> relu(neg) -> output, by hand.
func buildChain(t *testing.T) (*ir.Graph, *ir.Node, *ir.Node) {
	g := ir.NewGraph("GraphModule")
	typ, err := ir.ParseType("f32[4][1]cpu")
	require.NoError(t, err)
	x := g.AddInput("x", typ, diag.Pos{})
	neg := g.Append(g.NewNode("neg", "aten::neg.default", ir.FormOp, []ir.Arg{ir.ValueArg(x)}, nil, 1))
	relu := g.Append(g.NewNode("relu", "aten::relu.default", ir.FormOp, []ir.Arg{ir.ValueArg(neg.Out())}, nil, 1))
	g.SetOutputs([]ir.Arg{ir.ValueArg(relu.Out())})
	require.NoError(t, ir.Verify(g, ir.StageParsed))
	return g, neg, relu
}

func TestPrinterReleasesAfterLastUse(t *testing.T) {
	g, _, _ := buildChain(t)
	text := g.String()
	assert.Contains(t, text, "    def forward(self, x: \"f32[4][1]cpu\"):\n")
	assert.Contains(t, text, "neg = torch.ops.aten.neg.default(x);  x = None\n")
	assert.Contains(t, text, "relu = torch.ops.aten.relu.default(neg);  neg = None\n")
	assert.True(t, strings.HasSuffix(text, "        return (relu,)\n"))
}

func TestReplaceAllUsesAndVerifier(t *testing.T) {
	g, neg, relu := buildChain(t)
	g.ReplaceAllUses(relu.Out(), neg.Out())
	require.NoError(t, ir.Verify(g, ir.StageParsed))
	assert.Equal(t, 2, neg.Out().NumUses(), "relu and the output")
	assert.Equal(t, 0, relu.Out().NumUses())
	g.Remove(relu)
	require.NoError(t, ir.Verify(g, ir.StageParsed))
	assert.Equal(t, 1, neg.Out().NumUses())

	// A use before its definition is caught.
	late := g.NewNode("late", "aten::neg.default", ir.FormOp, nil, nil, 1)
	early := g.NewNode("early", "aten::neg.default", ir.FormOp, []ir.Arg{ir.ValueArg(late.Out())}, nil, 1)
	g.Append(early)
	g.Append(late)
	err := ir.Verify(g, ir.StageParsed)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "uses late before its definition")
}

// A removed node lets go of what it points to (its slab chunk outlives it)
// and keeps what remarks print.
func TestRemovedNodeReleasesItsArgsAndTypes(t *testing.T) {
	g, neg, relu := buildChain(t)
	neg.Out().Type, relu.Out().Type = g.Inputs[0].Type, g.Inputs[0].Type
	g.SetOutputs([]ir.Arg{ir.ValueArg(neg.Out())})
	g.RemoveDead(map[*ir.Node]bool{relu: true})
	require.NoError(t, ir.Verify(g, ir.StageParsed))
	assert.Equal(t, 1, neg.Out().NumUses(), "the output only")
	assert.Nil(t, relu.Args)
	assert.Zero(t, relu.Out().Type)
	assert.Equal(t, "relu", relu.Name)
	assert.Equal(t, "aten::relu.default", relu.Target)
	assert.Equal(t, "relu", relu.Out().Name)
	assert.Equal(t, g.Inputs[0].Type, neg.Out().Type, "a live node keeps its type")

	g.SetOutputs([]ir.Arg{ir.ValueArg(g.Inputs[0])})
	g.Remove(neg)
	assert.Nil(t, neg.Args)
	assert.Zero(t, neg.Out().Type)
	assert.Empty(t, g.Inputs[0].Users())
}

func TestVerifierTypedStage(t *testing.T) {
	g, neg, _ := buildChain(t)
	neg.Op = fakeOp{}
	err := ir.Verify(g, ir.StageTyped)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has no type after type propagation")
}

func TestVerifierFunctionalStage(t *testing.T) {
	g, neg, _ := buildChain(t)
	typ, _ := ir.ParseType("f32[4][1]cpu")
	neg.Out().Type = typ
	neg.Op = fakeOp{mutates: true}
	err := ir.Verify(g, ir.StageFunctional)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mutating op remains after functionalization")
}

func TestVerifierArity(t *testing.T) {
	g, neg, _ := buildChain(t)
	neg.Op = fakeOp{arity: 2}
	err := ir.Verify(g, ir.StageParsed)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "takes 2 positional arguments, got 1")
}

type fakeOp struct {
	mutates bool
	arity   int
}

func (fakeOp) QualifiedName() string { return "test::op" }

func (f fakeOp) CheckCall(nargs int, kw []string) error {
	if f.arity != 0 && nargs != f.arity {
		return fmt.Errorf("takes %d positional arguments, got %d", f.arity, nargs)
	}
	return nil
}

func (f fakeOp) Mutates() bool { return f.mutates }

// InsertBeforeEach places each list before its anchor, in list order, the
// nil list at the end, and registers the new nodes' uses.
func TestInsertBeforeEach(t *testing.T) {
	g, neg, relu := buildChain(t)
	x := g.Inputs[0]
	mk := func(name string) *ir.Node {
		return g.NewNode(name, "aten::abs.default", ir.FormOp, []ir.Arg{ir.ValueArg(x)}, nil, 1)
	}
	a, b, c, d := mk("a"), mk("b"), mk("c"), mk("d")
	g.InsertBeforeEach(map[*ir.Node][]*ir.Node{neg: {a, b}, relu: {c}, nil: {d}})
	var names []string
	for _, n := range g.Nodes {
		names = append(names, n.Name)
	}
	assert.Equal(t, []string{"a", "b", "neg", "c", "relu", "d"}, names)
	assert.Equal(t, 5, x.NumUses(), "neg and the four inserted nodes")
	require.NoError(t, ir.Verify(g, ir.StageParsed))
}
