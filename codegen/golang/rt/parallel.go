package rt

import (
	"fmt"
	"runtime"
	"sync"
)

// SerialWork is the amount of work (items × cost per item) below which
// ParallelFor runs on the calling goroutine: a goroutine costs about a
// microsecond, a few thousand cheap elements.
const SerialWork = 1 << 15

// ParallelFor runs body over [0, n) split into GOMAXPROCS contiguous chunks,
// one goroutine each, serially when n·cost is below SerialWork. The first
// error (by chunk order) is returned; a panic in a chunk (an index out of
// range from a wrong layout) becomes an error instead of killing the
// program.
func ParallelFor(n, cost int64, body func(lo, hi int64) error) error {
	if n <= 0 {
		return nil
	}
	workers := int64(runtime.GOMAXPROCS(0))
	if workers > n {
		workers = n
	}
	if workers <= 1 || n*max(cost, 1) < SerialWork {
		return guarded(body, 0, n)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = guarded(body, lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
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
