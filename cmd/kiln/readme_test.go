package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeExamples runs every `kiln ...` line of README.md's Examples
// block as written, from a folder that sees the repository's testdata (so
// dumps land in a temporary kiln-out), and checks the exit status its
// comment names.
func TestReadmeExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "## Examples")
	require.True(t, ok, "README.md has no Examples section")
	_, block, ok := strings.Cut(after, "```sh\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")

	dir := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")))
	t.Chdir(dir)
	exitRe := regexp.MustCompile(`#\s*exit (\d)`)
	n := 0
	for _, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		m := exitRe.FindStringSubmatch(line)
		require.NotNil(t, m, "example %q names no exit status", line)
		want, _ := strconv.Atoi(m[1])
		cmdText, _, _ := strings.Cut(line, "#")
		args := shellWords(t, strings.TrimSpace(cmdText))
		require.Equal(t, "kiln", args[0], line)
		var stdout, stderr bytes.Buffer
		got := kilnMain(args[1:], strings.NewReader(""), &stdout, &stderr)
		require.Equal(t, want, got, "%s\nstdout:\n%s\nstderr:\n%s", line, stdout.String(), stderr.String())
		if _, note, _ := strings.Cut(line, ": "); want != 0 && strings.Contains(line, "#") && note != "" {
			require.Contains(t, stderr.String(), strings.TrimSpace(note), line)
		}
		n++
	}
	require.GreaterOrEqual(t, n, 8, "examples found")
	// The two commands at the top work in either order: compile's dumps
	// carry their own go.mod, so `go test ./...` does not see them.
	require.FileExists(t, filepath.Join(dir, "kiln-out", "go.mod"))
}

// shellWords splits a command line as sh does for the README's examples:
// spaces separate words, single quotes group.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var cur strings.Builder
	inQuote, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQuote, inWord = !inQuote, true
		case r == ' ' && !inQuote:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	require.False(t, inQuote, "unclosed quote in %q", s)
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
