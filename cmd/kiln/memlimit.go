package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// kiln's memory policy, unless GOMEMLIMIT is set (the user's word wins).
//
// Go's GC lets the heap grow to twice the live heap before it collects,
// and the process holds more than that: pages freed but not yet returned,
// and half-empty spans (on a 100k-node compile, 250-350 MB of spans hold
// no live object: runtime/metrics' /memory/classes/heap/unused). Without
// a limit a 155k-node compile with 470 MB live reached 1.33 GB of RSS.
// A soft memory limit collects and returns pages earlier, but one close
// to the live heap plus those spans makes the GC thrash: at 1.7 × live,
// a graph of mutations with 600 MB live took 23 s instead of 13. So the
// limit follows the live heap: after every GC it is set to
// max(minMemoryLimit, liveHeapHeadroom × live). Below the floor the
// compiles of 100k-node graphs stay under 1 GB of RSS for 5-10% more CPU;
// above it the limit is GOGC's own goal, and only returns pages sooner.
//
// Under that limit GOGC can be higher than Go's 100: the limit, not GOGC,
// sets the heap's goal once the live heap passes minMemoryLimit/3, and
// below that GOGC=200 collects half as often. On the 100k-node graphs GC
// cycles go from 21-23 to 14-16 and the 1M-node `kiln opt` from 13 to 7,
// with RSS within 10 MB (100k) and 60 MB (1M) of GOGC=100's.
const (
	minMemoryLimit   = 880 << 20 // 880 MiB: RSS under 1 GB with the binary and what is not heap
	liveHeapHeadroom = 2.0
	gcPercent        = 200 // unless GOGC is set
)

// limitMemory is set by main: the limit is a policy of the kiln process,
// not of the tests that call kilnMain.
var limitMemory bool

// startMemoryLimit sets the soft limit and keeps it following the live
// heap, from a finalizer that runs after each GC, and GOGC to gcPercent.
// It does nothing when GOMEMLIMIT is set or limitMemory is not.
func startMemoryLimit() {
	if !limitMemory || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(minMemoryLimit)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	armAfterGC(func() { debug.SetMemoryLimit(memoryLimitFor(liveHeap())) })
}

// memoryLimitFor is the soft limit for a live heap of live bytes.
func memoryLimitFor(live uint64) int64 {
	return max(minMemoryLimit, int64(liveHeapHeadroom*float64(live)))
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// liveHeap is the heap the last GC found live.
func liveHeap() uint64 {
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return liveSample[0].Value.Uint64()
}

// armAfterGC runs f after every GC cycle, for the life of the process: a
// sentinel object's finalizer runs once the GC has found it dead, and
// re-arms itself on a new sentinel.
func armAfterGC(f func()) {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		f()
		armAfterGC(f)
	})
}
