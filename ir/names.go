package ir

import (
	"strconv"
	"strings"
)

// Namer hands out FX-style fresh names in amortized constant time: the
// base, then base_1, base_2, ... (the smallest free suffix); Python
// builtins and keywords start at _1, as torch.fx's _Namespace does
// (slice_1, sum_1). Every pass that makes nodes names them through one.
type Namer struct {
	used map[string]bool
	next map[string]int // smallest suffix that may be free, per base
}

// NewNamer starts from the names g already uses.
func NewNamer(g *Graph) *Namer {
	return &Namer{used: g.UsedNames(), next: map[string]int{}}
}

// Fresh returns an unused name for base and marks it used.
func (nm *Namer) Fresh(base string) string {
	if base == "" {
		base = "_unnamed"
	}
	if !pyReserved[base] && !nm.used[base] {
		nm.used[base] = true
		return base
	}
	for i := max(nm.next[base], 1); ; i++ {
		name := base + "_" + strconv.Itoa(i)
		if !nm.used[name] {
			nm.used[name] = true
			nm.next[base] = i + 1
			return name
		}
	}
}

// Release frees name (a node that is dropped), so that a later Fresh can
// hand it out again.
func (nm *Namer) Release(name string) {
	delete(nm.used, name)
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n >= 1 {
			if base := name[:i]; nm.next[base] > n {
				nm.next[base] = n
			}
		}
	}
}

// Take marks name used (a node that keeps or inherits its name).
func (nm *Namer) Take(name string) { nm.used[name] = true }

// pyReserved are the names FX never gives a node as they are: Python
// keywords and the builtins an op name can collide with.
var pyReserved = map[string]bool{}

func init() {
	for _, s := range []string{
		"abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "compile", "complex",
		"delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "filter", "float", "format", "frozenset",
		"getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass",
		"iter", "len", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord",
		"pow", "print", "property", "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted",
		"str", "sum", "super", "tuple", "type", "vars", "zip",
		"and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else",
		"except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not",
		"or", "pass", "raise", "return", "try", "while", "with", "yield", "None", "True", "False",
	} {
		pyReserved[s] = true
	}
}
