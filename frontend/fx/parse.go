// Package fx parses FX readable text — what PyTorch prints with
// print_readable, TORCH_LOGS, TORCH_COMPILE_DEBUG's fx_graph_readable.py,
// graph.code, and str(graph)'s node form — into kiln's SSA IR.
package fx

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unsafe"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
)

// Options configure parsing.
type Options struct {
	// Lookup resolves a canonical op name ("aten::add.Tensor") to its
	// registry entry; it returns nil for ops kiln does not know. When nil,
	// every op is opaque.
	Lookup func(target string) ir.OpSchema
}

// Result is a parsed file and the warnings met on the way.
type Result struct {
	Module   *ir.Module
	Warnings []diag.Diagnostic
}

// Parse reads FX readable text. Malformed input gives a *diag.Diagnostic
// error with code "parse", positioned at the offending text; Parse never
// panics. The result keeps nothing of src: the caller may reuse it.
func Parse(file string, src []byte, opts Options) (res *Result, err error) {
	p := &parser{file: file, opts: opts, mod: &ir.Module{File: file}, warnedOps: map[string]bool{}}
	defer func() {
		if r := recover(); r != nil {
			// A parser bug must not take the user's process down; report it
			// as an internal error at the line being parsed.
			err = diag.Errorf(p.curPos, "internal", "please report this input as a kiln bug",
				"internal parser error: %v", r)
		}
	}()
	// The text is read in place, not copied: nothing the parser returns
	// holds on to it (names, raw arguments and type texts are copied out;
	// TestParseKeepsNoSource overwrites the input after parsing), so a
	// 100 MB input is not held twice while it is parsed.
	text := unsafe.String(unsafe.SliceData(src), len(src))
	if err := p.run(text); err != nil {
		return nil, err
	}
	return &Result{Module: p.mod, Warnings: p.warnings}, nil
}

// mode is where the line scanner is.
type mode uint8

const (
	outside  mode = iota // between graphs: headers, imports, prose
	inGraph              // inside def forward, Python form
	nodeForm             // inside a str(graph) / "Graph fragment" node listing
	skipping             // inside a def that is not forward
)

type parser struct {
	file      string
	opts      Options
	mod       *ir.Module
	warnings  []diag.Diagnostic
	warnedOps map[string]bool
	curPos    diag.Pos

	mode       mode
	skipIndent int
	className  string
	g          *graphBuilder
	segs       []segment           // the logical line's segments, reused from line to line
	types      map[string]ir.Type  // annotation text -> its type (see maxTypeCache)
	toks       []token             // the statement's tokens, reused from statement to statement
	ops        map[string]opEntry  // op callee -> its target and schema
	exprs      exprArena           // the statement's expressions
	lines      []rawLine           // the input's lines
	lineAt     int                 // the index in lines of the line being read
	stmts      []span              // the line's statements, reused from line to line
	lists      map[string][]ir.Arg // int list text -> its shared elements (intList)
	names      strings.Builder     // the chunk keep copies names into
	interned   map[string]string   // intern's copies
}

var (
	classRe    = regexp.MustCompile(`(?:^|\s)class\s+([\w<>]+)\s*\(.*\)\s*:\s*$`)
	defRe      = regexp.MustCompile(`^def\s+(\w+)\s*\(`)
	nodeFormRe = regexp.MustCompile(`^(?:lowering\s+)?%\w+\s*:`)
	nodeRetRe  = regexp.MustCompile(`^(?:lowering\s+)?return\b`)
)

func (p *parser) run(src string) error {
	lines := splitLines(src)
	p.lines = lines
	for i := 0; i < len(lines); {
		p.lineAt = i
		prose := p.mode == outside || p.mode == skipping
		maxBytes := limits.LineBytes
		if prose {
			// Between graphs a stray bracket must not join the rest of the
			// file into one line at every line it appears on (quadratic).
			maxBytes = min(maxBytes, proseJoinBytes)
		}
		l, next := joinLogicalInto(p.segs, lines, i, maxBytes)
		p.segs = l.segs
		if (l.unclosed >= 0 || l.tooLong) && prose {
			// Prose with a stray bracket must not swallow the graphs after it.
			l, next = joinLogical(lines[i:i+1], 0, limits.LineBytes)
			l.unclosed, next = -1, i+1
		}
		p.curPos = diag.Pos{File: p.file, Line: l.segs[0].line, Col: l.segs[0].col0 + 1}
		if l.tooLong {
			lerr := limits.Check("line length", int64(len(l.text)), int64(limits.LineBytes), "-max-line-bytes")
			return diag.Errorf(p.curPos, "limit", lerr.(*limits.Error).Hint(), "%v", lerr)
		}
		if l.unclosed >= 0 && p.mode != outside && p.mode != skipping {
			what := "unclosed " + string(l.text[l.unclosed]) + " runs to the end of the input"
			if c := l.text[l.unclosed]; c == '\'' || c == '"' {
				what = "unterminated string literal"
			}
			return p.errIn(&l, l.unclosed, what, "close every bracket and string on the statement's line(s)")
		}
		consumed, err := p.line(&l)
		if err != nil {
			return err
		}
		if consumed {
			i = next
		}
	}
	switch p.mode {
	case inGraph, nodeForm:
		if p.mode == nodeForm && p.g != nil {
			return p.finishGraph() // a fragment may end without a return
		}
		return p.errAt(p.g.pos, "graph starting here has no return statement", "a graph ends with `return (...)`", "")
	}
	return nil
}

