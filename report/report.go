// Package report writes kiln's per-pass HTML report: one column per pass,
// like Go's GOSSAFUNC ssa.html. It is a tool, not a dump: it fits a laptop
// screen (columns side by side, each scrolling on its own), passes that
// changed nothing fold into a narrow column, lines a pass added are
// highlighted, a click on a value highlights it in every column, a search
// box finds lines, diagnostics link to the node's line in the pass that
// reported them, and each fused kernel shows its loop IR and generated
// code, linked both ways with the nodes it computes. It stays small for
// big graphs: a column longer than MaxColumnLines is not inlined (the page
// names the file that holds it), and lists are capped.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

// Limits that keep the page small on large graphs.
const (
	MaxColumnLines = 4000 // a longer column is named, not inlined
	MaxKernels     = 300  // kernels shown with their code
	MaxDiags       = 300  // errors and warnings listed; remarks likewise
)

// Column is the graph as one stage left it.
type Column struct {
	Title   string
	Changed bool
	Text    string
	// NewForm marks a column in another language than the one before it
	// (the loop IR after the FX graph): its lines are not "added".
	NewForm bool
	// File is where the full text is written, if anywhere (named on the
	// page when the column is too long to inline).
	File string
	// Lines counts Text's lines once Text was dropped (Drop): a column too
	// long to inline needs only its length and its file.
	Lines int
	// Unprinted marks a stage whose text was never printed: too long to
	// show (more instructions than MaxColumnLines) and held by no file.
	Unprinted bool
}

// LineCount is the number of lines of the column's text.
func (c *Column) LineCount() int {
	if c.Text == "" && c.Lines > 0 {
		return c.Lines
	}
	return strings.Count(c.Text, "\n")
}

// Inlined says whether the page shows the column's text (else it names
// its file).
func (c *Column) Inlined() bool {
	return c.Changed && !c.Unprinted && c.LineCount() <= MaxColumnLines
}

// DropUnshown lets go of the texts the page will not show (DropIfUnshown
// on every column). Call it once every column is recorded and written
// where it goes.
func (r *Recorder) DropUnshown() {
	for i := range r.Columns {
		r.DropIfUnshown(i)
	}
}

// DropIfUnshown lets go of column i's text, keeping its line count, when
// the page will not show it: too long to inline, and the column after it
// (if recorded yet) does not compare its lines with it. On a large graph
// each text is tens of MB; a caller that writes each column to its file as
// it comes calls this for column i once column i+1 is recorded.
func (r *Recorder) DropIfUnshown(i int) {
	c := &r.Columns[i]
	if c.Text == "" || c.Inlined() {
		return
	}
	if i+1 < len(r.Columns) && r.Columns[i+1].Inlined() && !r.Columns[i+1].NewForm {
		return
	}
	c.Lines, c.Text = c.LineCount(), ""
}

// Kernel is one fused kernel: the nodes it computes, its loop IR and its
// generated code.
type Kernel struct {
	Name   string
	Kind   string
	Nodes  []string
	LoopIR string
	Code   string
}

// Recorder collects columns while a pipeline runs. Its Hook plugs into
// passes.Manager.AfterPass.
type Recorder struct {
	Graph   string // graph name, for the page title
	Columns []Column
	Kernels []Kernel
}

// Start records the input graph as the first column.
func (r *Recorder) Start(g *ir.Graph) {
	r.Graph = g.Name
	r.Columns = append(r.Columns, Column{Title: "input", Changed: true, Text: g.String()})
}

// Hook records the graph after a pass: the text the manager printed
// (Manager.KeepText), else the graph printed here. An unchanged graph is
// not printed again: the column folds and shares the previous text.
func (r *Recorder) Hook(step passes.Step, _, after *ir.Graph, res *passes.PassResult) error {
	text := ""
	switch {
	case !res.Changed && len(r.Columns) > 0:
		text = r.Columns[len(r.Columns)-1].Text
	case res.Text != "":
		text = res.Text
	default:
		text = after.String()
	}
	r.Columns = append(r.Columns, Column{Title: step.Info.Name, Changed: res.Changed, Text: text})
	return nil
}

