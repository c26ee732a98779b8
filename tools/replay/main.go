// Command replay is kiln's process replay (after tinygrad's): it runs the
// CLI's flows — opt with every pass printed, compile with all dumps,
// compile -target=go, compile -target=cuda, run — over every example graph
// under testdata/ and stores what each printed and wrote, so that a
// refactor can be checked byte for byte:
//
//	go build -o /tmp/kiln-base ./cmd/kiln   # before the change
//	go run ./tools/replay -kiln /tmp/kiln-base -o /tmp/replay-base
//	go build -o /tmp/kiln-new ./cmd/kiln    # after it
//	go run ./tools/replay -kiln /tmp/kiln-new -o /tmp/replay-new
//	diff -r /tmp/replay-base /tmp/replay-new
//
// Wall-clock figures (compile's summary line) are replaced by "TIME".
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// flows are the commands replayed on every graph; OUT is the flow's output folder.
var flows = []struct {
	name string
	args []string
}{
	{"opt", []string{"opt", "-print-after-all"}},
	{"compile", []string{"compile", "-o", "OUT"}},
	{"compile-go", []string{"compile", "-target=go", "-o", "OUT"}},
	{"compile-cuda", []string{"compile", "-target=cuda", "-o", "OUT"}},
	{"run", []string{"run", "-seed", "1"}},
}

// elapsed matches a Go duration as compile's summary prints it.
var elapsed = regexp.MustCompile(`; [0-9][0-9.]*(ns|µs|ms|s|m[0-9.]*s|h[0-9.m]*s); `)

func main() {
	kiln := flag.String("kiln", "", "kiln binary to replay (required)")
	out := flag.String("o", "/tmp/replay", "output folder (emptied first)")
	root := flag.String("root", "testdata", "folder of example graphs")
	jobs := flag.Int("j", 2, "graphs replayed at once")
	match := flag.String("run", "", "only graphs whose name contains this")
	flag.Parse()
	if *kiln == "" {
		fmt.Fprintln(os.Stderr, "replay: -kiln BIN is required")
		os.Exit(2)
	}
	bin, err := filepath.Abs(*kiln)
	check(err)
	graphs, err := testgraphs.Collect(*root)
	check(err)
	check(os.RemoveAll(*out))
	work := make(chan testgraphs.Graph)
	var wg sync.WaitGroup
	for range max(*jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				check(replay(bin, *out, g))
			}
		}()
	}
	n := 0
	for _, g := range graphs {
		if strings.Contains(g.Name, *match) {
			work <- g
			n++
		}
	}
	close(work)
	wg.Wait()
	check(runOne(bin, filepath.Join(*out, "_passes"), "passes", []string{"passes"}))
	fmt.Printf("replay: %d graph(s) × %d flow(s) into %s\n", n, len(flows), *out)
}

// replay runs every flow on one graph in its own folder, from which the
// input is always "input.fx", so positions print the same on every run.
func replay(bin, out string, g testgraphs.Graph) error {
	dir := filepath.Join(out, strings.NewReplacer("/", "_", ":", "__").Replace(g.Name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "input.fx"), g.Src, 0o644); err != nil {
		return err
	}
	types := typeFlags(g)
	for _, f := range flows {
		args := append([]string{}, f.args...)
		for i, a := range args {
			if a == "OUT" {
				args[i] = "out-" + f.name
			}
		}
		if f.name == "run" {
			args = append(args, types...)
		}
		args = append(args, "input.fx")
		if err := runOne(bin, dir, f.name, args); err != nil {
			return fmt.Errorf("%s %s: %w", g.Name, f.name, err)
		}
	}
	return nil
}

// runOne runs kiln in dir and records stdout, stderr and the exit status
// under dir as NAME.stdout, NAME.stderr and NAME.status.
func runOne(bin, dir, name string, args []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".args"), []byte(strings.Join(args, " ")+"\n"), 0o644); err != nil {
		return err
	}
	text := elapsed.ReplaceAll(stdout.Bytes(), []byte("; TIME; "))
	files := map[string][]byte{".stdout": text, ".stderr": stderr.Bytes(), ".status": fmt.Appendf(nil, "%d\n", status)}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := os.WriteFile(filepath.Join(dir, name+k), files[k], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// typeFlags gives `kiln run` the input types the corpus headers name.
func typeFlags(g testgraphs.Graph) []string {
	res, err := fx.Parse(g.Name, g.Src, fx.Options{Lookup: ops.LookupSchema})
	if err != nil || len(res.Module.Graphs) == 0 {
		return nil
	}
	types := g.InputTypes(res.Module.Graphs[0])
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		out = append(out, "-type", n+"="+typeText(types[n]))
	}
	return out
}

func typeText(t ir.Type) string { return t.String() }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}
