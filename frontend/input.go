// Package frontend reads any input kiln accepts, choosing the reader by the
// content, never by the file name: FX readable text, kiln's dispatcher op
// traces (JSON lines), TORCH_TRACE structured logs, PyTorch Execution
// Traces, and gzip of any of them.
package frontend

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/exectrace"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/frontend/optrace"
	"github.com/kiln-compiler/kiln/frontend/torchtrace"
	"github.com/kiln-compiler/kiln/ir"
)

// Format names an input format.
type Format string

// The formats kiln reads.
const (
	FX         Format = "FX readable text"
	OpTrace    Format = "kiln op trace (JSON lines)"
	TorchTrace Format = "TORCH_TRACE log"
	ExecTrace  Format = "PyTorch Execution Trace"
)

// Formats is the list an unreadable input's error names.
const Formats = "FX readable text (print_readable, TORCH_LOGS, fx_graph_readable.py), kiln's op trace " +
	"(JSON lines, see frontend/optrace), a TORCH_TRACE log (TORCH_TRACE=/dir), a PyTorch Execution Trace " +
	"(ExecutionTraceObserver JSON), or any of them gzipped"

// CodeNoGraph is the diagnostic code for input that yields no graph.
const CodeNoGraph = "no-graph"

// MaxInflated bounds what a gzip input may inflate to (a gzip bomb must not
// take the machine's memory).
const MaxInflated = 4 << 30

// Result is a read input.
type Result struct {
	Format     Format
	Gzipped    bool
	Module     *ir.Module
	Diags      []diag.Diagnostic // warnings, remarks, and errors that did not stop reading
	Provenance []torchtrace.Provenance
	Config     map[string]bool // Dynamo settings a TORCH_TRACE log recorded (torchtrace.ConfigKeys)
}

// Parse reads src (named file in positions) in whatever format it holds.
// An input kiln cannot read, or one that yields no graph and reports no
// error, gives a positioned *diag.Diagnostic.
func Parse(file string, src []byte, lookup func(string) ir.OpSchema) (*Result, error) {
	res := &Result{}
	if isGzip(src) {
		plain, err := gunzip(src)
		if err != nil {
			return nil, diag.Errorf(diag.Pos{File: file, Line: 1, Col: 1}, "parse", "the file starts like gzip but does not inflate", "gzip: %v", err)
		}
		src, res.Gzipped = plain, true
	}
	res.Format = Sniff(src)
	if err := res.read(file, src, lookup); err != nil {
		return nil, err
	}
	if len(res.Module.Graphs) == 0 && !hasError(res.Diags) {
		if res.Format == FX {
			return nil, fx.NoGraph(file, src) // says what the file is instead (empty, UTF-16, Python, ...)
		}
		what := "the input"
		if res.Format != FX {
			what = "this " + string(res.Format)
		}
		return nil, diag.Errorf(diag.Pos{File: file, Line: 1, Col: 1}, CodeNoGraph, "kiln reads "+Formats,
			"%s holds no graph", what)
	}
	return res, nil
}

func (res *Result) read(file string, src []byte, lookup func(string) ir.OpSchema) error {
	switch res.Format {
	case TorchTrace:
		r, err := torchtrace.Parse(file, src, torchtrace.Options{Lookup: lookup})
		if err != nil {
			return err
		}
		res.Module, res.Diags, res.Provenance, res.Config = r.Module, r.Diags, r.Provenance, r.Config
	case ExecTrace:
		r, err := exectrace.Parse(file, src, exectrace.Options{Lookup: lookup})
		if err != nil {
			return err
		}
		res.Module, res.Diags = r.Module, r.Diags
	case Unknown:
		return diag.Errorf(diag.Pos{File: file, Line: 1, Col: 1}, "parse", "kiln reads "+Formats+
			"; a profiler (Kineto) trace holds timings, not tensors: record an Execution Trace instead",
			"JSON object that is neither an Execution Trace (\"schema\", \"nodes\") nor an op trace (\"op\")")
	case OpTrace:
		mod, warnings, err := optrace.Parse(file, src, optrace.Options{Lookup: lookup})
		if err != nil {
			return err
		}
		res.Module, res.Diags = mod, warnings
	default:
		if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
			return fx.NoGraph(file, src) // says what it is instead: binary, UTF-16, ...
		}
		r, err := fx.Parse(file, src, fx.Options{Lookup: lookup})
		if err != nil {
			return err
		}
		res.Module, res.Diags = r.Module, r.Warnings
	}
	return nil
}

// Sniff tells the format of (inflated) src from its first meaningful line.
func Sniff(src []byte) Format {
	rest := src
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		text := strings.TrimSpace(strings.TrimPrefix(string(line), "\ufeff"))
		if text == "" || strings.HasPrefix(text, "#") && !torchtrace.IsLog(text) {
			continue
		}
		switch {
		case torchtrace.IsLog(string(line)):
			return TorchTrace
		case strings.HasPrefix(text, "{"):
			return jsonFormat(src)
		}
		return FX
	}
	return FX
}

// Unknown is JSON kiln does not read (a Kineto/Chrome trace, say).
const Unknown Format = "JSON kiln does not read"

// jsonFormat reads the top-level keys of the first JSON object: an
// Execution Trace has "schema" and "nodes"; an op-trace line has "op" or
// "return"; a JSON line kiln cannot place is an op trace with a typo, so
// optrace reports it; anything else is Unknown.
func jsonFormat(src []byte) Format {
	dec := json.NewDecoder(bytes.NewReader(src))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return OpTrace
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return OpTrace
		}
		switch tok {
		case "schema", "nodes":
			return ExecTrace
		case "op", "return", "args", "kwargs", "outputs":
			return OpTrace
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return OpTrace
		}
	}
	return Unknown
}

func isGzip(src []byte) bool { return len(src) >= 2 && src[0] == 0x1f && src[1] == 0x8b }

func gunzip(src []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxInflated+1))
	if err != nil {
		return nil, err
	}
	if len(out) > MaxInflated {
		return nil, fmt.Errorf("inflates past %d bytes", int64(MaxInflated))
	}
	return out, nil
}

func hasError(ds []diag.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == diag.Error {
			return true
		}
	}
	return false
}