// proseJoinBytes bounds a bracket-continued line outside a graph (a
// forward signature); past it the line is taken alone.
const proseJoinBytes = 1 << 16

// line handles one logical line; it reports false when the line must be
// seen again in the new mode.
func (p *parser) line(l *logical) (bool, error) {
	text := strings.TrimRight(l.text, " \t")
	switch p.mode {
	case skipping:
		if text == "" || strings.HasPrefix(text, "#") || l.indent > p.skipIndent {
			return true, nil
		}
		p.mode = outside
		return false, nil
	case inGraph:
		return true, p.graphLine(l, text)
	case nodeForm:
		return p.nodeFormLine(l, text)
	}
	return true, p.outsideLine(l, text)
}

func (p *parser) outsideLine(l *logical, text string) error {
	if m := classRe.FindStringSubmatch(text); m != nil && !strings.HasPrefix(text, "#") {
		p.className = strings.Clone(m[1])
		return nil
	}
	if m := defRe.FindStringSubmatch(text); m != nil {
		if m[1] != "forward" {
			p.mode, p.skipIndent = skipping, l.indent
			return nil
		}
		return p.beginGraph(l, text)
	}
	if text == "graph():" {
		p.beginNodeForm(l)
		return nil
	}
	if body, off, ok := nodeFormBody(text); ok {
		p.beginNodeForm(l)
		_, err := p.nodeFormStmt(l, body, off)
		return err
	}
	return nil
}

// nodeFormBody recognizes a node-form line, also inside a `#   ` comment
// (Inductor's "# Graph fragment:" blocks).
func nodeFormBody(text string) (string, int, bool) {
	body, off := text, 0
	if strings.HasPrefix(body, "#") {
		trimmed := strings.TrimLeft(body[1:], " ")
		off = len(body) - len(trimmed)
		body = trimmed
	}
	if nodeFormRe.MatchString(body) {
		return body, off, true
	}
	return "", 0, false
}

func (p *parser) finishGraph() error {
	g := p.g
	if err := g.finish(); err != nil {
		return err
	}
	g.g.Module = p.mod
	p.mod.Graphs = append(p.mod.Graphs, g.g)
	p.g, p.mode, p.className = nil, outside, ""
	return nil
}

// errAt builds a positioned parse error quoting the offending text.
func (p *parser) errAt(pos diag.Pos, msg, hint, quote string) error {
	if quote != "" {
		msg += ": " + quote
	}
	return diag.Errorf(pos, "parse", hint, "%s", msg)
}

// errIn positions an error at byte offset off of logical line l.
func (p *parser) errIn(l *logical, off int, msg, hint string) error {
	line, col := l.pos(off)
	quote := l.text[min(max(off, 0), len(l.text)):]
	if len(quote) > 60 {
		quote = quote[:60] + "..."
	}
	if strings.TrimSpace(quote) == "" {
		quote = "(end of line)"
	}
	return p.errAt(diag.Pos{File: p.file, Line: line, Col: col}, msg, hint, "`"+quote+"`")
}

// wrapLex turns a *lexError from the expression parser into a positioned error.
func (p *parser) wrapLex(l *logical, base int, err error, hint string) error {
	var le *lexError
	if errors.As(err, &le) {
		return p.errIn(l, base+le.col, le.msg, hint)
	}
	return p.errIn(l, base, err.Error(), hint)
}

func (p *parser) warn(pos diag.Pos, code, hint, format string, args ...any) {
	p.warnings = append(p.warnings, diag.Diagnostic{
		Severity: diag.Warning, Code: code, Pos: pos, Message: fmt.Sprintf(format, args...), Hint: hint,
	})
}

// keep returns a copy of s that does not hold on to the input: a name
// (a slice of the source text) would otherwise keep the whole source
// alive as long as the graph. Copies are cut from shared chunks (a
// strings.Builder never changes what it wrote), not allocated one by one.
func (p *parser) keep(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > keepChunk/16 {
		return strings.Clone(s)
	}
	if p.names.Cap()-p.names.Len() < len(s) {
		p.names = strings.Builder{}
		p.names.Grow(keepChunk)
	}
	start := p.names.Len()
	p.names.WriteString(s)
	return p.names.String()[start:]
}

const keepChunk = 32 << 10

// intern is keep for strings that repeat (targets, keyword names): one
// copy each.
func (p *parser) intern(s string) string {
	if k, ok := p.interned[s]; ok {
		return k
	}
	k := strings.Clone(s)
	if len(p.interned) < maxInterned {
		if p.interned == nil {
			p.interned = map[string]string{}
		}
		p.interned[k] = k
	}
	return k
}

const maxInterned = 1 << 14
