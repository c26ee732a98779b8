package align_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/align"
)

// TestTranslationValidation runs every regression graph in the interpreter
// before and after the align pass on the same random inputs (placed at the
// storage offsets input-offsets names) and requires equal outputs and
// equal inputs afterwards (mutations). The `tv` section of a case may say
//
//	fail: TEXT   the graph after align must fail with TEXT (an assertion)
//	skip: WHY    the interpreter cannot run the graph
func TestTranslationValidation(t *testing.T) {
	for _, c := range loadCases(t) {
		name := strings.TrimSuffix(c.path[strings.LastIndex(c.path, "/")+1:], ".txtar")
		t.Run(name, func(t *testing.T) {
			spec := strings.TrimSpace(fxtest.Section(c.arch, "tv"))
			if why, ok := strings.CutPrefix(spec, "skip:"); ok {
				t.Skip(strings.TrimSpace(why))
			}
			before, after, offsets := tvGraphs(t, c)
			for seed := uint64(1); seed <= 3; seed++ {
				want, err := runInterp(t, before, offsets, seed)
				require.NoError(t, err, "before align")
				got, err := runInterp(t, after, offsets, seed)
				if text, ok := strings.CutPrefix(spec, "fail:"); ok {
					require.Error(t, err, "after align: the assertion should fail")
					assert.Contains(t, err.Error(), strings.TrimSpace(text))
					return
				}
				require.NoError(t, err, "after align")
				for i := range want.Outputs {
					if m := interp.Compare(want.Outputs[i], got.Outputs[i], exact); m != nil {
						t.Errorf("seed %d: output %d: %s", seed, i, m)
					}
				}
				for i := range want.Inputs {
					if m := interp.Compare(want.Inputs[i], got.Inputs[i], exact); m != nil {
						t.Errorf("seed %d: input %s after the run: %s", seed, before.Inputs[i].Name, m)
					}
				}
			}
		})
	}
}

func exact(ir.DType) interp.Tolerance { return interp.Tolerance{} }

// tvGraphs runs the case's pipeline without and with its align step, and
// returns align's input-offsets (constant ones).
func tvGraphs(t *testing.T, c *regCase) (before, after *ir.Graph, offsets map[string]int64) {
	t.Helper()
	p, err := passes.Parse(c.pipeline)
	require.NoError(t, err)
	offsets = map[string]int64{}
	var kept []passes.Step
	for _, s := range p.Steps {
		if s.Info.Name != "align" {
			kept = append(kept, s)
			continue
		}
		for _, item := range strings.Split(s.Options["input-offsets"], ",") {
			name, val, ok := strings.Cut(item, ":")
			if !ok {
				continue
			}
			k, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			require.NoError(t, err, "translation validation needs constant input offsets")
			offsets[strings.TrimSpace(name)] = k
		}
	}
	before = runSteps(t, c, &passes.Pipeline{Steps: kept})
	p2, err := passes.Parse(c.pipeline) // fresh pass instances
	require.NoError(t, err)
	after = runSteps(t, c, p2)
	return before, after, offsets
}

func runSteps(t *testing.T, c *regCase, p *passes.Pipeline) *ir.Graph {
	t.Helper()
	res, err := fx.Parse(c.file, []byte(c.src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	g := res.Module.Graphs[0]
	m := passes.Manager{VerifyEach: true}
	_, err = m.Run(p, passes.NewContext(passes.Config{}), g)
	require.NoError(t, err)
	return g
}

// runInterp runs g on seeded random inputs, each input named in offsets
// placed that many elements into a larger storage.
func runInterp(t *testing.T, g *ir.Graph, offsets map[string]int64, seed uint64) (*interp.Result, error) {
	t.Helper()
	opts := interp.Options{Seed: seed, CheckTypes: true}
	inputs, err := interp.MakeInputs(g, opts)
	require.NoError(t, err)
	for i, v := range g.Inputs {
		if k, ok := offsets[v.Name]; ok {
			inputs[i] = atOffset(t, inputs[i].(*interp.Tensor), k)
		}
	}
	return interp.Run(g, inputs, opts)
}

// atOffset copies a contiguous tensor to storage offset k of a new storage.
func atOffset(t *testing.T, x *interp.Tensor, k int64) *interp.Tensor {
	require.True(t, x.IsContiguous() && x.Offset == 0)
	isz := int64(x.DType.ItemSize())
	data := make([]byte, k*isz+int64(len(x.Storage.Data)))
	copy(data[k*isz:], x.Storage.Data)
	return &interp.Tensor{DType: x.DType, Shape: x.Shape, Strides: x.Strides, Offset: k,
		Storage: &interp.Storage{Data: data, Device: x.Storage.Device}}
}

// The assertion op's interpreter kernel follows PyTorch's check.
func TestAssertKernel(t *testing.T) {
	src := `class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8][1]cuda:0"):
        add: "f32[8][1]cuda:0" = torch.ops.aten.add.Tensor(arg0_1, 1)
        return (add,)
`
	res, err := fx.Parse("k.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	g := res.Module.Graphs[0]
	p, err := passes.Parse("fakeprop,align")
	require.NoError(t, err)
	_, err = (&passes.Manager{VerifyEach: true}).Run(p, passes.NewContext(passes.Config{}), g)
	require.NoError(t, err)
	require.Equal(t, align.AssertTarget, g.Nodes[0].Target)
	for k, wantErr := range map[int64]string{0: "", 4: "", 1: "Expect the tensor to be 16 bytes aligned. Fail due to storage_offset=1 itemsize=4"} {
		_, err := runInterp(t, g, map[string]int64{"arg0_1": k}, 1)
		if wantErr == "" {
			assert.NoError(t, err, "offset %d", k)
		} else if assert.Error(t, err, "offset %d", k) {
			assert.Contains(t, err.Error(), wantErr)
		}
	}
}
