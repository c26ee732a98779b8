package main

import (
	"runtime"
	"testing"
	"time"
)

// The soft limit is 1 GiB until the live heap passes 640 MiB, then 1.6 times
// the live heap: never so close to it that the GC thrashes (a 1M-node
// graph's 1.1 GB live heap gets 1.8 GB).
func TestMemoryLimitFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, 1 << 30},
		{520 << 20, 1 << 30},
		{640 << 20, 1 << 30},
		{1000 << 20, 1600 << 20},
		{1141 << 20, 1914280345}, // 1.6 × 1,196,425,216
	} {
		if got := memoryLimitFor(c.live); got != c.want {
			t.Errorf("memoryLimitFor(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// armAfterGC's hook runs after each GC, again and again.
func TestArmAfterGCRunsEachCycle(t *testing.T) {
	runs := make(chan struct{}, 16)
	armAfterGC(func() {
		select {
		case runs <- struct{}{}:
		default:
		}
	})
	for i := range 3 {
		runtime.GC()
		select {
		case <-runs:
		case <-time.After(5 * time.Second):
			t.Fatalf("no run after GC %d", i+1)
		}
	}
	if liveHeap() == 0 {
		t.Error("the live heap reads 0 after a GC")
	}
}
