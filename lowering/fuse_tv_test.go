package lowering_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
)

// TestFusionCasesAgainstInterp validates every fusion case against the
// graph itself: interp runs the graph, loopEval the fused program, on the
// same inputs (integer inputs drawn from [0, int_range) when the case sets
// it), and every output and mutated input must agree. TestFusionCases
// compares the program before and after fusion; this closes the loop to
// what PyTorch's semantics (interp) say.
func TestFusionCasesAgainstInterp(t *testing.T) {
	fxtest.ForEach(t, "../testdata/fusion", func(t *testing.T, path string) {
		arch, err := txtar.ParseFile(path)
		require.NoError(t, err)
		src := fxtest.Section(arch, "input.fx")
		if strings.Contains(src, "torch.ops.aten.mm.") {
			t.Skip("loopEval runs loop kernels only (extern mm): internal/e2e runs this case's generated Go against interp")
		}
		ints := int64(0)
		for _, line := range strings.Split(fxtest.Section(arch, "env"), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "int_range="); ok {
				ints, err = strconv.ParseInt(v, 10, 64)
				require.NoError(t, err)
			}
		}
		runChecked(t, src, checkOpts{
			fuse:     true,
			pipeline: strings.TrimSpace(fxtest.Section(arch, "pipeline")),
			override: func(_ string, tt *interp.Tensor) *interp.Tensor {
				if ints == 0 || tt.DType.IsFloat() || tt.DType.String() == "bool" {
					return tt
				}
				vals := make([]int64, tt.Numel())
				for i := range vals {
					vals[i] = int64(i*7+3) % ints
				}
				return interp.FromInts(tt.DType, tt.Shape, vals)
			},
		})
	})
}
