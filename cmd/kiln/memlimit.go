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
// and the process holds more than that while freed pages wait for the
// scavenger: a graph of mutations with 722 MB live reached 1.77 GB of RSS,
// a 903k-node `kiln opt` with 1.1 GB live 1.9-2.35 GB. A soft memory limit
// collects (and returns pages) earlier, but one close to the live heap
// makes the GC thrash: under a fixed 1 GiB, the mutations graph took 41%
// more CPU, and a 155k-node compile (about 550 MB live, the rest of its
// 1 GiB taken by pages not yet returned) ran 10.5 s one time and 16.8 s
// the next. So the limit follows the live heap: after every GC it is set
// to max(minMemoryLimit, liveHeapHeadroom × live). Below minMemoryLimit
// it never binds where the default GC would not come close; past it, it
// is a GOGC of 70 that also returns pages.
const (
	minMemoryLimit   = 5 << 28 // 1.25 GiB
	liveHeapHeadroom = 1.7
)

// limitMemory is set by main: the limit is a policy of the kiln process,
// not of the tests that call kilnMain.
var limitMemory bool

// startMemoryLimit sets the soft limit and keeps it following the live
// heap, from a finalizer that runs after each GC. It does nothing when
// GOMEMLIMIT is set or limitMemory is not.
func startMemoryLimit() {
	if !limitMemory || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(minMemoryLimit)
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
