package main

import (
	"os"
	"runtime/debug"

	"github.com/kiln-compiler/kiln/driver"
)

// limitMemory is set by main: the soft memory limit is a policy of the
// kiln process, not of the tests that call kilnMain.
var limitMemory bool

// Soft memory limit: kiln's live heap peaks at about 40 bytes per input
// byte (a 15 MB, 155k-node graph compiled with every dump: ~590 MB), and
// the Go GC's default lets the heap reach twice the live heap, and the
// process's memory more than that while freed pages wait for the
// scavenger. Past minMemoryLimit, a limit of memoryPerInputByte bytes per
// input byte makes the GC collect (and return pages) before then: it costs
// CPU only near the peak. A bigger input gets a bigger limit, never a GC
// that thrashes against a live heap the graph needs.
const (
	minMemoryLimit     = 1 << 30
	memoryPerInputByte = 64
)

// setMemoryLimit applies the soft limit for an input of n bytes, unless
// GOMEMLIMIT is set (the user's word wins).
func setMemoryLimit(in driver.Input) {
	if !limitMemory || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	n := int64(len(in.Src))
	for _, f := range in.Files {
		n += int64(len(f.Src))
	}
	debug.SetMemoryLimit(memoryLimitFor(n))
}

// memoryLimitFor is the soft limit for an input of n bytes.
func memoryLimitFor(n int64) int64 { return max(minMemoryLimit, memoryPerInputByte*n) }
