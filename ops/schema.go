package ops

import (
	"fmt"
	"strings"
)

// Schema is a parsed PyTorch function schema, as written in
// native_functions.yaml:
//
//	add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
//
// Alias and mutation annotations are parsed, never restated by hand: an op
// mutates exactly when some parameter carries `(x!)`.
type Schema struct {
	Namespace string // "aten"
	Name      string // "add_"
	Overload  string // "Tensor"; "default" when the schema names none
	Params    []Param
	Returns   []Param
	// VarRet is set when the schema returns a list (`Tensor[]`): the number
	// of results depends on the arguments.
	VarRet bool
}

// Param is one parameter or return of a schema.
type Param struct {
	Name    string
	Type    ParamType
	KwOnly  bool   // after `*`
	Default string // default text ("1", "None", "[]", "contiguous_format"); "" when required
	HasDef  bool
	Alias   *Alias // nil when the schema gives no alias annotation
}

// Alias is an alias annotation: `(a)`, `(a!)`, `(a -> *)`.
type Alias struct {
	Set    string // "a"
	Write  bool   // "!": the op writes through this alias
	ToWild bool   // "-> *": the elements alias the set (Tensor(a -> *)[])
}

// BaseType is the element type of a parameter.
type BaseType uint8

// Base types in schema strings.
const (
	TTensor BaseType = iota
	TInt
	TSymInt
	TFloat
	TBool
	TStr
	TScalar
	TScalarType
	TLayout
	TDevice
	TMemoryFormat
	TGenerator
	TDimname
	TStorage
	TStream
	TAny
)

var baseTypeNames = map[string]BaseType{
	"Tensor": TTensor, "int": TInt, "SymInt": TSymInt, "float": TFloat, "bool": TBool,
	"str": TStr, "Scalar": TScalar, "ScalarType": TScalarType, "Layout": TLayout,
	"Device": TDevice, "MemoryFormat": TMemoryFormat, "Generator": TGenerator,
	"Dimname": TDimname, "Storage": TStorage, "Stream": TStream, "Any": TAny,
	"t": TAny, "SymFloat": TFloat, "SymBool": TBool, "complex": TScalar,
}

// ParamType is a schema type: a base type, optionally a list (`int[]`,
// `SymInt[2]`), optionally optional (`Tensor?`, `int[1]?`, `Tensor?[]`).
type ParamType struct {
	Base     BaseType
	Spelling string // the base as written ("SymInt")
	List     bool
	ListLen  int  // fixed length of `int[2]`; 0 when unsized
	ElemOpt  bool // `Tensor?[]`: the list elements may be None
	Optional bool // `T?`: the whole parameter may be None
}

// IsTensor reports whether the type is a tensor (not a list of them).
func (t ParamType) IsTensor() bool { return t.Base == TTensor && !t.List }

// IsTensorList reports whether the type is `Tensor[]` or `Tensor?[]`.
func (t ParamType) IsTensorList() bool { return t.Base == TTensor && t.List }

func (t ParamType) String() string {
	s := t.Spelling
	if t.ElemOpt {
		s += "?"
	}
	if t.List {
		if t.ListLen > 0 {
			s += fmt.Sprintf("[%d]", t.ListLen)
		} else {
			s += "[]"
		}
	}
	if t.Optional {
		s += "?"
	}
	return s
}

// QualifiedName is "ns::name.overload".
func (s *Schema) QualifiedName() string {
	return s.Namespace + "::" + s.Name + "." + s.Overload
}

// Param returns the parameter called name, or nil.
func (s *Schema) Param(name string) *Param {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i]
		}
	}
	return nil
}

// Mutated lists the parameters the op writes to (alias annotation `!`).
func (s *Schema) Mutated() []int {
	var out []int
	for i, p := range s.Params {
		if p.Alias != nil && p.Alias.Write {
			out = append(out, i)
		}
	}
	return out
}

// ParseSchema reads a schema string. The namespace defaults to defNS when
// the name carries none ("add.Tensor(...)" vs "mylib::foo(...)").
func ParseSchema(text, defNS string) (*Schema, error) {
	sp := &schemaParser{src: text}
	s, err := sp.schema(defNS)
	if err != nil {
		return nil, fmt.Errorf("schema %q: %w", text, err)
	}
	return s, nil
}

type schemaParser struct {
	src string
	pos int
}

func (p *schemaParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
}

