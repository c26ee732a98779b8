package ops

import (
	_ "embed"
	"slices"
	"sort"
	"strings"
	"sync"
)

// pytorchSchemas is every operator schema of the PyTorch release named in
// its header, as tools/schemas/gen.py printed them: one overload a line,
// then a tab and the op's tags.
//
//go:embed pytorch_schemas.txt
var pytorchSchemas string

// ptIndex is the schema table indexed by qualified name. Lines are split
// once, on first use; a schema is parsed only when its op is looked up, so
// start-up does not pay for four thousand schemas (BenchmarkPyTorchIndex).
type ptIndex struct {
	version string
	lines   map[string]ptLine   // "aten::add.Tensor" -> its line
	packets map[string][]string // "aten::add" -> its overloads, sorted
	hops    map[string]bool     // higher-order ops, by bare name
	// inplaceView are the overloads tagged inplace_view: they change
	// self's sizes, strides or storage in place (transpose_, resize_).
	inplaceView map[string]bool

	mu  sync.Mutex
	ops map[string]*Op // materialized entries
}

type ptLine struct{ schema, tags string }

var (
	ptOnce sync.Once
	pt     *ptIndex
)

func pytorchIndex() *ptIndex {
	ptOnce.Do(func() { pt = buildPTIndex(pytorchSchemas) })
	return pt
}

func buildPTIndex(src string) *ptIndex {
	ix := &ptIndex{lines: map[string]ptLine{}, packets: map[string][]string{}, hops: map[string]bool{}, ops: map[string]*Op{},
		inplaceView: map[string]bool{}}
	for _, line := range strings.Split(src, "\n") {
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# Operator schemas of PyTorch "):
			ix.version, _, _ = strings.Cut(strings.TrimPrefix(line, "# Operator schemas of PyTorch "), ",")
			continue
		case strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "hop "):
			ix.hops[strings.TrimPrefix(line, "hop ")] = true
			continue
		}
		schema, tags, _ := strings.Cut(line, "\t")
		qual := schemaQualName(schema)
		ix.lines[qual] = ptLine{schema: schema, tags: tags}
		if slices.Contains(strings.Split(tags, ","), "inplace_view") {
			ix.inplaceView[qual] = true
		}
		packet, _, _ := strings.Cut(qual, ".")
		ix.packets[packet] = append(ix.packets[packet], qual)
	}
	for _, ovs := range ix.packets {
		sort.Strings(ovs)
	}
	return ix
}

// schemaQualName is "ns::name.overload" of a schema line, without parsing
// the parameters ("default" when the line names no overload).
func schemaQualName(schema string) string {
	head, _, _ := strings.Cut(schema, "(")
	if !strings.Contains(head[strings.Index(head, "::")+2:], ".") {
		return head + ".default"
	}
	return head
}

// IsInplaceView reports whether PyTorch tags op inplace_view: it gives
// its self new metadata in place (sizes, strides, storage), as
// transpose_, unsqueeze_, as_strided_ and resize_ do.
func (o *Op) IsInplaceView() bool { return o != nil && pytorchIndex().inplaceView[o.QualifiedName()] }

// PyTorchVersion is the version of the PyTorch whose schemas kiln embeds.
func PyTorchVersion() string { return pytorchIndex().version }

// PyTorchSchemaText is PyTorch's schema for a qualified overload name, as
// PyTorch prints it, and its tags; ok is false when PyTorch has no such op.
func PyTorchSchemaText(qual string) (schema string, tags []string, ok bool) {
	l, ok := pytorchIndex().lines[qual]
	if !ok {
		return "", nil, false
	}
	if l.tags != "" {
		tags = strings.Split(l.tags, ",")
	}
	return l.schema, tags, true
}

// PyTorchOps lists every overload in PyTorch's table, sorted.
func PyTorchOps() []string {
	ix := pytorchIndex()
	out := make([]string, 0, len(ix.lines))
	for q := range ix.lines {
		out = append(out, q)
	}
	sort.Strings(out)
	return out
}

