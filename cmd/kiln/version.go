package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/kiln-compiler/kiln/internal/suggest"
)

// version is set at release builds with -ldflags "-X main.version=v1.2.3";
// otherwise kiln reports the VCS revision the go tool stamped into the binary.
var version = "devel"

func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if wantsHelp(args) {
			fmt.Fprintln(stdout, "usage: kiln version\n\nprints kiln's version, the commit it was built from and the Go version")
			return exitOK
		}
		fmt.Fprintln(stderr, "usage: kiln version")
		return exitMisuse
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "kiln " + version
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	line := "kiln " + version
	if v := info.Main.Version; version == "devel" && v != "" && v != "(devel)" {
		line = "kiln " + v
	}
	if rev != "" {
		line += " " + rev[:min(12, len(rev))]
		if modified {
			line += "+dirty"
		}
	}
	return fmt.Sprintf("%s (%s)", line, info.GoVersion)
}

func suggestHint(name string, candidates []string) string { return suggest.Hint(name, candidates) }
