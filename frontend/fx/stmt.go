package fx

import (
	"fmt"
	"math"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/limits"
)

// target is one name on the left of an assignment, with its annotation.
type target struct {
	name string
	typ  ir.Type
	off  int
}

// statement handles one `;`-separated statement; it reports true at `return`.
func (gb *graphBuilder) statement(l *logical, st span) (bool, error) {
	p := gb.p
	if st.text == "return" || strings.HasPrefix(st.text, "return ") || strings.HasPrefix(st.text, "return(") {
		return true, gb.returnStmt(l, span{strings.TrimPrefix(st.text, "return"), st.off + len("return")})
	}
	eq := -1
	if l.scanned && st.off == 0 && l.assign < len(st.text) {
		eq = l.assign // the line's first statement: its scan found the '=' (or none)
	} else {
		eq = findAssign(st.text)
	}
	if eq < 0 {
		return false, gb.declarations(l, st)
	}
	rhs := span{st.text[eq+1:], st.off + eq + 1}
	lhs := span{st.text[:eq], st.off}
	if isRelease(st.text) {
		return false, nil
	}
	if findAssign(rhs.text) >= 0 {
		return false, p.errIn(l, rhs.off+findAssign(rhs.text), "chained assignment of a value", "FX statements assign one call: `x = torch.ops.aten.add.Tensor(a, b)`")
	}
	if t := strings.TrimSpace(lhs.text); strings.HasSuffix(t, "]") && !strings.Contains(t, ":") {
		return false, gb.setitem(l, st, lhs, rhs)
	}
	if base, op, ok := augmented(lhs.text); ok {
		return false, gb.augmentedAssign(l, st, base, op, rhs)
	}
	targets, isTuple, err := gb.targets(l, lhs)
	if err != nil {
		return false, err
	}
	if !isTuple {
		if ok, err := gb.fastOpCall(l, targets[0], rhs); ok {
			return false, err
		}
	}
	expr, err := gb.parseRHS(l, rhs)
	if err != nil {
		return false, err
	}
	if isTuple {
		return false, gb.unpack(l, targets, expr, rhs.off)
	}
	return false, gb.assign(l, targets[0], expr, rhs.off)
}

// setitem reads Dynamo's `x[index] = value;  setitem = x`: an
// operator.setitem node named by the alias statement FX prints after it.
func (gb *graphBuilder) setitem(l *logical, st, lhs, rhs span) error {
	target, err := gb.parseRHS(l, lhs)
	if err != nil {
		return err
	}
	if target.kind != eIndex || target.base.kind != eName {
		return gb.p.errIn(l, lhs.off, "cannot assign to this", "the left side of an FX statement is a name, optionally annotated, or name[index]")
	}
	value, err := gb.parseRHS(l, rhs)
	if err != nil {
		return err
	}
	args := make([]ir.Arg, 3)
	for i, e := range []*pyExpr{target.base, target.rhs, value} {
		if args[i], err = gb.toArg(l, e); err != nil {
			return err
		}
	}
	name := "setitem"
	if alias, ok := gb.aliasAfter(l, st, target.base.name); ok {
		name = alias.name
	}
	n := gb.add(l, target, name, "operator.setitem", ir.FormOperator, args, nil, 1)
	n.Stack = gb.stack // the source line, as for any other statement
	return nil
}

// augmentedOps are Python's in-place operators, as FX prints them.
var augmentedOps = map[string]string{"+": "iadd", "-": "isub", "*": "imul", "/": "itruediv", "//": "ifloordiv",
	"%": "imod", "**": "ipow", "@": "imatmul", "&": "iand", "|": "ior", "^": "ixor", "<<": "ilshift", ">>": "irshift"}

// augmented splits `name +` (the left side of `name += x`) into the name
// and the operator.
func augmented(lhs string) (name, op string, ok bool) {
	t := strings.TrimSpace(lhs)
	end := len(t)
	for end > 0 && strings.IndexByte("+-*/%@&|^<>", t[end-1]) >= 0 {
		end--
	}
	if end == len(t) {
		return "", "", false // no operator before the '=': most statements
	}
	name, sym := strings.TrimSpace(t[:end]), t[end:]
	op, ok = augmentedOps[sym]
	return name, op, ok && isIdentifier(name)
}

