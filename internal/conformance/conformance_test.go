package conformance

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// casePos is the case file and position inside a message ("add/f32/0.fx:3:9: ").
var casePos = regexp.MustCompile(`\S+\.fx:\d+:\d+: `)

var update = flag.Bool("update", false, "rewrite testdata/conformance/report.txt (the agreement table and every miss)")

const (
	dataFile    = "../../testdata/conformance/cases.jsonl.gz"
	ratchetFile = "../../testdata/conformance/ratchet.txt"
	reportFile  = "../../testdata/conformance/report.txt"
)

// tally counts one op's nodes.
type tally struct {
	nodes, typed, values, valuesOK int
	typeMiss, valueMiss            map[string]int    // reason -> count
	example                        map[string]string // reason -> first case
}

// miss counts a reason and keeps the first case that showed it.
func (t *tally) miss(m map[string]int, why, caseName string) {
	why = reason(why)
	if m[why] == 0 {
		t.example[why] = caseName
	}
	m[why]++
}

func (t *tally) add(r NodeResult, caseName string) {
	t.nodes++
	if r.Typed {
		t.typed++
	} else {
		t.miss(t.typeMiss, r.TypeWhy, caseName)
	}
	if r.HasValue {
		t.values++
		if r.ValueOK {
			t.valuesOK++
		} else {
			t.miss(t.valueMiss, r.ValueWhy, caseName)
		}
	}
}

