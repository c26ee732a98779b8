package rt

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// SerialWork is the amount of work (items × cost per item) below which
// ParallelFor runs on the calling goroutine: a goroutine costs about a
// microsecond, a few thousand cheap elements.
const SerialWork = 1 << 15

// ChunkWork is the work of one chunk ParallelFor hands out: small enough
// that a core the machine gives less time to (other processes, a
// hyperthread sibling) takes fewer chunks instead of holding everyone up
// with an equal share, large enough that taking one (an atomic add) is
// free; 64k f32 elements in and out fit in L2.
const ChunkWork = 1 << 16

// ParallelFor runs body over [0, n) split into contiguous chunks of about
// ChunkWork work (at least one per worker), which GOMAXPROCS goroutines,
// the caller's among them, take in order; serially when n·cost is below
// SerialWork. The first error (by chunk order) is returned, and no chunk
// starts after one failed (a failed index check stops the kernel); a
// panic in a chunk (an index out of range from a wrong layout) becomes an
// error instead of killing the program.
func ParallelFor(n, cost int64, body func(lo, hi int64) error) error {
	if n <= 0 {
		return nil
	}
	cost = max(cost, 1)
	workers := min(int64(runtime.GOMAXPROCS(0)), n)
	if workers <= 1 || n*cost < SerialWork {
		return guarded(body, 0, n)
	}
	size := min(max(ChunkWork/cost, 1), (n+workers-1)/workers)
	chunks := (n + size - 1) / size
	workers = min(workers, chunks)
	errs := make([]error, chunks)
	var next atomic.Int64
	var failed atomic.Bool
	work := func() {
		// After a failure no chunk is taken any more, but every chunk
		// taken runs: chunks are taken in order, so the lowest failing
		// one always runs and the error is the one a serial run gives.
		for !failed.Load() {
			c := next.Add(1) - 1
			if c >= chunks {
				return
			}
			lo := c * size
			if errs[c] = guarded(body, lo, min(lo+size, n)); errs[c] != nil {
				failed.Store(true)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// SerialFor runs body over [0, n) on the calling goroutine, in one call:
// a Serial kernel (a scatter that accumulates through repeated indices)
// must see its iterations in index order. A panic becomes an error.
func SerialFor(n int64, body func(lo, hi int64) error) error {
	if n <= 0 {
		return nil
	}
	return guarded(body, 0, n)
}

// guarded runs one chunk, turning a panic into an error.
func guarded(body func(lo, hi int64) error, lo, hi int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kernel panic in [%d, %d): %v", lo, hi, r)
		}
	}()
	return body(lo, hi)
}
