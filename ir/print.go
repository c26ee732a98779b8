package ir

import (
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Print renders every graph of m as FX readable text, separated by a blank line.
func (m *Module) Print() string {
	var b textBuf
	for i, g := range m.Graphs {
		if i > 0 {
			b.WriteByte('\n')
		}
		g.write(&b)
	}
	return b.String()
}

// WriteTo writes Print's text to w a few nodes at a time.
func (m *Module) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for i, g := range m.Graphs {
		if i > 0 {
			k, err := io.WriteString(w, "\n")
			if n += int64(k); err != nil {
				return n, err
			}
		}
		k, err := g.WriteTo(w)
		if n += k; err != nil {
			return n, err
		}
	}
	return n, nil
}

// String renders g as FX readable text with full annotations where types are
// known, `;  x = None` releases after last uses, stack comments, and derived
// facts as trailing `# key=value` comments. The output is deterministic and
// parses back to a graph that prints identically.
func (g *Graph) String() string {
	var b textBuf
	g.write(&b)
	return b.String()
}

// WriteTo writes g's text (String) to w a few nodes at a time, so that a
// large graph is never one string: the pass manager hashes it so. A large
// graph's nodes are printed a batch at a time, a chunk of the batch on
// every core, and written in order: the text is the same as one pass's.
func (g *Graph) WriteTo(w io.Writer) (int64, error) {
	var b textBuf
	var n int64
	var err error
	flush := func(b *textBuf) {
		if err == nil {
			var k int
			k, err = w.Write(b.b) // then b is reused: Write must not keep it, as io.Writer says
			n += int64(k)
		}
		b.Reset()
	}
	workers := min(runtime.GOMAXPROCS(0), len(g.Nodes)/parallelPrintChunk)
	if workers < 2 {
		g.writeFlushing(&b, flush)
		flush(&b)
		return n, err
	}
	g.writeHeader(&b)
	flush(&b)
	rel := g.lastUses()
	parts := make([]textBuf, workers)
	size := 0 // the largest chunk's text so far: the next chunks' buffers start that big
	for lo := 0; lo < len(g.Nodes) && err == nil; lo += workers * streamChunk {
		var wg sync.WaitGroup
		for k := range parts {
			from := min(lo+k*streamChunk, len(g.Nodes))
			to := min(from+streamChunk, len(g.Nodes))
			wg.Add(1)
			go func() {
				defer wg.Done()
				parts[k].Grow(size + size/8)
				g.writeRange(&parts[k], from, to, rel)
			}()
		}
		wg.Wait()
		for k := range parts {
			size = max(size, parts[k].Len())
			flush(&parts[k])
		}
	}
	b.WriteString("        ")
	g.writeReturn(&b)
	b.WriteByte('\n')
	flush(&b)
	return n, err
}

// streamChunk is how many nodes WriteTo gives a core at a time.
const streamChunk = 4096

// write prints g into b. A large graph is printed in chunks of nodes on
// every core (each chunk knows the stack comment before it and the shared
// release lists), joined in order: the text is the same as one pass's.
func (g *Graph) write(b *textBuf) {
	workers := min(runtime.GOMAXPROCS(0), len(g.Nodes)/parallelPrintChunk)
	if workers < 2 {
		g.writeFlushing(b, nil)
		return
	}
	g.writeHeader(b)
	releases := g.lastUses()
	parts := make([]textBuf, workers)
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := len(g.Nodes)*w/workers, len(g.Nodes)*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w].Grow((hi - lo) * printedBytesPerNode)
			g.writeRange(&parts[w], lo, hi, releases)
		}()
	}
	wg.Wait()
	total := 0
	for w := range parts {
		total += parts[w].Len()
	}
	b.Grow(total + 1024) // the return line: one copy, not a doubling per join
	for w := range parts {
		b.WriteString(parts[w].String())
	}
	b.WriteString("        ")
	g.writeReturn(b)
	b.WriteByte('\n')
}

// printedBytesPerNode is about how long a node's line is (150-190 bytes on
// traced transformers): each core's buffer starts that big, so that it
// grows once or not at all instead of doubling from nothing.
const printedBytesPerNode = 160

// writeRange prints nodes lo..hi-1 on their own, as a core's share of a
// parallel print: it knows the stack comment before lo.
func (g *Graph) writeRange(b *textBuf, lo, hi int, releases *releaseLists) {
	stack := ""
	if lo > 0 {
		stack = g.Nodes[lo-1].Stack
	}
	g.writeNodes(b, lo, hi, stack, releases, nil)
}

