package rt

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// PyTorch's CPU embedding_bag, its backward and the per-sample-weights
// backward on random values (rt/testdata/extern_multi.json, from
// tools/externs/gen.py): rt must agree bit for bit, index outputs included.

type bagCase struct {
	Name, DType      string
	WS               []int64 `json:"weight_shape"`
	Weight           jsonNum
	Indices, Offsets []int64
	Mode             int64
	Pad              int64   `json:"padding_idx"`
	Last             bool    `json:"include_last_offset"`
	ForwardOnly      bool    `json:"forward_only"`
	PSW              jsonNum `json:"per_sample_weights"`
	Output           jsonNum
	Offset2bag       []int64
	BagSize          []int64 `json:"bag_size"`
	MaxIndices       []int64 `json:"max_indices"`
	MaxShape         []int64 `json:"max_indices_shape"`
	Grad             jsonNum
	GradWeight       jsonNum `json:"grad_weight"`
	GradPSW          jsonNum `json:"grad_per_sample_weights"`
}

func floatTensor(t *testing.T, dt string, shape []int64, vals jsonNum) *Tensor {
	x := NewTensor(dt, shape)
	for i, v := range vals.floats(t) {
		encodeFloat(dt, x.Data, int64(i), v)
	}
	return x
}

func intTensor(shape []int64, vals []int64) *Tensor {
	x := NewTensor("i64", shape)
	if err := storeInts(x, vals); err != nil {
		panic(err)
	}
	return x
}

func requireFloats(t *testing.T, want jsonNum, got *Tensor, what string) {
	t.Helper()
	w := want.floats(t)
	require.Equal(t, int64(len(w)), Numel(got.Shape), what)
	for j, v := range w {
		require.Equal(t, v, decodeFloat(got.DType, got.Data, int64(j)), fmt.Sprintf("%s[%d], bit for bit", what, j))
	}
}

func (c *bagCase) params() map[string][]int64 {
	return map[string][]int64{"mode": {c.Mode}, "padding_idx": {c.Pad}, "include_last_offset": {b2i(c.Last)}}
}

func (c *bagCase) inputs(t *testing.T) (w, idx, offs, psw *Tensor) {
	n := int64(len(c.Indices))
	w = floatTensor(t, c.DType, c.WS, c.Weight)
	idx, offs = intTensor([]int64{n}, c.Indices), intTensor([]int64{int64(len(c.Offsets))}, c.Offsets)
	if c.PSW != nil {
		psw = floatTensor(t, c.DType, []int64{n}, c.PSW)
	}
	return w, idx, offs, psw
}

func TestEmbeddingBagMatchesPyTorch(t *testing.T) {
	d := loadExternData(t)
	require.GreaterOrEqual(t, len(d.EmbeddingBag), 13)
	for _, c := range d.EmbeddingBag {
		t.Run(c.Name, func(t *testing.T) {
			w, idx, offs, psw := c.inputs(t)
			bags := int64(len(c.Output)) / c.WS[1]
			outs := []*Tensor{NewTensor(c.DType, []int64{bags, c.WS[1]}), NewTensor("i64", []int64{int64(len(c.Offset2bag))}),
				NewTensor("i64", []int64{int64(len(c.BagSize))}), NewTensor("i64", c.MaxShape)}
			op := "aten::_embedding_bag.default"
			if c.ForwardOnly {
				op = "aten::_embedding_bag_forward_only.default"
			}
			require.NoError(t, ExternN(op, outs, []*Tensor{w, idx, offs, psw}, c.params()))
			requireFloats(t, c.Output, outs[0], "output")
			for i, want := range [][]int64{c.Offset2bag, c.BagSize, c.MaxIndices} {
				got, err := loadInts(outs[i+1])
				require.NoError(t, err)
				require.Equal(t, want, append([]int64{}, got...), "index output %d", i+1)
			}
			if c.Grad == nil {
				return
			}
			g := floatTensor(t, c.DType, outs[0].Shape, c.Grad)
			gw := NewTensor(c.DType, c.WS)
			params := c.params()
			params["num_weights"] = []int64{c.WS[0]}
			require.NoError(t, Extern("aten::_embedding_bag_backward.default", gw,
				[]*Tensor{g, idx, offs, outs[1], outs[2], outs[3], psw}, params))
			requireFloats(t, c.GradWeight, gw, "grad_weight")
		})
	}
}

func TestEmbeddingBagRefusesBadOffsets(t *testing.T) {
	w, idx := NewTensor("f32", []int64{4, 2}), intTensor([]int64{3}, []int64{0, 1, 2})
	outs := []*Tensor{NewTensor("f32", []int64{2, 2}), nil, nil, nil}
	err := ExternN("aten::_embedding_bag.default", outs, []*Tensor{w, idx, intTensor([]int64{2}, []int64{0, 5}), nil}, nil)
	require.ErrorContains(t, err, "do not fit 3 indices")
	err = ExternN("aten::_embedding_bag.default", outs, []*Tensor{w, intTensor([]int64{3}, []int64{0, 4, 1}),
		intTensor([]int64{2}, []int64{0, 1}), nil}, nil)
	require.ErrorContains(t, err, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be 4")
}
