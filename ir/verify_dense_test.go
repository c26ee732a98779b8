package ir

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/kiln-compiler/kiln/diag"
)

// verifyMaps is Verify without the dense index: the reference the dense
// path must agree with.
func verifyMaps(g *Graph, stage Stage) string {
	v := verifier{g: g, defined: map[*Value]bool{}, nodeIDs: map[int]bool{}, valueIDs: map[int]bool{}}
	v.run(stage)
	return fmt.Sprint(v.problems)
}

func verifyDense(g *Graph, stage Stage) (string, bool) {
	ix := newDenseIndex(g)
	if ix == nil {
		return "", false
	}
	v := verifier{g: g}
	v.runDense(stage, ix)
	return fmt.Sprint(v.problems), true
}

// TestVerifyDenseAgrees breaks random graphs in the ways passes break them
// (stale use lists, nodes removed under their users, foreign values,
// misordered nodes, bad outputs) and checks both verifier paths report the
// same problems in the same order.
func TestVerifyDenseAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	dense := 0
	for iter := 0; iter < 2000; iter++ {
		g := NewGraph("G")
		x := g.AddInput("x", Type{}, diag.Pos{})
		vals := []*Value{x}
		var nodes []*Node
		for i := 0; i < 12; i++ {
			a := vals[rng.Intn(len(vals))]
			b := vals[rng.Intn(len(vals))]
			args := []Arg{ValueArg(a), ListArg(ValueArg(b), IntArg(1))}
			n := g.Append(g.NewNode(fmt.Sprintf("n%d", i), "aten::add.Tensor", FormOp, args, nil, 1+rng.Intn(2)))
			nodes = append(nodes, n)
			vals = append(vals, n.Results...)
		}
		g.SetOutputs([]Arg{ValueArg(vals[len(vals)-1])})
		other := NewGraph("H")
		foreign := other.AddInput("y", Type{}, diag.Pos{})
		for k := rng.Intn(4); k > 0; k-- {
			switch rng.Intn(7) {
			case 0: // remove a node, users keep pointing at its results
				n := g.Nodes[rng.Intn(len(g.Nodes))]
				g.Nodes = append(g.Nodes[:0:0], removeNode(g.Nodes, n)...)
			case 1: // a stale use list
				v := vals[rng.Intn(len(vals))]
				v.users = append(v.users, nodes[0])
			case 2: // swap two nodes
				i, j := rng.Intn(len(g.Nodes)), rng.Intn(len(g.Nodes))
				g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i]
			case 3: // a foreign value, possibly with a live value's id
				n := g.Nodes[rng.Intn(len(g.Nodes))]
				foreign.ID = rng.Intn(g.nextValue)
				n.Args[0] = ValueArg(foreign)
			case 4: // an output that is not defined
				g.Outputs = append(g.Outputs, ValueArg(foreign))
			case 5: // a repeated value id: the map path only
				vals[rng.Intn(len(vals))].ID = vals[rng.Intn(len(vals))].ID
			case 6: // a wrong output use count
				vals[rng.Intn(len(vals))].outputUses++
			}
		}
		for _, stage := range []Stage{StageParsed, StageTyped} {
			want := verifyMaps(g, stage)
			got, ok := verifyDense(g, stage)
			if !ok {
				continue
			}
			dense++
			if got != want {
				t.Fatalf("iteration %d: dense path says\n%s\nmap path says\n%s", iter, got, want)
			}
		}
	}
	if dense < 1000 {
		t.Fatalf("the dense path ran %d times only", dense)
	}
}

func removeNode(ns []*Node, n *Node) []*Node {
	var out []*Node
	for _, m := range ns {
		if m != n {
			out = append(out, m)
		}
	}
	return out
}

// TestVerifyDenseParallelAgrees: on a graph large enough to be checked on
// several cores, the problems come out as the map path words and orders
// them.
func TestVerifyDenseParallelAgrees(t *testing.T) {
	defer runtimeProcs(4)()
	g := NewGraph("G")
	x := g.AddInput("x", Type{}, diag.Pos{})
	prev := x
	var nodes []*Node
	n := 3*parallelVerifyChunk + 11
	for i := 0; i < n; i++ {
		node := g.Append(g.NewNode(fmt.Sprintf("n%d", i), "aten::neg.default", FormOp, []Arg{ValueArg(prev), ListArg(ValueArg(x))}, nil, 1))
		nodes = append(nodes, node)
		prev = node.Results[0]
	}
	g.SetOutputs([]Arg{ValueArg(prev)})
	// Uses before definitions in every chunk, a stale use list, a result
	// not pointing back.
	for _, k := range []int{5, parallelVerifyChunk + 3, 2*parallelVerifyChunk - 1, n - 2} {
		nodes[k].Args[0] = ValueArg(nodes[k+1].Results[0])
	}
	nodes[77].Results[0].users = append(nodes[77].Results[0].users, nodes[3])
	nodes[2*parallelVerifyChunk+5].Results[0].Index = 3
	want := verifyMaps(g, StageParsed)
	got, ok := verifyDense(g, StageParsed)
	if !ok {
		t.Fatal("no dense index")
	}
	if got != want {
		t.Fatalf("parallel dense path says\n%.3000s\nmap path says\n%.3000s", got, want)
	}
	if !strings.Contains(got, "uses n6 before its definition") {
		t.Fatalf("missing problems: %.500s", got)
	}
}

func runtimeProcs(n int) func() {
	old := runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(old) }
}