// augmentedAssign reads `x += y;  x_1: "f32[4]" = x`: an operator.iadd
// node named and annotated by the alias statement FX prints after it.
func (gb *graphBuilder) augmentedAssign(l *logical, st span, base, op string, rhs span) error {
	value, err := gb.parseRHS(l, rhs)
	if err != nil {
		return err
	}
	target := &pyExpr{kind: eName, name: base, col: st.off - rhs.off}
	args := make([]ir.Arg, 2)
	for i, e := range []*pyExpr{target, value} {
		if args[i], err = gb.toArg(l, e); err != nil {
			return err
		}
	}
	name, annot := base, ir.Type{}
	if alias, ok := gb.aliasAfter(l, st, base); ok {
		name, annot = alias.name, alias.typ
	}
	n := gb.add(l, value, name, "operator."+op, ir.FormOperator, args, nil, 1)
	n.Stack = gb.stack
	n.Results[0].Annot = annot
	gb.bind(base, binding{v: n.Results[0]}) // Python rebinds x to the result
	return nil
}

// aliasAfter reads the statement after st when it is `name[: ann] = base`,
// the alias FX prints after statements that name no value themselves.
func (gb *graphBuilder) aliasAfter(l *logical, st span, base string) (target, bool) {
	off := min(st.off+len(st.text), len(l.text))
	rest := l.text[off:]
	trimmed := strings.TrimLeft(rest, "; ")
	off += len(rest) - len(trimmed)
	next, _, _ := strings.Cut(trimmed, ";")
	eq := findAssign(next)
	if eq < 0 || strings.TrimSpace(next[eq+1:]) != base {
		return target{}, false
	}
	ts, isTuple, err := gb.targets(l, span{next[:eq], off})
	if err != nil || isTuple || len(ts) != 1 {
		return target{}, false
	}
	return ts[0], true
}

// isRelease recognizes `a = b = None`, which FX emits after last uses.
func isRelease(stmt string) bool {
	last := strings.LastIndexByte(stmt, '=')
	if last < 0 || strings.TrimSpace(stmt[last+1:]) != "None" {
		return false
	}
	for rest := stmt[:last]; ; {
		part, after, more := strings.Cut(rest, "=")
		if !isIdentifier(strings.TrimSpace(part)) {
			return false
		}
		if !more {
			return true
		}
		rest = after
	}
}

func (gb *graphBuilder) parseRHS(l *logical, rhs span) (*pyExpr, error) {
	toks, err := lexInto(gb.p.toks, rhs.text)
	if err != nil {
		return nil, gb.p.wrapLex(l, rhs.off, err, "")
	}
	gb.p.toks = toks // the tokens die with the statement's expressions
	ep := &exprParser{toks: toks, src: rhs.text, arena: &gb.p.exprs}
	if ep.peek().kind == tEOF {
		return nil, gb.p.errIn(l, rhs.off, "missing expression after '='", "")
	}
	e, err := ep.parseExprList()
	if err == nil && ep.peek().kind != tEOF {
		err = &lexError{ep.peek().col, "unexpected " + describe(ep.peek()) + " after expression"}
	}
	if err != nil {
		return nil, gb.p.wrapLex(l, rhs.off, err, "FX statements look like `name: \"f32[4]\" = torch.ops.aten.op.overload(args)`")
	}
	shift(e, rhs.off)
	return e, nil
}

// shift moves expression offsets from RHS-relative to statement-relative.
func shift(e *pyExpr, by int) {
	if e == nil {
		return
	}
	e.col += by
	e.end += by
	shift(e.base, by)
	shift(e.rhs, by)
	for _, x := range e.elems {
		shift(x, by)
	}
	for _, x := range e.keys {
		shift(x, by)
	}
	for _, kw := range e.kwargs {
		shift(kw.val, by)
	}
}

