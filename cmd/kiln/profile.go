package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles writes a CPU profile of the whole command to cpuPath and a
// heap profile at its end to memPath (KILN_CPUPROFILE, KILN_MEMPROFILE):
// how kiln's own cost on a big graph is measured. Empty paths do nothing.
// The returned func stops the CPU profile and writes the heap profile.
func startProfiles(cpuPath, memPath string, stderr io.Writer) func() {
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
