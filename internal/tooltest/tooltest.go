// Package tooltest finds external tools (go, clang, g++) for tests. A test
// that needs a missing tool skips with the reason, except under CI
// (KILN_REQUIRE_TOOLS=1, set by .ci/run after installing them), where a
// missing tool fails the test: CI never passes by skipping.
package tooltest

import (
	"os"
	"os/exec"
	"testing"
)

// Need returns the path of tool, or skips (fails under CI) when it is missing.
func Need(t testing.TB, tool string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err == nil {
		return path
	}
	if os.Getenv("KILN_REQUIRE_TOOLS") != "" {
		t.Fatalf("%s is required (KILN_REQUIRE_TOOLS is set) but not found: %v", tool, err)
	}
	t.Skipf("%s not found (%v): install it to run this test; CI installs it", tool, err)
	return ""
}
