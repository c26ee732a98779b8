package rt

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// PyTorch's CPU topk and convolution_backward on small cases
// (rt/testdata/extern_multi.json, from tools/externs/gen.py; the file
// names the PyTorch version that printed it).

type jsonNum []any // numbers, or "nan" / "inf" / "-inf"

func (j jsonNum) floats(t *testing.T) []float64 {
	out := make([]float64, len(j))
	for i, v := range j {
		switch x := v.(type) {
		case float64:
			out[i] = x
		case string:
			switch x {
			case "nan":
				out[i] = math.NaN()
			case "inf":
				out[i] = math.Inf(1)
			case "-inf":
				out[i] = math.Inf(-1)
			default:
				t.Fatalf("bad number %q", x)
			}
		}
	}
	return out
}

type externData struct {
	Torch string `json:"torch"`
	Topk  []struct {
		Name, DType     string
		Shape           []int64
		X               json.RawMessage
		K, Dim          int64
		Largest, Sorted bool
		Values, Indices json.RawMessage
	}
	Sort []struct {
		Name, DType        string
		Shape              []int64
		X                  json.RawMessage
		Dim                int64
		Descending, Stable bool
		Values, Indices    json.RawMessage
	}
	ConvolutionBackward []struct {
		Name, DType               string
		GOS                       []int64 `json:"grad_output_shape"`
		IS                        []int64 `json:"input_shape"`
		WS                        []int64 `json:"weight_shape"`
		GO                        jsonNum `json:"grad_output"`
		In                        jsonNum `json:"input"`
		W                         jsonNum `json:"weight"`
		BiasSizes                 []int64 `json:"bias_sizes"`
		Stride, Padding, Dilation []int64
		Groups                    int64
		OutputMask                []bool `json:"output_mask"`
		Transposed                bool
		OutputPadding             []int64 `json:"output_padding"`
		Bias, Output              jsonNum
		GradInput                 jsonNum `json:"grad_input"`
		GradWeight                jsonNum `json:"grad_weight"`
		GradBias                  jsonNum `json:"grad_bias"`
	} `json:"convolution_backward"`
	AdaptiveAvgPool2dBackward []struct {
		Name, DType string
		IS          []int64 `json:"input_shape"`
		GOS         []int64 `json:"grad_output_shape"`
		GO          jsonNum `json:"grad_output"`
		GradInput   jsonNum `json:"grad_input"`
	} `json:"adaptive_avg_pool2d_backward"`
	UpsampleBilinear2dBackward []struct {
		Name, DType string
		IS          []int64 `json:"input_size"`
		OS          []int64 `json:"output_size"`
		Align       bool    `json:"align_corners"`
		GO          jsonNum `json:"grad_output"`
		GradInput   jsonNum `json:"grad_input"`
	} `json:"upsample_bilinear2d_backward"`
	EmbeddingBag []bagCase `json:"embedding_bag"`
}

func loadExternData(t *testing.T) *externData {
	b, err := os.ReadFile("testdata/extern_multi.json")
	require.NoError(t, err)
	var d externData
	require.NoError(t, json.Unmarshal(b, &d))
	require.NotEmpty(t, d.Torch)
	return &d
}

// tensorOf encodes values (floats, or int64 bit-exact from JSON numbers)
// as a contiguous tensor of dt.
func tensorOf(t *testing.T, dt string, shape []int64, raw json.RawMessage) *Tensor {
	x := NewTensor(dt, shape)
	switch dt {
	case "i64", "i32", "b8":
		var vs []int64
		require.NoError(t, json.Unmarshal(raw, &vs))
		for i, v := range vs {
			switch dt {
			case "i64":
				binary.LittleEndian.PutUint64(x.Data[i*8:], uint64(v))
			case "i32":
				binary.LittleEndian.PutUint32(x.Data[i*4:], uint32(int32(v)))
			default: // bools come as 0 and 1
				x.Data[i] = byte(v)
			}
		}
	default:
		var vs jsonNum
		require.NoError(t, json.Unmarshal(raw, &vs))
		for i, v := range vs.floats(t) {
			encodeFloat(dt, x.Data, int64(i), v)
		}
	}
	return x
}

