package interp

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/stretchr/testify/require"
)

// TestTopkTiesAsPyTorch: interp's topk returns PyTorch's CPU indices on
// ties and NaN, sorted or not, on the float cases PyTorch printed for rt
// (rt/testdata/extern_multi.json, tools/externs/gen.py).
func TestTopkTiesAsPyTorch(t *testing.T) {
	raw, err := os.ReadFile("../rt/testdata/extern_multi.json")
	require.NoError(t, err)
	var data struct {
		Torch string
		Topk  []struct {
			Name, DType     string
			Shape           []int64
			X               []any
			K, Dim          int64
			Largest, Sorted bool
			Values          []any
			Indices         []int64
		}
	}
	require.NoError(t, json.Unmarshal(raw, &data))
	dts := map[string]ir.DType{"f32": ir.F32, "f64": ir.F64}
	ran := 0
	for _, c := range data.Topk {
		dt, ok := dts[c.DType]
		if !ok || len(c.Shape) == 0 || c.Shape[0] == 0 {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			shape := make([]string, len(c.Shape))
			for i, s := range c.Shape {
				shape[i] = fmt.Sprint(s)
			}
			out := append([]int64(nil), c.Shape...)
			d := c.Dim
			if d < 0 {
				d += int64(len(out))
			}
			out[d] = c.K
			outS := make([]string, len(out))
			for i, s := range out {
				outS[i] = fmt.Sprint(s)
			}
			src := fmt.Sprintf(`class GraphModule(torch.nn.Module):
    def forward(self, x: "%[1]s[%[2]s]"):
        topk = torch.ops.aten.topk.default(x, %[3]d, %[4]d, %[5]s, %[6]s)
        getitem: "%[1]s[%[7]s]" = topk[0]
        getitem_1: "i64[%[7]s]" = topk[1];  topk = None
        return (getitem, getitem_1)
`, c.DType, strings.Join(shape, ", "), c.K, c.Dim, pyBool(c.Largest), pyBool(c.Sorted), strings.Join(outS, ", "))
			res := runGraph(t, src, FromFloats(dt, c.Shape, nums(c.X)))
			got := res.Outputs[1].(*Tensor).Ints()
			require.Equal(t, c.Indices, got, "indices")
			want, vals := nums(c.Values), floatsOf(t, res.Outputs[0])
			for i := range want {
				require.True(t, want[i] == vals[i] || math.IsNaN(want[i]) && math.IsNaN(vals[i]), "values[%d]: %v, want %v", i, vals[i], want[i])
			}
		})
	}
	require.Greater(t, ran, 30)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func nums(xs []any) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		switch x := v.(type) {
		case float64:
			out[i] = x
		case string:
			out[i] = map[string]float64{"nan": math.NaN(), "inf": math.Inf(1), "-inf": math.Inf(-1)}[x]
		}
	}
	return out
}

// TestSortTiesAsPyTorch: interp's sort orders ties (and NaN) as PyTorch's
// CPU sort does, std::sort for stable=False and std::stable_sort for True,
// on floats and on bools (all ties).
func TestSortTiesAsPyTorch(t *testing.T) {
	raw, err := os.ReadFile("../rt/testdata/extern_multi.json")
	require.NoError(t, err)
	var data struct {
		Sort []struct {
			Name, DType        string
			Shape              []int64
			X                  []any
			Dim                int64
			Descending, Stable bool
			Values             []any
			Indices            []int64
		}
	}
	require.NoError(t, json.Unmarshal(raw, &data))
	dts := map[string]ir.DType{"f32": ir.F32, "f64": ir.F64, "b8": ir.Bool}
	ran := 0
	for _, c := range data.Sort {
		dt, ok := dts[c.DType]
		if !ok || c.Shape[0] == 0 {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			shape := make([]string, len(c.Shape))
			for i, s := range c.Shape {
				shape[i] = fmt.Sprint(s)
			}
			src := fmt.Sprintf(`class GraphModule(torch.nn.Module):
    def forward(self, x: "%[1]s[%[2]s]"):
        sort = torch.ops.aten.sort.stable(x, stable = %[3]s, dim = %[4]d, descending = %[5]s)
        getitem: "%[1]s[%[2]s]" = sort[0]
        getitem_1: "i64[%[2]s]" = sort[1];  sort = None
        return (getitem, getitem_1)
`, c.DType, strings.Join(shape, ", "), pyBool(c.Stable), c.Dim, pyBool(c.Descending))
			res := runGraph(t, src, FromFloats(dt, c.Shape, nums(c.X)))
			require.Equal(t, c.Indices, res.Outputs[1].(*Tensor).Ints(), "indices")
		})
	}
	require.Greater(t, ran, 20)
}