// IsHigherOrderOp reports whether name ("auto_functionalized") is one of
// PyTorch's higher-order ops, which have no schema.
func IsHigherOrderOp(name string) bool { return pytorchIndex().hops[name] }

// typedHigherOrderOps are the higher-order ops fakeprop types itself
// (passes/fakeprop/hop.go).
var typedHigherOrderOps = map[string]bool{"auto_functionalized": true, "auto_functionalized_v2": true, "with_effects": true,
	"invoke_subgraph": true}

// IsTypedHigherOrderOp reports whether kiln has a rule for the higher-order
// op name.
func IsTypedHigherOrderOp(name string) bool { return typedHigherOrderOps[name] }

// pytorchOp returns the entry for an overload that kiln does not declare
// but PyTorch has: its schema (arity, defaults, alias and mutation
// annotations) and the facts its tags give, without a meta rule.
func (ix *ptIndex) op(qual string) *Op {
	l, ok := ix.lines[qual]
	if !ok {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if op := ix.ops[qual]; op != nil {
		return op
	}
	s, err := ParseSchema(l.schema, "aten")
	if err != nil {
		return nil // TestPyTorchSchemasParse keeps this empty
	}
	op := &Op{Schema: s, Kind: KindOther, name: qual, FromPyTorch: true,
		Doc: "schema from PyTorch " + ix.version + "; kiln has no meta rule"}
	for _, tag := range strings.Split(l.tags, ",") {
		switch tag {
		case "nondeterministic_seeded":
			op.Random = true
		case "data_dependent_output", "dynamic_output_shape":
			op.DataDep = true
		}
	}
	if len(s.Returns) == 0 {
		op.Effects = true // runs for its effect (_assert_async, record_stream)
	}
	if op.Mutates() {
		op.Functional = ix.functionalOf(s)
	}
	op.Meta = familyMeta(op)
	ix.ops[qual] = op
	return op
}

// functionalOf names the functional counterpart of a mutating schema the
// way linkFunctional does for declared ops, among PyTorch's schemas.
func (ix *ptIndex) functionalOf(s *Schema) string {
	base := strings.TrimSuffix(s.Name, "_")
	for _, cand := range []string{
		s.Namespace + "::" + base + "." + s.Overload,
		s.Namespace + "::" + base + ".default",
	} {
		if l, ok := ix.lines[cand]; ok && !strings.Contains(l.schema, "!)") {
			return cand
		}
	}
	return ""
}

// packetOverload resolves an overload packet ("aten::foo") among PyTorch's
// schemas: its default overload, or its only one.
func (ix *ptIndex) packetOverload(packet string) string {
	if _, ok := ix.lines[packet+".default"]; ok {
		return packet + ".default"
	}
	if ovs := ix.packets[packet]; len(ovs) == 1 {
		return ovs[0]
	}
	return ""
}

// Suggest returns the PyTorch or kiln op name closest to target (an
// unknown "ns::name.overload" or packet), for a "did you mean" hint; ""
// when nothing is close.
func (r *Registry) Suggest(target string) string {
	packet, _, _ := strings.Cut(target, ".")
	if _, rest, ok := strings.Cut(target, "::"); ok {
		name, _, _ := strings.Cut(rest, ".")
		packet = target[:strings.Index(target, "::")+2] + name
	}
	ix := pytorchIndex()
	if ovs := ix.packets[packet]; len(ovs) > 0 { // right op, wrong overload
		return strings.Join(ovs, ", ")
	}
	cands := map[string]bool{}
	for p := range ix.packets {
		cands[p] = true
	}
	for _, op := range r.All() {
		cands[op.Schema.Namespace+"::"+op.Schema.Name] = true
	}
	best, bestD := "", len(packet)/3+1
	for c := range cands {
		if d := editDistance(packet, c, bestD); d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is Levenshtein distance, or limit+1 once it must exceed limit.
func editDistance(a, b string, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		lo := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(prev[j-1], prev[j], cur[j-1])
			}
			cur[j] = c
			lo = min(lo, c)
		}
		if lo > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
