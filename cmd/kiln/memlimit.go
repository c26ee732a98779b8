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
// scavenger: a compile whose live heap peaks at 520 MB (a 155k-node graph
// with every dump) reached 1.3 GB of RSS. A soft memory limit collects
// (and returns pages) earlier, but a fixed one makes the GC thrash once
// the live heap nears it: a graph of mutations with 722 MB live took 41%
// more CPU under a 1 GiB limit. So the limit follows the live heap: after
// every GC it is set to max(minMemoryLimit, liveHeapHeadroom × live),
// which is the default GC up to minMemoryLimit/2 live, a GC that keeps the
// heap within 1 GiB up to minMemoryLimit/liveHeapHeadroom live, and
// GOGC=60 past that (the limit never comes closer to the live heap).
const (
	minMemoryLimit   = 1 << 30
	liveHeapHeadroom = 1.6
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
