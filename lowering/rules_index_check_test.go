package lowering_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
)

// Out-of-range indices: every op family that reads indices from a tensor
// checks them (OpCheck) and fails with interp's message (PyTorch's), both
// as lowered and after fusion; in range, results still match interp.

// badIndexDir holds one graph per op family with indices PyTorch rejects:
// input.fx, ints (the index inputs, JSON) and diagnostics (interp's and PyTorch's
// message). The Go and CUDA code generators run the same cases.
const badIndexDir = "../testdata/lowering/badindex"

// badIndexCase is one case of badIndexDir.
type badIndexCase struct {
	name string
	src  string
	ints map[string][]int64
	good map[string][]int64 // in-range ints, when 0 and 1 are not (offsets)
	want string
}

func loadBadIndexCases(t *testing.T) []badIndexCase {
	var out []badIndexCase
	for _, path := range fxtest.Files(t, badIndexDir) {
		arch, err := txtar.ParseFile(path)
		require.NoError(t, err)
		c := badIndexCase{name: strings.TrimSuffix(filepath.Base(path), ".txtar"), src: fxtest.Section(arch, "input.fx"),
			want: strings.TrimSpace(fxtest.Section(arch, "diagnostics"))}
		require.NoError(t, json.Unmarshal([]byte(fxtest.Section(arch, "ints")), &c.ints), path)
		if good := fxtest.Section(arch, "good"); good != "" {
			require.NoError(t, json.Unmarshal([]byte(good), &c.good), path)
		}
		out = append(out, c)
	}
	return out
}

func TestBadIndexFailsLikeInterp(t *testing.T) {
	for _, c := range loadBadIndexCases(t) {
		for _, fuse := range []bool{false, true} {
			name := c.name
			if fuse {
				name += "_fused"
			}
			t.Run(name, func(t *testing.T) {
				assert.Equal(t, c.want, checkFails(t, c.src, c.ints, fuse))
			})
		}
	}
}

// The same graphs with every index in range run as interp runs them.
func TestGoodIndexStillMatches(t *testing.T) {
	for _, c := range loadBadIndexCases(t) {
		t.Run(c.name, func(t *testing.T) {
			good := map[string][]int64{}
			for name, vals := range c.ints {
				good[name] = make([]int64, len(vals))
				for i := range vals {
					good[name][i] = int64(i % 2) // 0 and 1 are in range everywhere
				}
				if g, ok := c.good[name]; ok {
					good[name] = g
				}
			}
			p := checkLowering(t, c.src, good)
			if !checksInExtern(p) {
				assert.Contains(t, p.String(), "check ", "the index is checked")
			}
		})
	}
}

// Fused with its consumer, the gather keeps one check (the wrap's
// operand), and in-range negative indices still wrap.
func TestCheckSurvivesFusion(t *testing.T) {
	const src = `
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8, 4][4, 1]cpu", i: "i64[3][1]cpu"):
        index: "f32[3, 4][4, 1]cpu" = torch.ops.aten.index.Tensor(x, [i])
        relu: "f32[3, 4][4, 1]cpu" = torch.ops.aten.relu.default(index)
        return (relu,)
`
	p := checkFused(t, src, map[string][]int64{"i": {0, -8, 7}})
	require.Len(t, p.Kernels, 1, "%s", p)
	assert.Equal(t, 1, strings.Count(p.String(), "check -8 <= "), "%s", p)
}

// checksInExtern reports whether an extern call of p checks the indices
// it reads itself (its op declares ops.IndexBounds: embedding_bag).
func checksInExtern(p *lowering.Program) bool {
	for _, k := range p.Kernels {
		if k.Extern != nil {
			if _, ok := ops.IndexBoundsOf(k.Extern.Op); ok {
				return true
			}
		}
	}
	return false
}