// parallelPrintChunk is the fewest nodes worth a goroutine of their own.
const parallelPrintChunk = 20000

// writeFlushing prints g into b, handing b to flush (when set) whenever it
// holds 32 KiB or more.
func (g *Graph) writeFlushing(b *textBuf, flush func(*textBuf)) {
	g.writeHeader(b)
	g.writeNodes(b, 0, len(g.Nodes), "", g.lastUses(), flush)
	b.WriteString("        ")
	g.writeReturn(b)
	b.WriteByte('\n')
}

// writeHeader prints the title comment, the class line and forward's
// signature with the inputs' attribute comments.
func (g *Graph) writeHeader(b *textBuf) {
	name := g.Name
	if name == "" {
		name = "GraphModule"
	}
	if g.Title != "" {
		b.WriteString("# " + strings.ReplaceAll(g.Title, "\n", " ") + "\n")
	}
	b.WriteString("class " + name + "(torch.nn.Module):\n")
	b.WriteString("    def forward(self")
	for _, v := range g.Inputs {
		b.WriteString(", ")
		b.WriteString(v.Name)
		writeAnnotation(b, v.Type)
	}
	b.WriteString("):\n")
	for _, v := range g.Inputs {
		if len(v.Attrs) > 0 {
			b.WriteString("        # ")
			b.WriteString(v.Name)
			b.WriteString(": ")
			v.Attrs.write(b, false)
			b.WriteByte('\n')
		}
	}
}

// writeAnnotation writes `: "TYPE"` for a known type, nothing otherwise.
func writeAnnotation(b *textBuf, t Type) {
	if t.Kind == KindTensor {
		b.WriteString(`: "`)
		t.Tensor.write(b)
		b.WriteByte('"')
		return
	}
	if ann := t.String(); ann != "" {
		b.WriteString(`: "`)
		b.WriteString(ann)
		b.WriteByte('"')
	}
}

// writeNodes prints g.Nodes[lo:hi], each after the stack comment that
// changed before it (stack is the comment in force before the first).
func (g *Graph) writeNodes(b *textBuf, lo, hi int, stack string, releases *releaseLists, flush func(*textBuf)) {
	for i := lo; i < hi; i++ {
		n := g.Nodes[i]
		if n.Stack != stack {
			if n.Stack != "" {
				b.WriteString("        ")
				b.WriteString(n.Stack)
				b.WriteByte('\n')
			}
			stack = n.Stack
		}
		g.writeNode(b, i, n, releases)
		if flush != nil && b.Len() >= 32<<10 {
			flush(b)
		}
	}
}

// stmtKey names one printed statement: a node (result -1) or the getitem
// statement that names result `result` of a tuple node.
type stmtKey struct {
	node   *Node
	result int
}

func (g *Graph) writeNode(b *textBuf, i int, n *Node, releases *releaseLists) {
	b.WriteString("        ")
	b.WriteString(n.Name)
	single := !n.IsTuple() && len(n.Results) == 1
	if single {
		writeAnnotation(b, n.Results[0].Type)
	}
	b.WriteString(" = ")
	n.writeCall(b)
	writeRelease(b, releases.node(i))
	if len(n.Attrs) > 0 || single && len(n.Results[0].Attrs) > 0 {
		b.WriteString("  # ")
		n.Attrs.write(b, false)
		if single {
			n.Results[0].Attrs.write(b, len(n.Attrs) > 0)
		}
	}
	b.WriteByte('\n')
	if !n.IsTuple() {
		return
	}
	// Results of a tuple-returning node print as FX's getitem statements.
	for _, r := range n.Results {
		if r.Name == "" {
			continue
		}
		b.WriteString("        ")
		b.WriteString(r.Name)
		writeAnnotation(b, r.Type)
		b.WriteString(" = ")
		b.WriteString(n.Name)
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(r.Index))
		b.WriteByte(']')
		writeRelease(b, releases.item(n, r.Index))
		if len(r.Attrs) > 0 {
			b.WriteString("  # ")
			r.Attrs.write(b, false)
		}
		b.WriteByte('\n')
	}
}

// IsTuple reports whether n returns a tuple or list whose elements are named
// by getitem statements, rather than one value named like the node.
func (n *Node) IsTuple() bool {
	return len(n.Results) > 1 || len(n.Results) == 1 && n.Results[0].Name != n.Name
}

func writeRelease(b *textBuf, names []string) {
	if len(names) == 0 {
		return
	}
	b.WriteString(";  ")
	for _, s := range names {
		b.WriteString(s)
		b.WriteString(" = ")
	}
	b.WriteString("None")
}

