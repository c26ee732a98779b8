package lowering

import (
	"runtime"
	"sync"
)

// parallelKernels is the fewest kernels worth a goroutine of their own
// (printing a program, verifying it).
const parallelKernels = 2000

// chunks is how many contiguous chunks inChunks cuts n kernels into: one
// per core, or 1 when n is too few to be worth it.
func chunks(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/parallelKernels)) }

// inChunks calls f(w, lo, hi) for chunks(n) contiguous ranges covering
// 0..n-1 in order, each on its own goroutine when there are several.
func inChunks(n int, f func(w, lo, hi int)) {
	workers := chunks(n)
	if workers == 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { f(w, n*w/workers, n*(w+1)/workers) })
	}
	wg.Wait()
}
