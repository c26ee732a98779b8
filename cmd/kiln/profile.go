package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles writes a CPU profile of the whole command to cpuPath, a
// heap profile at its end to memPath and an execution trace (go tool
// trace: which stage runs when, on how many cores, and the GC) to
// tracePath (KILN_CPUPROFILE, KILN_MEMPROFILE, KILN_TRACE): how kiln's own
// cost on a big graph is measured. Empty paths do nothing. The returned
// func stops the CPU profile and the trace and writes the heap profile.
func startProfiles(cpuPath, memPath, tracePath string, stderr io.Writer) func() {
	stopTrace := startTrace(tracePath, stderr)
	var cpu *os.File
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "kiln: KILN_CPUPROFILE: %v\n", err)
		} else {
			cpu = f
		}
	}
	return func() {
		stopTrace()
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if memPath == "" {
			return
		}
		f, err := os.Create(memPath)
		if err != nil {
			fmt.Fprintf(stderr, "kiln: KILN_MEMPROFILE: %v\n", err)
			return
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintf(stderr, "kiln: KILN_MEMPROFILE: %v\n", err)
		}
	}
}

func startTrace(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = trace.Start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "kiln: KILN_TRACE: %v\n", err)
		return func() {}
	}
	return func() {
		trace.Stop()
		f.Close()
	}
}
