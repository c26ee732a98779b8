package interp

import (
	"math"
	"testing"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Per-family op tests; expected values are from PyTorch's documentation
// examples or worked out by hand from the op's definition.

func TestTypePromotion(t *testing.T) {
	// docs/REFERENCE.md: i32 + 5 -> i32; i32 + 2.5 -> f32; b8 + u8 -> u8;
	// u8 + i8 -> i16; i32 tensor + i64 0-dim -> i32; bf16 + f16 -> f32.
	res := runGraph(t, `
def forward(self, i: "i32[2]", b: "b8[2]", u: "u8[2]", s: "i8[2]", z: "i64[]", h: "bf16[2]", f: "f16[2]"):
    add: "i32[2]" = torch.ops.aten.add.Tensor(i, 5)
    add_1: "f32[2]" = torch.ops.aten.add.Tensor(i, 2.5)
    add_2: "u8[2]" = torch.ops.aten.add.Tensor(b, u)
    add_3: "i16[2]" = torch.ops.aten.add.Tensor(u, s)
    add_4: "i32[2]" = torch.ops.aten.add.Tensor(i, z)
    add_5: "f32[2]" = torch.ops.aten.add.Tensor(h, f)
    return (add, add_1, add_2, add_3, add_4, add_5)
`, FromInts(ir.I32, []int64{2}, []int64{1, 2}), FromInts(ir.Bool, []int64{2}, []int64{1, 0}),
		FromInts(ir.U8, []int64{2}, []int64{255, 3}), FromInts(ir.I8, []int64{2}, []int64{1, -4}),
		FromInts(ir.I64, []int64{}, []int64{10}), FromFloats(ir.BF16, []int64{2}, []float64{1, 2}),
		FromFloats(ir.F16, []int64{2}, []float64{0.5, 0.25}))
	wantDT := []ir.DType{ir.I32, ir.F32, ir.U8, ir.I16, ir.I32, ir.F32}
	for i, dt := range wantDT {
		assert.Equal(t, dt, res.Outputs[i].(*Tensor).DType, "output %d", i)
	}
	assert.Equal(t, []int64{6, 7}, intsOf(t, res.Outputs[0]))
	assert.Equal(t, []float64{3.5, 4.5}, floatsOf(t, res.Outputs[1]))
	assert.Equal(t, []int64{0, 3}, intsOf(t, res.Outputs[2]), "true + 255 wraps in u8")
	assert.Equal(t, []int64{256, -1}, intsOf(t, res.Outputs[3]))
	assert.Equal(t, []int64{11, 12}, intsOf(t, res.Outputs[4]))
	assert.Equal(t, []float64{1.5, 2.25}, floatsOf(t, res.Outputs[5]))
	// in-place into an integer tensor cannot take a float result
	err := runErr(t, `
def forward(self, i: "i64[2]"):
    mul_: "i64[2]" = torch.ops.aten.mul_.Tensor(i, 2.5)
    return (mul_,)
`, FromInts(ir.I64, []int64{2}, []int64{1, 2}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "result type Float can't be cast to the desired output type Long")
}

func TestCasts(t *testing.T) {
	// C++ casts: float -> int truncates toward zero; 300.0 -> uint8 wraps to
	// 44 on x86; anything nonzero (NaN too) is True.
	res := runGraph(t, `
def forward(self, x: "f32[4]"):
    to: "i32[4]" = torch.ops.aten._to_copy.default(x, dtype = torch.int32)
    to_1: "u8[4]" = torch.ops.prims.convert_element_type.default(x, torch.uint8)
    to_2: "b8[4]" = torch.ops.aten.to.dtype(x, torch.bool)
    to_3: "f32[4]" = torch.ops.aten.to.dtype(x, torch.float32)
    return (to, to_1, to_2, to_3)
`, f32([]int64{4}, -1.7, 2.9, 300, math.NaN()))
	assert.Equal(t, []int64{-1, 2, 300}, intsOf(t, res.Outputs[0])[:3])
	assert.Equal(t, []int64{255, 2, 44}, intsOf(t, res.Outputs[1])[:3])
	assert.Equal(t, []int64{1, 1, 1, 1}, intsOf(t, res.Outputs[2]))
}

func TestMatmulFamily(t *testing.T) {
	a := f32([]int64{2, 2}, 1, 2, 3, 4)
	b := f32([]int64{2, 2}, 5, 6, 7, 8)
	res := runGraph(t, `
def forward(self, a: "f32[2, 2]", b: "f32[2, 2]", v: "f32[2]", bias: "f32[2]"):
    mm: "f32[2, 2]" = torch.ops.aten.mm.default(a, b)
    addmm: "f32[2, 2]" = torch.ops.aten.addmm.default(bias, a, b, beta = 2, alpha = 3)
    matmul: "f32[2]" = torch.ops.aten.matmul.default(v, a)
    linear: "f32[2, 2]" = torch.ops.aten.linear.default(a, b, bias)
    unsqueeze: "f32[1, 2, 2]" = torch.ops.aten.unsqueeze.default(a, 0)
    unsqueeze_1: "f32[1, 2, 2]" = torch.ops.aten.unsqueeze.default(b, 0)
    bmm: "f32[1, 2, 2]" = torch.ops.aten.bmm.default(unsqueeze, unsqueeze_1)
    return (mm, addmm, matmul, linear, bmm)
`, a, b, f32([]int64{2}, 1, 1), f32([]int64{2}, 1, -1))
	assert.Equal(t, []float64{19, 22, 43, 50}, floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []float64{59, 64, 131, 148}, floatsOf(t, res.Outputs[1]))
	assert.Equal(t, []float64{4, 6}, floatsOf(t, res.Outputs[2]))
	assert.Equal(t, []float64{18, 22, 40, 52}, floatsOf(t, res.Outputs[3]), "a @ b.T + bias")
	assert.Equal(t, []float64{19, 22, 43, 50}, floatsOf(t, res.Outputs[4]))
	err := runErr(t, `
def forward(self, a: "f32[2, 3]", b: "f32[2, 3]"):
    mm: "f32[2, 3]" = torch.ops.aten.mm.default(a, b)
    return (mm,)
`, f32([]int64{2, 3}, 1, 2, 3, 4, 5, 6), f32([]int64{2, 3}, 1, 2, 3, 4, 5, 6))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)")
}

func TestReductions(t *testing.T) {
	x := f32([]int64{2, 3}, 1, 5, 5, 7, 2, 7)
	res := runGraph(t, `
def forward(self, x: "f32[2, 3]", i: "i32[3]"):
    sum_1: "f32[2, 1]" = torch.ops.aten.sum.dim_IntList(x, [1], True)
    sum_2: "i64[]" = torch.ops.aten.sum.default(i)
    max_1 = torch.ops.aten.max.dim(x, 1)
    getitem: "f32[2]" = max_1[0]
    getitem_1: "i64[2]" = max_1[1]
    argmax: "i64[]" = torch.ops.aten.argmax.default(x)
    mean: "f32[3]" = torch.ops.aten.mean.dim(x, [0])
    amax: "f32[]" = torch.ops.aten.amax.default(x, [])
    cumsum: "i64[3]" = torch.ops.aten.cumsum.default(i, 0)
    return (sum_1, sum_2, getitem, getitem_1, argmax, mean, amax, cumsum)
`, x, FromInts(ir.I32, []int64{3}, []int64{1, 2, 3}))
	assert.Equal(t, []float64{11, 16}, floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []int64{6}, intsOf(t, res.Outputs[1]))
	assert.Equal(t, ir.I64, res.Outputs[1].(*Tensor).DType, "integer sums accumulate in int64")
	assert.Equal(t, []float64{5, 7}, floatsOf(t, res.Outputs[2]))
	assert.Equal(t, []int64{1, 0}, intsOf(t, res.Outputs[3]), "first occurrence of the maximum")
	assert.Equal(t, []int64{3}, intsOf(t, res.Outputs[4]))
	assert.Equal(t, []float64{4, 3.5, 6}, floatsOf(t, res.Outputs[5]))
	assert.Equal(t, []float64{7}, floatsOf(t, res.Outputs[6]))
	assert.Equal(t, []int64{1, 3, 6}, intsOf(t, res.Outputs[7]))
	// var with Bessel's correction: var([1, 2, 3, 4]) = 5/3
	res = runGraph(t, `
def forward(self, x: "f32[4]"):
    var_mean = torch.ops.aten.var_mean.correction(x, [0], correction = 1)
    getitem: "f32[]" = var_mean[0]
    getitem_1: "f32[]" = var_mean[1]
    return (getitem, getitem_1)
`, f32([]int64{4}, 1, 2, 3, 4))
	assert.Equal(t, []float64{float64(float32(5.0 / 3))}, floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []float64{2.5}, floatsOf(t, res.Outputs[1]))
	err := runErr(t, `
def forward(self, i: "i64[3]"):
    mean: "f32[]" = torch.ops.aten.mean.default(i)
    return (mean,)
`, FromInts(ir.I64, []int64{3}, []int64{1, 2, 3}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long")
}

func TestSoftmax(t *testing.T) {
	res := runGraph(t, `
def forward(self, x: "f32[2, 2]"):
    _softmax: "f32[2, 2]" = torch.ops.aten._softmax.default(x, 1, False)
    _log_softmax: "f32[2, 2]" = torch.ops.aten._log_softmax.default(x, 0, False)
    return (_softmax, _log_softmax)
`, f32([]int64{2, 2}, 0, math.Log(3), 0, 0))
	assert.InDeltaSlice(t, []float64{0.25, 0.75, 0.5, 0.5}, floatsOf(t, res.Outputs[0]), 1e-7)
	assert.InDeltaSlice(t, []float64{math.Log(0.5), math.Log(0.75), math.Log(0.5), math.Log(0.25)}, floatsOf(t, res.Outputs[1]), 1e-6)
}

func TestIndexing(t *testing.T) {
	// torch.gather docs: t = [[1, 2], [3, 4]]; gather(t, 1, [[0, 0], [1, 0]]) = [[1, 1], [4, 3]]
	res := runGraph(t, `
def forward(self, x: "f32[2, 2]", idx: "i64[2, 2]", mask: "b8[2]", z: "f32[3]", j: "i64[3]", w: "f32[3]"):
    gather: "f32[2, 2]" = torch.ops.aten.gather.default(x, 1, idx)
    index: "f32[1, 2]" = torch.ops.aten.index.Tensor(x, [mask])
    index_put: "f32[3]" = torch.ops.aten.index_put.default(z, [j], w, True)
    index_put_1: "f32[3]" = torch.ops.aten.index_put.default(z, [j], w)
    scatter_add: "f32[3]" = torch.ops.aten.scatter_add.default(z, 0, j, w)
    embedding: "f32[3, 2]" = torch.ops.aten.embedding.default(x, j)
    return (gather, index, index_put, index_put_1, scatter_add, embedding)
`, f32([]int64{2, 2}, 1, 2, 3, 4), FromInts(ir.I64, []int64{2, 2}, []int64{0, 0, 1, 0}),
		FromInts(ir.Bool, []int64{2}, []int64{0, 1}), f32([]int64{3}, 0, 0, 0),
		FromInts(ir.I64, []int64{3}, []int64{0, 0, 1}), f32([]int64{3}, 1, 2, 3))
	assert.Equal(t, []float64{1, 1, 4, 3}, floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []float64{3, 4}, floatsOf(t, res.Outputs[1]))
	assert.Equal(t, []float64{3, 3, 0}, floatsOf(t, res.Outputs[2]), "duplicates accumulate")
	assert.Equal(t, []float64{2, 3, 0}, floatsOf(t, res.Outputs[3]), "without accumulate the last write wins")
	assert.Equal(t, []float64{3, 3, 0}, floatsOf(t, res.Outputs[4]))
	assert.Equal(t, []float64{1, 2, 1, 2, 3, 4}, floatsOf(t, res.Outputs[5]))
	err := runErr(t, `
def forward(self, x: "f32[2, 2]", j: "i64[1]"):
    index: "f32[1, 2]" = torch.ops.aten.index.Tensor(x, [j])
    return (index,)
`, f32([]int64{2, 2}, 1, 2, 3, 4), FromInts(ir.I64, []int64{1}, []int64{5}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index 5 is out of bounds for dimension 0 with size 2")
}

func TestFactoriesAndShapes(t *testing.T) {
	res := runGraph(t, `
def forward(self, a: "i32[2]", b: "f32[1]"):
    arange: "f32[4]" = torch.ops.aten.arange.start_step(0, 1, 0.25)
    arange_1: "i64[3]" = torch.ops.aten.arange.default(3)
    full: "b8[2]" = torch.ops.aten.full.default([2], True)
    cat: "f32[3]" = torch.ops.aten.cat.default([a, b])
    where: "f32[2]" = torch.ops.aten.where.self(full, 1.5, b)
    repeat: "i32[4]" = torch.ops.aten.repeat.default(a, [2])
    flip: "i32[2]" = torch.ops.aten.flip.default(a, [0])
    constant_pad_nd: "i32[5]" = torch.ops.aten.constant_pad_nd.default(a, [1, 2], 9)
    return (arange, arange_1, full, cat, where, repeat, flip, constant_pad_nd)
`, FromInts(ir.I32, []int64{2}, []int64{1, 2}), f32([]int64{1}, 0.5))
	assert.Equal(t, []float64{0, 0.25, 0.5, 0.75}, floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []int64{0, 1, 2}, intsOf(t, res.Outputs[1]))
	assert.Equal(t, ir.Bool, res.Outputs[2].(*Tensor).DType)
	assert.Equal(t, []float64{1, 2, 0.5}, floatsOf(t, res.Outputs[3]))
	assert.Equal(t, []float64{1.5, 1.5}, floatsOf(t, res.Outputs[4]))
	assert.Equal(t, []int64{1, 2, 1, 2}, intsOf(t, res.Outputs[5]))
	assert.Equal(t, []int64{2, 1}, intsOf(t, res.Outputs[6]))
	assert.Equal(t, []int64{9, 1, 2, 9, 9}, intsOf(t, res.Outputs[7]))
}

func TestDataDependentAndMeta(t *testing.T) {
	res := runGraph(t, `
def forward(self, x: "i64[3]"):
    select: "i64[]" = torch.ops.aten.select.int(x, 0, 1)
    _local_scalar_dense: "Sym(u0)" = torch.ops.aten._local_scalar_dense.default(select)
    zeros: "f32[u0]" = torch.ops.aten.zeros.default([_local_scalar_dense])
    nonzero: "i64[u1, 1]" = torch.ops.aten.nonzero.default(x)
    return (zeros, nonzero)
`, FromInts(ir.I64, []int64{3}, []int64{0, 4, 2}))
	assert.Equal(t, []int64{4}, res.Outputs[0].(*Tensor).Shape)
	assert.Equal(t, []int64{1, 2}, intsOf(t, res.Outputs[1]))
	assert.Equal(t, int64(4), res.Sym["u0"], "the unbacked symbol takes its runtime value")
	assert.Equal(t, int64(2), res.Sym["u1"])
	// docs/SCENARIOS.md 5: .item() on a meta tensor
	g := parseGraph(t, `
def forward(self, x: "i64[1][1]meta"):
    select: "i64[][]meta" = torch.ops.aten.select.int(x, 0, 0)
    _local_scalar_dense = torch.ops.aten._local_scalar_dense.default(select)
    return (_local_scalar_dense,)
`)
	in, err := MakeInputs(g, Options{})
	require.NoError(t, err)
	_, err = Run(g, in, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Tensor.item() cannot be called on meta tensors")
}

func TestAttentionAndUpsample(t *testing.T) {
	// One query attending to two keys with scores 0 and ln 3 (scale 1):
	// weights 1/4 and 3/4 over values 4 and 8 give 7; causal masking of
	// the first row keeps only key 0.
	res := runGraph(t, `
def forward(self, q: "f32[2, 1]", k: "f32[2, 1]", v: "f32[2, 1]"):
    sdpa: "f32[2, 1]" = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, scale = 1.0)
    sdpa_1: "f32[2, 1]" = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, is_causal = True, scale = 1.0)
    return (sdpa, sdpa_1)
`, f32([]int64{2, 1}, 1, 1), f32([]int64{2, 1}, 0, math.Log(3)), f32([]int64{2, 1}, 4, 8))
	assert.InDeltaSlice(t, []float64{7, 7}, floatsOf(t, res.Outputs[0]), 1e-5)
	assert.InDeltaSlice(t, []float64{4, 7}, floatsOf(t, res.Outputs[1]), 1e-5)
	// bilinear 2x2 -> 3x3 with align_corners: corners kept, centre is the mean.
	res = runGraph(t, `
def forward(self, x: "f32[1, 1, 2, 2]"):
    up: "f32[1, 1, 3, 3]" = torch.ops.aten.upsample_bilinear2d.default(x, [3, 3], True)
    return (up,)
`, f32([]int64{1, 1, 2, 2}, 0, 2, 4, 6))
	assert.Equal(t, []float64{0, 1, 2, 2, 3, 4, 4, 5, 6}, floatsOf(t, res.Outputs[0]))
}

func TestConvPoolNorm(t *testing.T) {
	x9 := f32([]int64{1, 1, 3, 3}, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	x16 := make([]float64, 16)
	for i := range x16 {
		x16[i] = float64(i + 1)
	}
	res := runGraph(t, `
def forward(self, x: "f32[1, 1, 3, 3]", w: "f32[1, 1, 2, 2]", y: "f32[1, 1, 4, 4]", v: "f32[1, 3]"):
    convolution: "f32[1, 1, 2, 2]" = torch.ops.aten.convolution.default(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    max_pool2d: "f32[1, 1, 2, 2]" = torch.ops.aten.max_pool2d.default(x, [2, 2], [1, 1])
    avg_pool2d: "f32[1, 1, 2, 2]" = torch.ops.aten.avg_pool2d.default(y, [2, 2], [2, 2])
    native_layer_norm = torch.ops.aten.native_layer_norm.default(v, [3], None, None, 0.0)
    getitem: "f32[1, 3]" = native_layer_norm[0]
    getitem_1: "f32[1, 1]" = native_layer_norm[1]
    return (convolution, max_pool2d, avg_pool2d, getitem, getitem_1)
`, x9, ones(1, 1, 2, 2), f32([]int64{1, 1, 4, 4}, x16...), f32([]int64{1, 3}, 1, 2, 3))
	assert.Equal(t, []float64{12, 16, 24, 28}, floatsOf(t, res.Outputs[0]))
	assert.Equal(t, []float64{5, 6, 8, 9}, floatsOf(t, res.Outputs[1]))
	assert.Equal(t, []float64{3.5, 5.5, 11.5, 13.5}, floatsOf(t, res.Outputs[2]))
	// (x - 2) / sqrt(2/3)
	s := math.Sqrt(1.5)
	assert.InDeltaSlice(t, []float64{-s, 0, s}, floatsOf(t, res.Outputs[3]), 1e-6)
	assert.Equal(t, []float64{2}, floatsOf(t, res.Outputs[4]))
}
