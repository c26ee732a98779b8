package main

import (
	"runtime"
	"testing"
	"time"
)

// The soft limit is 880 MiB until the live heap passes 440 MiB, then
// twice the live heap: never so close to it that the GC thrashes (a
// 903k-node graph's 1.1 GB live heap gets 2.4 GB).
func TestMemoryLimitFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, 880 << 20},
		{300 << 20, 880 << 20},
		{440 << 20, 880 << 20},
		{600 << 20, 1200 << 20},
		{1141 << 20, 2282 << 20},
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
