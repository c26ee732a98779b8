package exectrace_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/exectrace"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// The traces were written by PyTorch 2.15's ExecutionTraceObserver (schema
// 1.1.1); et_mlp_1_0.json is et_mlp converted to the 1.0.x layout by
// tools/traces/et_to_1_0.py.
const dir = "../../testdata/traces/et"

func load(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(src))
		require.NoError(t, err)
		src, err = io.ReadAll(zr)
		require.NoError(t, err)
	}
	return src
}

func read(t *testing.T, name string) *exectrace.Result {
	t.Helper()
	res, err := exectrace.Parse(name, load(t, name), exectrace.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	return res
}

// etNode is the test's own view of the trace, for independent counts.
type etNode struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	CtrlDeps int    `json:"ctrl_deps"`
	Outputs  struct {
		Values []json.RawMessage `json:"values"`
		Shapes []json.RawMessage `json:"shapes"`
		Types  []string          `json:"types"`
	} `json:"outputs"`
}

// topLevel lists the ATen calls with no ATen caller, in id order.
func topLevel(t *testing.T, name string) []etNode {
	var et struct{ Nodes []etNode }
	require.NoError(t, json.Unmarshal(load(t, name), &et))
	byID := map[int]etNode{}
	for _, n := range et.Nodes {
		byID[n.ID] = n
	}
	var out []etNode
	for _, n := range et.Nodes {
		if !strings.HasPrefix(n.Name, "aten::") {
			continue
		}
		nested := false
		for p, ok := byID[n.CtrlDeps]; ok && p.ID != n.ID; p, ok = byID[p.CtrlDeps] {
			if strings.HasPrefix(p.Name, "aten::") || strings.HasPrefix(p.Name, "Torch-Compiled Region") {
				nested = true
				break
			}
			if p.CtrlDeps == p.ID {
				break
			}
		}
		if !nested {
			out = append(out, n)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ID < out[j-1].ID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestTopLevelCallsBecomeNodesWithTheirRecordedTypes(t *testing.T) {
	for _, name := range []string{"et_mlp.json.gz", "et_dtypes.json.gz"} {
		t.Run(name, func(t *testing.T) {
			res := read(t, name)
			want := topLevel(t, name)
			require.Len(t, res.Module.Graphs, 1)
			g := res.Module.Graphs[0]
			require.Len(t, g.Nodes, len(want))
			assert.Equal(t, len(want), res.Stats.TopLevel)
			for i, n := range g.Nodes {
				w := want[i]
				assert.Equal(t, w.Name, n.Target[:strings.Index(n.Target, ".")], "node %d", i)
				for j, ty := range w.Outputs.Types {
					if !strings.HasPrefix(ty, "Tensor(") {
						continue
					}
					r := n.Results[j]
					require.Equal(t, ir.KindTensor, r.Annot.Kind, "%s result %d", n.Name, j)
					var shape []int64
					require.NoError(t, json.Unmarshal(w.Outputs.Shapes[j], &shape))
					got := make([]int64, len(r.Annot.Tensor.Shape))
					for k, s := range r.Annot.Tensor.Shape {
						got[k], _ = s.Const()
					}
					if len(shape) == 0 {
						shape = []int64{}
					}
					assert.Equal(t, shape, got, "%s result %d shape", n.Name, j)
				}
			}
		})
	}
}

func TestSchemaLayouts(t *testing.T) {
	v11, v10 := read(t, "et_mlp.json.gz"), read(t, "et_mlp_1_0.json")
	assert.Equal(t, "1.1.1-chakra.0.0.4", v11.Schema)
	assert.Equal(t, "1.0.1", v10.Schema)
	require.Len(t, v10.Module.Graphs, 1)
	// Strides are 1.1.x only: without them the same calls read, with the
	// shapes and dtypes, and the graphs print the same but for strides.
	g11, g10 := v11.Module.Graphs[0], v10.Module.Graphs[0]
	require.Equal(t, len(g11.Nodes), len(g10.Nodes))
	for i := range g11.Nodes {
		a, b := g11.Nodes[i], g10.Nodes[i]
		assert.Equal(t, a.Target, b.Target)
		assert.Equal(t, len(a.Args), len(b.Args))
		for j := range a.Results {
			if a.Results[j].Annot.Kind == ir.KindTensor {
				assert.Equal(t, a.Results[j].Annot.Tensor.DType, b.Results[j].Annot.Tensor.DType)
				assert.Equal(t, len(a.Results[j].Annot.Tensor.Shape), len(b.Results[j].Annot.Tensor.Shape))
				assert.NotNil(t, a.Results[j].Annot.Tensor.Strides)
				assert.Nil(t, b.Results[j].Annot.Tensor.Strides)
			}
		}
	}
}

func TestDTypesAndViews(t *testing.T) {
	res := read(t, "et_dtypes.json.gz")
	g := res.Module.Graphs[0]
	seen := map[ir.DType]bool{}
	for _, n := range g.Nodes {
		for _, r := range n.Results {
			if r.Annot.Kind == ir.KindTensor {
				seen[r.Annot.Tensor.DType] = true
			}
		}
	}
	for _, name := range []string{"float16", "bfloat16", "float64", "int32", "int64", "bool", "uint8", "float32"} {
		dt, _ := ir.DTypeFromName(name)
		assert.True(t, seen[dt], name)
	}
	// a[1:, 2:] of a 4×6 tensor: a view at storage offset 8.
	found := false
	for _, n := range g.Nodes {
		if n.Target == "aten::slice.Tensor" && n.Results[0].Annot.Tensor.Offset.String() == "8" {
			found = true
		}
	}
	assert.True(t, found, "the view a[1:, 2:] keeps its storage offset")
	// _to_copy(dtype=5) reads back as torch.float16.
	for _, n := range g.Nodes {
		if n.Target == "aten::_to_copy.default" {
			require.NotEmpty(t, n.Kwargs)
			assert.Equal(t, ir.ArgDType, n.Kwargs[0].Arg.Kind)
		}
	}
}

func TestCompiledRegionIsOneOpaqueNode(t *testing.T) {
	res := read(t, "et_compiled.json")
	g := res.Module.Graphs[0]
	require.Len(t, g.Nodes, 2)
	region, mul := g.Nodes[0], g.Nodes[1]
	assert.Equal(t, ir.FormFunction, region.Form)
	assert.Len(t, region.Args, 2, "x and y; the out= buffer mm writes is the region's own")
	assert.Same(t, region.Results[0], mul.Args[0].Value, "z * 2 reads what the region wrote")
	var remarks int
	for _, d := range res.Diags {
		if d.Code == exectrace.CodeNonATen {
			remarks++
		}
	}
	assert.Positive(t, remarks)
}

func TestMalformed(t *testing.T) {
	for _, src := range []string{`{"schema": "1.1.1", "nodes": [{"id": "x"}]}`, `{"nodes": []}`, `{"schema": "1.1.1", "nodes": 3}`} {
		_, err := exectrace.Parse("bad.json", []byte(src), exectrace.Options{})
		var d *diag.Diagnostic
		require.ErrorAs(t, err, &d, src)
		assert.Equal(t, 1, d.Pos.Line)
	}
}
