package fakeprop_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/passes"
)

// opCase is one op call on annotated inputs and what PyTorch gives: the
// printed type of the result, or the error code and message.
type opCase struct {
	name   string
	inputs []string
	stmt   string // `out = torch.ops....`; later statements may follow with ";;"
	want   string // printed type of the last statement's value
	code   string // error code when the call fails
	msg    string // error message (prefix) when it fails
	offset string // storage offset of the result, when checked
}

func runCases(t *testing.T, cases []opCase, pipeline string) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Split(tc.stmt, ";;")
			r := runFX(t, tc.name+".fx", graphOf(tc.inputs, body...), pipeline, passes.Config{})
			errs := r.errors()
			last := strings.TrimSpace(strings.SplitN(body[len(body)-1], "=", 2)[0])
			if tc.code != "" {
				require.Len(t, errs, 1, "want error %s", tc.code)
				assert.Equal(t, tc.code, errs[0].Code)
				assert.True(t, strings.HasPrefix(errs[0].Message, tc.msg), "message %q\nwant prefix %q", errs[0].Message, tc.msg)
				assert.Equal(t, r.lineOf(t, last), errs[0].Pos.Line, "error position")
				return
			}
			require.Empty(t, errs)
			assert.Equal(t, tc.want, r.typeOf(t, last))
			if tc.offset != "" {
				for _, v := range r.g.Values() {
					if v.Name == last {
						assert.Equal(t, tc.offset, v.Type.Tensor.Offset.String(), "storage offset")
					}
				}
			}
		})
	}
}

