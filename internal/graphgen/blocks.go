package graphgen

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

// transformerBlock is one pre-norm transformer block (layer norm, 4-head
// attention, GELU MLP) in bf16 on cuda:0, as PyTorch's make_fx traced and
// printed it (tools/graphgen/transformer_block.py writes it).
//
//go:embed transformer_block.fx
var transformerBlock string

// blockTemplate is a traced block split into its parts.
type blockTemplate struct {
	params []param  // forward's parameters; the first is the block's input
	body   []string // node statements, "  x = None" cleanup dropped
	ret    []string // the names the block returns
}

type param struct{ name, ann string }

var (
	identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	paramRE = regexp.MustCompile(`(\w+): "([^"]*)"`)
)

func parseBlock(text string) blockTemplate {
	var t blockTemplate
	for _, line := range strings.Split(text, "\n") {
		s := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(s, "def forward(self, "):
			for _, m := range paramRE.FindAllStringSubmatch(s, -1) {
				t.params = append(t.params, param{m[1], m[2]})
			}
		case strings.HasPrefix(s, "return "):
			for _, r := range strings.Split(strings.Trim(strings.TrimPrefix(s, "return "), "()"), ",") {
				if r = strings.TrimSpace(r); r != "" {
					t.ret = append(t.ret, r)
				}
			}
		case s == "" || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "class "):
		default:
			if i := strings.Index(s, ";  "); i >= 0 {
				s = s[:i]
			}
			t.body = append(t.body, s)
		}
	}
	return t
}

// Blocks returns FX text of roughly cfg.Nodes op nodes (counting getitems
// as PyTorch does): a stack of the PyTorch-traced transformer block, each
// layer with its own 12 weight inputs, bf16 on cuda:0. cfg.Hidden,
// Symbolic and Mutating do not apply (the block's sizes are PyTorch's).
func Blocks(cfg Config) string {
	t := parseBlock(transformerBlock)
	var b strings.Builder
	results := stackLayers(&b, t, cfg, 0)
	fmt.Fprintf(&b, "        return (%s,)\n", results[len(results)-1][0])
	return b.String()
}

// stackLayers writes the graph's signature and enough copies of t's body
// for about cfg.Nodes nodes, each layer's names renamed apart; layer
// li+1's input is layer li's result ret[chain]. It returns each layer's
// results, renamed; the caller writes the return.
func stackLayers(b *strings.Builder, t blockTemplate, cfg Config, chain int) [][]string {
	perBlock := len(t.body)
	layers := max((cfg.Nodes+perBlock-1)/perBlock, 1)
	b.WriteString("class GraphModule(torch.nn.Module):\n    def forward(self, ")
	weightSets := layers
	if cfg.SharedWeights {
		weightSets = 1
	}
	for li := 0; li < weightSets; li++ {
		for pi, p := range t.params {
			if pi == 0 && li > 0 {
				continue // a later layer's input is the previous layer's output
			}
			if li > 0 || pi > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s: \"%s\"", layerName(p.name, li, pi == 0), p.ann)
		}
	}
	b.WriteString("):\n")
	defined := map[string]bool{}
	for _, s := range t.body {
		defined[strings.TrimSpace(strings.SplitN(strings.SplitN(s, "=", 2)[0], ":", 2)[0])] = true
	}
	x := layerName(t.params[0].name, 0, true)
	results := make([][]string, layers)
	for li := 0; li < layers; li++ {
		rename := func(id string) string {
			switch {
			case id == t.params[0].name:
				return x
			case defined[id]:
				return fmt.Sprintf("%s_L%d", id, li)
			}
			for _, p := range t.params[1:] {
				if id == p.name {
					return layerName(id, li%weightSets, false)
				}
			}
			return id
		}
		for _, s := range t.body {
			b.WriteString("        ")
			b.WriteString(renameIdents(s, rename))
			b.WriteByte('\n')
		}
		for _, r := range t.ret {
			results[li] = append(results[li], rename(r))
		}
		x = results[li][chain]
	}
	return results
}

// layerName names parameter p of layer li ("l3_wq"); the first layer's
// input keeps the name "x".
func layerName(p string, li int, isInput bool) string {
	p = strings.TrimSuffix(p, "_1")
	if isInput {
		return p
	}
	return fmt.Sprintf("l%d_%s", li, p)
}

// renameIdents renames the identifiers of s outside string literals
// (annotations stay as written) and attribute names (the op in
// torch.ops.aten.native_layer_norm.default is not the value of that name).
func renameIdents(s string, rename func(string) string) string {
	var b strings.Builder
	for i, part := range strings.Split(s, `"`) {
		if i > 0 {
			b.WriteByte('"')
		}
		if i%2 == 1 {
			b.WriteString(part)
			continue
		}
		last := 0
		for _, m := range identRE.FindAllStringIndex(part, -1) {
			id := part[m[0]:m[1]]
			if m[0] == 0 || part[m[0]-1] != '.' { // not an attribute (aten.mm)
				id = rename(id)
			}
			b.WriteString(part[last:m[0]])
			b.WriteString(id)
			last = m[1]
		}
		b.WriteString(part[last:])
	}
	return b.String()
}
