package ir

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/diag"
)

// eagerNamer is the namer as it was before it looked at the graph's names
// lazily: every name in a set up front. The lazy one must hand out the
// same names after any sequence of Fresh, Take and Release.
type eagerNamer struct {
	used map[string]bool
	next map[string]int
}

func (nm *eagerNamer) Fresh(base string) string {
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

func (nm *eagerNamer) Release(name string) {
	delete(nm.used, name)
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n >= 1 {
			if base := name[:i]; nm.next[base] > n {
				nm.next[base] = n
			}
		}
	}
}

func (nm *eagerNamer) Take(name string) { nm.used[name] = true }

func TestLazyNamerAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	bases := []string{"add", "add_1", "sum", "x", "x_2", "", "clone", "a_b", "a_b_1", "add_01"}
	pick := func() string {
		b := bases[rng.Intn(len(bases))]
		if rng.Intn(2) == 0 {
			b += "_" + strconv.Itoa(rng.Intn(4))
		}
		return b
	}
	for iter := 0; iter < 3000; iter++ {
		g := NewGraph("G")
		for i := rng.Intn(6); i > 0; i-- {
			g.AddInput(pick(), Type{}, diag.Pos{})
		}
		for i := rng.Intn(12); i > 0; i-- {
			n := g.NewNode(pick(), "aten::add.Tensor", FormOp, nil, nil, rng.Intn(3))
			for _, r := range n.Results {
				if rng.Intn(2) == 0 {
					r.Name = pick()
				}
			}
			g.Append(n)
		}
		lazy := NewNamer(g)
		eager := &eagerNamer{used: g.UsedNames(), next: map[string]int{}}
		var log []string
		for k := rng.Intn(20); k > 0; k-- {
			name := pick()
			switch rng.Intn(4) {
			case 0, 1:
				got, want := lazy.Fresh(name), eager.Fresh(name)
				log = append(log, fmt.Sprintf("Fresh(%q)=%q", name, want))
				if got != want {
					t.Fatalf("iteration %d: %v: lazy namer gave %q", iter, log, got)
				}
			case 2:
				lazy.Release(name)
				eager.Release(name)
				log = append(log, fmt.Sprintf("Release(%q)", name))
			case 3:
				lazy.Take(name)
				eager.Take(name)
				log = append(log, fmt.Sprintf("Take(%q)", name))
			}
		}
	}
}
