package rt

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every index runs exactly once, in chunks of contiguous ranges, for
// sizes below, at and above the serial threshold and the chunk size.
func TestParallelForCoversOnce(t *testing.T) {
	for _, tc := range []struct{ n, cost int64 }{{1, 1}, {100, 1}, {SerialWork, 1}, {3*ChunkWork + 7, 1}, {1000, 300}, {5, 1 << 20}} {
		t.Run(fmt.Sprint(tc.n, "x", tc.cost), func(t *testing.T) {
			hits := make([]int32, tc.n)
			var mu sync.Mutex
			chunks := 0
			require.NoError(t, ParallelFor(tc.n, tc.cost, func(lo, hi int64) error {
				require.Less(t, lo, hi)
				mu.Lock()
				chunks++
				mu.Unlock()
				for i := lo; i < hi; i++ {
					hits[i]++
				}
				return nil
			}))
			for i, h := range hits {
				require.EqualValues(t, 1, h, "index %d", i)
			}
			if tc.n*tc.cost >= 2*ChunkWork {
				assert.Greater(t, chunks, 1)
			}
		})
	}
}

// The first error by chunk order wins; a panic is an error.
func TestParallelForErrors(t *testing.T) {
	n := int64(8 * ChunkWork)
	err := ParallelFor(n, 1, func(lo, hi int64) error {
		if lo >= n/2 {
			return fmt.Errorf("late %d", lo)
		}
		if lo > 0 {
			return errors.New("early")
		}
		return nil
	})
	require.EqualError(t, err, "early")
	err = ParallelFor(n, 1, func(lo, hi int64) error {
		var s []int
		_ = s[lo]
		return nil
	})
	require.ErrorContains(t, err, "kernel panic in [0, ")
}

// SerialFor is one call over the whole range, on the caller's goroutine.
func TestSerialFor(t *testing.T) {
	var calls [][2]int64
	require.NoError(t, SerialFor(1<<20, func(lo, hi int64) error {
		calls = append(calls, [2]int64{lo, hi})
		return nil
	}))
	assert.Equal(t, [][2]int64{{0, 1 << 20}}, calls)
	require.NoError(t, SerialFor(0, func(lo, hi int64) error { panic("not called") }))
	require.ErrorContains(t, SerialFor(4, func(lo, hi int64) error { panic("boom") }), "boom")
}

// After a chunk fails no new chunk starts, yet the error is still the
// lowest failing chunk's, as a serial run reports it.
func TestParallelForStopsAfterFailure(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // parallel even on one core
	n := int64(64 * ChunkWork)
	var mu sync.Mutex
	ran := 0
	err := ParallelFor(n, 1, func(lo, hi int64) error {
		mu.Lock()
		ran++
		mu.Unlock()
		if lo >= 2*ChunkWork {
			return fmt.Errorf("bad index at %d", lo)
		}
		return nil
	})
	require.EqualError(t, err, fmt.Sprintf("bad index at %d", 2*ChunkWork))
	assert.Less(t, ran, 64, "chunks after the failure still ran")
}

func TestIndexError(t *testing.T) {
	err := IndexError("index {index} is out of bounds for dimension 0 with size {size}", -2, 100)
	require.EqualError(t, err, "index -2 is out of bounds for dimension 0 with size 100")
	require.EqualError(t, IndexError("index out of range in self", 7, 3), "index out of range in self")
}