// targets parses `name`, `name: "ann"`, or `a, b: f64[], c, =` unpack lists.
func (gb *graphBuilder) targets(l *logical, lhs span) ([]target, bool, error) {
	var parts []span
	if strings.IndexByte(lhs.text, ',') < 0 {
		parts = append(gb.spans[:0], span{lhs.text, 0}) // one target: most statements
	} else {
		parts = splitTop(lhs.text, ',')
	}
	isTuple := len(parts) > 1
	out := gb.targetBuf[:0] // the caller is done with them before the next statement
	defer func() { gb.targetBuf = out[:0] }()
	for _, part := range parts {
		part = trimSpan(span{part.text, lhs.off + part.off})
		if part.text == "" {
			continue // the trailing comma of `x, = ...`
		}
		name, annText, _ := strings.Cut(part.text, ":")
		name = strings.TrimSpace(name)
		if !isIdentifier(name) {
			return nil, false, gb.p.errIn(l, part.off, "cannot assign to this", "the left side of an FX statement is a name, optionally annotated")
		}
		t := target{name: name, off: part.off}
		if annText != "" {
			lead := len(annText) - len(strings.TrimLeft(annText, " "))
			typ, err := gb.p.annotation(l, part.off+strings.IndexByte(part.text, ':')+1+lead, annText)
			if err != nil {
				return nil, false, err
			}
			t.typ = typ
		} else if typ, ok := gb.decls[name]; ok {
			t.typ = typ
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, false, gb.p.errIn(l, lhs.off, "nothing to assign to", "")
	}
	return out, isTuple, nil
}

// declarations handles `primals_1: "f32[4]"; ...` lines: annotations given
// ahead of the pytree unpack that binds the names.
func (gb *graphBuilder) declarations(l *logical, st span) error {
	name, annText, ok := strings.Cut(st.text, ":")
	name = strings.TrimSpace(name)
	if !ok || !isIdentifier(name) {
		return gb.p.errIn(l, st.off, "expected a statement", "FX statements look like `name: \"f32[4]\" = torch.ops.aten.op.overload(args)`")
	}
	t, err := gb.p.annotation(l, st.off+len(name)+1, annText)
	if err != nil {
		return err
	}
	gb.decls[name] = t
	return nil
}

// unpack handles `a, b, = fx_pytree.tree_flatten_spec(...)` (the flattened
// names become the graph's inputs) and `a, b = tuple_node`.
func (gb *graphBuilder) unpack(l *logical, targets []target, e *pyExpr, off int) error {
	if e.kind == eCall && strings.Contains(e.base.dotted(), "tree_flatten") {
		gb.g.Inputs = nil
		for _, t := range targets {
			v := gb.g.AddInput(gb.p.keep(t.name), t.typ, gb.p.posIn(l, t.off))
			v.Annot = t.typ
			gb.bind(t.name, binding{v: v})
		}
		return nil
	}
	node, err := gb.valueOrNode(l, e, "")
	if err != nil {
		return err
	}
	if node == nil {
		return gb.p.errIn(l, off, "cannot unpack this expression", "unpack the result of a call that returns a tuple")
	}
	for i, t := range targets {
		gb.bindResult(node, i, t)
	}
	return nil
}

// assign handles `name[: ann] = expr`.
func (gb *graphBuilder) assign(l *logical, t target, e *pyExpr, off int) error {
	switch e.kind {
	case eName:
		if b, ok := gb.scope[e.name]; ok { // Dynamo rebinding: l_x_ = L_x_
			gb.bind(t.name, b)
			return nil
		}
	case eIndex:
		if b, ok := gb.scope[e.base.name]; ok && e.base.kind == eName && b.tuple != nil && e.rhs.kind == eInt {
			if i := e.rhs.intV; i < 0 || i >= limits.Results {
				// One value is made per index up to i: bound i first.
				return gb.p.errIn(l, off, fmt.Sprintf("result index %d of %s is out of range [0, %d)", i, e.base.name, limits.Results),
					"FX names a node's results getitem = node[0], node[1], ...; kiln's limits are listed in docs/LIMITS.md")
			}
			gb.bindResult(b.tuple, int(e.rhs.intV), t)
			return nil
		}
	}
	node, err := gb.valueOrNode(l, e, t.name)
	if err != nil {
		return err
	}
	if node == nil {
		return gb.p.errIn(l, off, "unsupported right-hand side", "FX statements assign an op call, an operator on symbolic values, or a getitem")
	}
	gb.bindNode(t, node)
	return nil
}

// bindNode names node's value (or its tuple) t.
func (gb *graphBuilder) bindNode(t target, node *ir.Node) {
	node.Stack = gb.stack
	if node.IsTuple() || len(node.Results) != 1 {
		gb.bind(t.name, binding{tuple: node})
		return
	}
	v := node.Results[0]
	v.Type, v.Annot = t.typ, t.typ
	gb.bind(t.name, binding{v: v})
}

// bindResult names result i of a tuple node.
func (gb *graphBuilder) bindResult(n *ir.Node, i int, t target) {
	for len(n.Results) <= i {
		n.AddResult("")
	}
	r := n.Results[i]
	if r.Name == "" {
		r.Name = gb.p.keep(t.name)
	}
	r.Type, r.Annot = t.typ, t.typ
	gb.bind(t.name, binding{v: r})
}

// returnStmt reads `return (a, b)`, `return a`, `return None`,
// `return pytree.tree_unflatten([a], self._out_spec)`.
func (gb *graphBuilder) returnStmt(l *logical, rest span) error {
	rest = trimSpan(rest)
	g := gb.g
	if rest.text == "" || rest.text == "None" {
		g.ReturnForm = ir.ReturnNone
		if rest.text == "" {
			g.ReturnForm = ir.ReturnTuple
		}
		return nil
	}
	e, err := gb.parseRHS(l, rest)
	if err != nil {
		return err
	}
	if e.kind == eCall && strings.Contains(e.base.dotted(), "tree_unflatten") && len(e.elems) > 0 {
		e = e.elems[0]
	}
	switch e.kind {
	case eTuple, eList:
		outs := make([]ir.Arg, len(e.elems))
		for i, x := range e.elems {
			if outs[i], err = gb.toArg(l, x); err != nil {
				return err
			}
		}
		g.ReturnForm = ir.ReturnTuple
		if e.kind == eList {
			g.ReturnForm = ir.ReturnList
		}
		g.SetOutputs(outs)
	default:
		out, err := gb.toArg(l, e)
		if err != nil {
			return err
		}
		g.ReturnForm = ir.ReturnBare
		g.SetOutputs([]ir.Arg{out})
	}
	return nil
}

// toArg converts an argument expression to an IR argument.
func (gb *graphBuilder) toArg(l *logical, e *pyExpr) (ir.Arg, error) {
	switch e.kind {
	case eName:
		return gb.nameArg(l, e)
	case eInt:
		return ir.IntArg(e.intV), nil
	case eFloat:
		return ir.FloatArg(e.floatV), nil
	case eString:
		return ir.StringArg(e.str), nil
	case eList, eTuple, eDict:
		return gb.seqArg(l, e)
	case eImag, eBinary:
		if re, im, ok := complexConst(e); ok {
			src := l.text[e.col:e.end]
			if e.kind == eBinary { // the parentheses FX prints are outside the expression
				src = "(" + src + ")"
			}
			return ir.ComplexArg(re, im, gb.p.keep(src)), nil
		}
	case eUnary:
		if re, im, ok := complexConst(e); ok {
			return ir.ComplexArg(re, im, gb.p.keep(l.text[e.col:e.end])), nil
		}
		if e.op == "-" {
			switch inner := e.base; inner.kind {
			case eInt:
				return ir.IntArg(-inner.intV), nil
			case eFloat:
				return ir.FloatArg(-inner.floatV), nil
			case eName:
				if inner.name == "inf" {
					return ir.FloatArg(math.Inf(-1)), nil
				}
			}
		}
	case eAttr:
		return gb.p.attrArg(e.dotted(), l.text[e.col:e.end]), nil
	case eEllipsis:
		return ir.Arg{Kind: ir.ArgEllipsis}, nil
	case eCall:
		switch name := e.base.dotted(); name {
		case "device", "torch.device":
			return gb.deviceArg(l, e)
		case "slice":
			return gb.sliceArg(l, e)
		}
		if re, im, ok := complexConst(e); ok {
			return ir.ComplexArg(re, im, gb.p.keep(l.text[e.col:e.end])), nil
		}
	}
	return ir.Arg{Kind: ir.ArgRaw, Str: gb.p.keep(l.text[e.col:e.end])}, nil
}

// realConst reads a real number literal, negated or not.
func realConst(e *pyExpr) (float64, bool) {
	switch e.kind {
	case eInt:
		return float64(e.intV), true
	case eFloat:
		return e.floatV, true
	case eName:
		switch e.name {
		case "inf":
			return math.Inf(1), true
		case "nan":
			return math.NaN(), true
		}
	case eUnary:
		if v, ok := realConst(e.base); ok && e.op == "-" {
			return -v, true
		}
	}
	return 0, false
}

// complexConst reads a Python complex constant as FX prints one: an
// imaginary literal (2j, -1.5j), a real plus or minus one ((1+2j),
// (-0-1j)), or complex(re, im) with number arguments.
func complexConst(e *pyExpr) (re, im float64, ok bool) {
	switch e.kind {
	case eImag:
		return 0, e.floatV, true
	case eUnary:
		if e.op != "-" || e.base.kind == eInt || e.base.kind == eFloat {
			return 0, 0, false
		}
		if re, im, ok := complexConst(e.base); ok {
			return -re, -im, true
		}
	case eBinary:
		if e.op != "+" && e.op != "-" {
			return 0, 0, false
		}
		lr, li, lok := complexConst(e.base)
		if !lok {
			if lr, lok = realConst(e.base); !lok {
				return 0, 0, false
			}
		}
		rr, ri, rok := complexConst(e.rhs)
		if !rok {
			return 0, 0, false
		}
		if e.op == "-" {
			return lr - rr, li - ri, true
		}
		return lr + rr, li + ri, true
	case eCall:
		if e.base.dotted() != "complex" || len(e.kwargs) > 0 || len(e.elems) == 0 || len(e.elems) > 2 {
			return 0, 0, false
		}
		if re, ok = realConst(e.elems[0]); !ok {
			return 0, 0, false
		}
		if len(e.elems) == 2 {
			if im, ok = realConst(e.elems[1]); !ok {
				return 0, 0, false
			}
		}
		return re, im, true
	}
	return 0, 0, false
}

// sliceArg reads slice(stop), slice(start, stop) and slice(start, stop,
// step), the way Dynamo prints the parts of an index (x[:, 1:]).
func (gb *graphBuilder) sliceArg(l *logical, e *pyExpr) (ir.Arg, error) {
	if len(e.elems) < 1 || len(e.elems) > 3 || len(e.kwargs) > 0 {
		return ir.Arg{}, gb.p.errIn(l, e.col, "slice takes 1 to 3 positional arguments", "write slice(start, stop, step)")
	}
	parts := []ir.Arg{ir.NoneArg(), ir.NoneArg(), ir.NoneArg()}
	for i, x := range e.elems {
		a, err := gb.toArg(l, x)
		if err != nil {
			return ir.Arg{}, err
		}
		parts[i] = a
	}
	if len(e.elems) == 1 { // slice(stop)
		parts[0], parts[1] = ir.NoneArg(), parts[0]
	}
	return ir.SliceArg(parts[0], parts[1], parts[2]), nil
}

func (gb *graphBuilder) nameArg(l *logical, e *pyExpr) (ir.Arg, error) {
	switch e.name {
	case "None":
		return ir.NoneArg(), nil
	case "True", "False":
		return ir.BoolArg(e.name == "True"), nil
	case "inf":
		return ir.FloatArg(math.Inf(1)), nil
	case "nan":
		return ir.FloatArg(math.NaN()), nil
	case "Ellipsis":
		if _, shadowed := gb.scope[e.name]; !shadowed {
			return ir.Arg{Kind: ir.ArgEllipsis}, nil
		}
	}
	b, ok := gb.scope[e.name]
	if !ok {
		if !gb.implicit {
			return ir.Arg{}, gb.p.errIn(l, e.col, fmt.Sprintf("undefined name %q", e.name), "every name must be a forward() parameter or defined by an earlier statement")
		}
		v := gb.g.AddInput(gb.p.keep(e.name), ir.Type{}, gb.p.posIn(l, e.col))
		b = binding{v: v}
		gb.bind(e.name, b)
	}
	if b.tuple != nil { // a tuple used whole: its elements
		elems := make([]ir.Arg, len(b.tuple.Results))
		for i, r := range b.tuple.Results {
			elems[i] = ir.ValueArg(r)
		}
		return ir.ListArg(elems...), nil
	}
	return ir.ValueArg(b.v), nil
}

func (gb *graphBuilder) seqArg(l *logical, e *pyExpr) (ir.Arg, error) {
	if e.kind != eDict {
		if elems, ok := gb.intList(l, e); ok {
			if e.kind == eList {
				return ir.ListArg(elems...), nil
			}
			return ir.TupleArg(elems...), nil
		}
	}
	elems := gb.args.Take(len(e.elems))
	for i, x := range e.elems {
		a, err := gb.toArg(l, x)
		if err != nil {
			return ir.Arg{}, err
		}
		elems[i] = a
	}
	switch e.kind {
	case eList:
		return ir.ListArg(elems...), nil
	case eTuple:
		return ir.TupleArg(elems...), nil
	}
	keys := make([]ir.Arg, len(e.keys))
	for i, k := range e.keys {
		if k.kind == eName { // node form prints dict keys bare: {dim: 1}
			keys[i] = ir.StringArg(gb.p.keep(k.name))
			continue
		}
		a, err := gb.toArg(l, k)
		if err != nil {
			return ir.Arg{}, err
		}
		keys[i] = a
	}
	return ir.Arg{Kind: ir.ArgDict, Elems: elems, Keys: keys}, nil
}

// intList returns the elements of a list or tuple of int literals
// (`[32, 64]`, the sizes of a view), shared by every argument spelled the
// same: a large graph repeats a few hundred such lists a million times.
// Argument lists are never changed in place, and a shared one has no
// spare capacity, so appending to it copies it.
func (gb *graphBuilder) intList(l *logical, e *pyExpr) ([]ir.Arg, bool) {
	if len(e.elems) == 0 {
		return nil, false
	}
	for _, x := range e.elems {
		if x.kind != eInt {
			return nil, false
		}
	}
	text := l.text[e.col:e.end]
	if elems, ok := gb.p.lists[text]; ok {
		return elems, true
	}
	elems := make([]ir.Arg, len(e.elems))
	for i, x := range e.elems {
		elems[i] = ir.IntArg(x.intV)
	}
	if len(gb.p.lists) < maxListCache {
		if gb.p.lists == nil {
			gb.p.lists = map[string][]ir.Arg{}
		}
		gb.p.lists[strings.Clone(text)] = elems
	}
	return elems, true
}

// maxListCache bounds the parser's cache of int lists.
const maxListCache = 1 << 14

// attrArg interprets dotted constants: dtypes, layouts and memory formats,
// op references.
func (p *parser) attrArg(dotted, raw string) ir.Arg {
	if name, ok := strings.CutPrefix(dotted, "torch."); ok {
		if dt, ok := ir.DTypeFromName(name); ok {
			return ir.DTypeArg(dt)
		}
		switch name {
		case "strided", "sparse_coo", "sparse_csr", "jagged", "contiguous_format", "preserve_format",
			"channels_last", "channels_last_3d":
			return ir.EnumArg(p.intern(name))
		}
		if strings.HasPrefix(name, "ops.") {
			return ir.Arg{Kind: ir.ArgOpRef, Str: p.intern(dotted)}
		}
	}
	return ir.Arg{Kind: ir.ArgRaw, Str: p.keep(raw)}
}

// deviceArg reads device(type='cuda', index=0) and device('cuda:0').
func (gb *graphBuilder) deviceArg(l *logical, e *pyExpr) (ir.Arg, error) {
	typ, index := "", -1
	if len(e.elems) > 0 && e.elems[0].kind == eString {
		typ = e.elems[0].str
	}
	if len(e.elems) > 1 && e.elems[1].kind == eInt {
		index = int(e.elems[1].intV)
	}
	for _, kw := range e.kwargs {
		switch {
		case kw.name == "type" && kw.val.kind == eString:
			typ = kw.val.str
		case kw.name == "index" && kw.val.kind == eInt:
			index = int(kw.val.intV)
		}
	}
	d, err := ir.ParseDevice(typ)
	if err != nil {
		return ir.Arg{}, gb.p.errIn(l, e.col, err.Error(), "devices look like device(type='cuda', index=0)")
	}
	if index >= 0 {
		d.Index = index
	}
	return ir.DeviceArg(d), nil
}
