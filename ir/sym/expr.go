// Package sym implements the symbolic integers and booleans that PyTorch's
// ShapeEnv builds with sympy: sizes like s0, 32*s64 or ((s3 + 8)//9),
// unbacked values like u0, and guards like Eq(u0, 1) or u0 >= 0.
//
// Every Expr is immutable and canonical: integer expressions are kept as a
// polynomial (a constant plus terms with nonzero integer coefficients over
// monomials, in sympy's print order), whose atoms are symbols and
// irreducible FloorDiv, Mod, Max and Min applications with canonical
// arguments. Two expressions that canonicalize alike are Equal, share a Key
// and print the same, whatever order they were built in.
//
// Expressions denote mathematical integers. Constants are int64; arithmetic
// that leaves the int64 range wraps as Go's does (PyTorch sizes are int64,
// so only a bug produces such values), and simplifications assume no wrap.
//
// Printing follows sympy's StrPrinter with PyTorch's FloorDiv/Mod printers,
// so that kiln's annotations read like PyTorch's. Parse reads that form
// back, plus the other spellings PyTorch uses.
package sym

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Expr is a symbolic integer (SymInt) or boolean (SymBool). The zero value
// is the integer constant 0. Compare with Equal or Key, not ==: distinct
// pointers may hold equal expressions.
type Expr struct {
	n *node // nil for integer constants, so constants never allocate
	c int64 // the constant when n is nil
}

type op uint8

const (
	opSym op = iota + 1
	opPoly
	opFloorDiv
	opMod
	opMax
	opMin
	opEq
	opNe
	opLt
	opLe
	opGt
	opGe
	opAnd
	opOr
	opNot
	opTrue
	opFalse
)

// isAtom reports whether nodes of this op can appear as a factor in a
// monomial.
func (o op) isAtom() bool { return o == opSym || (o >= opFloorDiv && o <= opMin) }

func (o op) isRel() bool { return o >= opEq && o <= opGe }

func (o op) isBool() bool { return o >= opEq }

// node is the shared, immutable body of a non-constant Expr.
type node struct {
	op    op
	hash  uint64
	name  string // opSym
	c     int64  // opPoly: constant term
	terms []term // opPoly: nonconstant terms, canonical order, coef != 0
	args  []Expr // functions, relations, logic
	// self is this atom as the single term 1*atom**1 (see atomNode);
	// sharing it keeps arithmetic on atoms from allocating a fresh term
	// per use.
	self []term
	str  atomic.Pointer[string] // String, computed once
}

// atomNode is an atom with the backing of its self term, allocated
// together: one allocation per atom, and a polynomial's node (most nodes)
// does not carry the 48 bytes (128 bytes a node instead of 176).
type atomNode struct {
	node
	term   [1]term
	factor [1]factor
}

// term is coef*monomial; the monomial's factors are sorted by atom order
// and have distinct atoms.
type term struct {
	coef int64
	fs   []factor
}

type factor struct {
	atom *node
	pow  int64
}

// Const returns the integer constant v. It never allocates.
func Const(v int64) Expr { return Expr{c: v} }

var (
	trueNode  = &node{op: opTrue, hash: 0x9e3779b97f4a7c15}
	falseNode = &node{op: opFalse, hash: 0x7f4a7c159e3779b9}
)

// True returns the boolean constant True.
func True() Expr { return Expr{n: trueNode} }

// False returns the boolean constant False.
func False() Expr { return Expr{n: falseNode} }

func boolOf(v bool) Expr {
	if v {
		return True()
	}
	return False()
}

// symCache interns symbol nodes so that the many s0s of a large graph share
// one node. It is bounded so that a stream of fresh names (a fuzzer, a
// generator) cannot grow it without limit; past the bound symbols are
// simply allocated.
var (
	symCache  sync.Map
	symCached atomic.Int32
)

const symCacheMax = 1 << 12

