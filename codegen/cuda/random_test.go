package cuda_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
)

// normalOutputs are the outputs of the random graphs computed from
// rand_normal, whose libm calls (log, cos, sqrt in double) may differ from
// Go's in a last bit; every other output must match interp bit for bit.
var normalOutputs = map[string][]int{"random": {1}, "random_fused": {3}, "random_inductor": {1}}

// The emulated CUDA program draws interp's numbers for every random op
// (the prelude's k_philox is rt.Philox), with seed=N or the default 0.
func TestRandomOpsEmulated(t *testing.T) {
	needTool(t, "g++")
	paths, err := filepath.Glob("../../testdata/lowering/random*.txtar")
	require.NoError(t, err)
	require.Len(t, paths, len(normalOutputs))
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			arch, err := txtar.ParseFile(path)
			require.NoError(t, err)
			g := compileFX(t, name+".fx", fxtest.Section(arch, "input.fx"), "fakeprop,functionalize,align,dce")
			p := lowerFused(t, g)
			src, err := cuda.Generate(p)
			require.NoError(t, err)
			inputs, err := interp.MakeInputs(g, interp.Options{Seed: 1})
			require.NoError(t, err)
			inDir, _ := saveInputs(t, p, inputs)
			bin := buildEmulated(t, src)
			for _, seed := range []uint64{0, 7} {
				res, err := interp.Run(g, interp.CopyValues(inputs), interp.Options{Seed: seed})
				require.NoError(t, err)
				var args []string
				if seed != 0 {
					args = []string{fmt.Sprintf("seed=%d", seed)}
				}
				outDir := runOK(t, bin, inDir, args...)
				for i, w := range res.Outputs {
					want := w.(*interp.Tensor)
					got := loadOutput(t, outDir, fmt.Sprintf("out%d.npy", i), want.DType)
					what := fmt.Sprintf("seed %d output %d (%s)", seed, i, p.Outputs[i].Name)
					if contains(normalOutputs[name], i) {
						m := interp.CompareTensors(want, got, interp.Tolerance{RTol: 1e-6, ATol: 1e-6})
						assert.Nil(t, m, "%s: %v", what, m)
						continue
					}
					assertSameBits(t, want, got, what)
				}
			}
		})
	}
}

// The random prelude compiles for the device, and every draw is inlined
// into its kernel (no call but libdevice's math).
func TestRandomPTX(t *testing.T) {
	arch, err := txtar.ParseFile("../../testdata/lowering/random.txtar")
	require.NoError(t, err)
	g := compileFX(t, "random.fx", fxtest.Section(arch, "input.fx"), "fakeprop,functionalize,align,dce")
	src, err := cuda.Generate(lowerFused(t, g))
	require.NoError(t, err)
	assert.Contains(t, src, "k_rand_uniform(")
	out := ptx(t, src)
	for k := range 4 {
		assert.Contains(t, out, fmt.Sprintf(".entry kernel%d(", k))
	}
	assert.Regexp(t, `0f33800000`, out, "uniform's 2^-24 scale")
	assert.NotRegexp(t, `call\.uni[^_]*\s+k_`, out, "k_philox and k_rand_* are inlined")
}

func assertSameBits(t *testing.T, want, got *interp.Tensor, what string) {
	t.Helper()
	require.Equal(t, want.Shape, got.Shape, what)
	if want.DType.IsFloat() {
		w, g := want.Floats(), got.Floats()
		bad := 0
		for i := range w {
			if math.Float64bits(w[i]) != math.Float64bits(g[i]) && !(math.IsNaN(w[i]) && math.IsNaN(g[i])) {
				bad++
			}
		}
		assert.Zero(t, bad, "%s: %d of %d elements differ", what, bad, len(w))
		return
	}
	assert.Equal(t, want.Ints(), got.Ints(), what)
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
