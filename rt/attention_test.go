package rt

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// PyTorch's CPU flash attention forward and backward on small cases
// (rt/testdata/extern_attention.json, from tools/externs/gen_attention.py;
// the file names the PyTorch version that printed it).

type sdpaCase struct {
	Name, DType    string
	QShape         []int64 `json:"q_shape"`
	KVShape        []int64 `json:"kv_shape"`
	Q, K, V        jsonNum
	IsCausal       bool    `json:"is_causal"`
	MaskShape      []int64 `json:"mask_shape"`
	Mask           jsonNum
	Scale          *float64
	Out, Logsumexp jsonNum
	GradOut        jsonNum `json:"grad_out"`
	GradQ          jsonNum `json:"grad_q"`
	GradK          jsonNum `json:"grad_k"`
	GradV          jsonNum `json:"grad_v"`
}

func loadSDPACases(t *testing.T) []sdpaCase {
	b, err := os.ReadFile("testdata/extern_attention.json")
	require.NoError(t, err)
	var d struct {
		Torch string
		Cases []sdpaCase `json:"sdpa_flash_cpu"`
	}
	require.NoError(t, json.Unmarshal(b, &d))
	require.NotEmpty(t, d.Torch)
	require.GreaterOrEqual(t, len(d.Cases), 15)
	return d.Cases
}

func (c *sdpaCase) tensor(t *testing.T, dt string, shape []int64, vs jsonNum) *Tensor {
	x := NewTensor(dt, shape)
	fs := vs.floats(t)
	require.Len(t, fs, int(Numel(shape)))
	for i, v := range fs {
		encodeFloat(dt, x.Data, int64(i), v)
	}
	return x
}

func (c *sdpaCase) params() map[string][]int64 {
	p := map[string][]int64{"is_causal": {b2i(c.IsCausal)}}
	if c.Scale != nil {
		p["scale_f64bits"] = []int64{SDPAScaleParam(*c.Scale)}
	}
	return p
}

// Tolerances, relative to the largest magnitude: f64 1e-12; f32 1e-5
// (the kernel's exp_u20 and its GEMM's sum order differ from ours by a few
// ulps); bf16 3 of its ulps (3·2^-8: PyTorch rounds partial gradient sums
// to bf16 where rt keeps float); the f32 logsumexp of bf16 inputs 2^-12
// (PyTorch's bf16 GEMM sums q·k in its own order).
var sdpaTol = map[string]float64{"f64": 1e-12, "f32": 1e-5, "bf16": 3.0 / 256, "bf16-lse": 1.0 / 4096}

// closeTo holds got to PyTorch's want within tol times the largest
// magnitude of want (at least 1).
func closeTo(t *testing.T, tol float64, what string, want []float64, got *Tensor) {
	scale := 1.0
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	worst := 0.0
	for i, w := range want {
		g := decodeFloat(got.DType, got.Data, int64(i))
		d := math.Abs(g - w)
		if math.IsInf(w, 0) || math.IsNaN(w) {
			require.Equal(t, fmt.Sprint(w), fmt.Sprint(g), "%s[%d]", what, i)
			continue
		}
		worst = max(worst, d/scale)
		require.LessOrEqual(t, d, tol*scale, "%s[%d]: got %v, PyTorch %v", what, i, g, w)
	}
	t.Logf("%s: worst difference %.3g of the largest magnitude", what, worst)
}

func TestSDPAFlashCPUMatchesPyTorch(t *testing.T) {
	for _, c := range loadSDPACases(t) {
		t.Run(c.Name, func(t *testing.T) {
			dt := c.DType
			acc := map[bool]string{true: "f64", false: "f32"}[dt == "f64"]
			q := c.tensor(t, dt, c.QShape, c.Q)
			k, v := c.tensor(t, dt, c.KVShape, c.K), c.tensor(t, dt, c.KVShape, c.V)
			var mask *Tensor
			if c.MaskShape != nil {
				mask = c.tensor(t, dt, c.MaskShape, c.Mask)
			}
			lseShape := c.QShape[:3]
			lseTol := sdpaTol[acc]
			if dt == "bf16" {
				lseTol = sdpaTol["bf16-lse"]
			}
			out, lse := NewTensor(dt, c.QShape), NewTensor(acc, lseShape)
			require.NoError(t, ExternN("aten::_scaled_dot_product_flash_attention_for_cpu.default",
				[]*Tensor{out, lse}, []*Tensor{q, k, v, mask}, c.params()))
			closeTo(t, sdpaTol[dt], "out", c.Out.floats(t), out)
			closeTo(t, lseTol, "logsumexp", c.Logsumexp.floats(t), lse)
			// inference: logsumexp not asked for
			only := NewTensor(dt, c.QShape)
			require.NoError(t, ExternN("aten::_scaled_dot_product_flash_attention_for_cpu",
				[]*Tensor{only, nil}, []*Tensor{q, k, v, mask}, c.params()))
			require.Equal(t, out.Data, only.Data)

			// the backward reads PyTorch's out and logsumexp
			gout := c.tensor(t, dt, c.QShape, c.GradOut)
			pout, plse := c.tensor(t, dt, c.QShape, c.Out), c.tensor(t, acc, lseShape, c.Logsumexp)
			gq, gk, gv := NewTensor(dt, c.QShape), NewTensor(dt, c.KVShape), NewTensor(dt, c.KVShape)
			require.NoError(t, ExternN("aten::_scaled_dot_product_flash_attention_for_cpu_backward.default",
				[]*Tensor{gq, gk, gv}, []*Tensor{gout, q, k, v, pout, plse, mask}, c.params()))
			closeTo(t, sdpaTol[dt], "grad_q", c.GradQ.floats(t), gq)
			closeTo(t, sdpaTol[dt], "grad_k", c.GradK.floats(t), gk)
			closeTo(t, sdpaTol[dt], "grad_v", c.GradV.floats(t), gv)
		})
	}
}

