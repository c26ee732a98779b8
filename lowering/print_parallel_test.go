package lowering

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// A program of many kernels prints in chunks on every core (writeKernels):
// the text must be the one a single core prints, before and after fusion.
func TestParallelProgramPrintMatchesSequential(t *testing.T) {
	p, err := Lower(benchGraph(t, 6000), Options{})
	require.NoError(t, err)
	require.Greater(t, len(p.Kernels), 2*parallelKernels, "the program must be large enough to print in parallel")
	check := func() {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		sequential := p.String()
		runtime.GOMAXPROCS(4)
		require.Equal(t, sequential, p.String())
	}
	check()
	_, err = Fuse(p, FuseOptions{})
	require.NoError(t, err)
	check()
}
