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
	// The graph's names are looked at lazily: a pass that names its nodes
	// after one or two bases (align's assert_alignment) scans them once
	// per base instead of hashing a million names into used. snap is the
	// names the graph had when the namer was made (nil once all of them
	// are in used); indexed holds the bases whose names of snap are in
	// used: a name s matters to base s and, when s is stem_N, to stem.
	snap    []string
	indexed map[string]bool
}

// lazyBases is how many bases a namer indexes one by one before it puts
// every name of the graph in its set.
const lazyBases = 4

// NewNamer starts from the names g already uses.
func NewNamer(g *Graph) *Namer {
	snap := make([]string, 0, len(g.Inputs)+2*len(g.Nodes))
	for _, v := range g.Inputs {
		snap = append(snap, v.Name)
	}
	for _, n := range g.Nodes {
		snap = append(snap, n.Name)
		for _, r := range n.Results {
			if r.Name != n.Name {
				snap = append(snap, r.Name)
			}
		}
	}
	return &Namer{used: map[string]bool{}, next: map[string]int{}, snap: snap, indexed: map[string]bool{}}
}

// index puts the names of the snapshot that matter to base in used.
func (nm *Namer) index(base string) {
	if nm.snap == nil || nm.indexed[base] {
		return
	}
	if len(nm.indexed) >= lazyBases {
		used := make(map[string]bool, len(nm.used)+len(nm.snap)) // sized once: growing it was a third of Fresh
		for s := range nm.used {
			used[s] = true
		}
		nm.used = used
		for _, s := range nm.snap {
			if !nm.indexed[s] {
				if stem, ok := stemOf(s); !ok || !nm.indexed[stem] {
					nm.used[s] = true
				}
			}
		}
		nm.snap, nm.indexed = nil, nil
		return
	}
	nm.indexed[base] = true
	for _, s := range nm.snap {
		if len(s) >= len(base) && s[:len(base)] == base && (len(s) == len(base) || isSuffixed(s, len(base))) {
			nm.used[s] = true
		}
	}
}

// indexName indexes the bases name matters to.
func (nm *Namer) indexName(name string) {
	nm.index(name)
	if stem, ok := stemOf(name); ok {
		nm.index(stem)
	}
}

// isSuffixed reports whether s[at:] is "_" and digits.
func isSuffixed(s string, at int) bool {
	if len(s) < at+2 || s[at] != '_' {
		return false
	}
	for i := at + 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// stemOf returns stem when s is stem_N.
func stemOf(s string) (string, bool) {
	i := strings.LastIndexByte(s, '_')
	if i < 0 || !isSuffixed(s, i) {
		return "", false
	}
	return s[:i], true
}

// Fresh returns an unused name for base and marks it used.
func (nm *Namer) Fresh(base string) string {
	if base == "" {
		base = "_unnamed"
	}
	nm.index(base)
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
	nm.indexName(name)
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
func (nm *Namer) Take(name string) {
	nm.indexName(name)
	nm.used[name] = true
}

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
