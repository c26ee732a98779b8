package fx

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
)

// graphBuilder accumulates one graph while its lines are read.
type graphBuilder struct {
	p     *parser
	g     *ir.Graph
	pos   diag.Pos
	scope map[string]binding
	decls map[string]ir.Type // `name: "ann";` declaration lines
	stack string             // the last `# File:` comment
	// implicit makes an undefined name a new graph input instead of an
	// error; node-form fragments use names they never declare.
	implicit bool
	// stmtOff is the offset of the statement being read in its logical
	// line; nodes are positioned there.
	stmtOff int
	// Buffers reused from statement to statement.
	spans     []span
	targetBuf []target
	// Chunks the graph's argument lists are cut from: a node's arguments
	// are a few small lists, and a large graph has millions of them.
	args   ir.Chunks[ir.Arg]
	kwargs ir.Chunks[ir.Kwarg]
	// fastOpCall's keyword argument buffer.
	fastKwargs []ir.Kwarg
}

// binding is what a name refers to: a value, or a tuple-returning node
// whose elements getitem statements pick out.
type binding struct {
	v     *ir.Value
	tuple *ir.Node
}

func (p *parser) newGraph(pos diag.Pos) *graphBuilder {
	gb := &graphBuilder{p: p, g: ir.NewGraph(p.className), pos: pos, scope: map[string]binding{}, decls: map[string]ir.Type{}}
	gb.g.Pos = pos
	p.g = gb
	return gb
}

// beginGraph reads `def forward(self, a: "f32[4]", b, *, c):`.
func (p *parser) beginGraph(l *logical, text string) error {
	pos := p.posIn(l, 0)
	gb := p.newGraph(pos)
	gb.scope = make(map[string]binding, p.bodyLines(l.indent))
	open := strings.IndexByte(text, '(')
	close := matchingParen(text, open)
	if close < 0 {
		return p.errIn(l, open, "unclosed parameter list", "the signature must end with `):`")
	}
	rest := strings.TrimSpace(text[close+1:])
	if !strings.HasSuffix(rest, ":") {
		return p.errIn(l, close+1, "expected ':' after the parameter list", "write `def forward(self, ...):`")
	}
	for _, param := range splitTop(text[open+1:close], ',') {
		param = trimSpan(param)
		name := param.text
		if name == "" || name == "self" || name == "*" || strings.HasPrefix(name, "**") {
			continue
		}
		name = strings.TrimPrefix(name, "*")
		annText := ""
		if i := findAssign(name); i >= 0 {
			name = name[:i] // a default value: the parameter is still an input
		}
		if before, after, ok := strings.Cut(name, ":"); ok {
			name, annText = strings.TrimSpace(before), strings.TrimSpace(after)
		}
		name = strings.TrimSpace(name)
		if !isIdentifier(name) {
			return p.errIn(l, open+1+param.off, "malformed parameter", "parameters are `name` or `name: \"f32[4, 3]\"`")
		}
		if _, dup := gb.scope[name]; dup {
			// Python's own message for the same signature.
			return p.errIn(l, open+1+param.off, fmt.Sprintf("duplicate argument '%s' in function definition", name),
				"give every parameter of forward its own name")
		}
		t, err := p.annotation(l, open+1+param.off+strings.Index(param.text, annText), annText)
		if err != nil {
			return err
		}
		gb.bind(name, binding{v: gb.g.AddInput(p.keep(name), t, p.posIn(l, open+1+param.off))})
		gb.g.Inputs[len(gb.g.Inputs)-1].Annot = t
	}
	p.mode = inGraph
	return nil
}

// bodyLines counts the lines after the current one up to the first that
// is indented no deeper than indent: about how many names the body of a
// def binds, so that its scope is sized once instead of grown by
// rehashing a million names.
func (p *parser) bodyLines(indent int) int {
	n := 0
	for _, l := range p.lines[min(p.lineAt+1, len(p.lines)):] {
		t := strings.TrimLeft(l.text, " \t")
		if t != "" && len(l.text)-len(t) <= indent {
			break
		}
		n++
	}
	return min(n, 1<<22)
}

