package passes

import (
	"fmt"
	"github.com/kiln-compiler/kiln/internal/suggest"
	"sort"
	"strings"
)

// Parse reads a pipeline: pass names separated by commas, each optionally
// followed by options in braces: `fakeprop,vmap{in_dims=None;0;size=4},dce`.
// Options are separated by ';' (commas separate passes). Unknown passes and
// unmet ordering constraints are reported here, before anything runs.
func Parse(text string) (*Pipeline, error) {
	p := &Pipeline{}
	items, err := splitPipeline(text)
	if err != nil {
		return nil, err
	}
	for _, item := range items {
		name, opts, err := parseItem(item)
		if err != nil {
			return nil, err
		}
		info, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("pipeline: unknown pass %q%s (known: %s)", name, didYouMean(name, allNames()), knownNames())
		}
		if err := checkOptions(info, opts); err != nil {
			return nil, err
		}
		step := Step{Info: info, Options: opts}
		if info.NewUnit != nil {
			step.Unit, err = info.NewUnit(opts)
		} else {
			step.Pass, err = info.New(opts)
		}
		if err != nil {
			return nil, fmt.Errorf("pipeline: pass %s: %w", name, err)
		}
		p.Steps = append(p.Steps, step)
	}
	if err := p.checkOrder(); err != nil {
		return nil, err
	}
	return p, nil
}

// splitPipeline splits on commas outside braces.
func splitPipeline(text string) ([]string, error) {
	var items []string
	depth, start := 0, 0
	for i, r := range text {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("pipeline: unbalanced '}' at column %d in %q", i+1, text)
			}
		case ',':
			if depth == 0 {
				items = append(items, text[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("pipeline: unclosed '{' in %q", text)
	}
	items = append(items, text[start:])
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			if strings.TrimSpace(text) == "" {
				return nil, nil
			}
			return nil, fmt.Errorf("pipeline: empty pass name in %q", text)
		}
		out = append(out, it)
	}
	return out, nil
}

func parseItem(item string) (string, Options, error) {
	name, rest, hasOpts := strings.Cut(item, "{")
	name = strings.TrimSpace(name)
	opts := Options{}
	if !hasOpts {
		return name, opts, nil
	}
	if !strings.HasSuffix(rest, "}") {
		return "", nil, fmt.Errorf("pipeline: options of %s must end with '}'", name)
	}
	body := strings.TrimSuffix(rest, "}")
	for _, kv := range strings.Split(body, ";") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=") // a bare KEY is a switch: fakeprop{capture-scalar-outputs}
		k = strings.TrimSpace(k)
		if _, dup := opts[k]; dup {
			return "", nil, fmt.Errorf("pipeline: option %q of %s is given twice", k, name)
		}
		opts[k] = strings.TrimSpace(v)
	}
	return name, opts, nil
}

func checkOptions(info Info, opts Options) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first unknown option named is the same on every run
	for _, k := range keys {
		known := false
		for _, o := range info.Options {
			known = known || o.Name == k
		}
		if !known {
			var names []string
			for _, o := range info.Options {
				names = append(names, o.Name)
			}
			return fmt.Errorf("pipeline: pass %s has no option %q%s (options: %s)", info.Name, k, didYouMean(k, names), strings.Join(names, ", "))
		}
	}
	return nil
}

// checkOrder enforces each pass's Requires: the required pass must appear
// earlier in the pipeline.
func (p *Pipeline) checkOrder() error {
	seen := map[string]bool{}
	for _, s := range p.Steps {
		for _, req := range s.Info.Requires {
			if !seen[req.Pass] {
				return fmt.Errorf("pipeline: %s must run after %s: %s", s.Info.Name, req.Pass, req.Reason)
			}
		}
		seen[s.Info.Name] = true
	}
	return nil
}

func allNames() []string {
	var names []string
	for _, info := range All() {
		names = append(names, info.Name)
	}
	return names
}

func knownNames() string {
	var names []string
	for _, info := range All() {
		names = append(names, info.Name)
	}
	return strings.Join(names, ", ")
}

func didYouMean(name string, candidates []string) string { return suggest.Hint(name, candidates) }
