// Command tracestats prints what kiln's trace readers took from each file
// and what they passed over: the figures of issue 12's closing note.
//
//	go run ./tools/tracestats testdata/traces/*/*
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend"
	"github.com/kiln-compiler/kiln/frontend/exectrace"
	"github.com/kiln-compiler/kiln/frontend/torchtrace"
	"github.com/kiln-compiler/kiln/ops"
)

func main() {
	for _, path := range os.Args[1:] {
		if err := one(path); err != nil {
			fmt.Printf("%s: %v\n", path, err)
		}
	}
}

func one(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(src, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return err
		}
		if src, err = io.ReadAll(zr); err != nil {
			return err
		}
	}
	switch frontend.Sniff(src) {
	case frontend.TorchTrace:
		r, err := torchtrace.Parse(path, src, torchtrace.Options{Lookup: ops.LookupSchema})
		if err != nil {
			return err
		}
		nodes := 0
		for _, g := range r.Module.Graphs {
			nodes += len(g.Nodes)
		}
		var unread []string
		for k, n := range r.Stats.Unread {
			unread = append(unread, fmt.Sprintf("%s×%d", k, n))
		}
		sort.Strings(unread)
		fmt.Printf("%s: TORCH_TRACE, %d lines, %d events: %d graphs, %d nodes, %d inputs described, %d diagnostics (%s), %d provenance maps; unread: %s\n",
			path, r.Stats.Lines, r.Stats.Events, r.Stats.Graphs, nodes, r.Stats.Described, len(r.Diags), codes(r.Diags),
			len(r.Provenance), strings.Join(unread, " "))
	case frontend.ExecTrace:
		r, err := exectrace.Parse(path, src, exectrace.Options{Lookup: ops.LookupSchema})
		if err != nil {
			return err
		}
		s := r.Stats
		fmt.Printf("%s: Execution Trace %s, %d nodes: %d top-level ATen calls → graph nodes, %d nested ATen calls dropped, %d opaque regions, %d labels (remarks), %d fake-tensor calls dropped, %d inputs, %d typed results; %s\n",
			path, r.Schema, s.Nodes, s.TopLevel, s.Nested, s.Regions, s.Labels, s.Fake, s.Inputs, s.Annotated, codes(r.Diags))
	default:
		fmt.Printf("%s: %s\n", path, frontend.Sniff(src))
	}
	return nil
}

func codes(ds []diag.Diagnostic) string {
	m := map[string]int{}
	for _, d := range ds {
		m[d.Severity.String()+"["+d.Code+"]"]++
	}
	var out []string
	for k, n := range m {
		out = append(out, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
