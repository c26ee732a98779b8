package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fuzzCommands are the command lines FuzzCLI drives, the input on stdin:
// every command that reads a graph, with its dump writers (run with small
// tensors: the fuzzer looks for crashes, not for slow big runs) (compile writes
// every stage, the report and the SVG; dot renders SVG through Graphviz).
var fuzzCommands = [][]string{
	{"opt", "-print-after-all", "-verify-each"},
	{"compile", "-o", "OUT"},
	{"compile", "-target=go", "-o", "OUT"},
	{"run", "-max-tensor-bytes=4194304", "-o", "OUT"},
	{"dot"},
	{"dot", "-o", "OUT/g.svg"},
	{"opt", "-passes=fakeprop,functionalize,decompose,cse,dce"},
}

const fuzzTimeout = 20 * time.Second

var fuzzPositioned = regexp.MustCompile(`(?m)^\S+:\d+:\d+: error\[[a-z-]+\]: `)

// FuzzCLI runs kiln itself on arbitrary input: it must never panic, must
// exit 0, 1 or 2, and exit 1 must come with a positioned error (exit 0
// with none). Seeds are the hostile inputs and the shipped scenarios;
// corpora the fuzzer finds are kept in testdata/fuzz/FuzzCLI.
//
//	nice -n 10 go test ./cmd/kiln -run '^$' -fuzz FuzzCLI -fuzztime 10m -parallel 1
func FuzzCLI(f *testing.F) {
	for _, glob := range []string{"../../testdata/hostile/*", "../../testdata/scenarios/*.fx"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil && len(src) < 1<<16 && !strings.HasSuffix(file, "WANT") {
				for i := range fuzzCommands {
					f.Add(src, uint8(i))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		dir := t.TempDir()
		args := append([]string(nil), fuzzCommands[int(which)%len(fuzzCommands)]...)
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "OUT", filepath.Join(dir, "out"))
		}
		if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-")
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- kilnMain(args, bytes.NewReader(src), &stdout, &stderr) }()
		var status int
		select {
		case status = <-done:
		case <-time.After(fuzzTimeout):
			// A hang is a finding too: fail so the fuzzer keeps the input.
			t.Fatalf("%v: no answer in %v on %q", args, fuzzTimeout, src)
		}
		errText := stderr.String()
		switch status {
		case 0:
			if strings.Contains(errText, "error[") {
				t.Fatalf("%v: exit 0 with an error:\n%s", args, errText)
			}
		case 1:
			if !fuzzPositioned.MatchString(errText) {
				t.Fatalf("%v: exit 1 without a positioned error:\n%s", args, errText)
			}
		default:
			t.Fatalf("%v: exit %d on input (misuse is impossible here):\n%s", args, status, errText)
		}
		if strings.Contains(errText, "error[internal]") || strings.Contains(errText, "goroutine ") {
			t.Fatalf("%v: internal error:\n%s", args, errText)
		}
	})
}
