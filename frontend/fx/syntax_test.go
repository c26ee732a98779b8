package fx_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
)

func parseOne(t *testing.T, src string) *ir.Graph {
	t.Helper()
	res, err := fx.Parse("t.fx", []byte(src), fx.Options{Lookup: lookup})
	require.NoError(t, err)
	require.Len(t, res.Module.Graphs, 1)
	g := res.Module.Graphs[0]
	require.NoError(t, ir.Verify(g, ir.StageParsed))
	return g
}

func nodeNamed(t *testing.T, g *ir.Graph, name string) *ir.Node {
	t.Helper()
	for _, n := range g.Nodes {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("no node %s in\n%s", name, g)
	return nil
}

func TestAnnotatedGraph(t *testing.T) {
	g := parseOne(t, `class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8][1]cuda:0", arg1_1: "f32[4, 8][8, 1]cuda:0"):
        amax: "f32[][]cuda:0" = torch.ops.aten.amax.default(arg0_1, [0]);  arg0_1 = None
        mul: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.mul.Tensor(arg1_1, amax);  arg1_1 = amax = None
        return (mul,)
`)
	require.Len(t, g.Inputs, 2)
	assert.Equal(t, "GraphModule", g.Name)
	assert.Equal(t, "f32[4, 8][8, 1]cuda:0", g.Inputs[1].Type.String())
	mul := nodeNamed(t, g, "mul")
	assert.Equal(t, "aten::mul.Tensor", mul.Target)
	assert.Equal(t, 4, mul.Pos.Line)
	assert.Equal(t, 9, mul.Pos.Col, "a node is positioned at the start of its statement")
	amax := nodeNamed(t, g, "amax")
	assert.Equal(t, ir.ArgList, amax.Args[1].Kind)
	assert.Equal(t, "f32[][]cuda:0", amax.Out().Type.String())
	assert.Equal(t, 1, amax.Out().NumUses())
	require.Len(t, g.Outputs, 1)
	assert.Equal(t, mul.Out(), g.Outputs[0].Value)
}

func TestConstantForms(t *testing.T) {
	g := parseOne(t, `def forward(self, x):
    a = torch.ops.aten.full.default([2, 3], -inf, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=1), pin_memory = False)
    b = torch.ops.aten.clamp.default(x, 1e-05, 0.09999999999999998)
    c = torch.ops.aten._assert_async.msg(x, "Runtime assertion failed for 'ge'")
    d = torch.ops.aten.to.dtype(x, torch.int32, False, False, torch.contiguous_format)
    e = torch.ops.aten.slice.Tensor(x, 0, 2, 9223372036854775807)
    f = torch.ops.aten.mul.Tensor(x, nan)
    return (a, b, d, e, f)
`)
	a := nodeNamed(t, g, "a")
	assert.True(t, math.IsInf(a.Args[1].Float, -1))
	kw := map[string]ir.Arg{}
	for _, k := range a.Kwargs {
		kw[k.Name] = k.Arg
	}
	assert.Equal(t, []string{"dtype", "layout", "device", "pin_memory"}, []string{a.Kwargs[0].Name, a.Kwargs[1].Name, a.Kwargs[2].Name, a.Kwargs[3].Name})
	assert.Equal(t, ir.BF16, kw["dtype"].DType)
	assert.Equal(t, ir.EnumArg("strided"), kw["layout"])
	assert.Equal(t, ir.CUDA(1), kw["device"].Device)
	assert.Equal(t, false, kw["pin_memory"].Bool)
	b := nodeNamed(t, g, "b")
	assert.Equal(t, 1e-05, b.Args[1].Float)
	assert.Equal(t, "1e-05", b.Args[1].String())
	assert.Equal(t, "0.09999999999999998", b.Args[2].String())
	c := nodeNamed(t, g, "c")
	assert.Equal(t, "Runtime assertion failed for 'ge'", c.Args[1].Str)
	assert.Equal(t, `"Runtime assertion failed for 'ge'"`, c.Args[1].String())
	d := nodeNamed(t, g, "d")
	assert.Equal(t, ir.I32, d.Args[1].DType)
	assert.Equal(t, "contiguous_format", d.Args[4].Str)
	e := nodeNamed(t, g, "e")
	assert.Equal(t, int64(math.MaxInt64), e.Args[3].Int)
	f := nodeNamed(t, g, "f")
	assert.True(t, math.IsNaN(f.Args[1].Float))
	assert.Equal(t, ir.ReturnTuple, g.ReturnForm)
}

func TestSymIntOperatorsAndGetitem(t *testing.T) {
	g := parseOne(t, `class GraphModule(torch.nn.Module):
    def forward(self, primals_6: "Sym(s3)", primals_7: "f32[s3, 2048]"):
        add_31: "Sym(s3 + 9)" = primals_6 + 9
        floordiv: "Sym(((s3 + 8)//9))" = add_31 // 9;  add_31 = None
        split = torch.ops.aten.split.Tensor(primals_7, floordiv);  primals_7 = floordiv = None
        getitem: "f32[((s3 + 8)//9), 2048]" = split[0]
        getitem_1: "f32[((s3 + 8)//9), 2048]" = split[1];  split = None
        neg: "Sym(-s3)" = -primals_6
        return (getitem, getitem_1, neg)
`)
	add := nodeNamed(t, g, "add_31")
	assert.Equal(t, "operator.add", add.Target)
	assert.Equal(t, ir.FormOperator, add.Form)
	assert.Equal(t, ir.KindSymInt, add.Out().Type.Kind)
	assert.Equal(t, "operator.floordiv", nodeNamed(t, g, "floordiv").Target)
	split := nodeNamed(t, g, "split")
	require.Len(t, split.Results, 2, "getitems name the results of split")
	assert.Equal(t, "getitem_1", split.Results[1].Name)
	assert.Equal(t, g.Outputs[1].Value, split.Results[1])
	assert.Equal(t, "operator.neg", nodeNamed(t, g, "neg").Target)
}

func TestMethodGetattrModuleAndRebinding(t *testing.T) {
	g := parseOne(t, `class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 3]"):
        l_x_ = L_x_
        _tensor_constant0 = self._tensor_constant0
        w = self.q_proj.weight
        size = l_x_.size()
        getitem = size[0];  size = None
        out = self.sub(l_x_, _tensor_constant0)
        batched = torch._functorch.predispatch._add_batch_dim(l_x_, 0, 1)
        return (out, getitem, w, batched)
`)
	assert.Equal(t, ir.FormGetAttr, nodeNamed(t, g, "_tensor_constant0").Form)
	assert.Equal(t, "self.q_proj.weight", nodeNamed(t, g, "w").Target)
	size := nodeNamed(t, g, "size")
	assert.Equal(t, ir.FormMethod, size.Form)
	assert.Equal(t, g.Inputs[0], size.Args[0].Value, "l_x_ is an alias of L_x_")
	assert.Equal(t, "operator.getitem", nodeNamed(t, g, "getitem").Target)
	assert.Equal(t, ir.FormModule, nodeNamed(t, g, "out").Form)
	assert.Equal(t, ir.FormFunction, nodeNamed(t, g, "batched").Form)
}

func TestNodeForm(t *testing.T) {
	g := parseOne(t, `graph():
    %x : [num_users=1] = placeholder[target=x]
    %view : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = (%x, [-1, 4]), kwargs = {})
    %sum_1 : Tensor "f32[4][1]cpu"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view, [1]), kwargs = {dtype: torch.float32})
    return (sum_1,)
`)
	require.Len(t, g.Inputs, 1)
	s := nodeNamed(t, g, "sum_1")
	assert.Equal(t, "aten::sum.dim_IntList", s.Target)
	assert.Equal(t, "f32[4][1]cpu", s.Out().Type.String())
	require.Len(t, s.Kwargs, 1)
	assert.Equal(t, "dtype", s.Kwargs[0].Name)
}

func TestLogPrefixesAndSeveralGraphs(t *testing.T) {
	src := `I0121 00:38:07.894000 2422825 torch/_functorch/x.py:289] [!0/5/0] [__aot_graphs] TRACED GRAPH
I0121 00:38:07.894000 2422825 torch/_functorch/x.py:289] [!0/5/0] [__aot_graphs]  /path/_lazy_graph_module.py class <lambda>(torch.nn.Module):
I0121 00:38:07.894000 2422825 torch/_functorch/x.py:289] [!0/5/0] [__aot_graphs]     def forward(self, arg0_1: "f32[4][1]cpu"):
I0121 00:38:07.894000 2422825 torch/_functorch/x.py:289] [!0/5/0] [__aot_graphs]         cos: "f32[4][1]cpu" = torch.ops.aten.cos.default(arg0_1);  arg0_1 = None
I0121 00:38:07.894000 2422825 torch/_functorch/x.py:289] [!0/5/0] [__aot_graphs]         return (cos,)
[rank0]:class GraphModule(torch.nn.Module):
[rank0]:    def forward(self, tangents_1: "f32[4][1]cpu"):
[rank0]:        neg: "f32[4][1]cpu" = torch.ops.aten.neg.default(tangents_1)
[rank0]:        return (neg,)
`
	res, err := fx.Parse("log.txt", []byte(src), fx.Options{Lookup: lookup})
	require.NoError(t, err)
	require.Len(t, res.Module.Graphs, 2)
	assert.Equal(t, "<lambda>", res.Module.Graphs[0].Name)
	cos := res.Module.Graphs[0].Nodes[0]
	assert.Equal(t, 4, cos.Pos.Line)
	line4 := strings.Split(src, "\n")[3]
	assert.Equal(t, strings.Index(line4, "cos:")+1, cos.Pos.Col, "columns count the stripped log prefix")
	assert.Equal(t, "GraphModule", res.Module.Graphs[1].Name)
}

func TestUnknownOpIsOpaqueWithWarning(t *testing.T) {
	res, err := fx.Parse("t.fx", []byte(`def forward(self, x):
    foo = torch.ops.mylib.rope_init.default(x)
    return (foo,)
`), fx.Options{Lookup: lookup})
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	w := res.Warnings[0]
	assert.Equal(t, "unknown-op", w.Code)
	assert.Equal(t, diag.Warning, w.Severity)
	assert.Equal(t, 2, w.Pos.Line)
	n := res.Module.Graphs[0].Nodes[0]
	assert.Nil(t, n.Op)
	assert.Equal(t, "mylib::rope_init.default", n.Target)
}

// TestMalformed: every malformed input gets a positioned parse error that
// quotes the offending text; none panics.
func TestMalformed(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		quote     string
	}{
		{"unclosed call", "def forward(self, x):\n    a = torch.ops.aten.relu.default(x\n    return (a,)\n", 2, 36, ""},
		{"undefined name", "def forward(self, x):\n    a = torch.ops.aten.relu.default(y)\n    return (a,)\n", 2, 37, "`y)`"},
		{"bad annotation", "def forward(self, x: \"f32[4, 3\"):\n    return (x,)\n", 1, 23, "`f32[4, 3"},
		{"bad dtype size", "def forward(self, x):\n    a: \"f32[4, @]\" = torch.ops.aten.relu.default(x)\n    return (a,)\n", 2, 9, "`f32[4, @]"},
		{"no return", "def forward(self, x):\n    a = torch.ops.aten.relu.default(x)\n", 1, 1, ""},
		{"garbage statement", "def forward(self, x):\n    a = = 3\n    return (a,)\n", 2, 9, ""},
		{"bad character", "def forward(self, x):\n    a = torch.ops.aten.relu.default(x) $ 2\n    return (a,)\n", 2, 40, "`$ 2`"},
		{"bad number", "def forward(self, x):\n    a = torch.ops.aten.mul.Tensor(x, 12abc)\n    return (a,)\n", 2, 38, ""},
		{"bad imaginary number", "def forward(self, x):\n    a = torch.ops.aten.mul.Tensor(x, 2jx)\n    return (a,)\n", 2, 38, ""},
		{"unterminated string", "def forward(self, x):\n    a = torch.ops.aten.mul.Tensor(x, 'oops)\n    return (a,)\n", 2, 38, ""},
		{"huge int", "def forward(self, x):\n    a = torch.ops.aten.mul.Tensor(x, 99999999999999999999999)\n    return (a,)\n", 2, 38, ""},
		{"bad node line", "graph():\n    %x : [num_users=1] = placeholder[target=x]\n    %y : [num_users=1] = call_function(x)\n    return (y,)\n", 3, 5, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fx.Parse("bad.fx", []byte(tc.src), fx.Options{Lookup: lookup})
			require.Error(t, err)
			var d *diag.Diagnostic
			require.True(t, errors.As(err, &d), "want a diagnostic, got %T: %v", err, err)
			assert.Equal(t, "parse", d.Code)
			assert.Equal(t, tc.line, d.Pos.Line, d.String())
			assert.Equal(t, tc.col, d.Pos.Col, d.String())
			assert.Contains(t, d.String(), "bad.fx:")
			assert.Contains(t, d.String(), "error[parse]")
			if tc.quote != "" {
				assert.Contains(t, d.Message, tc.quote)
			}
		})
	}
}

// TestOpGapWarnings: an op PyTorch does not have gets the closest name
// PyTorch has; a PyTorch op without a kiln meta rule is named with what is
// missing.
func TestOpGapWarnings(t *testing.T) {
	res, err := fx.Parse("t.fx", []byte(`def forward(self, x):
    a = torch.ops.aten.sofmax.int(x, 0)
    b = torch.ops.aten._test_ambiguous_defaults.a(x, 1, 2)
    return (a, b)
`), fx.Options{Lookup: lookup})
	require.NoError(t, err)
	require.Len(t, res.Warnings, 2)
	assert.Equal(t, "unknown-op", res.Warnings[0].Code)
	assert.Contains(t, res.Warnings[0].Hint, "did you mean aten::softmax?")
	assert.Equal(t, "no-meta-rule", res.Warnings[1].Code)
	assert.Contains(t, res.Warnings[1].Message, "aten::_test_ambiguous_defaults.a")
	assert.Contains(t, res.Warnings[1].Message, "no meta rule")
	assert.Equal(t, 3, res.Warnings[1].Pos.Line)
}