// reason shortens a miss to its kind, so equal causes group together.
func reason(s string) string {
	s = casePos.ReplaceAllString(s, "")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// TestConformance replays every case PyTorch recorded through fakeprop and
// interp, and fails when agreement falls below the committed ratchet.
func TestConformance(t *testing.T) {
	f, err := os.Open(dataFile)
	require.NoError(t, err)
	defer f.Close()
	h, cases, err := Read(f)
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	byTarget := map[string]*tally{}
	total := &tally{typeMiss: map[string]int{}, valueMiss: map[string]int{}, example: map[string]string{}}
	skipped, errCases, parseFail := 0, 0, 0
	only := os.Getenv("KILN_CONFORMANCE_CASE") // a case-name prefix, for debugging one op
	for i := range cases {
		c := &cases[i]
		switch {
		case c.Skip != "":
			skipped++
			continue
		case c.Error != nil:
			errCases++
			continue
		}
		if only != "" && !strings.HasPrefix(c.Name, only) {
			continue
		}
		results, err := Replay(c)
		if only != "" {
			t.Logf("%s:\n%s", c.Name, c.FX)
			for _, r := range results {
				t.Logf("  %s %s typed=%v %s value=%v/%v %s", r.Node, r.Target, r.Typed, r.TypeWhy, r.HasValue, r.ValueOK, r.ValueWhy)
			}
		}
		if err != nil {
			// Every node of a graph kiln cannot read is a miss.
			parseFail++
			t.Logf("%s: %v", c.Name, err)
			results = unparsed(c, err)
		}
		for _, r := range results {
			tt := byTarget[r.Target]
			if tt == nil {
				tt = &tally{typeMiss: map[string]int{}, valueMiss: map[string]int{}, example: map[string]string{}}
				byTarget[r.Target] = tt
			}
			tt.add(r, c.Name)
			total.add(r, c.Name)
		}
	}
	summary := fmt.Sprintf("PyTorch %s: %d cases (%d not traceable by PyTorch, %d error inputs not replayed, %d kiln could not parse); "+
		"nodes typed exactly %d/%d (%.2f%%); values within torch.testing tolerances %d/%d (%.2f%%)",
		h.Torch, len(cases), skipped, errCases, parseFail, total.typed, total.nodes, pct(total.typed, total.nodes),
		total.valuesOK, total.values, pct(total.valuesOK, total.values))
	t.Log(summary)
	report := formatReport(summary, byTarget)
	if testing.Verbose() {
		t.Log("\n" + report)
	}
	if *update {
		require.NoError(t, os.WriteFile(reportFile, []byte(report), 0o644))
	}
	typedMin, valuesMin := readRatchet(t)
	if total.typed < typedMin || total.valuesOK < valuesMin {
		t.Errorf("conformance fell below the ratchet (%s): typed %d (ratchet %d), values %d (ratchet %d); see go test -v -run TestConformance ./internal/conformance",
			ratchetFile, total.typed, typedMin, total.valuesOK, valuesMin)
	}
	if total.typed > typedMin || total.valuesOK > valuesMin {
		t.Logf("conformance is above the ratchet: raise %s to \"typed %d\\nvalues %d\"", ratchetFile, total.typed, total.valuesOK)
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// readRatchet reads the committed minimum counts of nodes typed exactly
// and values that agree; they only go up.
func readRatchet(t *testing.T) (typed, values int) {
	src, err := os.ReadFile(ratchetFile)
	require.NoError(t, err)
	for _, line := range strings.Split(string(src), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		require.NoError(t, err, line)
		switch k {
		case "typed":
			typed = n
		case "values":
			values = n
		}
	}
	return typed, values
}

// formatReport is the agreement table, one row per op, worst first, then
// every miss with its reason and count.
func formatReport(summary string, byTarget map[string]*tally) string {
	var b strings.Builder
	b.WriteString("# Conformance of kiln with PyTorch's OpInfo samples (internal/conformance; go test ./internal/conformance -update rewrites this file)\n")
	b.WriteString("# " + summary + "\n\n")
	targets := make([]string, 0, len(byTarget))
	for k := range byTarget {
		targets = append(targets, k)
	}
	sort.Slice(targets, func(i, j int) bool {
		a, c := byTarget[targets[i]], byTarget[targets[j]]
		ma, mc := a.nodes-a.typed+a.values-a.valuesOK, c.nodes-c.typed+c.values-c.valuesOK
		if ma != mc {
			return ma > mc
		}
		return targets[i] < targets[j]
	})
	fmt.Fprintf(&b, "%-60s %14s %14s\n", "op", "typed", "values")
	for _, k := range targets {
		tt := byTarget[k]
		fmt.Fprintf(&b, "%-60s %6d/%-7d %6d/%-7d\n", k, tt.typed, tt.nodes, tt.valuesOK, tt.values)
	}
	b.WriteString("\n# Misses, by op: count × reason\n")
	for _, k := range targets {
		tt := byTarget[k]
		if len(tt.typeMiss)+len(tt.valueMiss) == 0 {
			continue
		}
		b.WriteString(k + "\n")
		writeMisses(&b, "type ", tt.typeMiss, tt.example)
		writeMisses(&b, "value", tt.valueMiss, tt.example)
	}
	return b.String()
}

// writeMisses lists an op's most frequent reasons; the rest are counted.
func writeMisses(b *strings.Builder, kind string, m map[string]int, example map[string]string) {
	const shown = 4
	rest, restN := 0, 0
	for i, r := range sortedMisses(m) {
		if i < shown {
			fmt.Fprintf(b, "  %s %4d × %s (e.g. %s)\n", kind, m[r], r, example[r])
			continue
		}
		rest++
		restN += m[r]
	}
	if rest > 0 {
		fmt.Fprintf(b, "  %s %4d × (%d other reasons)\n", kind, restN, rest)
	}
}

func sortedMisses(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// unparsed stands for the nodes of a case kiln could not parse: one miss
// per annotated statement, under the op it calls.
func unparsed(c *Case, err error) []NodeResult {
	var out []NodeResult
	why := reason("kiln cannot parse the graph: " + err.Error())
	for _, line := range strings.Split(c.FX, "\n") {
		_, rhs, ok := strings.Cut(line, "\" = ")
		if !ok || !strings.Contains(line, ": \"") {
			continue
		}
		target, _, _ := strings.Cut(strings.TrimPrefix(rhs, "torch.ops."), "(")
		if ns, rest, ok := strings.Cut(target, "."); ok && !strings.HasPrefix(rhs, "operator") {
			target = ns + "::" + rest
		}
		out = append(out, NodeResult{Target: target, TypeWhy: why, HasValue: c.Values[strings.TrimSpace(strings.Split(line, ":")[0])].Data != "", ValueWhy: why})
	}
	return out
}
