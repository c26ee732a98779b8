package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileCase is one line of testdata/hostile/WANT.
type hostileCase struct {
	file, pos, code, msg string
	cmds                 []string
	exit                 int
}

func readHostileWant(t *testing.T) []hostileCase {
	f, err := os.Open("../../testdata/hostile/WANT")
	require.NoError(t, err)
	defer f.Close()
	var out []hostileCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		require.GreaterOrEqual(t, len(fields), 6, "WANT line %q", line)
		c := hostileCase{file: fields[0], pos: fields[3], code: fields[4], msg: strings.Join(fields[5:], " ")}
		_, err := fmt.Sscan(fields[2], &c.exit)
		require.NoError(t, err, line)
		c.cmds = strings.Split(fields[1], ",")
		if fields[1] == "all" {
			c.cmds = []string{"opt", "compile", "run", "dot"}
		}
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	return out
}

// runKiln runs the CLI in-process, as main does, with output folders in a
// temporary directory.
func runKiln(t *testing.T, cmd, file string, stdin []byte) (int, string, string) {
	dir := t.TempDir()
	args := []string{cmd}
	switch cmd {
	case "compile":
		args = append(args, "-o", filepath.Join(dir, "out"))
	case "dot":
		args = append(args, "-o", filepath.Join(dir, "g.svg"))
	case "run":
		args = append(args, "-o", filepath.Join(dir, "run"))
	}
	args = append(args, file)
	var stdout, stderr bytes.Buffer
	status := kilnMain(args, bytes.NewReader(stdin), &stdout, &stderr)
	return status, stdout.String(), stderr.String()
}

var positioned = regexp.MustCompile(`(?m)^(\S+):(\d+):(\d+): error\[([a-z-]+)\]: (.*)$`)

// TestHostileInputs: every file in testdata/hostile gets the diagnostic
// WANT names, from every command that reads a graph, with exit 1 and a
// hint; none panics, none succeeds silently.
func TestHostileInputs(t *testing.T) {
	cases := readHostileWant(t)
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.file] = true
		for _, cmd := range c.cmds {
			t.Run(c.file+"/"+cmd, func(t *testing.T) {
				path := filepath.Join("../../testdata/hostile", c.file)
				status, _, stderr := runKiln(t, cmd, path, nil)
				require.Equal(t, c.exit, status, "stderr:\n%s", stderr)
				require.NotContains(t, stderr, "panic")
				require.NotContains(t, stderr, "goroutine ")
				m := positioned.FindStringSubmatch(stderr)
				require.NotNil(t, m, "no positioned error in:\n%s", stderr)
				require.Equal(t, path, m[1])
				require.Equal(t, c.pos, m[2]+":"+m[3], "position; stderr:\n%s", stderr)
				require.Equal(t, c.code, m[4], "code; stderr:\n%s", stderr)
				require.Contains(t, m[5], c.msg)
				require.Contains(t, stderr, "\n    hint: ")
			})
		}
	}
	files, err := os.ReadDir("../../testdata/hostile")
	require.NoError(t, err)
	for _, f := range files {
		if f.Name() != "WANT" {
			require.True(t, covered[f.Name()], "testdata/hostile/%s has no line in WANT", f.Name())
		}
	}
}

// TestRunByteBudget: a chain of tensors each under the per-tensor bound
// still stops once the run's total passes -max-run-bytes (a graph of
// sixteen 1 GiB tensors would otherwise take 16 GiB), and a single tensor
// past -max-tensor-bytes stops before it is allocated.
func TestRunByteBudget(t *testing.T) {
	src := []byte(`class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[100][1]cpu"):
        add: "f32[100][1]cpu" = torch.ops.aten.add.Tensor(x, 1)
        mul: "f32[100][1]cpu" = torch.ops.aten.mul.Tensor(add, 2)
        sub: "f32[100][1]cpu" = torch.ops.aten.sub.Tensor(mul, 3)
        return (sub,)
`)
	var stdout, stderr bytes.Buffer
	status := kilnMain([]string{"run", "-max-run-bytes=1000", "-"}, bytes.NewReader(src), &stdout, &stderr)
	require.Equal(t, 1, status, stderr.String())
	require.Regexp(t, `<stdin>:\d+:9: error\[eval\]: \w+: bytes allocated by this run \d+ is past kiln's limit of 1000`, stderr.String())
	require.Contains(t, stderr.String(), "-max-run-bytes")

	stderr.Reset()
	status = kilnMain([]string{"run", "-max-tensor-bytes=100", "-"}, bytes.NewReader(src), &stdout, &stderr)
	require.Equal(t, 1, status, stderr.String())
	require.Contains(t, stderr.String(), "storage size in bytes 400 is past kiln's limit of 100")

	stderr.Reset()
	status = kilnMain([]string{"run", "-"}, bytes.NewReader(src), &stdout, &stderr)
	require.Equal(t, 0, status, stderr.String())
}
