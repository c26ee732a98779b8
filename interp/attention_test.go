package interp

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
)

// TestSDPAFlashCPUMatchesPyTorch runs the CPU flash attention op and its
// backward, as one graph, on the cases PyTorch computed for rt
// (rt/testdata/extern_attention.json, tools/externs/gen_attention.py):
// interp sums in float64, so it is held to PyTorch within the same
// tolerances as rt (relative to the largest magnitude).
func TestSDPAFlashCPUMatchesPyTorch(t *testing.T) {
	b, err := os.ReadFile("../rt/testdata/extern_attention.json")
	require.NoError(t, err)
	var d struct {
		Cases []struct {
			Name, DType string
			QShape      []int64 `json:"q_shape"`
			KVShape     []int64 `json:"kv_shape"`
			IsCausal    bool    `json:"is_causal"`
			MaskShape   []int64 `json:"mask_shape"`
			Scale       *float64
		} `json:"sdpa_flash_cpu"`
	}
	require.NoError(t, json.Unmarshal(b, &d))
	var raw struct {
		Cases []map[string]json.RawMessage `json:"sdpa_flash_cpu"`
	}
	require.NoError(t, json.Unmarshal(b, &raw))
	require.GreaterOrEqual(t, len(d.Cases), 15)
	tol := map[string]float64{"f64": 1e-12, "f32": 1e-5, "bf16": 3.0 / 256}
	for ci, c := range d.Cases {
		t.Run(c.Name, func(t *testing.T) {
			r := raw.Cases[ci]
			dt, _ := ir.DTypeFromAbbr(c.DType)
			lseDT := ir.F32
			if dt == ir.F64 {
				lseDT = ir.F64
			}
			vals := func(key string) []float64 { return jsonFloats(t, r[key]) }
			shape := func(s []int64) string { return strings.Trim(fmt.Sprint(s), "[]") }
			sig := fmt.Sprintf(`q: "%[1]s[%[2]s]", k: "%[1]s[%[3]s]", v: "%[1]s[%[3]s]", go: "%[1]s[%[2]s]"`,
				c.DType, strings.ReplaceAll(shape(c.QShape), " ", ", "), strings.ReplaceAll(shape(c.KVShape), " ", ", "))
			kw := ""
			inputs := []any{FromFloats(dt, c.QShape, vals("q")), FromFloats(dt, c.KVShape, vals("k")),
				FromFloats(dt, c.KVShape, vals("v")), FromFloats(dt, c.QShape, vals("grad_out"))}
			if c.MaskShape != nil {
				sig += fmt.Sprintf(`, m: "%s[%s]"`, c.DType, strings.ReplaceAll(shape(c.MaskShape), " ", ", "))
				kw += ", attn_mask = m"
				inputs = append(inputs, FromFloats(dt, c.MaskShape, vals("mask")))
			}
			if c.Scale != nil {
				kw += fmt.Sprintf(", scale = %v", *c.Scale)
			}
			causal := "False"
			if c.IsCausal {
				causal = "True"
			}
			src := fmt.Sprintf(`
def forward(self, %s):
    sdpa = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(q, k, v, 0.0, %s%s)
    getitem = sdpa[0]
    getitem_1 = sdpa[1]
    bwd = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default(go, q, k, v, getitem, getitem_1, 0.0, %s%s)
    getitem_2 = bwd[0]
    getitem_3 = bwd[1]
    getitem_4 = bwd[2]
    return (getitem, getitem_1, getitem_2, getitem_3, getitem_4)
`, sig, causal, kw, causal, kw)
			res := runGraph(t, src, inputs...)
			for i, key := range []string{"out", "logsumexp", "grad_q", "grad_k", "grad_v"} {
				got := res.Outputs[i].(*Tensor)
				want := vals(key)
				if i == 1 {
					require.Equal(t, lseDT, got.DType, "logsumexp dtype")
				}
				scale := 1.0
				for _, w := range want {
					scale = max(scale, math.Abs(w))
				}
				g := got.Floats()
				require.Len(t, g, len(want), key)
				for j := range want {
					require.LessOrEqual(t, math.Abs(g[j]-want[j]), tol[c.DType]*scale, "%s[%d]: interp %v, PyTorch %v", key, j, g[j], want[j])
				}
			}
		})
	}
}

func jsonFloats(t *testing.T, raw json.RawMessage) []float64 {
	var xs []any
	require.NoError(t, json.Unmarshal(raw, &xs))
	out := make([]float64, len(xs))
	for i, x := range xs {
		switch v := x.(type) {
		case float64:
			out[i] = v
		case string:
			out[i] = map[string]float64{"inf": math.Inf(1), "-inf": math.Inf(-1), "nan": math.NaN()}[v]
		}
	}
	return out
}
