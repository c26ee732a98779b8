package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompileReusesOutputFolder: a second compile into the same folder
// removes what the first wrote and the second did not (stale dumps), keeps
// the user's own files, and the folder keeps its go.mod, so the dumps never
// join an enclosing module's `go test ./...` (README's two commands).
func TestCompileReusesOutputFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "kiln-out")
	scenario := "../../testdata/scenarios/03_misaligned_view.fx"
	var so, se discard
	require.Equal(t, 0, kilnMain([]string{"compile", "-o", out, scenario}, nil, &so, &se))
	require.FileExists(t, filepath.Join(out, "go.mod"))
	require.FileExists(t, filepath.Join(out, "graph0.03-functionalize.fx"))
	require.NoError(t, os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644))

	require.Equal(t, 0, kilnMain([]string{"compile", "-o", out, "-passes=fakeprop,dce", scenario}, nil, &so, &se))
	require.NoFileExists(t, filepath.Join(out, "graph0.03-functionalize.fx"), "stale dump of the last run")
	require.FileExists(t, filepath.Join(out, "graph0.02-dce.fx"))
	require.FileExists(t, filepath.Join(out, "notes.txt"), "a file kiln did not write")
	require.FileExists(t, filepath.Join(out, "go.mod"))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