// Add records an extra stage (loop IR, generated code) as a column.
func (r *Recorder) Add(title, text string) {
	r.Columns = append(r.Columns, Column{Title: title, Changed: true, Text: text})
}

// AddForm records an extra stage in a new language (see Column.NewForm).
func (r *Recorder) AddForm(title, text string) {
	r.Columns = append(r.Columns, Column{Title: title, Changed: true, Text: text, NewForm: true})
}

// Write renders the page. It holds no timings, so the same input gives a
// byte-identical report.
func (r *Recorder) Write(w io.Writer, diags []diag.Diagnostic) error {
	p := &page{r: r, names: map[string]bool{}, defs: make([]map[string]bool, len(r.Columns))}
	p.collectNames()
	p.kernelOf = map[string]string{}
	for _, k := range r.Kernels {
		for _, n := range k.Nodes {
			p.kernelOf[n] = k.Name
		}
	}
	p.lastFX = -1
	for i, c := range r.Columns {
		if c.NewForm {
			break
		}
		if p.inlined(i) { // the last FX column shown in full
			p.lastFX = i
		}
	}
	b := &p.b
	title := "kiln: " + r.Graph
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")
	esc(b, title)
	b.WriteString("</title>\n<style>" + style + "</style></head><body>\n<header><h1>")
	esc(b, title)
	b.WriteString("</h1> <input id=\"q\" type=\"search\" placeholder=\"search lines (Enter: next)\"> <span id=\"qn\"></span>" +
		" <span class=\"help\">click a name to highlight it in every column; click a column title to fold it</span>\n")
	p.writeDiags(diags)
	b.WriteString("</header>\n<main id=\"cols\">\n")
	for i := range r.Columns {
		p.writeColumn(i)
	}
	p.writeKernels()
	b.WriteString("</main>\n<script>" + script + "</script>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

type page struct {
	r        *Recorder
	b        strings.Builder
	names    map[string]bool   // value names: clickable
	defs     []map[string]bool // per column: node names with a line id
	kernelOf map[string]string // node → kernel computing it
	lastFX   int               // last FX column: nodes link to kernels there
}

func (p *page) inlined(i int) bool { return p.r.Columns[i].Inlined() }

// collectNames finds every value a graph column defines (inputs and node
// results), and which lines define them.
func (p *page) collectNames() {
	for i, c := range p.r.Columns {
		p.defs[i] = map[string]bool{}
		if c.NewForm || !p.inlined(i) {
			continue
		}
		for _, line := range strings.Split(c.Text, "\n") {
			if name := defName(line); name != "" {
				p.names[name] = true
				p.defs[i][name] = true
			}
			if strings.HasPrefix(strings.TrimSpace(line), "def forward(") {
				for _, m := range identRE(line) {
					p.names[m] = true
				}
			}
		}
	}
	delete(p.names, "self")
	delete(p.names, "def")
	delete(p.names, "forward")
}

// defName is the node an FX line defines ("        mm: ... = ..." → mm).
func defName(line string) string {
	s := strings.TrimLeft(line, " ")
	if len(s) == len(line) || strings.HasPrefix(s, "return") || strings.HasPrefix(s, "#") {
		return ""
	}
	end := strings.IndexAny(s, ":= ,")
	if end <= 0 || !(s[end] == ':' || strings.HasPrefix(s[end:], " = ")) {
		return ""
	}
	return s[:end]
}

func (p *page) writeColumn(i int) {
	c := p.r.Columns[i]
	b := &p.b
	cls := "col"
	if !c.Changed {
		cls += " folded"
	}
	fmt.Fprintf(b, "<section class=\"%s\" id=\"c%d\"><h2 title=\"", cls, i)
	esc(b, c.Title)
	b.WriteString("\">")
	esc(b, c.Title)
	b.WriteString("</h2>")
	if !c.Changed {
		b.WriteString("<p class=\"note\">no change</p></section>\n")
		return
	}
	if c.Unprinted {
		b.WriteString("<p class=\"note\">not printed: more instructions than a column shows</p></section>\n")
		return
	}
	if !p.inlined(i) {
		fmt.Fprintf(b, "<p class=\"note\">%d lines: too long to show here", c.LineCount())
		if c.File != "" {
			b.WriteString("; see <a href=\"")
			esc(b, c.File)
			b.WriteString("\">")
			esc(b, c.File)
			b.WriteString("</a>")
		}
		b.WriteString("</p></section>\n")
		return
	}
	prev := map[string]bool{}
	if j := p.prevShown(i); j >= 0 && !c.NewForm {
		for _, line := range strings.Split(p.r.Columns[j].Text, "\n") {
			prev[stripRelease(line)] = true
		}
	}
	b.WriteString("<div class=\"code\">")
	for _, line := range strings.Split(strings.TrimRight(c.Text, "\n"), "\n") {
		b.WriteString("<div")
		name := ""
		if !c.NewForm {
			name = defName(line)
		}
		if name != "" {
			fmt.Fprintf(b, " id=\"c%d-", i)
			esc(b, name)
			b.WriteString("\"")
		}
		if i > 0 && !c.NewForm && !prev[stripRelease(line)] {
			b.WriteString(" class=\"n\"")
		}
		b.WriteString(">")
		p.writeLine(line)
		if k, ok := p.kernelOf[name]; ok && i == p.lastFX && name != "" {
			b.WriteString(" <a class=\"k\" href=\"#k-")
			esc(b, k)
			b.WriteString("\">")
			esc(b, k)
			b.WriteString("</a>")
		}
		b.WriteString("</div>")
	}
	b.WriteString("</div></section>\n")
}

// stripRelease drops the printer's "x = None" tail, which moves when
// another line changes: a line is new only if its statement is.
func stripRelease(line string) string {
	if i := strings.Index(line, ";  "); i >= 0 && strings.HasSuffix(line, " = None") {
		return line[:i]
	}
	return line
}

// prevShown is the column whose text column i is compared with.
func (p *page) prevShown(i int) int {
	if i == 0 {
		return -1
	}
	return i - 1
}

// writeLine escapes a line, wrapping value names in <i> (clickable).
func (p *page) writeLine(line string) {
	b := &p.b
	inStr := false
	for i := 0; i < len(line); {
		c := line[i]
		if c == '"' {
			inStr = !inStr
		}
		if !inStr && isIdentStart(c) && (i == 0 || !isIdent(line[i-1]) && line[i-1] != '.') {
			j := i + 1
			for j < len(line) && isIdent(line[j]) {
				j++
			}
			word := line[i:j]
			if p.names[word] {
				b.WriteString("<i>")
				b.WriteString(word)
				b.WriteString("</i>")
			} else {
				b.WriteString(word)
			}
			i = j
			continue
		}
		escByte(b, c)
		i++
	}
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }

func identRE(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		if isIdentStart(line[i]) && (i == 0 || !isIdent(line[i-1])) {
			j := i + 1
			for j < len(line) && isIdent(line[j]) {
				j++
			}
			out = append(out, line[i:j])
			i = j
			continue
		}
		i++
	}
	return out
}

// writeKernels writes the kernels column: per kernel, the nodes it
// computes (links to their lines) and, folded, its loop IR and code.
func (p *page) writeKernels() {
	if len(p.r.Kernels) == 0 {
		return
	}
	b := &p.b
	fmt.Fprintf(b, "<section class=\"col kernels\" id=\"kernels\"><h2 title=\"fold or unfold\">kernels (%d)</h2><div class=\"code\">", len(p.r.Kernels))
	for ki, k := range p.r.Kernels {
		if ki == MaxKernels {
			fmt.Fprintf(b, "<p class=\"note\">%d more kernels: see the loop IR and code files</p>", len(p.r.Kernels)-MaxKernels)
			break
		}
		b.WriteString("<details id=\"k-")
		esc(b, k.Name)
		b.WriteString("\"><summary><b>")
		esc(b, k.Name)
		b.WriteString("</b> ")
		esc(b, k.Kind)
		b.WriteString(":")
		for _, n := range k.Nodes {
			b.WriteString(" ")
			if p.lastFX >= 0 && p.defs[p.lastFX][n] {
				fmt.Fprintf(b, "<a href=\"#c%d-", p.lastFX)
				esc(b, n)
				b.WriteString("\">")
				esc(b, n)
				b.WriteString("</a>")
			} else {
				esc(b, n)
			}
		}
		b.WriteString("</summary><h3>loop IR</h3><pre>")
		esc(b, k.LoopIR)
		b.WriteString("</pre>")
		if k.Code != "" {
			b.WriteString("<h3>generated code</h3><pre>")
			esc(b, k.Code)
			b.WriteString("</pre>")
		}
		b.WriteString("</details>\n")
	}
	b.WriteString("</div></section>\n")
}

func (p *page) writeDiags(diags []diag.Diagnostic) {
	b := &p.b
	shown, more := 0, 0
	for _, d := range diags {
		if d.Severity == diag.Remark {
			continue
		}
		if shown == MaxDiags {
			more++
			continue
		}
		if shown == 0 {
			b.WriteString("<ul class=\"diags\">\n")
		}
		shown++
		p.writeDiag(d)
	}
	if more > 0 {
		fmt.Fprintf(b, "<li class=\"note\">%d more: see diagnostics.txt</li>\n", more)
	}
	if shown > 0 {
		b.WriteString("</ul>\n")
	}
	remarks := 0
	for _, d := range diags {
		if d.Severity != diag.Remark {
			continue
		}
		if remarks == 0 {
			b.WriteString("<details class=\"remarks\"><summary>remarks</summary><ul>\n")
		}
		remarks++
		if remarks > MaxDiags {
			continue
		}
		p.writeDiag(d)
	}
	if remarks > MaxDiags {
		fmt.Fprintf(b, "<li class=\"note\">%d more: see diagnostics.txt</li>\n", remarks-MaxDiags)
	}
	if remarks > 0 {
		b.WriteString("</ul></details>\n")
	}
}

// writeDiag writes one diagnostic, its position a link to the node's line
// in the column of the pass that reported it.
func (p *page) writeDiag(d diag.Diagnostic) {
	b := &p.b
	fmt.Fprintf(b, "<li class=\"%s\">", d.Severity)
	if col := p.diagColumn(d); col >= 0 {
		fmt.Fprintf(b, "<a href=\"#c%d-", col)
		esc(b, d.Node)
		b.WriteString("\"><code>")
		esc(b, d.Pos.String())
		b.WriteString("</code></a>")
	} else {
		b.WriteString("<code>")
		esc(b, d.Pos.String())
		b.WriteString("</code>")
	}
	b.WriteString(" <b>" + d.Severity.String() + "[")
	esc(b, d.Code)
	b.WriteString("]</b> ")
	if d.Pass != "" {
		b.WriteString("<span class=\"pass\">")
		esc(b, d.Pass)
		b.WriteString(":</span> ")
	}
	esc(b, d.Message)
	if d.Hint != "" {
		b.WriteString("<br><span class=\"hint\">hint: ")
		esc(b, d.Hint)
		b.WriteString("</span>")
	}
	b.WriteString("</li>\n")
}

// diagColumn is the column that shows d's node: the one after d's pass,
// else the nearest earlier one that still has the node; -1 if none.
func (p *page) diagColumn(d diag.Diagnostic) int {
	if d.Node == "" {
		return -1
	}
	start := 0
	for i, c := range p.r.Columns {
		if d.Pass != "" && c.Title == d.Pass {
			start = i
			break
		}
	}
	for i := start; i >= 0; i-- {
		if p.defs[i][d.Node] {
			return i
		}
	}
	for i := start + 1; i < len(p.r.Columns); i++ {
		if p.defs[i][d.Node] {
			return i
		}
	}
	return -1
}

func esc(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		escByte(b, s[i])
	}
}

func escByte(b *strings.Builder, c byte) {
	switch c {
	case '<':
		b.WriteString("&lt;")
	case '>':
		b.WriteString("&gt;")
	case '&':
		b.WriteString("&amp;")
	case '"':
		b.WriteString("&#34;")
	case '\'':
		b.WriteString("&#39;")
	default:
		b.WriteByte(c)
	}
}