// releaseLists are the names each statement releases (lastUses).
type releaseLists struct {
	names []string
	spans [][2]int32           // per node position: names[span[0]:span[1]]
	items map[stmtKey][]string // the getitem statements of tuple nodes
}

func (r *releaseLists) node(i int) []string {
	s := r.spans[i]
	return r.names[s[0]:s[1]:s[1]]
}

func (r *releaseLists) item(n *Node, result int) []string { return r.items[stmtKey{n, result}] }

// lastUses computes FX's `;  a = b = None` release lists: after the statement
// that uses a value for the last time, in order of first appearance in its
// arguments; a value nobody uses is released right where it is defined.
// It walks the statements backwards once; only statements that release
// something get an entry (every print of a large graph runs it).
func (g *Graph) lastUses() *releaseLists {
	seen := newValueSet(g)
	for _, v := range g.Inputs {
		if v.outputUses > 0 {
			seen.add(v) // outputs are never released
		}
	}
	for _, n := range g.Nodes {
		for _, v := range n.Results {
			if v.outputUses > 0 {
				seen.add(v)
			}
		}
	}
	out := &releaseLists{spans: make([][2]int32, len(g.Nodes)), items: map[stmtKey][]string{},
		names: make([]string, 0, len(g.Nodes)+len(g.Inputs))}
	var inputs []*Value
	var defs []string
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		defs = defs[:0] // names defined here that nobody uses
		if n.IsTuple() {
			// getitem statements read the tuple; its name dies at the last one.
			last := -1
			for _, r := range n.Results {
				if r.Name != "" {
					last = r.Index
				}
			}
			if last < 0 {
				defs = append(defs, n.Name)
			}
			for j := len(n.Results) - 1; j >= 0; j-- {
				r := n.Results[j]
				if r.Name == "" {
					continue
				}
				var gdefs []string
				if r.Index == last {
					gdefs = append(gdefs, n.Name)
				}
				if r.NumUses() == 0 {
					gdefs = append(gdefs, r.Name)
				}
				if len(gdefs) > 0 {
					out.items[stmtKey{n, r.Index}] = gdefs
				}
			}
		} else if len(n.Results) == 0 || n.Results[0].NumUses() == 0 {
			defs = append(defs, n.Name)
		}
		inputs = inputs[:0]
		n.WalkInputs(func(v *Value) { inputs = append(inputs, v) })
		start := len(out.names)
		for _, v := range inputs {
			if seen.add(v) {
				out.names = append(out.names, v.Name)
			}
		}
		out.names = append(out.names, defs...)
		out.spans[i] = [2]int32{int32(start), int32(len(out.names))}
	}
	return out
}

// valueSet is a set of a graph's values: a bit per id where ids are dense,
// a map for any other value.
type valueSet struct {
	dense  []bool
	sparse map[*Value]bool
}

func newValueSet(g *Graph) *valueSet {
	maxID := -1
	g.eachValue(func(v *Value) bool { maxID = max(maxID, v.ID); return true })
	// Ids are unique in a verified graph; a graph printed before the
	// verifier ran (a dump after a broken pass) may repeat one: map only.
	owner := make([]*Value, maxID+1)
	unique := g.eachValue(func(v *Value) bool {
		if v.ID < 0 {
			return true
		}
		if owner[v.ID] != nil && owner[v.ID] != v {
			return false
		}
		owner[v.ID] = v
		return true
	})
	if !unique {
		return &valueSet{}
	}
	return &valueSet{dense: make([]bool, maxID+1)}
}

// eachValue calls f for the inputs then the node results, in order, until
// f returns false; it reports whether f never did.
func (g *Graph) eachValue(f func(*Value) bool) bool {
	for _, v := range g.Inputs {
		if !f(v) {
			return false
		}
	}
	for _, n := range g.Nodes {
		for _, v := range n.Results {
			if !f(v) {
				return false
			}
		}
	}
	return true
}

// add adds v and says whether it was new.
func (s *valueSet) add(v *Value) bool {
	if v.ID >= 0 && v.ID < len(s.dense) {
		if s.dense[v.ID] {
			return false
		}
		s.dense[v.ID] = true
		return true
	}
	if s.sparse == nil {
		s.sparse = map[*Value]bool{}
	}
	if s.sparse[v] {
		return false
	}
	s.sparse[v] = true
	return true
}

