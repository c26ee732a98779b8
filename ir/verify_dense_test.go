package ir

import (
	"fmt"
	"math/rand"
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