func TestTopkMatchesPyTorch(t *testing.T) {
	d := loadExternData(t)
	require.GreaterOrEqual(t, len(d.Topk), 40)
	for _, c := range d.Topk {
		t.Run(c.Name, func(t *testing.T) {
			x := tensorOf(t, c.DType, c.Shape, c.X)
			shape := append([]int64(nil), c.Shape...)
			dim := c.Dim
			if len(shape) > 0 {
				if dim < 0 {
					dim += int64(len(shape))
				}
				shape[dim] = c.K
			} else {
				dim = 0
			}
			vals, idx := NewTensor(c.DType, shape), NewTensor("i64", shape)
			params := map[string][]int64{"k": {c.K}, "dim": {dim}, "largest": {b2i(c.Largest)}, "sorted": {b2i(c.Sorted)}}
			require.NoError(t, ExternN("aten::topk.default", []*Tensor{vals, idx}, []*Tensor{x}, params))
			wantV := tensorOf(t, c.DType, shape, c.Values)
			wantI := tensorOf(t, "i64", shape, c.Indices)
			require.Equal(t, I64s(wantI.Data), I64s(idx.Data), "indices")
			require.Equal(t, wantV.Data, vals.Data, "values, bit for bit")
			// values only, indices not asked for
			only := NewTensor(c.DType, shape)
			require.NoError(t, ExternN("aten::topk", []*Tensor{only, nil}, []*Tensor{x}, params))
			require.Equal(t, wantV.Data, only.Data)
		})
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestConvolutionBackwardMatchesPyTorch(t *testing.T) {
	d := loadExternData(t)
	require.GreaterOrEqual(t, len(d.ConvolutionBackward), 10)
	for _, c := range d.ConvolutionBackward {
		t.Run(c.Name, func(t *testing.T) {
			enc := func(shape []int64, vs jsonNum) *Tensor {
				x := NewTensor(c.DType, shape)
				for i, v := range vs.floats(t) {
					encodeFloat(c.DType, x.Data, int64(i), v)
				}
				return x
			}
			args := []*Tensor{enc(c.GOS, c.GO), enc(c.IS, c.In), enc(c.WS, c.W)}
			outs := make([]*Tensor, 3)
			want := []jsonNum{c.GradInput, c.GradWeight, c.GradBias}
			shapes := [][]int64{c.IS, c.WS, c.BiasSizes}
			for i := range outs {
				if c.OutputMask[i] && want[i] != nil {
					outs[i] = NewTensor(c.DType, shapes[i])
				}
			}
			params := map[string][]int64{"stride": c.Stride, "padding": c.Padding, "dilation": c.Dilation,
				"transposed": {b2i(c.Transposed)}, "output_padding": c.OutputPadding, "groups": {c.Groups}}
			checkConvForward(t, c.DType, args, c.BiasSizes, c.Bias, c.Output, params, enc)
			require.NoError(t, ExternN("aten::convolution_backward.default", outs, args, params))
			for i, o := range outs {
				if o == nil {
					require.Nil(t, want[i], "output %d: PyTorch computed it, the mask did not ask", i)
					continue
				}
				w := want[i].floats(t)
				require.Len(t, w, int(Numel(o.Shape)))
				for j, v := range w {
					got := decodeFloat(c.DType, o.Data, int64(j))
					// inputs are multiples of 1/8: f64 sums are exact; f32
					// ones are exact below 2^24/64 too
					require.Equal(t, v, got, fmt.Sprintf("output %d [%d]", i, j))
				}
			}
		})
	}
}

// checkConvForward runs aten::convolution on the case's input, weight and
// bias (args[1:]) into grad_output's shape and compares with PyTorch's
// forward (exact: multiples of 1/8).
func checkConvForward(t *testing.T, dt string, args []*Tensor, biasSizes []int64, bias, want jsonNum,
	params map[string][]int64, enc func([]int64, jsonNum) *Tensor) {
	t.Helper()
	var b *Tensor
	if bias != nil {
		b = enc(biasSizes, bias)
	}
	out := NewTensor(dt, args[0].Shape)
	require.NoError(t, Extern("aten::convolution.default", out, []*Tensor{args[1], args[2], b}, params))
	for j, v := range want.floats(t) {
		require.Equal(t, v, decodeFloat(dt, out.Data, int64(j)), fmt.Sprintf("forward [%d]", j))
	}
}

func TestExternNRefusesBadInput(t *testing.T) {
	x := NewTensor("f32", []int64{2, 5})
	v, i := NewTensor("f32", []int64{2, 6}), NewTensor("i64", []int64{2, 6})
	err := ExternN("aten::topk", []*Tensor{v, i}, []*Tensor{x}, map[string][]int64{"k": {6}, "dim": {1}})
	require.ErrorContains(t, err, "selected index k out of range")
	err = ExternN("aten::topk", []*Tensor{v, i}, []*Tensor{x}, map[string][]int64{"k": {2}, "dim": {2}})
	require.ErrorContains(t, err, "dim 2 out of range")
	err = ExternN("aten::topk", []*Tensor{v, i}, []*Tensor{x}, map[string][]int64{"k": {2}, "dim": {1}})
	require.ErrorContains(t, err, "has shape [2 6], want [2 2]")
	err = ExternN("aten::topk", []*Tensor{v}, []*Tensor{x}, map[string][]int64{"k": {2}, "dim": {1}})
	require.ErrorContains(t, err, "two outputs")
	g, w := NewTensor("f32", []int64{1, 2, 3, 3}), NewTensor("f32", []int64{2, 1, 3, 3})
	in := NewTensor("f32", []int64{1, 1, 5, 5})
	err = ExternN("aten::convolution_backward", []*Tensor{nil, nil, nil}, []*Tensor{g, in, w}, map[string][]int64{"stride": {0}})
	require.ErrorContains(t, err, "must be positive")
	err = ExternN("aten::convolution_backward", []*Tensor{in, nil, nil}, []*Tensor{g, in, w}, map[string][]int64{"transposed": {1}})
	require.ErrorContains(t, err, "do not fit groups")
	err = ExternN("aten::convolution_backward", []*Tensor{nil, nil, nil}, []*Tensor{in, g, w},
		map[string][]int64{"transposed": {1}, "stride": {2}, "output_padding": {2}})
	require.ErrorContains(t, err, "output padding")
	err = ExternN("aten::convolution_backward", []*Tensor{in, nil, nil}, []*Tensor{NewTensor("f32", []int64{1, 2, 4, 3}), in, w}, nil)
	require.ErrorContains(t, err, "does not fit")
	require.ErrorContains(t, ExternN("aten::nope", nil, nil, nil), "not supported")
}

func TestSortMatchesPyTorch(t *testing.T) {
	d := loadExternData(t)
	require.GreaterOrEqual(t, len(d.Sort), 20)
	for _, c := range d.Sort {
		t.Run(c.Name, func(t *testing.T) {
			x := tensorOf(t, c.DType, c.Shape, c.X)
			dim := c.Dim
			if dim < 0 {
				dim += int64(len(c.Shape))
			}
			vals, idx := NewTensor(c.DType, c.Shape), NewTensor("i64", c.Shape)
			params := map[string][]int64{"dim": {dim}, "descending": {b2i(c.Descending)}, "stable": {b2i(c.Stable)}}
			require.NoError(t, ExternN("aten::sort.stable", []*Tensor{vals, idx}, []*Tensor{x}, params))
			require.Equal(t, I64s(tensorOf(t, "i64", c.Shape, c.Indices).Data), I64s(idx.Data), "indices")
			require.Equal(t, tensorOf(t, c.DType, c.Shape, c.Values).Data, vals.Data, "values, bit for bit")
		})
	}
}

// TestAdaptiveAvgPool2dBackwardMatchesPyTorch: random values, bit-exact
// (the division order grad / kh / kw and the summation order are ATen's).
func TestAdaptiveAvgPool2dBackwardMatchesPyTorch(t *testing.T) {
	d := loadExternData(t)
	require.GreaterOrEqual(t, len(d.AdaptiveAvgPool2dBackward), 5)
	for _, c := range d.AdaptiveAvgPool2dBackward {
		t.Run(c.Name, func(t *testing.T) {
			g := NewTensor(c.DType, c.GOS)
			for i, v := range c.GO.floats(t) {
				encodeFloat(c.DType, g.Data, int64(i), v)
			}
			out := NewTensor(c.DType, c.IS)
			require.NoError(t, Extern("aten::_adaptive_avg_pool2d_backward.default", out, []*Tensor{g, NewTensor(c.DType, c.IS)}, nil))
			for j, v := range c.GradInput.floats(t) {
				require.Equal(t, v, decodeFloat(c.DType, out.Data, int64(j)), fmt.Sprintf("[%d]", j))
			}
		})
	}
	x, g := NewTensor("f32", []int64{1, 2, 5, 5}), NewTensor("f32", []int64{1, 3, 2, 2})
	err := Extern("aten::_adaptive_avg_pool2d_backward.default", NewTensor("f32", x.Shape), []*Tensor{g, x}, nil)
	require.ErrorContains(t, err, "same leading sizes")
}

// TestUpsampleBilinear2dBackwardMatchesPyTorch: random values, bit-exact
// (ATen's weights in opmath, products and scatter order).
func TestUpsampleBilinear2dBackwardMatchesPyTorch(t *testing.T) {
	d := loadExternData(t)
	require.GreaterOrEqual(t, len(d.UpsampleBilinear2dBackward), 6)
	for _, c := range d.UpsampleBilinear2dBackward {
		t.Run(c.Name, func(t *testing.T) {
			g := NewTensor(c.DType, append(slices.Clone(c.IS[:2]), c.OS...))
			for i, v := range c.GO.floats(t) {
				encodeFloat(c.DType, g.Data, int64(i), v)
			}
			out := NewTensor(c.DType, c.IS)
			params := map[string][]int64{"output_size": c.OS, "input_size": c.IS, "align_corners": {b2i(c.Align)}}
			require.NoError(t, Extern("aten::upsample_bilinear2d_backward.default", out, []*Tensor{g}, params))
			for j, v := range c.GradInput.floats(t) {
				require.Equal(t, v, decodeFloat(c.DType, out.Data, int64(j)), fmt.Sprintf("[%d]", j))
			}
		})
	}
	err := Extern("aten::upsample_bilinear2d_backward.default", NewTensor("f32", []int64{1, 1, 3, 3}),
		[]*Tensor{NewTensor("f32", []int64{1, 1, 2, 2})}, map[string][]int64{"output_size": {5, 5}, "input_size": {1, 1, 3, 3}})
	require.ErrorContains(t, err, "do not fit")
}