func (g *Graph) writeReturn(b *textBuf) {
	switch g.ReturnForm {
	case ReturnNone:
		b.WriteString("return None")
		return
	case ReturnBare:
		if len(g.Outputs) == 1 {
			b.WriteString("return ")
			g.Outputs[0].write(b)
			return
		}
	case ReturnList:
		b.WriteString("return ")
		ListArg(g.Outputs...).write(b)
		return
	}
	b.WriteString("return ")
	TupleArg(g.Outputs...).write(b)
}

// Call renders the right-hand side of n's statement.
func (n *Node) Call() string {
	if n.Form == FormGetAttr {
		return n.Target
	}
	var b textBuf
	n.writeCall(&b)
	return b.String()
}

func (n *Node) writeCall(b *textBuf) {
	switch n.Form {
	case FormOperator:
		writeOperator(b, n)
		return
	case FormGetAttr:
		b.WriteString(n.Target)
		return
	case FormMethod:
		if len(n.Args) > 0 {
			n.Args[0].write(b)
			b.WriteByte('.')
			b.WriteString(strings.TrimPrefix(n.Target, "method."))
			b.WriteByte('(')
			writeCallArgs(b, n.Args[1:], n.Kwargs)
			b.WriteByte(')')
			return
		}
	case FormOp:
		if ns, rest, ok := strings.Cut(n.Target, "::"); ok {
			b.WriteString("torch.ops.")
			b.WriteString(ns)
			b.WriteByte('.')
			b.WriteString(rest)
		} else {
			b.WriteString(n.Target)
		}
		b.WriteByte('(')
		writeCallArgs(b, n.Args, n.Kwargs)
		b.WriteByte(')')
		return
	}
	b.WriteString(n.Target)
	b.WriteByte('(')
	writeCallArgs(b, n.Args, n.Kwargs)
	b.WriteByte(')')
}

func writeCallArgs(b *textBuf, args []Arg, kwargs []Kwarg) {
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(b)
	}
	for i, kw := range kwargs {
		if i > 0 || len(args) > 0 {
			b.WriteString(", ")
		}
		b.WriteString(kw.Name)
		b.WriteString(" = ")
		kw.Arg.write(b)
	}
}

// OpSpelling turns a canonical target "aten::add.Tensor" into FX's
// "torch.ops.aten.add.Tensor".
func OpSpelling(target string) string {
	ns, rest, ok := strings.Cut(target, "::")
	if !ok {
		return target
	}
	return "torch.ops." + ns + "." + rest
}

// operatorSymbols maps operator targets to their infix spelling.
var operatorSymbols = map[string]string{
	"operator.add": "+", "operator.sub": "-", "operator.mul": "*", "operator.truediv": "/",
	"operator.floordiv": "//", "operator.mod": "%", "operator.pow": "**",
	"operator.eq": "==", "operator.ne": "!=", "operator.lt": "<", "operator.le": "<=",
	"operator.gt": ">", "operator.ge": ">=", "operator.and_": "&", "operator.or_": "|",
	"operator.xor": "^", "operator.lshift": "<<", "operator.rshift": ">>", "operator.matmul": "@",
}

// OperatorTarget returns the operator target for an infix symbol.
func OperatorTarget(symbol string) (string, bool) {
	for t, s := range operatorSymbols {
		if s == symbol {
			return t, true
		}
	}
	return "", false
}

func writeOperator(b *textBuf, n *Node) {
	switch {
	case n.Target == "operator.getitem" && len(n.Args) == 2:
		n.Args[0].write(b)
		b.WriteByte('[')
		n.Args[1].write(b)
		b.WriteByte(']')
	case n.Target == "operator.neg" && len(n.Args) == 1:
		b.WriteByte('-')
		n.Args[0].write(b)
	case n.Target == "operator.not_" && len(n.Args) == 1:
		b.WriteString("not ")
		n.Args[0].write(b)
	case operatorSymbols[n.Target] != "" && len(n.Args) == 2:
		n.Args[0].write(b)
		b.WriteString(" " + operatorSymbols[n.Target] + " ")
		n.Args[1].write(b)
	default:
		b.WriteString(n.Target + "(")
		writeCallArgs(b, n.Args, n.Kwargs)
		b.WriteByte(')')
	}
}

// String prints the attributes as `k=v k2=v2`.
func (a Attrs) String() string {
	var b textBuf
	a.write(&b, false)
	return b.String()
}

// write prints the attributes as String does, after a blank when sep.
func (a Attrs) write(b *textBuf, sep bool) {
	for i, kv := range a {
		if i > 0 || sep {
			b.WriteByte(' ')
		}
		b.WriteString(kv.Key)
		b.WriteByte('=')
		b.WriteString(kv.Val)
	}
}