// Symbol returns the symbol called name: "s0", "u3", "zuf0". name must be
// a Python identifier other than True, False and sympy's infinities (oo,
// zoo, nan, int_oo); Symbol panics otherwise, since no FX graph prints such
// a name and it could not be parsed back.
func Symbol(name string) Expr {
	if v, ok := symCache.Load(name); ok {
		return Expr{n: v.(*node)}
	}
	if !validName(name) {
		panic("sym: invalid symbol name " + strconv.Quote(name))
	}
	// Its own copy: name is often a slice of a large input (an annotation
	// in a 100 MB graph), which the cache would otherwise keep alive.
	name = strings.Clone(name)
	n := newAtom(opSym, name, nil)
	if symCached.Load() < symCacheMax {
		if v, loaded := symCache.LoadOrStore(name, n); loaded {
			return Expr{n: v.(*node)}
		}
		symCached.Add(1)
	}
	return Expr{n: n}
}

func validName(s string) bool {
	if s == "" || reservedNames[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !isIdentByte(b) || (i == 0 && b >= '0' && b <= '9') {
			return false
		}
	}
	return true
}

var reservedNames = map[string]bool{
	"True": true, "False": true, "oo": true, "zoo": true, "nan": true, "int_oo": true,
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// newAtom builds a symbol or function node and its hash.
func newAtom(o op, name string, args []Expr) *node {
	h := mix(uint64(o)*0x2545f4914f6cdd1d, hashString(name))
	for _, a := range args {
		h = mix(h, hashExpr(a))
	}
	if !o.isAtom() {
		return &node{op: o, name: name, args: args, hash: h}
	}
	a := &atomNode{node: node{op: o, name: name, args: args, hash: h}}
	n := &a.node
	a.factor[0] = factor{atom: n, pow: 1}
	a.term[0] = term{coef: 1, fs: a.factor[:]}
	n.self = a.term[:]
	return n
}

func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func hashExpr(e Expr) uint64 {
	if e.n == nil {
		return mix(0x51ed270b27a4f1d3, uint64(e.c))
	}
	return e.n.hash
}

func hashTerms(c int64, ts []term) uint64 {
	h := mix(uint64(opPoly), uint64(c))
	for _, t := range ts {
		h = mix(h, uint64(t.coef))
		for _, f := range t.fs {
			h = mix(mix(h, f.atom.hash), uint64(f.pow))
		}
	}
	return h
}

// Const returns the value of an integer constant; ok is false otherwise.
func (e Expr) Const() (v int64, ok bool) { return e.c, e.n == nil }

// IsConst reports whether e is an integer constant.
func (e Expr) IsConst() bool { return e.n == nil }

// IsBool reports whether e is a boolean: True, False, a relation, or a
// logical combination of them.
func (e Expr) IsBool() bool { return e.n != nil && e.n.op.isBool() }

// BoolConst returns the value of True or False; ok is false otherwise.
func (e Expr) BoolConst() (v bool, ok bool) {
	if e.n == nil {
		return false, false
	}
	return e.n.op == opTrue, e.n.op == opTrue || e.n.op == opFalse
}

// IsSymbol reports whether e is a lone symbol.
func (e Expr) IsSymbol() bool { return e.n != nil && e.n.op == opSym }

// Name returns the symbol's name, or "" when e is not a symbol.
func (e Expr) Name() string {
	if e.IsSymbol() {
		return e.n.name
	}
	return ""
}

// IsUnbacked reports whether e is an unbacked symbol: an int from .item()
// or a data-dependent size ("u0") or an unbacked float ("zuf0").
func (e Expr) IsUnbacked() bool { return e.IsSymbol() && isUnbackedName(e.n.name) }

// HasUnbacked reports whether any free symbol of e is unbacked.
func (e Expr) HasUnbacked() bool {
	for _, s := range e.Free() {
		if isUnbackedName(s) {
			return true
		}
	}
	return false
}

func isUnbackedName(s string) bool {
	return strings.HasPrefix(s, "u") || strings.HasPrefix(s, "zuf")
}

// Key returns a string that identifies e up to Equal, for use as a map key.
// It is the canonical print, so it is also readable.
func (e Expr) Key() string { return e.String() }

// Equal reports whether a and b are the same canonical expression.
func Equal(a, b Expr) bool {
	if a.n == b.n {
		return a.n != nil || a.c == b.c
	}
	if a.n == nil || b.n == nil || a.n.hash != b.n.hash {
		return false
	}
	return eqNode(a.n, b.n)
}

func eqNode(a, b *node) bool {
	if a == b {
		return true
	}
	if a.op != b.op || a.hash != b.hash || a.name != b.name || a.c != b.c ||
		len(a.terms) != len(b.terms) || len(a.args) != len(b.args) {
		return false
	}
	for i := range a.terms {
		if !eqTerm(a.terms[i], b.terms[i]) {
			return false
		}
	}
	for i := range a.args {
		if !Equal(a.args[i], b.args[i]) {
			return false
		}
	}
	return true
}

func eqTerm(a, b term) bool {
	if a.coef != b.coef || len(a.fs) != len(b.fs) {
		return false
	}
	for i := range a.fs {
		if a.fs[i].pow != b.fs[i].pow || !eqNode(a.fs[i].atom, b.fs[i].atom) {
			return false
		}
	}
	return true
}

// Compare orders expressions as sympy's default_sort_key does (numbers
// first, then symbols by name, then compound expressions); it returns 0
// exactly when Equal(a, b). It is the order of Max arguments and And terms.
func Compare(a, b Expr) int {
	if Equal(a, b) {
		return 0
	}
	return cmpKey(a, b)
}

// mustInt panics when e is a boolean: sympy refuses to add or multiply a
// relation too, and a silent coercion would hide a caller's bug.
func mustInt(e Expr) {
	if e.n != nil && e.n.op.isBool() {
		panic(&TypeError{Msg: "boolean " + e.String() + " used as an integer"})
	}
}

func mustBool(e Expr) {
	if !e.IsBool() {
		panic(&TypeError{Msg: "integer " + e.String() + " used as a boolean"})
	}
}

// TypeError is the panic value of builders given a boolean where an
// integer is required or the reverse. Parse checks types itself and
// returns a ParseError instead.
type TypeError struct{ Msg string }

func (e *TypeError) Error() string { return "sym: " + e.Msg }

// tooLargeError is panicked by builders whose result would exceed the size
// limits below; Parse turns it into a ParseError. No shape expression comes
// near them; they exist so that hostile input cannot exhaust memory or time
// (expanding (a + b + ... + i)**8 would take millions of terms).
type tooLargeError struct{ what string }

func (e *tooLargeError) Error() string { return "sym: expression too large: " + e.what }

const (
	maxTerms = 1 << 12 // terms produced by one polynomial product
	maxPow   = 1 << 20 // exponent of one factor
)

func absU(x int64) uint64 {
	if x < 0 {
		return uint64(-x) // also right for MinInt64: 1<<63
	}
	return uint64(x)
}

func gcdU(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// gcdI is gcdU clamped to a positive int64 divisor: 1<<63 (only possible
// when every coefficient is MinInt64 or 0) becomes 1<<62, which still
// divides all of them.
func gcdI(a, b uint64) int64 {
	g := gcdU(a, b)
	if g > math.MaxInt64 {
		return 1 << 62
	}
	return int64(g)
}

// floorDiv is Python's // on int64 (rounds toward -inf). d must be nonzero.
func floorDiv(a, d int64) int64 {
	q := a / d
	if (a%d != 0) && ((a < 0) != (d < 0)) {
		q--
	}
	return q
}

// pyMod is Python's %: the result has the sign of d. d must be nonzero.
func pyMod(a, d int64) int64 {
	r := a % d
	if r != 0 && ((r < 0) != (d < 0)) {
		r += d
	}
	return r
}

// ipow is a**n with wrapping, by squaring; n >= 0.
func ipow(a, n int64) int64 {
	r := int64(1)
	for n > 0 {
		if n&1 == 1 {
			r *= a
		}
		a *= a
		n >>= 1
	}
	return r
}

// EqualLists reports whether a and b hold equal expressions, in order
// (shapes, strides).
func EqualLists(a, b []Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