func (p *schemaParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *schemaParser) expect(s string) error {
	p.skipSpace()
	if !strings.HasPrefix(p.src[p.pos:], s) {
		return fmt.Errorf("expected %q at offset %d", s, p.pos)
	}
	p.pos += len(s)
	return nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *schemaParser) ident() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *schemaParser) schema(defNS string) (*Schema, error) {
	s := &Schema{Namespace: defNS, Overload: "default"}
	p.skipSpace()
	end := strings.IndexByte(p.src, '(')
	if end < 0 {
		return nil, fmt.Errorf("missing '('")
	}
	full := strings.TrimSpace(p.src[:end])
	if ns, rest, ok := strings.Cut(full, "::"); ok {
		s.Namespace, full = ns, rest
	}
	s.Name = full
	if name, ov, ok := strings.Cut(full, "."); ok {
		s.Name, s.Overload = name, ov
	}
	if s.Name == "" {
		return nil, fmt.Errorf("missing op name")
	}
	p.pos = end + 1
	params, err := p.paramList(')', true)
	if err != nil {
		return nil, err
	}
	s.Params = params
	if err := p.expect("->"); err != nil {
		return nil, err
	}
	if p.peek() == '(' {
		p.pos++
		if s.Returns, err = p.paramList(')', false); err != nil {
			return nil, err
		}
	} else {
		r, err := p.param(false, false)
		if err != nil {
			return nil, err
		}
		s.Returns = []Param{r} // PyTorch allows a name here (`-> Tensor Y`)
		s.VarRet = r.Type.List
	}
	if p.peek() != 0 {
		return nil, fmt.Errorf("trailing text at offset %d", p.pos)
	}
	return s, nil
}

// paramList reads params up to close; in argument lists `*` starts the
// keyword-only parameters.
func (p *schemaParser) paramList(close byte, args bool) ([]Param, error) {
	var out []Param
	kwOnly := false
	for {
		if p.peek() == close {
			p.pos++
			return out, nil
		}
		if len(out) > 0 || kwOnly {
			if p.peek() == ',' {
				p.pos++
			}
		}
		if args && p.peek() == '*' {
			p.pos++
			kwOnly = true
			continue
		}
		par, err := p.param(args, kwOnly)
		if err != nil {
			return nil, err
		}
		out = append(out, par)
		if c := p.peek(); c != ',' && c != close {
			return nil, fmt.Errorf("expected ',' or '%c' at offset %d", close, p.pos)
		}
	}
}

func (p *schemaParser) param(args, kwOnly bool) (Param, error) {
	par := Param{KwOnly: kwOnly}
	t, alias, err := p.paramType()
	if err != nil {
		return par, err
	}
	par.Type, par.Alias = t, alias
	if isIdentByte(p.peek()) {
		par.Name = p.ident()
	}
	if args && par.Name == "" {
		return par, fmt.Errorf("parameter without a name at offset %d", p.pos)
	}
	if p.peek() == '=' {
		p.pos++
		par.Default, par.HasDef = p.defaultText(), true
	}
	return par, nil
}

func (p *schemaParser) paramType() (ParamType, *Alias, error) {
	var t ParamType
	name, err := p.typeName()
	if err != nil {
		return t, nil, err
	}
	base, ok := baseTypeNames[name]
	if !ok {
		base, ok = opaqueType(name)
	}
	if !ok {
		return t, nil, fmt.Errorf("unknown type %q at offset %d", name, p.pos)
	}
	t.Base, t.Spelling = base, name
	var alias *Alias
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '(' && alias == nil: // `Tensor(a!)`, and after a list: `t[](a!)`
			a, err := p.alias()
			if err != nil {
				return t, nil, err
			}
			alias = a
		case c == '?' && !t.List:
			p.pos++
			if p.pos < len(p.src) && p.src[p.pos] == '[' {
				t.ElemOpt = true
			} else {
				t.Optional = true
			}
		case c == '?':
			p.pos++
			t.Optional = true
		case c == '[':
			close := strings.IndexByte(p.src[p.pos:], ']')
			if close < 0 {
				return t, nil, fmt.Errorf("unclosed '['")
			}
			if n := p.src[p.pos+1 : p.pos+close]; n != "" {
				if _, err := fmt.Sscanf(n, "%d", &t.ListLen); err != nil {
					return t, nil, fmt.Errorf("bad list length %q", n)
				}
			}
			t.List = true
			p.pos += close + 1
		default:
			return t, alias, nil
		}
	}
	return t, alias, nil
}