func (p *parser) beginNodeForm(l *logical) {
	gb := p.newGraph(p.posIn(l, 0))
	gb.implicit = true
	p.mode = nodeForm
}

// matchingParen returns the offset of the ')' closing the '(' at open, or -1.
func matchingParen(s string, open int) int {
	if open < 0 {
		return -1
	}
	depth, found := 0, -1
	codeBytes(s[open:], func(i int, c byte) bool {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				found = open + i
				return false
			}
		}
		return true
	})
	return found
}

func isIdentifier(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func (p *parser) posIn(l *logical, off int) diag.Pos {
	line, col := l.pos(off)
	return diag.Pos{File: p.file, Line: line, Col: col}
}

// annotation parses an annotation's text (quoted or not). Text that is
// plainly meant as a tensor or Sym type but is malformed is an error; other
// Python annotations (`torch.Tensor`) are ignored with a warning.
func (p *parser) annotation(l *logical, off int, text string) (ir.Type, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return ir.Type{}, nil
	}
	if len(text) >= 2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] {
		text, off = text[1:len(text)-1], off+1
	}
	if t, ok := p.types[text]; ok {
		return t, nil
	}
	own := strings.Clone(text) // the type keeps pieces of its text (the device name)
	t, err := ir.ParseType(own)
	if err == nil {
		if len(p.types) < maxTypeCache {
			if p.types == nil {
				p.types = map[string]ir.Type{}
			}
			p.types[own] = t
		}
		return t, nil
	}
	if looksLikeType(text) {
		return ir.Type{}, p.errIn(l, off, "malformed annotation: "+err.Error(), "annotations look like \"f32[4, 3][3, 1]cuda:0\" or \"Sym(s0)\"")
	}
	p.warn(p.posIn(l, off), "annotation", "kiln reads dtype[sizes][strides]device and Sym(expr) annotations",
		"annotation %q is not a tensor or Sym type; ignored", text)
	return ir.Type{}, nil
}

// maxTypeCache bounds the parser's annotation cache. A graph repeats a few
// hundred annotations over and over (every `bf16[2048, 64][64, 1]cuda:0`
// parses to the same type); values share the parsed type, which is never
// changed in place (passes clone a type before changing it).
const maxTypeCache = 1 << 14

func looksLikeType(text string) bool {
	if strings.HasPrefix(text, "Sym(") {
		return true
	}
	if i := strings.IndexByte(text, '['); i > 0 {
		_, ok := ir.DTypeFromAbbr(text[:i])
		return ok
	}
	return false
}

func (gb *graphBuilder) bind(name string, b binding) { gb.scope[name] = b }

// graphLine handles one logical line in a Python-form graph body.
func (p *parser) graphLine(l *logical, text string) error {
	gb := p.g
	switch {
	case text == "":
		return nil
	case strings.HasPrefix(text, "#"):
		gb.comment(text)
		return nil
	}
	code := text
	switch {
	case !l.scanned:
		code = stripComment(text)
	case l.comment >= 0:
		code = text[:l.comment]
	}
	p.stmts = splitTopInto(p.stmts[:0], code, ';')
	for _, st := range p.stmts {
		st = trimSpan(st)
		if st.text == "" {
			continue
		}
		gb.stmtOff = st.off
		p.exprs.reset() // the last statement's expressions are dead
		done, err := gb.statement(l, st)
		if err != nil {
			return err
		}
		if done {
			return p.finishGraph()
		}
	}
	return nil
}

// comment keeps source-location comments as the Stack of following nodes.
func (gb *graphBuilder) comment(text string) {
	body := strings.TrimSpace(strings.TrimPrefix(text, "#"))
	for _, prefix := range []string{"File:", "No stacktrace", "Annotation:", "code:"} {
		if strings.HasPrefix(body, prefix) {
			gb.stack = "# " + body
			return
		}
	}
}

func (gb *graphBuilder) finish() error {
	gb.g.Renumber()
	return nil
}
