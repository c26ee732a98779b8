package golang

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/lowering"
)

// loadRandomCases lowers and fuses the testdata/lowering/random*.txtar
// graphs.
func loadRandomCases(t *testing.T) []fxCase {
	var out []fxCase
	forEachArchive(t, "../../testdata/lowering/random*.txtar", func(path, name string, arch *txtar.Archive) {
		g := fxtest.Compile(t, path, fxtest.Section(arch, "input.fx"), basePipeline)
		out = append(out, lowerGraph(t, name, g))
	})
	return out
}

// runSeeded runs the binary on interp's inputs with extra flags and env,
// returning the outputs in order.
func (c fxCase) runSeeded(t *testing.T, bin string, inputs []any, env []string, flags ...string) []*interp.Tensor {
	t.Helper()
	in, out := t.TempDir(), t.TempDir()
	for i, v := range c.g.Inputs {
		require.NoError(t, interp.SaveNPY(filepath.Join(in, v.Name+".npy"), inputs[i].(*interp.Tensor)))
	}
	cmd := exec.Command(bin, append([]string{"-graph", c.name, "-inputs", in, "-o", out}, flags...)...)
	cmd.Env = append(os.Environ(), env...)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	var got []*interp.Tensor
	for i, r := range c.prog.Outputs {
		x, err := interp.LoadNPY(filepath.Join(out, fmt.Sprintf("out%d.npy", i)), r.Layout.DType)
		require.NoError(t, err)
		got = append(got, x)
	}
	return got
}

// requireBitsEqual fails unless got holds want's elements bit for bit
// (NaNs match NaNs).
func requireBitsEqual(t *testing.T, want, got *interp.Tensor, what string) {
	t.Helper()
	require.Equal(t, want.Shape, got.Shape, what)
	if !want.DType.IsFloat() {
		require.Equal(t, want.Ints(), got.Ints(), what)
		return
	}
	w, g := want.Floats(), got.Floats()
	for i := range w {
		if math.IsNaN(w[i]) && math.IsNaN(g[i]) {
			continue
		}
		require.Equal(t, math.Float64bits(w[i]), math.Float64bits(g[i]), "%s element %d: want %v, got %v", what, i, w[i], g[i])
	}
}

// Generated random kernels draw interp's numbers bit for bit, for any
// -seed, whatever the number of threads; another seed draws others.
func TestRandomOpsMatchInterp(t *testing.T) {
	cases := loadRandomCases(t)
	bin := buildModule(t, programs(cases))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inputs, err := interp.MakeInputs(c.g, interp.Options{Seed: 1})
			require.NoError(t, err)
			var bySeed [][]*interp.Tensor
			for _, seed := range []uint64{0, 7, 1 << 40} {
				res, err := interp.Run(c.g, interp.CopyValues(inputs), interp.Options{Seed: seed})
				require.NoError(t, err)
				var flags []string
				if seed != 0 { // 0 is the default
					flags = []string{"-seed", fmt.Sprint(seed)}
				}
				for _, procs := range []string{"GOMAXPROCS=1", "GOMAXPROCS=7"} {
					got := c.runSeeded(t, bin, inputs, []string{procs}, flags...)
					for i, w := range res.Outputs {
						requireBitsEqual(t, w.(*interp.Tensor), got[i], fmt.Sprintf("seed %d %s output %d", seed, procs, i))
					}
				}
				bySeed = append(bySeed, tensors(res.Outputs))
			}
			assert.NotEqual(t, bySeed[0][0].Floats(), bySeed[1][0].Floats(), "seeds 0 and 7 draw differently")
		})
	}
}

func tensors(outs []any) []*interp.Tensor {
	var ts []*interp.Tensor
	for _, o := range outs {
		ts = append(ts, o.(*interp.Tensor))
	}
	return ts
}

// The scheduler fuses a random producer into its consumers like any
// pointwise kernel: the row max of rand*x is one kernel whose reduction
// loop draws the numbers itself.
func TestRandomFuses(t *testing.T) {
	for _, c := range loadRandomCases(t) {
		if c.name != "random_fused" {
			continue
		}
		found := false
		for _, k := range c.prog.Kernels {
			draws, reduces := 0, 0
			for _, st := range k.Stages {
				for _, in := range st.Body {
					if in.Op == lowering.OpCall && in.Fn == "rand_uniform" && len(st.Reduce) > 0 {
						draws++
					}
					if in.Op == lowering.OpReduce {
						reduces++
					}
				}
			}
			found = found || draws > 0 && reduces > 0
		}
		assert.True(t, found, "rand is drawn inside the max's loop:\n%s", c.prog)
		return
	}
	t.Fatal("no random_fused case")
}

// Run takes the seed through syms[rt.SeedSym]; the generated main's
// -seed and -sym kiln_seed=N both set it.
func TestSeedFlag(t *testing.T) {
	cases := loadRandomCases(t)
	c := cases[0]
	bin := buildModule(t, []*lowering.Program{c.prog})
	inputs, err := interp.MakeInputs(c.g, interp.Options{Seed: 1})
	require.NoError(t, err)
	a := c.runSeeded(t, bin, inputs, nil, "-seed", "9")
	b := c.runSeeded(t, bin, inputs, nil, "-sym", lowering.SeedSym+"=9")
	d := c.runSeeded(t, bin, inputs, nil)
	for i := range a {
		requireBitsEqual(t, a[i], b[i], fmt.Sprintf("output %d", i))
	}
	assert.NotEqual(t, a[0].Floats(), d[0].Floats())
}