// typeName reads a type's name: an identifier, a TorchScript class
// (`__torch__.torch.classes.quantized.LinearPackedParamsBase`), a
// container with its element types (`Dict(str, t)`, `Future(t)`), or a
// tuple (`(Tensor, t)`), which kiln keeps whole as its spelling.
func (p *schemaParser) typeName() (string, error) {
	p.skipSpace()
	start := p.pos
	if p.peek() != '(' {
		for p.pos < len(p.src) && (isIdentByte(p.src[p.pos]) || p.src[p.pos] == '.') {
			p.pos++
		}
		switch p.src[start:p.pos] {
		case "Dict", "Future", "RRef", "Await", "Union", "Optional", "List", "Tuple":
		default:
			return p.src[start:p.pos], nil
		}
	}
	depth := 0
	for ; p.pos < len(p.src); p.pos++ {
		switch p.src[p.pos] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				p.pos++
				return p.src[start:p.pos], nil
			}
		}
	}
	return "", fmt.Errorf("unclosed type at offset %d", start)
}

// opaqueType maps the TorchScript-only types of PyTorch's schema table
// (containers, classes, type variables) to TAny: kiln never evaluates
// them, but their ops' arity and aliasing are still known.
func opaqueType(name string) (BaseType, bool) {
	switch {
	case name == "int64_t":
		return TInt, true
	case strings.HasPrefix(name, "__torch__."), strings.HasPrefix(name, "("), strings.Contains(name, "("),
		name == "t1", name == "t2", name == "tVal", name == "AnyEnumType", name == "QScheme", name == "PyObject",
		name == "AnyClassType", name == "AnyType", name == "NoneType", name == "Capsule":
		return TAny, true
	}
	return 0, false
}

func (p *schemaParser) alias() (*Alias, error) {
	close := strings.IndexByte(p.src[p.pos:], ')')
	if close < 0 {
		return nil, fmt.Errorf("unclosed alias annotation")
	}
	body := strings.TrimSpace(p.src[p.pos+1 : p.pos+close])
	p.pos += close + 1
	a := &Alias{}
	if set, _, ok := strings.Cut(body, "->"); ok {
		a.ToWild = true
		body = strings.TrimSpace(set)
	}
	if strings.HasSuffix(body, "!") {
		a.Write = true
		body = strings.TrimSuffix(body, "!")
	}
	a.Set = strings.TrimSpace(body)
	if a.Set == "" {
		return nil, fmt.Errorf("empty alias annotation")
	}
	return a, nil
}

// defaultText reads a default up to the next top-level ',' or ')'.
func (p *schemaParser) defaultText() string {
	p.skipSpace()
	start, depth := p.pos, 0
	inStr := byte(0)
	for ; p.pos < len(p.src); p.pos++ {
		c := p.src[p.pos]
		switch {
		case inStr != 0 && c == '\\':
			p.pos++ // an escaped character inside a string default
		case inStr != 0:
			if c == inStr {
				inStr = 0
			}
		case c == '"' || c == '\'':
			inStr = c
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')' && depth > 0:
			depth--
		case (c == ',' || c == ')') && depth == 0:
			return strings.TrimSpace(p.src[start:p.pos])
		}
	}
	return strings.TrimSpace(p.src[start:])
}

// String prints the schema back in PyTorch's syntax.
func (s *Schema) String() string {
	var b strings.Builder
	b.WriteString(s.Namespace + "::" + s.Name)
	if s.Overload != "default" {
		b.WriteString("." + s.Overload)
	}
	b.WriteByte('(')
	kw := false
	for i, par := range s.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if par.KwOnly && !kw {
			b.WriteString("*, ")
			kw = true
		}
		b.WriteString(par.String())
	}
	b.WriteString(") -> ")
	if len(s.Returns) == 1 && s.Returns[0].Name == "" {
		b.WriteString(s.Returns[0].String())
		return b.String()
	}
	b.WriteByte('(')
	for i, r := range s.Returns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	b.WriteByte(')')
	return b.String()
}

// String prints one parameter: `Tensor(a!) self`, `int[1] dim=[]`.
func (p Param) String() string {
	t := p.Type
	s := t.Spelling
	if p.Alias != nil {
		s += "(" + p.Alias.Set
		if p.Alias.Write {
			s += "!"
		}
		if p.Alias.ToWild {
			s += " -> *"
		}
		s += ")"
	}
	s += strings.TrimPrefix(t.String(), t.Spelling)
	if p.Name != "" {
		s += " " + p.Name
	}
	if p.HasDef {
		s += "=" + p.Default
	}
	return s
}
