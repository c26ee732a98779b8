package fx

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
)

// nodeHeadRe matches str(node): `%x : Tensor "f32[4]"[num_users=1] = call_function[target=T]`
// (annotation and user count optional) and captures name, annotation, kind,
// target, and the rest (the args/kwargs part).
var nodeHeadRe = regexp.MustCompile(`^(?:lowering\s+)?%(\w+)\s*:\s*(?:\w+\s*)?(?:"([^"]*)")?\s*(?:\[num_users=\d+\])?\s*=\s*(\w+)\[target=([^\]]*)\](.*)$`)

// nodeFormLine handles a line inside a node listing; it ends the graph at
// `return` and at the first line that is not part of the listing.
func (p *parser) nodeFormLine(l *logical, text string) (bool, error) {
	body, off, ok := nodeFormBody(text)
	if ok {
		return p.nodeFormStmt(l, body, off)
	}
	trimmed := strings.TrimLeft(strings.TrimPrefix(text, "#"), " ")
	if nodeRetRe.MatchString(trimmed) {
		ret := strings.TrimSpace(strings.TrimPrefix(trimmed, "lowering"))
		rest := strings.TrimPrefix(ret, "return")
		start := len(text) - len(rest)
		if err := p.nodeFormReturn(l, span{rest, start}); err != nil {
			return true, err
		}
		return true, p.finishGraph()
	}
	if text == "" || strings.HasPrefix(text, "via ") || strings.HasPrefix(text, "#") && strings.TrimSpace(trimmed) == "" {
		return true, nil // blank lines and Inductor's "via <function ...>" notes
	}
	// Anything else ends a fragment that had no return line.
	if err := p.finishGraph(); err != nil {
		return true, err
	}
	return false, nil
}

func (p *parser) nodeFormStmt(l *logical, body string, off int) (bool, error) {
	gb := p.g
	gb.stmtOff = off
	m := nodeHeadRe.FindStringSubmatchIndex(body)
	if m == nil {
		return true, p.errIn(l, off, "malformed node line", "node lines look like `%x : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%a, %b), kwargs = {})`")
	}
	group := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return body[m[2*i]:m[2*i+1]]
	}
	name, annText, kind, target, rest := group(1), group(2), group(3), strings.TrimSpace(group(4)), group(5)
	typ, err := p.annotation(l, off+m[4], annText)
	if err != nil {
		return true, err
	}
	switch kind {
	case "PlaceHolder":
		return true, nil // Inductor's forward declaration of a buffer name
	case "placeholder":
		v := gb.g.AddInput(p.keep(name), typ, p.posIn(l, off))
		v.Annot = typ
		gb.bind(name, binding{v: v})
		return true, nil
	case "output":
		return true, nil // the `return` line that follows says the same
	}
	args, kwargs, err := p.nodeFormArgs(l, off+m[10], rest)
	if err != nil {
		return true, err
	}
	node, err := p.nodeFormNode(l, off, name, kind, target, args, kwargs)
	if err != nil {
		return true, err
	}
	node.Stack = gb.stack
	if node.IsTuple() || len(node.Results) != 1 {
		gb.bind(name, binding{tuple: node})
	} else {
		node.Results[0].Type, node.Results[0].Annot = typ, typ
		gb.bind(name, binding{v: node.Results[0]})
	}
	return true, nil
}

func (p *parser) nodeFormNode(l *logical, off int, name, kind, target string, args []ir.Arg, kwargs []ir.Kwarg) (*ir.Node, error) {
	gb := p.g
	at := &pyExpr{col: off}
	switch kind {
	case "call_function":
		switch {
		case strings.HasPrefix(target, "torch.ops.") || strings.HasPrefix(target, "aten."):
			return gb.opNode(l, at, name, "torch.ops."+strings.TrimPrefix(target, "torch.ops."), args, kwargs)
		case strings.HasPrefix(target, "<built-in function "):
			fn := strings.TrimSuffix(strings.TrimPrefix(target, "<built-in function "), ">")
			return gb.add(l, at, name, "operator."+fn, ir.FormOperator, args, kwargs, 1), nil
		}
		if op, ok := builtinOperator(target); ok {
			return gb.add(l, at, name, op, ir.FormOperator, args, kwargs, 1), nil
		}
		return gb.add(l, at, name, target, ir.FormFunction, args, kwargs, 1), nil
	case "get_attr":
		return gb.add(l, at, name, "self."+target, ir.FormGetAttr, nil, nil, 1), nil
	case "call_method":
		return gb.add(l, at, name, "method."+target, ir.FormMethod, args, kwargs, 1), nil
	case "call_module":
		return gb.add(l, at, name, "self."+target, ir.FormModule, args, kwargs, 1), nil
	}
	return nil, p.errIn(l, off, "unknown node kind "+kind, "node kinds are placeholder, call_function, call_method, call_module, get_attr, output")
}

// nodeFormArgs reads `(args = (%a, 1), kwargs = {dim: 0})`.
func (p *parser) nodeFormArgs(l *logical, off int, rest string) ([]ir.Arg, []ir.Kwarg, error) {
	if strings.TrimSpace(rest) == "" {
		return nil, nil, nil
	}
	gb := p.g
	toks, err := lex(rest)
	if err != nil {
		return nil, nil, p.wrapLex(l, off, err, "")
	}
	ep := &exprParser{toks: toks}
	if err := ep.expect("("); err != nil {
		return nil, nil, p.wrapLex(l, off, err, "")
	}
	call := &pyExpr{kind: eCall}
	if err := ep.parseCallArgs(call); err != nil {
		return nil, nil, p.wrapLex(l, off, err, "")
	}
	shift(call, off)
	var args []ir.Arg
	var kwargs []ir.Kwarg
	for _, kw := range call.kwargs {
		a, err := gb.toArg(l, kw.val)
		if err != nil {
			return nil, nil, err
		}
		switch kw.name {
		case "args":
			args = slices.Clone(a.Elems) // a node's own list: seqArg may share a.Elems
		case "kwargs":
			for i, k := range a.Keys {
				kwargs = append(kwargs, ir.Kwarg{Name: p.intern(k.Str), Arg: a.Elems[i]})
			}
		}
	}
	return args, kwargs, nil
}

// nodeFormReturn reads `return (a, b)` or `return %a,%b`.
func (p *parser) nodeFormReturn(l *logical, rest span) error {
	text := strings.TrimSpace(rest.text)
	if !strings.HasPrefix(text, "(") && strings.Contains(text, ",") {
		rest = span{"(" + rest.text + ")", rest.off - 1} // bare list: parse as a tuple
	}
	return p.g.returnStmt(l, rest)
}