// TestPromotion: docs/REFERENCE.md's type promotion examples and the in-place
// cast error (TypeProperties.cpp, c10::canCast).
func TestPromotion(t *testing.T) {
	i32 := `x: "i32[4][1]cpu"`
	runCases(t, []opCase{
		{name: "i32 tensor + 5", inputs: []string{i32}, stmt: "out = torch.ops.aten.add.Tensor(x, 5)", want: "i32[4][1]cpu"},
		{name: "i32 tensor + i64 0-dim", inputs: []string{i32, `y: "i64[][]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "i32[4][1]cpu"},
		{name: "i32 tensor + f64 0-dim", inputs: []string{i32, `y: "f64[][]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "f64[4][1]cpu"},
		{name: "i64 + f32", inputs: []string{`x: "i64[4][1]cpu"`, `y: "f32[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "f32[4][1]cpu"},
		{name: "b8 + u8", inputs: []string{`x: "b8[4][1]cpu"`, `y: "u8[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "u8[4][1]cpu"},
		{name: "f32 + f64", inputs: []string{`x: "f32[4][1]cpu"`, `y: "f64[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "f64[4][1]cpu"},
		{name: "u8 + i8", inputs: []string{`x: "u8[4][1]cpu"`, `y: "i8[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "i16[4][1]cpu"},
		{name: "bf16 + f16", inputs: []string{`x: "bf16[4][1]cpu"`, `y: "f16[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "f32[4][1]cpu"},
		{name: "i64 + float scalar", inputs: []string{`x: "i64[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, 2.5)", want: "f32[4][1]cpu"},
		{name: "f16 + f64 0-dim", inputs: []string{`x: "f16[4][1]cpu"`, `y: "f64[][]cpu"`}, stmt: "out = torch.ops.aten.mul.Tensor(x, y)", want: "f16[4][1]cpu"},
		{name: "b8 + int scalar", inputs: []string{`x: "b8[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, 5)", want: "i64[4][1]cpu"},
		{name: "b8 + bool scalar", inputs: []string{`x: "b8[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, True)", want: "b8[4][1]cpu"},
		{name: "int div is float", inputs: []string{i32}, stmt: "out = torch.ops.aten.div.Tensor(x, 2)", want: "f32[4][1]cpu"},
		{name: "floor division keeps int", inputs: []string{i32}, stmt: "out = torch.ops.aten.div.Tensor_mode(x, x, rounding_mode = 'floor')", want: "i32[4][1]cpu"},
		{name: "comparison is bool", inputs: []string{`x: "f32[4][1]cpu"`}, stmt: "out = torch.ops.aten.eq.Scalar(x, 0)", want: "b8[4][1]cpu"},
		{name: "pow of bool is long", inputs: []string{`x: "b8[4][1]cpu"`}, stmt: "out = torch.ops.aten.pow.Tensor_Scalar(x, 2)", want: "i64[4][1]cpu"},
		{name: "sin of int is float", inputs: []string{i32}, stmt: "out = torch.ops.aten.sin.default(x)", want: "f32[4][1]cpu"},
		{name: "abs of complex is real", inputs: []string{`x: "c64[4][1]cpu"`}, stmt: "out = torch.ops.aten.abs.default(x)", want: "f32[4][1]cpu"},
		{name: "where ignores the condition dtype", inputs: []string{`c: "b8[4][1]cpu"`, `x: "f16[4][1]cpu"`}, stmt: "out = torch.ops.aten.where.ScalarOther(c, x, 0.0)", want: "f16[4][1]cpu"},
		{name: "sum of int is long", inputs: []string{i32}, stmt: "out = torch.ops.aten.sum.default(x)", want: "i64[][]cpu"},
		{name: "sum of bool is long", inputs: []string{`x: "b8[4][1]cpu"`}, stmt: "out = torch.ops.aten.sum.dim_IntList(x, [0])", want: "i64[][]cpu"},
		{name: "full infers float", inputs: nil, stmt: "out = torch.ops.aten.full.default([2], 1.5, device = device(type='cpu'))", want: "f32[2][1]cpu"},
		{name: "full infers long", inputs: nil, stmt: "out = torch.ops.aten.full.default([2], 3, device = device(type='cpu'))", want: "i64[2][1]cpu"},
		{name: "scalar_tensor is float", inputs: nil, stmt: "out = torch.ops.aten.scalar_tensor.default(3)", want: "f32[][]cpu"},
		{name: "arange of ints is long", inputs: nil, stmt: "out = torch.ops.aten.arange.start(0, 10)", want: "i64[10][1]cpu"},
		{name: "arange with a float step", inputs: nil, stmt: "out = torch.ops.aten.arange.start_step(0, 1, 0.25)", want: "f32[4][1]cpu"},
		{name: "in-place int += float fails", inputs: []string{`x: "i64[4][1]cpu"`, `y: "f32[4][1]cpu"`}, stmt: "out = torch.ops.aten.add_.Tensor(x, y)",
			code: "dtype", msg: "result type Float can't be cast to the desired output type Long"},
		{name: "in-place bool += int fails", inputs: []string{`x: "b8[4][1]cpu"`}, stmt: "out = torch.ops.aten.add_.Tensor(x, 1)",
			code: "dtype", msg: "result type Long can't be cast to the desired output type Bool"},
		{name: "in-place float *= int is fine", inputs: []string{`x: "f32[4][1]cpu"`, `y: "i64[4][1]cpu"`}, stmt: "out = torch.ops.aten.mul_.Tensor(x, y)", want: "f32[4][1]cpu"},
		{name: "mean of int fails", inputs: []string{`x: "i64[4][1]cpu"`}, stmt: "out = torch.ops.aten.mean.dim(x, [0])",
			code: "dtype", msg: "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long"},
		{name: "bool subtraction fails", inputs: []string{`x: "b8[4][1]cpu"`}, stmt: "out = torch.ops.aten.sub.Tensor(x, x)",
			code: "dtype", msg: "Subtraction, the `-` operator, with two bool tensors is not supported."},
	}, "fakeprop")
}

// TestBroadcastAndStrides: broadcasting, elementwise output layouts that
// follow their inputs, views, and PyTorch's shape errors.
func TestBroadcastAndStrides(t *testing.T) {
	tr := `x: "f32[4, 3][1, 4]cpu"`               // a transposed [3, 4]
	ct := `y: "f32[4, 3][3, 1]cpu"`               // row-major
	cl := `x: "f32[2, 3, 4, 5][60, 1, 15, 3]cpu"` // channels-last
	runCases(t, []opCase{
		{name: "broadcast", inputs: []string{`x: "f32[4, 1][1, 1]cpu"`, `y: "f32[3][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "f32[4, 3][3, 1]cpu"},
		{name: "broadcast mismatch", inputs: []string{`x: "f32[2, 3][3, 1]cpu"`, `y: "f32[4, 3][3, 1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)",
			code: "shape", msg: "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0"},
		{name: "symbolic broadcast", inputs: []string{`x: "f32[s0, 1][1, 1]cpu"`, `y: "f32[1, 3][3, 1]cpu"`}, stmt: "out = torch.ops.aten.mul.Tensor(x, y)", want: "f32[s0, 3][3, 1]cpu"},
		{name: "transposed input keeps its order", inputs: []string{tr}, stmt: "out = torch.ops.aten.add.Tensor(x, 1)", want: "f32[4, 3][1, 4]cpu"},
		{name: "channels-last input stays channels-last", inputs: []string{cl}, stmt: "out = torch.ops.aten.relu.default(x)", want: "f32[2, 3, 4, 5][60, 1, 15, 3]cpu"},
		{name: "first operand decides", inputs: []string{ct, tr}, stmt: "out = torch.ops.aten.add.Tensor(y, x)", want: "f32[4, 3][3, 1]cpu"},
		{name: "transposed first operand decides", inputs: []string{ct, tr}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "f32[4, 3][1, 4]cpu"},
		{name: "expand has stride 0", inputs: []string{`x: "f32[3][1]cpu"`}, stmt: "out = torch.ops.aten.expand.default(x, [4, 3])", want: "f32[4, 3][0, 1]cpu"},
		{name: "pointwise on expanded is dense", inputs: []string{`x: "f32[4, 3][0, 1]cpu"`}, stmt: "out = torch.ops.aten.mul.Tensor(x, 2)", want: "f32[4, 3][3, 1]cpu"},
		{name: "expand mismatch", inputs: []string{`x: "f32[3][1]cpu"`}, stmt: "out = torch.ops.aten.expand.default(x, [4, 2])",
			code: "shape", msg: "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [4, 2].  Tensor sizes: [3]"},
		{name: "slice carries the offset", inputs: []string{`x: "f32[10, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.slice.Tensor(x, 0, 2, 9223372036854775807)", want: "f32[8, 4][4, 1]cpu", offset: "8"},
		{name: "slice with a step", inputs: []string{`x: "f32[10][1]cpu"`}, stmt: "out = torch.ops.aten.slice.Tensor(x, 0, 1, -1, 3)", want: "f32[3][3]cpu", offset: "1"},
		{name: "select", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.select.int(x, 1, -1)", want: "f32[3][4]cpu", offset: "3"},
		{name: "select out of range", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.select.int(x, 0, 3)",
			code: "dim-range", msg: "select(): index 3 out of range for tensor of size [3, 4] at dimension 0"},
		{name: "transpose", inputs: []string{`x: "f32[2, 3, 4][12, 4, 1]cpu"`}, stmt: "out = torch.ops.aten.transpose.int(x, 0, -1)", want: "f32[4, 3, 2][1, 4, 12]cpu"},
		{name: "permute", inputs: []string{`x: "f32[2, 3, 4][12, 4, 1]cpu"`}, stmt: "out = torch.ops.aten.permute.default(x, [2, 0, 1])", want: "f32[4, 2, 3][1, 12, 4]cpu"},
		{name: "unsqueeze", inputs: []string{`x: "f32[2, 3][3, 1]cpu"`}, stmt: "out = torch.ops.aten.unsqueeze.default(x, 1)", want: "f32[2, 1, 3][3, 3, 1]cpu"},
		{name: "squeeze.dims", inputs: []string{`x: "f32[1, 3, 1][3, 1, 1]cpu"`}, stmt: "out = torch.ops.aten.squeeze.dims(x, [0, 2])", want: "f32[3][1]cpu"},
		{name: "diagonal", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.diagonal.default(x, 1)", want: "f32[3][5]cpu", offset: "1"},
		{name: "view", inputs: []string{`x: "f32[2, 3, 4][12, 4, 1]cpu"`}, stmt: "out = torch.ops.aten.view.default(x, [6, -1])", want: "f32[6, 4][4, 1]cpu"},
		{name: "view of a transpose fails", inputs: []string{tr}, stmt: "out = torch.ops.aten.view.default(x, [12])",
			code: "shape", msg: "view size is not compatible with input tensor's size and stride"},
		{name: "reshape of a transpose copies", inputs: []string{tr}, stmt: "out = torch.ops.aten.reshape.default(x, [12])", want: "f32[12][1]cpu"},
		{name: "view with a bad size", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.view.default(x, [5, 2])",
			code: "shape", msg: "shape '[5, 2]' is invalid for input of size 12"},
		{name: "view.dtype down", inputs: []string{`x: "f32[2, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.view.dtype(x, torch.bfloat16)", want: "bf16[2, 8][8, 1]cpu"},
		{name: "view.dtype up keeps the byte offset", inputs: []string{`x: "bf16[2050][1]cuda:0"`},
			stmt: "s = torch.ops.aten.slice.Tensor(x, 0, 2, 9223372036854775807);; out = torch.ops.aten.view.dtype(s, torch.float32)", want: "f32[1024][1]cuda:0", offset: "1"},
		{name: "view.dtype odd size", inputs: []string{`x: "f32[3][1]cpu"`}, stmt: "out = torch.ops.aten.view.dtype(x, torch.float64)",
			code: "dtype", msg: "self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), but got 3"},
		{name: "view.dtype strided last dim", inputs: []string{tr}, stmt: "out = torch.ops.aten.view.dtype(x, torch.float64)",
			code: "dtype", msg: "self.stride(-1) must be 1 to view Float as Double (different element sizes), but got 4"},
		{name: "view.dtype odd offset", inputs: []string{`x: "bf16[8][1]cpu"`},
			stmt: "s = torch.ops.aten.slice.Tensor(x, 0, 1, 7);; out = torch.ops.aten.view.dtype(s, torch.float32)",
			code: "dtype", msg: "self.storage_offset() must be divisible by 2 to view BFloat16 as Float (different element sizes), but got 1"},
		{name: "split", inputs: []string{`x: "f32[5, 2][2, 1]cpu"`}, stmt: "split = torch.ops.aten.split.Tensor(x, 2);; out = split[2]", want: "f32[1, 2][2, 1]cpu", offset: "8"},
		{name: "reduction keepdim", inputs: []string{`x: "f32[s0, 8][8, 1]cpu"`}, stmt: "out = torch.ops.aten.amax.default(x, [1], True)", want: "f32[s0, 1][1, 1]cpu"},
		{name: "reduction dim out of range", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.sum.dim_IntList(x, [2])",
			code: "dim-range", msg: "Dimension out of range (expected to be in range of [-2, 1], but got 2)"},
		{name: "mm", inputs: []string{`x: "f32[2, 3][3, 1]cpu"`, `y: "f32[3, 5][1, 3]cpu"`}, stmt: "out = torch.ops.aten.mm.default(x, y)", want: "f32[2, 5][5, 1]cpu"},
		{name: "mm inner sizes", inputs: []string{`x: "f32[2, 3][3, 1]cpu"`, `y: "f32[4, 5][5, 1]cpu"`}, stmt: "out = torch.ops.aten.mm.default(x, y)",
			code: "shape", msg: "a and b must have same reduction dim, but got [2, 3] X [4, 5]."},
		{name: "addmm inner sizes", inputs: []string{`b: "f32[5][1]cpu"`, `x: "f32[2, 3][3, 1]cpu"`, `y: "f32[4, 5][5, 1]cpu"`}, stmt: "out = torch.ops.aten.addmm.default(b, x, y)",
			code: "shape", msg: "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"},
		{name: "bmm symbolic", inputs: []string{`x: "f32[s0, 2, 3][6, 3, 1]cpu"`, `y: "f32[s0, 3, 4][12, 4, 1]cpu"`}, stmt: "out = torch.ops.aten.bmm.default(x, y)", want: "f32[s0, 2, 4][8, 4, 1]cpu"},
		{name: "mixed devices", inputs: []string{`x: "f32[4][1]cuda:0"`, `y: "f32[4][1]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)",
			code: "device", msg: "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"},
		{name: "cpu 0-dim joins cuda", inputs: []string{`x: "f32[4][1]cuda:0"`, `y: "f32[][]cpu"`}, stmt: "out = torch.ops.aten.add.Tensor(x, y)", want: "f32[4][1]cuda:0"},
		{name: "clone keeps a dense layout", inputs: []string{tr}, stmt: "out = torch.ops.aten.clone.default(x)", want: "f32[4, 3][1, 4]cpu"},
		{name: "clone to contiguous", inputs: []string{tr}, stmt: "out = torch.ops.aten.clone.default(x, memory_format = torch.contiguous_format)", want: "f32[4, 3][3, 1]cpu"},
		{name: "cat", inputs: []string{`x: "f32[2, 3][3, 1]cpu"`, `y: "f64[4, 3][3, 1]cpu"`}, stmt: "out = torch.ops.aten.cat.default([x, y])", want: "f64[6, 3][3, 1]cpu"},
		{name: "cat mismatch", inputs: []string{`x: "f32[2, 3][3, 1]cpu"`, `y: "f32[2, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.cat.default([x, y])",
			code: "shape", msg: "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in the list."},
		{name: "index with a long tensor", inputs: []string{`x: "f32[5, 6][6, 1]cpu"`, `i: "i64[2, 3][3, 1]cpu"`}, stmt: "out = torch.ops.aten.index.Tensor(x, [None, i])", want: "f32[5, 2, 3][6, 3, 1]cpu"},
		{name: "gather", inputs: []string{`x: "f32[5, 6][6, 1]cpu"`, `i: "i64[5, 1][1, 1]cpu"`}, stmt: "out = torch.ops.aten.gather.default(x, 1, i)", want: "f32[5, 1][1, 1]cpu"},
		{name: "embedding", inputs: []string{`w: "f32[100, 16][16, 1]cpu"`, `i: "i64[2, 7][7, 1]cpu"`}, stmt: "out = torch.ops.aten.embedding.default(w, i)", want: "f32[2, 7, 16][112, 16, 1]cpu"},
		{name: "convolution", inputs: []string{`x: "f32[2, 3, 32, 32][3072, 1024, 32, 1]cpu"`, `w: "f32[8, 3, 3, 3][27, 9, 3, 1]cpu"`},
			stmt: "out = torch.ops.aten.convolution.default(x, w, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)", want: "f32[2, 8, 16, 16][2048, 256, 16, 1]cpu"},
		{name: "max_pool2d", inputs: []string{`x: "f32[2, 3, 32, 32][3072, 1024, 32, 1]cpu"`},
			stmt: "mp = torch.ops.aten.max_pool2d_with_indices.default(x, [3, 3], [2, 2], [1, 1]);; out = mp[1]", want: "i64[2, 3, 16, 16][768, 256, 16, 1]cpu"},
		{name: "layer norm stats", inputs: []string{`x: "bf16[4, 8, 16][128, 16, 1]cuda:0"`},
			stmt: "ln = torch.ops.aten.native_layer_norm.default(x, [16], None, None, 1e-05);; out = ln[1]", want: "f32[4, 8, 1][8, 1, 1]cuda:0"},
		{name: "softmax half to float", inputs: []string{`x: "f16[4, 8][8, 1]cuda:0"`}, stmt: "out = torch.ops.aten._softmax.default(x, -1, True)", want: "f32[4, 8][8, 1]cuda:0"},
	}, "fakeprop")
}

// TestDataDependent: capture switches and unbacked sizes.
func TestDataDependent(t *testing.T) {
	runCases(t, []opCase{
		{name: "nonzero without capture", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.nonzero.default(x)",
			code: "dynamic-output-shape", msg: "dynamic shape operator: aten.nonzero.default; to enable, set torch._dynamo.config.capture_dynamic_output_shape_ops = True"},
		{name: "boolean mask indexing without capture", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`, `m: "b8[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.index.Tensor(x, [m])",
			code: "dynamic-output-shape", msg: "dynamic shape operator: aten.nonzero.default"},
		{name: "item of an int", inputs: []string{`x: "i64[][]cpu"`}, stmt: "out = torch.ops.aten._local_scalar_dense.default(x)",
			code: "data-dependent", msg: "data dependent operator: aten._local_scalar_dense.default; to enable, set torch._dynamo.config.capture_scalar_outputs = True"},
	}, "fakeprop")
	runCases(t, []opCase{
		{name: "nonzero captured", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.nonzero.default(x)", want: "i64[u0, 2][1, u0]cpu"},
		{name: "masked_select captured", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`, `m: "b8[3, 4][4, 1]cpu"`}, stmt: "out = torch.ops.aten.masked_select.default(x, m)", want: "f32[u0][1]cpu"},
		{name: "boolean mask indexing captured", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`, `m: "b8[3][1]cpu"`}, stmt: "out = torch.ops.aten.index.Tensor(x, [m])", want: "f32[u0, 4][4, 1]cpu"},
		{name: "unbacked size flows on", inputs: []string{`x: "f32[3, 4][4, 1]cpu"`},
			stmt: "nz = torch.ops.aten.nonzero.default(x);; s = torch.ops.aten.sym_size.int(nz, 0);; out = torch.ops.aten.zeros.default([s, 2], device = device(type='cpu'))", want: "f32[u0, 2][2, 1]cpu"},
		{name: "item of a bool", inputs: []string{`x: "b8[][]cpu"`}, stmt: "out = torch.ops.aten._local_scalar_dense.default(x)", want: "Sym(Eq(u0, 1))"},
		{name: "item of an int", inputs: []string{`x: "i64[][]cpu"`}, stmt: "out = torch.ops.aten._local_scalar_dense.default(x)", want: "Sym(u0)"},
		{name: "python operators", inputs: []string{`x: "i64[][]cpu"`},
			stmt: "u = torch.ops.aten._local_scalar_dense.default(x);; a = u + 9;; b = a - 1;; out = b // 9", want: "Sym(((u0 + 8)//9))"},
	}, "fakeprop{capture-scalar-outputs;capture-dynamic-output-shape-ops}")
}