func TestSDPARefusesBadInput(t *testing.T) {
	const fwd = "aten::_scaled_dot_product_flash_attention_for_cpu"
	nt := func(dt string, shape ...int64) *Tensor { return NewTensor(dt, shape) }
	q, kv := nt("f32", 1, 4, 3, 8), nt("f32", 1, 2, 5, 8)
	outs := func() []*Tensor { return []*Tensor{nt("f32", 1, 4, 3, 8), nt("f32", 1, 4, 3)} }
	for _, c := range []struct {
		name string
		args []*Tensor
		want string
	}{
		{"heads", []*Tensor{q, nt("f32", 1, 3, 5, 8), nt("f32", 1, 3, 5, 8), nil}, "not a multiple"},
		{"kv heads", []*Tensor{q, kv, nt("f32", 1, 4, 5, 8), nil}, "differ in heads"},
		{"head size", []*Tensor{q, kv, nt("f32", 1, 2, 5, 4), nil}, "same head size"},
		{"batch", []*Tensor{q, nt("f32", 2, 2, 5, 8), nt("f32", 2, 2, 5, 8), nil}, "batch sizes differ"},
		{"rank", []*Tensor{nt("f32", 4, 3, 8), kv, kv, nil}, "must be 4-d"},
		{"empty keys", []*Tensor{q, nt("f32", 1, 2, 0, 8), nt("f32", 1, 2, 0, 8), nil}, "divides by zero"},
		{"dtype", []*Tensor{q, nt("f64", 1, 2, 5, 8), kv, nil}, "one float dtype"},
		{"ints", []*Tensor{nt("i64", 1, 4, 3, 8), nt("i64", 1, 2, 5, 8), nt("i64", 1, 2, 5, 8), nil}, "one float dtype"},
		{"mask dtype", []*Tensor{q, kv, kv, nt("bf16", 3, 5)}, "same dtype"},
		{"mask rank", []*Tensor{q, kv, kv, nt("f32", 4, 3, 5)}, "dim in {2, 4}"},
		{"mask shape", []*Tensor{q, kv, kv, nt("f32", 1, 2, 3, 5)}, "does not broadcast"},
		{"operands", []*Tensor{q, kv, kv}, "want query, key, value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.ErrorContains(t, ExternN(fwd, outs(), c.args, nil), c.want)
		})
	}
	err := ExternN(fwd, []*Tensor{nt("f32", 1, 4, 3, 8), nt("f64", 1, 4, 3)}, []*Tensor{q, kv, kv, nil}, nil)
	require.ErrorContains(t, err, "output 1 is f64")
	// a layout that does not fit its buffer is an error, not a crash
	short := &Tensor{DType: "f32", Shape: []int64{1, 4, 3, 8}, Data: make([]byte, 16)}
	require.Error(t, ExternN(fwd, outs(), []*Tensor{short, kv, kv, nil}, nil))
	bwd := fwd + "_backward"
	g := []*Tensor{nt("f32", 1, 4, 3, 8), nt("f32", 1, 4, 5, 8), nt("f32", 1, 2, 5, 8), nt("f32", 1, 2, 5, 8)}
	err = ExternN(bwd, g[1:], []*Tensor{g[0], q, kv, kv, nt("f32", 1, 4, 3, 8), nt("f32", 1, 4, 3), nil}, nil)
	require.ErrorContains(t, err, "output 0 is f32[1 4 5 8]")
	err = ExternN(bwd, g[:3], []*Tensor{g[0], q, kv, kv, nt("f32", 1, 4, 3, 8), nt("f32", 1, 4), nil}, nil)
	require.ErrorContains(t, err, "logsumexp must be")
}
